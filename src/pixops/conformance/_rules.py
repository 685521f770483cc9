"""The rules of `docs/api.md` the checks name, and the answers the spec promises for them
(messages of the Error shapes table, byte for byte), with the probes' fixed inputs."""

from __future__ import annotations

from typing import Final

from pixops.conformance._session import Answer

__all__ = [
    "BAD_KEY_CASE",
    "BUSINESS",
    "CONTENT_TYPE",
    "CPF_BODY",
    "CREDENTIALS",
    "ENDPOINTS",
    "IDEMPOTENCY",
    "INTEGERS",
    "INVALID_CPF",
    "INVALID_CREDENTIALS",
    "KEYS",
    "MAX_SKEW_SECONDS",
    "MISSING_CREDENTIALS",
    "MISSING_ID",
    "NOWHERE",
    "NO_SUCH_KEY",
    "OPENAPI",
    "ORDER",
    "PERMISSION",
    "RATE_LIMIT",
    "SCHEMAS",
    "SIGNATURE",
    "TIME",
    "UNSUPPORTED",
    "VALID_CPF",
    "WRITE_CHARGE_CENTAVOS",
    "WRITE_CHARGE_EXPIRES_IN",
    "bad_request_body",
    "detail_body",
    "passes",
]


VALID_CPF: Final = "52998224725"
INVALID_CPF: Final = "11111111111"
NO_SUCH_KEY: Final = "conformance probe"
"""A PIX key of no type (a space in it): no directory can hold it, so a cash-out that
carries it is refused whatever else a service checks or skips."""
MAX_SKEW_SECONDS: Final = 60.0
WRITE_CHARGE_CENTAVOS: Final = 1
WRITE_CHARGE_EXPIRES_IN: Final = 60

# Rules, as docs/api.md names them (section / row or sentence).
OPENAPI: Final = "API reference / the OpenAPI document is public"
CREDENTIALS: Final = "Conventions / credentials; Error shapes / credentials 401"
SIGNATURE: Final = "Conventions / signature; Error shapes / the HMAC check"
PERMISSION: Final = "Endpoints / permission; Error shapes / forbidden 403"
ORDER: Final = "Conventions / validation order"
CONTENT_TYPE: Final = "Error shapes / content type 415 (plus hint)"
KEYS: Final = "Conventions / keys (X-Key-Case: camelCase)"
IDEMPOTENCY: Final = "Conventions / idempotency"
RATE_LIMIT: Final = "Conventions / rate limit"
TIME: Final = "Conventions / time"
INTEGERS: Final = "Conventions / integers"
SCHEMAS: Final = "What the request schemas promise"
BUSINESS: Final = "Error shapes / business rules"
ENDPOINTS: Final = "Endpoints"

MISSING_CREDENTIALS: Final = {
    "error": {
        "status": 401,
        "message": "Missing API key credentials. Use Authorization: ApiKey "
        "<client_id>:<client_secret>",
    }
}
INVALID_CREDENTIALS: Final = {"error": {"status": 401, "message": "Invalid API key credentials"}}
BAD_KEY_CASE: Final = {
    "error": {"status": 400, "message": "X-Key-Case must be camelCase or snake_case"}
}
UNSUPPORTED: Final = "Unsupported Media Type. Expected Content-Type: application/json"
CPF_BODY: Final = {"cpf": VALID_CPF}
NOWHERE: Final = "/pixops-conformance-nowhere"
MISSING_ID: Final = "pixops-conformance-missing"


def detail_body(message: str) -> dict[str, object]:
    return {"worked": False, "detail": message}


def bad_request_body(message: object, atom: str = "bad_request") -> dict[str, object]:
    return {"worked": False, "errors": {atom: message}}


def passes(answer: Answer, status: int, body: object) -> bool:
    return answer.status == status and answer.body == body
