"""The OpenAPI 3.1 description of the external API, served at `GET /api/external/openapi.json`.

Generated: the request and response bodies are the wire models of `pixops.schema` (one
pydantic model per shape, the same ones the client parses with), and the operations come
from the route table (method, path, permission from `ROUTES`), so neither can drift from
the engine. This module adds only what HTTP needs around them: parameters, headers,
which error shapes each status can carry. Limits come from `pixops.limits`. The document
is public, like any payment provider's API reference: no credentials, no rate limit.
"""

from __future__ import annotations

import functools
import re
from typing import Any, Final

from pixops import limits
from pixops._version import __version__
from pixops.engine.admin import add_to_openapi
from pixops.engine.config import SERVICE_ISPB
from pixops.engine.http import Response, encode_json
from pixops.engine.openapi_camel import camel_case_document, link_camel_case_document
from pixops.engine.openapi_components import (
    STRING,
    Schema,
    component_headers,
    component_parameters,
    component_responses,
    error_response,
    ref,
    schema_ref,
    string_schema,
)
from pixops.engine.routes import ROUTES
from pixops.engine.routing import PREFIX
from pixops.schema import (
    FORMAT_END_TO_END_ID,
    FORMAT_MED_CASE_ID,
    FORMAT_TRANSACTION_ID,
    FORMAT_WEBHOOK_ID,
    component_schemas,
    end_to_end_pattern,
)

PATH: Final = PREFIX + "/openapi.json"
_JSON: Final = (("content-type", "application/json"),)
OPENAPI_VERSION: Final = "3.1.0"

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


OPERATIONS: Final[dict[tuple[str, str], _Op]] = {
    ("POST", "/pix/cash-in"): _Op(
        "Create a charge (dynamic QR code)",
        "cash-in",
        (201, "the pending charge", schema_ref("ChargeResponse")),
        body="ChargeRequest",
        errors=(422,),
    ),
    ("POST", "/pix/cash-out"): _Op(
        "Send a PIX by key (cash-out)",
        "cash-out",
        (
            202,
            "accepted, queued or pending approval (200 when settled at once)",
            schema_ref("PayoutResponse"),
        ),
        body="PayoutRequest",
        errors=(422,),
        description="Rejections are Format A (`status: failed`, `errors[]`, HTTP 400 or 422)"
        " or Format B (`errors.bad_request`, HTTP 400). A DICT limit answers 202 queued.",
    ),
    ("POST", "/pix/refund"): _Op(
        "Refund a received PIX, total or partial",
        "refunds",
        (202, "accepted (200 when settled)", schema_ref("Refund")),
        body="RefundRequest",
        errors=(404, 422),
    ),
    ("POST", "/med/:id/defense"): _Op(
        "Submit the defense of an open MED case",
        "med",
        (200, "the case with its defense", schema_ref("MedCaseResponse")),
        body="DefenseRequest",
        errors=(404, 422),
    ),
    ("POST", "/cpf/validate"): _Op(
        "Validate a CPF's check digits",
        "account",
        (200, "the verdict", schema_ref("CpfValidationResponse")),
        body="CpfRequest",
    ),
    ("POST", "/webhooks"): _Op(
        "Create a webhook subscription",
        "webhooks",
        (
            201,
            "the subscription with its signing secret, shown this once",
            schema_ref("WebhookResponse"),
        ),
        body="WebhookRequest",
        errors=(422,),
    ),
    ("GET", "/webhooks"): _Op(
        "List webhook subscriptions",
        "webhooks",
        (
            200,
            "every subscription not deleted, without secrets",
            schema_ref("WebhookListResponse"),
        ),
    ),
    ("DELETE", "/webhooks/:id"): _Op(
        "Delete a webhook subscription",
        "webhooks",
        (200, "deleted", schema_ref("WebhookDeletedResponse")),
        errors=(404,),
    ),
    ("GET", "/balance"): _Op(
        "Read the balance",
        "account",
        (200, "the balance figures", schema_ref("BalanceResponse")),
        description="Not rate limited (high-frequency polling allowed).",
    ),
    ("GET", "/transactions"): _Op(
        "List transactions",
        "transactions",
        (200, "a page of transactions, newest first", schema_ref("StatementPage")),
        query=_LIST,
    ),
    ("GET", "/transactions/:id"): _Op(
        "Query a transaction by transaction_id (or a QR's txid)",
        "transactions",
        (
            200,
            "the transaction in the shape its state calls for",
            schema_ref("TransactionResponse"),
        ),
        errors=(404,),
    ),
    ("GET", "/transactions/e2e/:e2e_id"): _Op(
        "Query a transaction by end-to-end ID",
        "transactions",
        (200, "the transaction", schema_ref("TransactionResponse")),
        errors=(404,),
    ),
    ("GET", "/transactions/tag/:tag"): _Op(
        "List transactions with a tag",
        "transactions",
        (200, "a page of transactions", schema_ref("TransactionPage")),
        query=_PAGED,
    ),
    ("GET", "/transactions/ref/:external_id"): _Op(
        "List transactions with an external ID",
        "transactions",
        (200, "a page of transactions", schema_ref("TransactionPage")),
        query=_PAGED,
    ),
    ("GET", "/transactions/:id/receipt"): _Op(
        "Fetch the receipt of a settled transaction",
        "transactions",
        (200, "the receipt", schema_ref("ReceiptResponse")),
        errors=(404, 422),
    ),
    ("GET", "/pix/keys"): _Op(
        "List the account's PIX keys",
        "account",
        (200, "the keys", schema_ref("PixKeysResponse")),
    ),
    ("GET", "/med"): _Op(
        "List MED cases",
        "med",
        (200, "a page of cases, newest first", schema_ref("MedCasePage")),
        query=(
            *_PAGED,
            "MedStatus",
            "MedTransactionId",
        ),
    ),
    ("GET", "/med/:id"): _Op(
        "Read a MED case", "med", (200, "the case", schema_ref("MedCaseResponse")), errors=(404,)
    ),
    ("GET", "/statement"): _Op(
        "List the account statement",
        "statement",
        (
            200,
            "a page of movements, newest first; page 1 includes in-flight cash-outs",
            schema_ref("StatementPage"),
        ),
        query=_LIST,
    ),
}


