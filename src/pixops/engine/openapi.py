"""The OpenAPI 3.1 description of the external API, served at `GET /api/external/openapi.json`.

Built from the route table (method, path, permission come from `ROUTES`, so the two
cannot drift) plus what each operation takes and answers. The document is public, like
the API reference of any payment provider: it describes the contract, holds no data,
and is answered before the pipeline (no credentials, no rate limit).
"""

from __future__ import annotations

import functools
import re
from typing import Any, Final

from pixops._version import __version__
from pixops.engine.admin import add_to_openapi
from pixops.engine.events import EVENT_TYPES
from pixops.engine.http import encode_json
from pixops.engine.queries import DEFAULT_PER_PAGE, MAX_PER_PAGE, STATUS_FILTERS, TYPE_FILTERS
from pixops.engine.routes import ROUTES
from pixops.engine.routing import PREFIX

PATH: Final = PREFIX + "/openapi.json"
OPENAPI_VERSION: Final = "3.1.0"

Schema = dict[str, Any]

# -- schema helpers -------------------------------------------------------------


def _ref(kind: str, name: str) -> Schema:
    return {"$ref": f"#/components/{kind}/{name}"}


def _schema(name: str) -> Schema:
    return _ref("schemas", name)


def _nullable(schema: Schema) -> Schema:
    kind = schema.get("type")
    if isinstance(kind, str):
        return {**schema, "type": [kind, "null"]}
    return {"oneOf": [schema, {"type": "null"}]}


def _obj(
    properties: dict[str, Schema],
    required: tuple[str, ...] = (),
    *,
    description: str | None = None,
    closed: bool = False,
) -> Schema:
    schema: Schema = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    if closed:
        schema["additionalProperties"] = False
    if description:
        schema["description"] = description
    return schema


def _string(description: str | None = None, **extra: Any) -> Schema:
    schema: Schema = {"type": "string", **extra}
    if description:
        schema["description"] = description
    return schema


def _integer(description: str | None = None, **extra: Any) -> Schema:
    schema: Schema = {"type": "integer", **extra}
    if description:
        schema["description"] = description
    return schema


STRING: Final = _string()
TIMESTAMP: Final = _string("ISO 8601 UTC with milliseconds and Z", format="date-time")
BOOLEAN: Final = {"type": "boolean"}
TRUE: Final = {"type": "boolean", "const": True}
FALSE: Final = {"type": "boolean", "const": False}
BASE: Final = _integer("base units: 1.00 BRL = 10000 (1 centavo = 100)", format="int64")
CENTAVOS: Final = _integer("centavos: 1.00 BRL = 100", format="int64", minimum=1)
E2E: Final = _string(
    "end-to-end ID: E (payment) or D (return), 8-character institution code, then"
    " 22 to 26 letters or digits",
    pattern="^[ED][0-9A-Z]{8}[0-9A-Za-z]{22,26}$",
)
REFERENCE: Final = _string(
    "at most 128 characters of a-z A-Z 0-9 . _ : -", pattern="^[a-zA-Z0-9._:-]{1,128}$"
)


def _wrapped(data: Schema, *, paged: bool = False) -> Schema:
    """`{worked: true, data}` (plus page and per_page for lists)."""
    properties: dict[str, Schema] = {"worked": TRUE, "data": data}
    required: tuple[str, ...] = ("worked", "data")
    if paged:
        properties |= {"page": _integer(minimum=1), "per_page": _integer(minimum=1)}
        required += ("page", "per_page")
    return _obj(properties, required)


def _list_of(name: str) -> Schema:
    return _wrapped({"type": "array", "items": _schema(name)}, paged=True)


# -- components --------------------------------------------------------------------


