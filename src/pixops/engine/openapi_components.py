"""The reusable parts of the OpenAPI document: parameters, headers and error responses.

`pixops.engine.openapi` assembles the operations from the route table and refers to
these by `$ref`; keeping them here leaves that module to the operations alone.
"""

from __future__ import annotations

from typing import Any, Final

from pixops import limits
from pixops.schema import IDEMPOTENCY_KEY_PATTERN, STATUS_FILTERS, TYPE_FILTERS

Schema = dict[str, Any]


def ref(kind: str, name: str) -> Schema:
    return {"$ref": f"#/components/{kind}/{name}"}


def schema_ref(name: str) -> Schema:
    return ref("schemas", name)


def string_schema(description: str | None = None, **extra: Any) -> Schema:
    schema: Schema = {"type": "string", **extra}
    if description:
        schema["description"] = description
    return schema


def integer_schema(description: str | None = None, **extra: Any) -> Schema:
    schema: Schema = {"type": "integer", **extra}
    if description:
        schema["description"] = description
    return schema


STRING: Final = string_schema()


def component_parameters() -> dict[str, Schema]:
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
            string_schema(pattern="^[0-9a-f]{128}$"),
            required=True,
        ),
        "IdempotencyKey": header(
            "Idempotency-Key",
            "printable ASCII; replays the first 2xx answer for 24 h (scope: method, path,"
            " key); reused with a different body gives 422",
            string_schema(
                minLength=1,
                maxLength=limits.IDEMPOTENCY_KEY_MAX_CHARS,
                pattern=IDEMPOTENCY_KEY_PATTERN,
            ),
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
        "Page": query(
            "page",
            "page number, from 1",
            integer_schema(minimum=1, maximum=limits.PAGE_MAX, default=1),
        ),
        "PerPage": query(
            "per_page",
            "items per page",
            integer_schema(minimum=1, maximum=limits.PER_PAGE_MAX, default=limits.PER_PAGE_DEFAULT),
        ),
        "Status": query(
            "status",
            "filters the payment_status column",
            {"type": "string", "enum": list(STATUS_FILTERS)},
        ),
        "Type": query("type", "movement type", {"type": "string", "enum": list(TYPE_FILTERS)}),
        "DateFrom": query(
            "date_from",
            "YYYY-MM-DD, UTC; after date_to is a 400 (JSON Schema cannot relate two parameters)",
            string_schema(format="date"),
        ),
        "DateTo": query(
            "date_to",
            "YYYY-MM-DD, UTC; the whole day; before date_from is a 400",
            string_schema(format="date"),
        ),
    }


def component_headers() -> dict[str, Schema]:
    return {
        "RateLimitRemaining": {
            "description": "requests left in the current 60-second window",
            "schema": integer_schema(minimum=0),
        },
        "RetryAfter": {"description": "seconds to wait", "schema": integer_schema(const=60)},
        "StorageRetryAfter": {
            "description": "seconds to wait before retrying",
            "schema": integer_schema(minimum=1),
        },
        "IdempotencyKey": {"description": "echoes the key sent", "schema": STRING},
        "IdempotentReplay": {
            "description": "true when this is a replay of the first answer",
            "schema": {"type": "string", "const": "true"},
        },
    }


def error_response(description: str, *shapes: str, headers: Schema | None = None) -> Schema:
    schema = (
        schema_ref(shapes[0]) if len(shapes) == 1 else {"oneOf": [schema_ref(s) for s in shapes]}
    )
    response: Schema = {
        "description": description,
        "content": {"application/json": {"schema": schema}},
    }
    if headers:
        response["headers"] = headers
    return response


def component_responses() -> dict[str, Schema]:
    return {
        "BadRequest": error_response(
            "bad input: X-Key-Case or Idempotency-Key (error shape), HMAC body (detail"
            " shape), business validation (errors shape)",
            "PipelineError",
            "DetailError",
            "BusinessError",
        ),
        "Unauthorized": error_response(
            "missing, invalid, inactive or expired credentials; missing or invalid HMAC",
            "PipelineError",
            "DetailError",
        ),
        "Forbidden": error_response(
            "IP not whitelisted, empty whitelist or inactive account (error shape); key"
            " without HMAC secret (detail shape); missing permission (forbidden shape)",
            "PipelineError",
            "DetailError",
            "PermissionError",
        ),
        "PayloadTooLarge": error_response("body over 1 MiB", "PipelineError"),
        "UnsupportedMediaType": error_response(
            "POST without Content-Type application/json (or multipart/form-data)",
            "PipelineError",
        ),
        "TooManyRequests": error_response(
            "over the per-IP limit of the current 60-second window",
            "PipelineError",
            headers={"Retry-After": ref("headers", "RetryAfter")},
        ),
        "IdempotencyConflict": error_response(
            "Idempotency-Key reused with a different body (error shape), or a business"
            " rule refused the request (errors shape)",
            "PipelineError",
            "BusinessError",
        ),
        "InternalError": error_response("unexpected fault; nothing was written", "PipelineError"),
        "ServiceUnavailable": error_response(
            "storage temporarily unavailable (disk full, read-only or locked database);"
            " nothing was written, retry after the given seconds",
            "PipelineError",
            headers={"Retry-After": ref("headers", "StorageRetryAfter")},
        ),
    }