#: Path parameters: the rule the service checks before any lookup (an id outside it is a
#: 400, never a 404) and, as `format`, what kind of id the service looks up.
_PATH_PARAMETERS: Final[dict[tuple[str, str], Schema]] = {
    ("/transactions/e2e/:e2e_id", "e2e_id"): string_schema(
        "end-to-end ID: E (payment) or D (refund), the 8-digit institution code, then 22 to"
        " 26 letters or digits",
        pattern="^[ED][0-9]{8}[0-9A-Za-z]{22,26}$",
        format=FORMAT_END_TO_END_ID,
    ),
    ("/transactions/tag/:tag", "tag"): string_schema(
        pattern=f"^[a-zA-Z0-9._:-]{{1,{limits.TAG_MAX_CHARS}}}$"
    ),
    ("/transactions/ref/:external_id", "external_id"): string_schema(
        pattern=f"^[a-zA-Z0-9._:-]{{1,{limits.EXTERNAL_ID_MAX_CHARS}}}$"
    ),
    ("/transactions/:id", "id"): string_schema(
        "a transaction_id, or a QR's tx_id", format=FORMAT_TRANSACTION_ID
    ),
    ("/transactions/:id/receipt", "id"): string_schema(
        "a transaction_id", format=FORMAT_TRANSACTION_ID
    ),
    ("/med/:id", "id"): string_schema("a MED case id", format=FORMAT_MED_CASE_ID),
    ("/med/:id/defense", "id"): string_schema("a MED case id", format=FORMAT_MED_CASE_ID),
    ("/webhooks/:id", "id"): string_schema("a subscription id", format=FORMAT_WEBHOOK_ID),
}


def _path_template(pattern: str) -> tuple[str, list[str]]:
    names = re.findall(r":([a-z_0-9]+)", pattern)
    return re.sub(r":([a-z_0-9]+)", r"{\1}", pattern), names


def _operation(method: str, pattern: str, permission: str, handler_name: str) -> Schema:
    op = OPERATIONS[(method, pattern)]
    _, path_names = _path_template(pattern)
    parameters: list[Schema] = [
        {
            "name": name,
            "in": "path",
            "required": True,
            "schema": _PATH_PARAMETERS.get((pattern, name), STRING),
        }
        for name in path_names
    ]
    parameters += [ref("parameters", name) for name in op.query]
    parameters.append(ref("parameters", "XKeyCase"))
    parameters.append(ref("parameters", "XForwardedFor"))
    is_post = method == "POST"
    limited = not (method == "GET" and pattern == "/balance")
    if is_post:
        parameters += [ref("parameters", "Hmac"), ref("parameters", "IdempotencyKey")]
    status, description, schema = op.success
    success_headers: dict[str, Schema] = {}
    if limited:
        success_headers["x-ratelimit-remaining"] = ref("headers", "RateLimitRemaining")
    if is_post:
        success_headers["Idempotency-Key"] = ref("headers", "IdempotencyKey")
        success_headers["X-Idempotent-Replay"] = ref("headers", "IdempotentReplay")
    success: Schema = {
        "description": description,
        "content": {"application/json": {"schema": schema}},
    }
    if success_headers:
        success["headers"] = success_headers
    responses: dict[str, Schema] = {str(status): success}
    if method == "POST" and pattern == "/pix/cash-out":
        responses["200"] = {**success, "description": "settled at once (final true)"}
        responses["400"] = error_response(
            "Format B (`errors.bad_request`), Format A (DICT and provider refusals), or the"
            " pipeline's bad input",
            "BusinessError",
            "PaymentRejection",
            "PipelineError",
            "DetailError",
        )
        responses["422"] = error_response(
            "Format A: pix_key_ambiguous, same_institution_transfer, insufficient_balance,"
            " ceiling_exceeded; or an Idempotency-Key reused with another body",
            "PaymentRejection",
            "PipelineError",
        )
    else:
        responses["400"] = ref("responses", "BadRequest")
    responses["401"] = ref("responses", "Unauthorized")
    responses["403"] = ref("responses", "Forbidden")
    if 404 in op.errors:
        not_found = "DetailError" if pattern.startswith("/transactions/") else "BusinessError"
        responses["404"] = error_response("not found (or another merchant's)", not_found)
    if is_post:
        responses["413"] = ref("responses", "PayloadTooLarge")
        responses["415"] = ref("responses", "UnsupportedMediaType")
        responses.setdefault("422", ref("responses", "IdempotencyConflict"))
    elif 422 in op.errors:
        responses["422"] = error_response("refused by a business rule", "BusinessError")
    if limited:
        responses["429"] = ref("responses", "TooManyRequests")
    responses["500"] = ref("responses", "InternalError")
    responses["503"] = ref("responses", "ServiceUnavailable")
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
            "content": {"application/json": {"schema": schema_ref(op.body)}},
        }
    return operation