def _error_schemas() -> dict[str, Schema]:
    """The spec's four error shapes, plus cash-out's Format A."""
    return {
        "PipelineError": _obj(
            {
                "error": _obj(
                    {
                        "status": _integer("the HTTP status repeated"),
                        "message": STRING,
                        "hint": _string("only on 415: what was received and what to send"),
                    },
                    ("status", "message"),
                )
            },
            ("error",),
            description="Content type (415), credentials (401), IP whitelist and account"
            " (403), X-Key-Case and idempotency (400/422), rate limit (429), body size (413).",
        ),
        "PermissionError": _obj(
            {
                "error": {"type": "string", "const": "forbidden"},
                "message": _string("API key lacks permission: <permission>"),
            },
            ("error", "message"),
            description="The key lacks the route's permission (403).",
        ),
        "DetailError": _obj(
            {"worked": FALSE, "detail": STRING},
            ("worked", "detail"),
            description="The HMAC check (400/401/403) and the 404 of a transaction query.",
        ),
        "BusinessError": _obj(
            {
                "worked": FALSE,
                "errors": {
                    "type": "object",
                    "description": "one atom (bad_request, not_found, unauthorized,"
                    " unprocessable_entity, method_not_allowed) with a message, or for"
                    " bad_request an object of field name to a list of messages",
                    "additionalProperties": {
                        "oneOf": [
                            STRING,
                            {
                                "type": "object",
                                "additionalProperties": {"type": "array", "items": STRING},
                            },
                        ]
                    },
                    "minProperties": 1,
                },
            },
            ("errors",),
            description="Business rules.",
        ),
        "PaymentRejection": _obj(
            {
                "worked": FALSE,
                "status": {"type": "string", "const": "failed"},
                "errors": {
                    "type": "array",
                    "minItems": 1,
                    "items": _obj(
                        {
                            "code": _string(
                                "pix_key_ambiguous, same_institution_transfer,"
                                " insufficient_balance, ceiling_exceeded, dict_key_not_found,"
                                " dict_key_blocked, dict_lookup_failed, dict_rate_limited,"
                                " dict_bucket_exhausted, provider_rejected,"
                                " provider_schema_error, provider_unknown_error"
                            ),
                            "message": _string("English text"),
                            "params": {
                                "oneOf": [
                                    {"type": "object"},
                                    {"type": "array", "maxItems": 0},
                                ],
                                "description": "details; `ceiling` in subcentavos for"
                                " ceiling_exceeded; an empty list for same_institution_transfer",
                            },
                        },
                        ("code", "message", "params"),
                    ),
                },
            },
            ("status", "errors"),
            description="Cash-out synchronous rejection, Format A (400 or 422).",
        ),
    }


