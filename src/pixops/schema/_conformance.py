"""Which model each endpoint answers with, and a check that a real answer fits it.

`ENDPOINTS` repeats the spec's endpoint table (method, path pattern) with the success
model of each; a test keeps it equal to the engine's route table. `check_answer` is what
the engine's conformance tests run on every answer they see: a 2xx body must validate
against the endpoint's model, any other body against one of the error shapes.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

from pydantic import BaseModel, TypeAdapter, ValidationError

from pixops import wire
from pixops.schema import _account, _errors, _med, _payments, _transactions, _webhooks

__all__ = ["ENDPOINTS", "ERROR_SHAPES", "check_answer", "success_model"]

API_PREFIX: Final = "/api/external"

ENDPOINTS: Final[dict[tuple[str, str], Any]] = {
    ("POST", "/pix/cash-in"): _payments.ChargeResponse,
    ("POST", "/pix/cash-out"): _payments.Payout,
    ("POST", "/pix/refund"): _payments.Refund,
    ("POST", "/med/:id/defense"): _med.MedCaseResponse,
    ("POST", "/cpf/validate"): _account.CpfValidationResponse,
    ("POST", "/webhooks"): _webhooks.WebhookResponse,
    ("GET", "/webhooks"): _webhooks.WebhookListResponse,
    ("DELETE", "/webhooks/:id"): _webhooks.WebhookDeletedResponse,
    ("GET", "/balance"): _account.BalanceResponse,
    ("GET", "/transactions"): _transactions.StatementPage,
    ("GET", "/transactions/e2e/:e2e_id"): _transactions.TransactionResponse,
    ("GET", "/transactions/tag/:tag"): _transactions.TransactionPage,
    ("GET", "/transactions/ref/:external_id"): _transactions.TransactionPage,
    ("GET", "/transactions/:id/receipt"): _transactions.ReceiptResponse,
    ("GET", "/transactions/:id"): _transactions.TransactionResponse,
    ("GET", "/pix/keys"): _account.PixKeysResponse,
    ("GET", "/med"): _med.MedCasePage,
    ("GET", "/med/:id"): _med.MedCaseResponse,
    ("GET", "/statement"): _transactions.StatementPage,
}
ERROR_SHAPES: Final[tuple[type[BaseModel], ...]] = (
    _errors.PipelineError,
    _errors.PermissionError,
    _errors.DetailError,
    _errors.PaymentRejection,
    _errors.BusinessError,
)
_PATTERNS: Final = [
    (method, re.compile("^" + re.sub(r":[a-z_0-9]+", "[^/]+", pattern) + "$"), model)
    for (method, pattern), model in ENDPOINTS.items()
]
_ADAPTERS: dict[int, TypeAdapter[Any]] = {}


def success_model(method: str, path: str) -> Any | None:
    """The model of a 2xx answer to `method path` (path under `/api/external`)."""
    for known, regex, model in _PATTERNS:
        if known == method.upper() and regex.match(path):
            return model
    return None


def _validate(model: Any, value: Any) -> str | None:
    adapter = _ADAPTERS.get(id(model))
    if adapter is None:
        adapter = _ADAPTERS[id(model)] = TypeAdapter(model)
    try:
        adapter.validate_python(value)
    except ValidationError as exc:
        return "; ".join(
            f"{'.'.join(map(str, error['loc']))}: {error['msg']}" for error in exc.errors()[:5]
        )
    return None


def check_answer(method: str, path: str, status: int, body: bytes) -> str | None:
    """Why this answer does not fit the wire schema, or None when it does (or when the
    path is not an API endpoint: the OpenAPI document, the test helpers)."""
    if not isinstance(method, str) or not isinstance(path, str):
        raise TypeError("method and path must be strings")
    if isinstance(status, bool) or not isinstance(status, int) or not isinstance(body, bytes):
        raise TypeError("status must be an int and body bytes")
    if path.startswith(API_PREFIX):
        path = path[len(API_PREFIX) :]
    path = path.split("?", 1)[0]
    model = success_model(method, path)
    if 200 <= status < 300 and model is None:
        return None
    try:
        parsed = wire.snakify_keys(json.loads(body))
    except ValueError:
        return f"{method} {path} {status}: the body is not JSON"
    if 200 <= status < 300:
        problem = _validate(model, parsed)
        return None if problem is None else f"{method} {path} {status}: {problem}"
    if model is None and path.startswith(("/openapi.json",)):
        return None
    problems = [_validate(shape, parsed) for shape in ERROR_SHAPES]
    if any(problem is None for problem in problems):
        return None
    return f"{method} {path} {status}: fits no error shape: {body[:300]!r}"