def build_openapi(service_ispb: str = SERVICE_ISPB) -> dict[str, Any]:
    """The whole document, one operation per route of the router, for the institution
    whose code is `service_ispb`."""
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
            "description": "Public: no credentials, no rate limit. With"
            " `key_case=camelCase`, the document of the camelCase mode (`X-Key-Case`).",
            "parameters": [
                {
                    "name": "key_case",
                    "in": "query",
                    "required": False,
                    "description": "which mode's document: snake_case (the default) or camelCase",
                    "schema": {"type": "string", "enum": ["snake_case", "camelCase"]},
                }
            ],
            "responses": {
                "200": {
                    "description": "the OpenAPI 3.1 document",
                    "content": {"application/json": {"schema": {"type": "object"}}},
                },
                "400": error_response(
                    "key_case is neither snake_case nor camelCase", "PipelineError"
                ),
            },
        }
    }
    parameters = component_parameters()
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
        "schema": string_schema(maxLength=limits.TRANSACTION_ID_MAX_CHARS),
    }
    schemas = _of_this_institution(component_schemas(), service_ispb)
    return link_camel_case_document(_document(paths, parameters, schemas))


def _document(
    paths: dict[str, dict[str, Schema]], parameters: dict[str, Schema], schemas: dict[str, Schema]
) -> dict[str, Any]:
    return {
        "openapi": OPENAPI_VERSION,
        "jsonSchemaDialect": "https://spec.openapis.org/oas/3.1/dialect/base",
        "info": {
            "title": "PIX account external API (pixops engine)",
            "version": __version__,
            "summary": "Instant-payment (PIX) account operated over JSON/HTTPS",
            "description": "Requests carry money in centavos (1.00 BRL = 100); responses and"
            " webhooks in base units (1.00 BRL = 10000). Timestamps are ISO 8601 UTC with Z."
            " Request integers are JSON integers written without a fraction or exponent"
            " (`356`, never `356.0`): floating point is never used, so `356.0` is a 400."
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
            "headers": component_headers(),
            "responses": component_responses(),
        },
    }


def _of_this_institution(schemas: dict[str, Schema], service_ispb: str) -> dict[str, Schema]:
    """A cash-out's own `end_to_end_id` carries the paying institution's code: this one's."""
    field = schemas["PayoutRequest"]["properties"]["end_to_end_id"]
    field["pattern"] = end_to_end_pattern(service_ispb)
    return schemas


@functools.cache
def document_bytes(service_ispb: str = SERVICE_ISPB) -> bytes:
    """The document as served by an institution (`EngineConfig.service_ispb`): compact
    UTF-8 JSON, built once per institution."""
    return encode_json(add_to_openapi(build_openapi(service_ispb)))


@functools.cache
def camel_case_document_bytes(service_ispb: str = SERVICE_ISPB) -> bytes:
    """The camelCase mode's document (`openapi_camel`), built once per institution."""
    return encode_json(camel_case_document(build_openapi(service_ispb)))


def served_document(service_ispb: str, query: dict[str, list[str]]) -> Response:
    """`GET /openapi.json`: the snake_case document, or with `?key_case=camelCase` the
    camelCase one; any other `key_case` is a 400 naming the two."""
    wanted = query.get("key_case", ["snake_case"])
    if wanted == ["camelCase"]:
        return Response(200, list(_JSON), camel_case_document_bytes(service_ispb))
    if wanted == ["snake_case"]:
        return Response(200, list(_JSON), document_bytes(service_ispb))
    message = "key_case must be snake_case or camelCase (once)"
    return Response(400, list(_JSON), encode_json({"error": {"status": 400, "message": message}}))