def _resource_schemas() -> dict[str, Schema]:
    party = _obj(
        {
            "name": _nullable(STRING),
            "document": _nullable(_string("CPF masked as ***.123.456-**; CNPJ in full")),
            "key": _nullable(STRING),
            "ispb": _nullable(STRING),
            "bank_name": _nullable(STRING),
        }
    )
    return {
        "Balance": _obj(
            {
                "balance": {**BASE, "description": "ledger balance, base units"},
                "available_balance": {**BASE, "description": "ledger less holds and blocks"},
                "held_amount": {**BASE, "description": "in-flight outbound holds"},
                "blocked_amount": {**BASE, "description": "blocked by MED cases"},
                "safe_balance": {
                    **BASE,
                    "description": "the lower of balance and available_balance;"
                    " cash-out and refunds check against it",
                },
                "currency": {"type": "string", "const": "BRL"},
                "as_of": TIMESTAMP,
            },
            ("balance", "available_balance", "safe_balance", "currency", "as_of"),
        ),
        "CpfValidation": _obj(
            {"cpf": _string("the digits checked"), "valid": BOOLEAN}, ("cpf", "valid")
        ),
        "ChargeRequest": _obj(
            {
                "amount": {**CENTAVOS, "maximum": 999_999_999_999},
                "description": _string(maxLength=140),
                "expires_in": _integer("QR lifetime in seconds", minimum=60, maximum=2_592_000),
                "external_id": REFERENCE,
                "tag": _string(pattern="^[a-zA-Z0-9._:-]{1,64}$"),
                "payer": _obj(
                    {
                        "name": _string(maxLength=140),
                        "document": _string("a valid CPF or CNPJ"),
                    },
                    ("name", "document"),
                    closed=True,
                ),
            },
            ("amount",),
            closed=True,
        ),
        "Charge": _obj(
            {
                "transaction_id": _string("the QR's txid (query it with GET /transactions/:id)"),
                "tx_id": STRING,
                "type": {"type": "string", "const": "pix_qrcode"},
                "status": {"type": "string", "const": "pending"},
                "amount": BASE,
                "description": _nullable(STRING),
                "external_id": _nullable(STRING),
                "tag": _nullable(STRING),
                "recipient_key": STRING,
                "payer": _nullable(_obj({"name": STRING, "document": STRING})),
                "brcode": _string("EMV BR Code payload (copia e cola)"),
                "location": _string("dynamic QR payload location, without https://"),
                "expires_in": _integer("seconds"),
                "created_at": TIMESTAMP,
                "expires_at": TIMESTAMP,
            },
            ("transaction_id", "type", "status", "amount", "brcode", "created_at", "expires_at"),
        ),
        "PayoutRequest": _obj(
            {
                "amount": CENTAVOS,
                "pix_key": _string("recipient key"),
                "pix_key_type": {
                    "type": "string",
                    "enum": ["cpf", "cnpj", "email", "phone", "evp"],
                    "description": "auto-detected when omitted; an 11-digit key needs it",
                },
                "description": _string(maxLength=140),
                "external_id": _string(
                    "at most 128 characters of a-z A-Z 0-9 . _ : - after trimming;"
                    " an invalid value is dropped (external_id null), never refused"
                ),
                "recipient_ispb": _string(pattern="^[0-9]{8}$"),
                "end_to_end_id": {
                    **E2E,
                    "description": "optional; omit it to get a deterministic ID",
                },
                "purpose": _string(maxLength=140),
            },
            ("amount", "pix_key"),
        ),
        "PayoutResponse": _obj(
            {
                "worked": TRUE,
                "final": {**BOOLEAN, "description": "true when terminal (settled)"},
                "transaction_id": _string("PIXOUT + end-to-end ID"),
                "end_to_end_id": E2E,
                "external_id": _nullable(STRING),
                "amount": BASE,
                "fee_amount": BASE,
                "net_amount": {**BASE, "description": "amount + fee_amount: the gross debit"},
                "status": {
                    "type": "string",
                    "enum": ["accepted", "settled", "queued", "pending_approval"],
                },
                "detail": STRING,
                "type": {"type": "string", "const": "pix", "description": "queued only"},
                "outbound_request_id": _string("queued only", pattern="^[0-9A-F]{32}$"),
                "message": _string("queued only"),
                "reason_code": _string(
                    "queued only", enum=["DICT_CLIENT_RATE_LIMITED", "DICT_BUCKET_EXHAUSTED"]
                ),
                "estimated_retry_seconds": _integer("queued only"),
                "queue_ttl_seconds": _integer("queued only"),
            },
            (
                "worked",
                "final",
                "transaction_id",
                "end_to_end_id",
                "amount",
                "fee_amount",
                "net_amount",
                "status",
                "detail",
            ),
        ),
        "RefundRequest": _obj(
            {
                "original_transaction_id": _string(
                    "the received PIX; aliases, first match wins: original_e2e_id,"
                    " originalTransactionId, transaction_id, end_to_end_id"
                ),
                "amount": {**CENTAVOS, "description": "centavos; omitted means the full amount"},
                "reason": _string(
                    "central-bank refund code (alias return_code): MD06, BE08, AM09, SL02,"
                    " RR04, FR01; not validated here, a bad one fails later by webhook",
                    default="MD06",
                ),
                "description": _string(maxLength=140),
            },
            ("original_transaction_id",),
        ),
        "RefundResponse": _obj(
            {
                "worked": TRUE,
                "transaction_id": _string("PIXRET + the D end-to-end ID"),
                "end_to_end_id": E2E,
                "amount": BASE,
                "status": {"type": "string", "enum": ["accepted", "settled"]},
                "detail": STRING,
            },
            ("worked", "transaction_id", "end_to_end_id", "amount", "status", "detail"),
        ),
        "Transaction": _obj(
            {
                "id": _string("32 lowercase hex when settled; a UUID in other shapes"),
                "transaction_id": STRING,
                "end_to_end_id": _nullable(STRING),
                "external_id": _nullable(STRING),
                "tag": _nullable(STRING),
                "type": {"type": "string", "enum": ["pix", "pix_qrcode", "pix_return"]},
                "status": {
                    "type": "string",
                    "enum": ["settled", "pending", "expired", "cancelled", "failed", "processing"],
                },
                "payment_status": _string("failed and outbound shapes"),
                "amount": BASE,
                "fee_amount": BASE,
                "net_amount": BASE,
                "description": _nullable(STRING),
                "direction": {"type": "string", "enum": ["inbound", "outbound", "credit"]},
                "counterparty_name": _nullable(STRING),
                "payer_document": _nullable(STRING),
                "recipient_document": _nullable(STRING),
                "recipient_key": _nullable(STRING),
                "payer_ispb": _nullable(STRING),
                "payer_bank_name": _nullable(STRING),
                "original_transaction_id": _nullable(STRING),
                "failure_reason": _string("failed inbound shape"),
                "reason_code": _nullable(STRING),
                "reason_description": _nullable(STRING),
                "recipient": {**party, "description": "failed inbound shape"},
                "started_at": TIMESTAMP,
                "failed_at": _nullable(TIMESTAMP),
                "created_at": TIMESTAMP,
                "completed_at": _nullable(TIMESTAMP),
            },
            ("transaction_id", "status", "amount", "type", "direction"),
            description="One of the shapes of the spec: default (settled), failed inbound,"
            " reduced QR-derived (type pix_qrcode, direction credit), QR fallback, and the"
            " outbound query shape (processing / failed with reason_code).",
        ),
        "StatementItem": _obj(
            {
                "id": _string("UUID"),
                "transaction_id": STRING,
                "end_to_end_id": STRING,
                "external_id": _nullable(STRING),
                "tag": _nullable(_string("GET /transactions only")),
                "type": {"type": "string", "enum": list(TYPE_FILTERS)},
                "status": _string("display status: completed, pending, rejected, failed"),
                "payment_status": {"type": "string", "enum": list(STATUS_FILTERS)},
                "amount": BASE,
                "fee_amount": BASE,
                "net_amount": {
                    **BASE,
                    "description": "outbound amount + fee (total debit); inbound amount - fee",
                },
                "description": _nullable(STRING),
                "direction": {"type": "string", "enum": ["inbound", "outbound"]},
                "counterparty_name": _nullable(STRING),
                "recipient_key": _nullable(STRING),
                "payer_document": _nullable(STRING),
                "recipient_document": _nullable(STRING),
                "payer_ispb": _nullable(STRING),
                "payer_bank_name": _nullable(STRING),
                "created_at": TIMESTAMP,
                "completed_at": _nullable(TIMESTAMP),
            },
            ("id", "transaction_id", "type", "status", "amount", "direction", "created_at"),
        ),
        "Receipt": _obj(
            {
                "receipt_id": STRING,
                "transaction_id": STRING,
                "end_to_end_id": STRING,
                "external_id": _nullable(STRING),
                "type": STRING,
                "direction": {"type": "string", "enum": ["inbound", "outbound"]},
                "status": {"type": "string", "const": "settled"},
                "amount": BASE,
                "fee_amount": BASE,
                "net_amount": BASE,
                "description": _nullable(STRING),
                "original_transaction_id": _nullable(STRING),
                "payer": party,
                "recipient": party,
                "created_at": TIMESTAMP,
                "completed_at": TIMESTAMP,
                "authentication_code": _string(
                    "SHA-256 hex of the receipt's canonical JSON without this field",
                    pattern="^[0-9a-f]{64}$",
                ),
            },
            ("receipt_id", "transaction_id", "amount", "authentication_code"),
        ),
        "PixKey": _obj(
            {
                "key": STRING,
                "key_type": {"type": "string", "enum": ["cpf", "cnpj", "email", "phone", "evp"]},
                "status": STRING,
                "created_at": TIMESTAMP,
                "owner_name": STRING,
                "ispb": STRING,
            },
            ("key", "key_type"),
        ),
        "WebhookRequest": _obj(
            {
                "url": _string("http(s) endpoint, at most 2048 characters", format="uri"),
                "event_types": {
                    "type": "array",
                    "minItems": 1,
                    "items": {"type": "string", "enum": [*EVENT_TYPES, "*"]},
                    "description": 'omit or ["*"] for every event',
                },
                "description": _nullable(_string(maxLength=140)),
            },
            ("url",),
            closed=True,
        ),
        "Webhook": _obj(
            {
                "id": STRING,
                "url": STRING,
                "event_types": {"type": "array", "items": STRING},
                "active": BOOLEAN,
                "description": _nullable(STRING),
                "created_at": TIMESTAMP,
                "disabled_at": _nullable(TIMESTAMP),
                "secret": _string("only in the creation response: whsec_ + base64"),
            },
            ("id", "url", "event_types", "active", "created_at"),
        ),
        "WebhookDeleted": _obj({"id": STRING, "deleted": TRUE}, ("id", "deleted")),
        "MedCase": _obj(
            {
                "id": STRING,
                "transaction_id": STRING,
                "end_to_end_id": STRING,
                "amount": BASE,
                "blocked_amount": BASE,
                "reason": STRING,
                "details": _nullable(STRING),
                "status": {
                    "type": "string",
                    "enum": ["OPEN", "ACKNOWLEDGED", "CLOSED", "CANCELLED"],
                },
                "opened_at": TIMESTAMP,
                "defense_deadline": TIMESTAMP,
                "defense": _nullable(STRING),
                "defended_at": _nullable(TIMESTAMP),
                "analysis_result": {
                    "type": ["string", "null"],
                    "enum": ["AGREED", "DISAGREED", None],
                },
                "analysis_details": _nullable(STRING),
                "closed_at": _nullable(TIMESTAMP),
                "refund_transaction_id": _nullable(STRING),
            },
            ("id", "transaction_id", "status", "amount"),
        ),
        "DefenseRequest": _obj(
            {"defense": _string(minLength=1, maxLength=2000)}, ("defense",), closed=True
        ),
    }


