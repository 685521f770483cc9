"""JSON Schema (OpenAPI 3.1 components) generated from the wire models.

pydantic writes the schemas; this module only names them as OpenAPI components, drops
the auto-generated `title`s, and writes `X | None` the way the hand-written document
did (`type: [X, "null"]`), so the served document stays short and readable.
"""

from __future__ import annotations

from typing import Any, Final

from pydantic import BaseModel, RootModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema

from pixops.schema import _account, _errors, _med, _payments, _transactions, _webhooks

__all__ = ["REF_TEMPLATE", "component_schemas"]

REF_TEMPLATE: Final = "#/components/schemas/{model}"
Schema = dict[str, Any]


class PayoutResponse(RootModel[_payments.Payout]):
    """The cash-out answer: accepted or settled, pending approval, or queued."""


#: Request bodies, described as the server validates them.
REQUESTS: Final[tuple[type[BaseModel], ...]] = (
    _account.CpfRequest,
    _payments.ChargeRequest,
    _payments.PayoutRequest,
    _payments.RefundRequest,
    _webhooks.WebhookRequest,
    _med.DefenseRequest,
)
#: Response bodies, described as the server writes them.
RESPONSES: Final[tuple[type[BaseModel], ...]] = (
    _errors.PipelineError,
    _errors.PermissionError,
    _errors.DetailError,
    _errors.BusinessError,
    _errors.PaymentRejection,
    _account.BalanceResponse,
    _account.CpfValidationResponse,
    _account.PixKeysResponse,
    _payments.ChargeResponse,
    PayoutResponse,
    _payments.Refund,
    _transactions.TransactionResponse,
    _transactions.TransactionPage,
    _transactions.StatementPage,
    _transactions.ReceiptResponse,
    _webhooks.WebhookResponse,
    _webhooks.WebhookListResponse,
    _webhooks.WebhookDeletedResponse,
    _med.MedCaseResponse,
    _med.MedCasePage,
)


def _simplify(node: Any) -> Any:
    """Drop titles; write `anyOf: [{type: X, ...}, {type: null}]` as `type: [X, null]`."""
    if isinstance(node, list):
        return [_simplify(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: Schema = {}
    for name, value in node.items():
        if name == "title" and isinstance(value, str):
            continue
        if name in ("properties", "$defs", "patternProperties"):
            out[name] = {key: _simplify(item) for key, item in value.items()}
        else:
            out[name] = _simplify(value)
    options = out.get("anyOf")
    if isinstance(options, list) and len(options) == 2 and {"type": "null"} in options:
        (other,) = [option for option in options if option != {"type": "null"}]
        kind = other.get("type")
        if isinstance(kind, str) and "$ref" not in other:
            del out["anyOf"]
            out = {**other, **out, "type": [kind, "null"]}
            if "const" in out:
                out["enum"] = [out.pop("const"), None]
            elif "enum" in out:
                out["enum"] = [*out["enum"], None]
        else:
            out["oneOf"] = out.pop("anyOf")
    return out


def component_schemas() -> dict[str, Schema]:
    """Every request and response model as `components.schemas`, by model name."""
    pairs: list[tuple[type[BaseModel], JsonSchemaMode]] = [
        *((model, "validation") for model in REQUESTS),
        *((model, "serialization") for model in RESPONSES),
    ]
    _, top = models_json_schema(pairs, ref_template=REF_TEMPLATE)
    definitions: dict[str, Schema] = top.get("$defs", {})
    return {name: _simplify(schema) for name, schema in sorted(definitions.items())}