def _parameters() -> dict[str, Schema]:
    def header(name: str, description: str, schema: Schema, required: bool = False) -> Schema:
        return {
            "name": name,
            "in": "header",
            "required": required,
            "description": description,
            "schema": schema,
        }

    def query(name: str, description: str, schema: Schema) -> Schema:
        return {
            "name": name,
            "in": "query",
            "required": False,
            "description": description,
            "schema": schema,
        }

    return {
        "Hmac": header(
            "hmac",
            "lowercase hex HMAC-SHA512 of the body keyed with the client secret; the server"
            " also accepts the signature of the body with keys sorted alphabetically",
            _string(pattern="^[0-9a-f]{128}$"),
            required=True,
        ),
        "IdempotencyKey": header(
            "Idempotency-Key",
            "replays the first 2xx answer for 24 h (scope: method, path, key); reused with a"
            " different body gives 422",
            _string(minLength=1, maxLength=256),
        ),
        "XKeyCase": header(
            "X-Key-Case",
            "camelCase: request keys accepted and every response key returned in camelCase",
            {"type": "string", "enum": ["camelCase", "snake_case"]},
        ),
        "XForwardedFor": header(
            "X-Forwarded-For",
            "honoured only when the TCP peer is a trusted proxy",
            STRING,
        ),
        "Page": query("page", "page number, from 1", _integer(minimum=1, default=1)),
        "PerPage": query(
            "per_page",
            "items per page",
            _integer(minimum=1, maximum=MAX_PER_PAGE, default=DEFAULT_PER_PAGE),
        ),
        "Status": query(
            "status",
            "filters the payment_status column",
            {"type": "string", "enum": list(STATUS_FILTERS)},
        ),
        "Type": query("type", "movement type", {"type": "string", "enum": list(TYPE_FILTERS)}),
        "DateFrom": query("date_from", "YYYY-MM-DD, UTC", _string(format="date")),
        "DateTo": query("date_to", "YYYY-MM-DD, UTC; the whole day", _string(format="date")),
    }


def _headers() -> dict[str, Schema]:
    return {
        "RateLimitRemaining": {
            "description": "requests left in the current 60-second window",
            "schema": _integer(minimum=0),
        },
        "RetryAfter": {"description": "seconds to wait", "schema": _integer(const=60)},
        "IdempotencyKey": {"description": "echoes the key sent", "schema": STRING},
        "IdempotentReplay": {
            "description": "true when this is a replay of the first answer",
            "schema": {"type": "string", "const": "true"},
        },
    }


def _error_response(description: str, *shapes: str, headers: Schema | None = None) -> Schema:
    schema = _schema(shapes[0]) if len(shapes) == 1 else {"oneOf": [_schema(s) for s in shapes]}
    response: Schema = {
        "description": description,
        "content": {"application/json": {"schema": schema}},
    }
    if headers:
        response["headers"] = headers
    return response


def _responses() -> dict[str, Schema]:
    return {
        "BadRequest": _error_response(
            "bad input: X-Key-Case or Idempotency-Key (error shape), HMAC body (detail"
            " shape), business validation (errors shape)",
            "PipelineError",
            "DetailError",
            "BusinessError",
        ),
        "Unauthorized": _error_response(
            "missing, invalid, inactive or expired credentials; missing or invalid HMAC",
            "PipelineError",
            "DetailError",
        ),
        "Forbidden": _error_response(
            "IP not whitelisted, empty whitelist or inactive account (error shape); key"
            " without HMAC secret (detail shape); missing permission (forbidden shape)",
            "PipelineError",
            "DetailError",
            "PermissionError",
        ),
        "PayloadTooLarge": _error_response("body over 1 MiB", "PipelineError"),
        "UnsupportedMediaType": _error_response(
            "POST without Content-Type application/json (or multipart/form-data)",
            "PipelineError",
        ),
        "TooManyRequests": _error_response(
            "over the per-IP limit of the current 60-second window",
            "PipelineError",
            headers={"Retry-After": _ref("headers", "RetryAfter")},
        ),
        "IdempotencyConflict": _error_response(
            "Idempotency-Key reused with a different body (error shape), or a business"
            " rule refused the request (errors shape)",
            "PipelineError",
            "BusinessError",
        ),
        "InternalError": _error_response("unexpected fault; nothing was written", "PipelineError"),
    }


# -- operations --------------------------------------------------------------------

_PAGED = ("Page", "PerPage")
_LIST = (*_PAGED, "Status", "Type", "DateFrom", "DateTo")


class _Op:
    """What the route table does not say about one operation."""

    def __init__(
        self,
        summary: str,
        tag: str,
        success: tuple[int, str, Schema],
        *,
        body: str | None = None,
        query: tuple[str, ...] = (),
        errors: tuple[int, ...] = (),
        description: str | None = None,
    ) -> None:
        self.summary = summary
        self.tag = tag
        self.success = success
        self.body = body
        self.query = query
        self.errors = errors
        self.description = description


def _data(name: str) -> Schema:
    return _wrapped(_schema(name))


OPERATIONS: Final[dict[tuple[str, str], _Op]] = {
    ("POST", "/pix/cash-in"): _Op(
        "Create a charge (dynamic QR code)",
        "cash-in",
        (201, "the pending charge", _data("Charge")),
        body="ChargeRequest",
        errors=(422,),
    ),
    ("POST", "/pix/cash-out"): _Op(
        "Send a PIX by key (cash-out)",
        "cash-out",
        (
            202,
            "accepted, queued or pending approval (200 when settled at once)",
            _schema("PayoutResponse"),
        ),
        body="PayoutRequest",
        errors=(422,),
        description="Rejections are Format A (`status: failed`, `errors[]`, HTTP 400 or 422)"
        " or Format B (`errors.bad_request`, HTTP 400). A DICT limit answers 202 queued.",
    ),
    ("POST", "/pix/refund"): _Op(
        "Refund a received PIX, total or partial",
        "refunds",
        (202, "accepted (200 when settled)", _schema("RefundResponse")),
        body="RefundRequest",
        errors=(404, 422),
    ),
    ("POST", "/med/:id/defense"): _Op(
        "Submit the defense of an open MED case",
        "med",
        (200, "the case with its defense", _data("MedCase")),
        body="DefenseRequest",
        errors=(404, 422),
    ),
    ("POST", "/cpf/validate"): _Op(
        "Validate a CPF's check digits",
        "account",
        (200, "the verdict", _data("CpfValidation")),
        body="CpfRequest",
    ),
    ("POST", "/webhooks"): _Op(
        "Create a webhook subscription",
        "webhooks",
        (201, "the subscription with its signing secret, shown this once", _data("Webhook")),
        body="WebhookRequest",
        errors=(422,),
    ),
    ("GET", "/webhooks"): _Op(
        "List webhook subscriptions",
        "webhooks",
        (
            200,
            "every subscription not deleted, without secrets",
            _wrapped({"type": "array", "items": _schema("Webhook")}),
        ),
    ),
    ("DELETE", "/webhooks/:id"): _Op(
        "Delete a webhook subscription",
        "webhooks",
        (200, "deleted", _data("WebhookDeleted")),
        errors=(404,),
    ),
    ("GET", "/balance"): _Op(
        "Read the balance",
        "account",
        (200, "the balance figures", _data("Balance")),
        description="Not rate limited (high-frequency polling allowed).",
    ),
    ("GET", "/transactions"): _Op(
        "List transactions",
        "transactions",
        (200, "a page of transactions, newest first", _list_of("StatementItem")),
        query=_LIST,
    ),
    ("GET", "/transactions/:id"): _Op(
        "Query a transaction by transaction_id (or a QR's txid)",
        "transactions",
        (200, "the transaction in the shape its state calls for", _data("Transaction")),
        errors=(404,),
    ),
    ("GET", "/transactions/e2e/:e2e_id"): _Op(
        "Query a transaction by end-to-end ID",
        "transactions",
        (200, "the transaction", _data("Transaction")),
        errors=(404,),
    ),
    ("GET", "/transactions/tag/:tag"): _Op(
        "List transactions with a tag",
        "transactions",
        (200, "a page of transactions", _list_of("Transaction")),
        query=_PAGED,
    ),
    ("GET", "/transactions/ref/:external_id"): _Op(
        "List transactions with an external ID",
        "transactions",
        (200, "a page of transactions", _list_of("Transaction")),
        query=_PAGED,
    ),
    ("GET", "/transactions/:id/receipt"): _Op(
        "Fetch the receipt of a settled transaction",
        "transactions",
        (200, "the receipt", _data("Receipt")),
        errors=(404, 422),
    ),
    ("GET", "/pix/keys"): _Op(
        "List the account's PIX keys",
        "account",
        (200, "the keys", _wrapped({"type": "array", "items": _schema("PixKey")})),
    ),
    ("GET", "/med"): _Op(
        "List MED cases",
        "med",
        (200, "a page of cases, newest first", _list_of("MedCase")),
        query=(
            *_PAGED,
            "MedStatus",
            "MedTransactionId",
        ),
    ),
    ("GET", "/med/:id"): _Op(
        "Read a MED case", "med", (200, "the case", _data("MedCase")), errors=(404,)
    ),
    ("GET", "/statement"): _Op(
        "List the account statement",
        "statement",
        (
            200,
            "a page of movements, newest first; page 1 includes in-flight cash-outs",
            _list_of("StatementItem"),
        ),
        query=_LIST,
    ),
}


def _path_template(pattern: str) -> tuple[str, list[str]]:
    names = re.findall(r":([a-z_0-9]+)", pattern)
    return re.sub(r":([a-z_0-9]+)", r"{\1}", pattern), names


def _operation(method: str, pattern: str, permission: str, handler_name: str) -> Schema:
    op = OPERATIONS[(method, pattern)]
    _, path_names = _path_template(pattern)
    parameters: list[Schema] = [
        {"name": name, "in": "path", "required": True, "schema": STRING} for name in path_names
    ]
    parameters += [_ref("parameters", name) for name in op.query]
    parameters.append(_ref("parameters", "XKeyCase"))
    parameters.append(_ref("parameters", "XForwardedFor"))
    is_post = method == "POST"
    limited = not (method == "GET" and pattern == "/balance")
    if is_post:
        parameters += [_ref("parameters", "Hmac"), _ref("parameters", "IdempotencyKey")]
    status, description, schema = op.success
    success_headers: dict[str, Schema] = {}
    if limited:
        success_headers["x-ratelimit-remaining"] = _ref("headers", "RateLimitRemaining")
    if is_post:
        success_headers["Idempotency-Key"] = _ref("headers", "IdempotencyKey")
        success_headers["X-Idempotent-Replay"] = _ref("headers", "IdempotentReplay")
    success: Schema = {
        "description": description,
        "content": {"application/json": {"schema": schema}},
    }
    if success_headers:
        success["headers"] = success_headers
    responses: dict[str, Schema] = {str(status): success}
    if method == "POST" and pattern == "/pix/cash-out":
        responses["200"] = {**success, "description": "settled at once (final true)"}
        responses["400"] = _error_response(
            "Format B (`errors.bad_request`), Format A (DICT and provider refusals), or the"
            " pipeline's bad input",
            "BusinessError",
            "PaymentRejection",
            "PipelineError",
            "DetailError",
        )
        responses["422"] = _error_response(
            "Format A: pix_key_ambiguous, same_institution_transfer, insufficient_balance,"
            " ceiling_exceeded; or an Idempotency-Key reused with another body",
            "PaymentRejection",
            "PipelineError",
        )
    else:
        responses["400"] = _ref("responses", "BadRequest")
    responses["401"] = _ref("responses", "Unauthorized")
    responses["403"] = _ref("responses", "Forbidden")
    if 404 in op.errors:
        not_found = "DetailError" if pattern.startswith("/transactions/") else "BusinessError"
        responses["404"] = _error_response("not found (or another merchant's)", not_found)
    if is_post:
        responses["413"] = _ref("responses", "PayloadTooLarge")
        responses["415"] = _ref("responses", "UnsupportedMediaType")
        responses.setdefault("422", _ref("responses", "IdempotencyConflict"))
    elif 422 in op.errors:
        responses["422"] = _error_response("refused by a business rule", "BusinessError")
    if limited:
        responses["429"] = _ref("responses", "TooManyRequests")
    responses["500"] = _ref("responses", "InternalError")
    operation: Schema = {
        "operationId": handler_name,
        "summary": op.summary,
        "tags": [op.tag],
        "x-permission": permission,
        "description": (op.description + "\n\n" if op.description else "")
        + f"Requires the key permission `{permission}`."
        + ("" if limited else " Skips the rate limiter, HMAC and idempotency steps."),
        "parameters": parameters,
        "responses": responses,
    }
    if op.body is not None:
        operation["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": _schema(op.body)}},
        }
    return operation


def build_openapi() -> dict[str, Any]:
    """The whole document, one operation per route of the router."""
    paths: dict[str, dict[str, Schema]] = {}
    for route in ROUTES:
        template, _ = _path_template(route.pattern)
        paths.setdefault(template, {})[route.method.lower()] = _operation(
            route.method, route.pattern, route.permission, route.handler.__name__
        )
    paths["/openapi.json"] = {
        "get": {
            "operationId": "openapi_document",
            "summary": "This document",
            "tags": ["meta"],
            "security": [],
            "description": "Public: no credentials, no rate limit.",
            "responses": {
                "200": {
                    "description": "the OpenAPI 3.1 document",
                    "content": {"application/json": {"schema": {"type": "object"}}},
                }
            },
        }
    }
    parameters = _parameters()
    parameters["MedStatus"] = {
        "name": "status",
        "in": "query",
        "required": False,
        "description": "case status",
        "schema": {"type": "string", "enum": ["OPEN", "ACKNOWLEDGED", "CLOSED", "CANCELLED"]},
    }
    parameters["MedTransactionId"] = {
        "name": "transaction_id",
        "in": "query",
        "required": False,
        "description": "the disputed transaction",
        "schema": STRING,
    }
    schemas = {
        **_error_schemas(),
        **_resource_schemas(),
        "CpfRequest": _obj({"cpf": _string("digits, with or without . and -")}, ("cpf",)),
    }
    return {
        "openapi": OPENAPI_VERSION,
        "jsonSchemaDialect": "https://spec.openapis.org/oas/3.1/dialect/base",
        "info": {
            "title": "PIX account external API (pixops engine)",
            "version": __version__,
            "summary": "Instant-payment (PIX) account operated over JSON/HTTPS",
            "description": "Requests carry money in centavos (1.00 BRL = 100); responses and"
            " webhooks in base units (1.00 BRL = 10000). Timestamps are ISO 8601 UTC with Z."
            " Keys are snake_case unless `X-Key-Case: camelCase`. Every request is"
            " authenticated (`Authorization: ApiKey <client_id>:<client_secret>` or Basic),"
            " the caller's IP must be on the key's whitelist, and POST bodies are signed"
            " (`hmac`). Validation order: content type, X-Key-Case, credentials, IP"
            " whitelist, HMAC (POST), rate limit (not on GET /balance), idempotency (POST),"
            " permission.",
            "license": {"name": "MIT", "identifier": "MIT"},
        },
        "servers": [{"url": PREFIX, "description": "relative to the service's base URL"}],
        "security": [{"ApiKey": []}, {"Basic": []}],
        "tags": [
            {"name": name}
            for name in (
                "cash-in",
                "cash-out",
                "refunds",
                "transactions",
                "statement",
                "account",
                "webhooks",
                "med",
                "meta",
            )
        ],
        "paths": paths,
        "components": {
            "securitySchemes": {
                "ApiKey": {
                    "type": "apiKey",
                    "in": "header",
                    "name": "Authorization",
                    "description": "`ApiKey <client_id>:<client_secret>`",
                },
                "Basic": {
                    "type": "http",
                    "scheme": "basic",
                    "description": "`Basic base64(<client_id>:<client_secret>)`",
                },
            },
            "schemas": schemas,
            "parameters": parameters,
            "headers": _headers(),
            "responses": _responses(),
        },
    }


@functools.cache
def document_bytes() -> bytes:
    """The document as served: compact UTF-8 JSON, built once."""
    return encode_json(add_to_openapi(build_openapi()))
