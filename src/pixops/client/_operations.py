"""Every endpoint as an `Op`: the `Call` to send and how to read its answer.

The sync and async resources both build their requests here, so the two clients cannot
drift apart; they differ only in how they send.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel

from pixops import limits
from pixops.client._core import Call, parse_model
from pixops.client._errors import ArgumentError
from pixops.client._params import (
    end_to_end_text,
    filters_of,
    ispb_text,
    lifetime_seconds,
    list_query,
    optional_text,
    page_query,
    path_id,
    reference_text,
    request_centavos,
    required_text,
)
from pixops.schema import (
    MAX_DEFENSE_LENGTH,
    MAX_DESCRIPTION_LENGTH,
    Balance,
    BalanceResponse,
    Charge,
    ChargeResponse,
    CpfValidation,
    CpfValidationResponse,
    MedCase,
    MedCasePage,
    MedCaseResponse,
    Payout,
    PixKey,
    PixKeysResponse,
    Receipt,
    ReceiptResponse,
    Refund,
    StatementPage,
    Transaction,
    TransactionPage,
    TransactionResponse,
    Webhook,
    WebhookDeleted,
    WebhookDeletedResponse,
    WebhookListResponse,
    WebhookResponse,
)

__all__ = ["Op"]

T = TypeVar("T")
KEY_TYPES = ("cpf", "cnpj", "email", "phone", "evp")
MED_STATUSES = ("OPEN", "ACKNOWLEDGED", "CLOSED", "CANCELLED")
DEFAULT_ITER_PER_PAGE = 100


@dataclass(frozen=True)
class Op(Generic[T]):
    call: Call
    parse: Callable[[bytes], T]

    @property
    def refuses_worked_false(self) -> bool:
        """The answer's model itself refuses a top-level ``"worked": false`` (its
        ``worked`` is ``Literal[True]``): a body that validates did not say it, so the
        body need not be searched for it first (a 100-row page is 60 KB)."""
        return isinstance(self.parse, ModelParse) and worked_is_true(self.parse.model)


def is_ambiguous_key(key: str) -> bool:
    """11 digits: a CPF or a phone number, which only `/cpf/validate` can tell apart."""
    return len(key) == 11 and key.isascii() and key.isdigit()


@dataclass(frozen=True)
class ModelParse:
    """Read an answer into `model` (its ``.data`` when `inner`)."""

    model: Any
    inner: bool = False

    def __call__(self, body: bytes) -> Any:
        parsed = parse_model(self.model, body)
        return parsed.data if self.inner else parsed


@functools.cache
def _data(model: Any) -> Callable[[bytes], Any]:
    """The reader of `model`'s ``.data`` (one per model: a page of the statement is read
    by the same object every time, not a new one per call)."""
    return ModelParse(model, inner=True)


@functools.cache
def whole(model: Any) -> Callable[[bytes], Any]:
    return ModelParse(model)


@functools.cache
def worked_is_true(model: Any) -> bool:
    """`model` is a pydantic model whose ``worked`` field takes only ``True`` (or is
    absent from the body: ``Literal[True] | None``)."""
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        return False
    field = model.model_fields.get("worked")
    if field is None:
        return False
    allowed = [field.annotation]
    if get_origin(field.annotation) in (Union, types.UnionType):
        allowed = [arg for arg in get_args(field.annotation) if arg is not type(None)]
    return all(get_origin(arg) is Literal and get_args(arg) == (True,) for arg in allowed)


def balance() -> Op[Balance]:
    return Op(Call("GET", "/balance"), _data(BalanceResponse))


def validate_cpf(cpf: object) -> Op[CpfValidation]:
    text = required_text("cpf", cpf, max_length=limits.CPF_INPUT_MAX_CHARS)
    return Op(Call("POST", "/cpf/validate", body={"cpf": text}), _data(CpfValidationResponse))


def _body(**fields: Any) -> dict[str, Any]:
    return {name: value for name, value in fields.items() if value is not None}


def cash_in(
    *,
    amount_centavos: object,
    amount: object,
    description: object,
    external_id: object,
    tag: object,
    expires_in: object,
    payer_name: object,
    payer_document: object,
    idempotency_key: str | None,
) -> Op[Charge]:
    centavos = request_centavos(amount_centavos, amount)
    seconds = lifetime_seconds(
        "expires_in",
        expires_in,
        limits.CASH_IN_EXPIRES_IN_MIN_SECONDS,
        limits.CASH_IN_EXPIRES_IN_MAX_SECONDS,
    )
    payer = None
    if payer_name is not None or payer_document is not None:
        payer = {
            "name": required_text("payer_name", payer_name, max_length=limits.PAYER_NAME_MAX_CHARS),
            "document": required_text("payer_document", payer_document, max_length=32),
        }
    body = _body(
        amount=centavos,
        description=optional_text("description", description, max_length=MAX_DESCRIPTION_LENGTH),
        external_id=reference_text("external_id", external_id, limits.EXTERNAL_ID_MAX_CHARS),
        tag=reference_text("tag", tag, limits.TAG_MAX_CHARS),
        expires_in=seconds,
        payer=payer,
    )
    call = Call("POST", "/pix/cash-in", body=body, idempotency_key=idempotency_key)
    return Op(call, _data(ChargeResponse))


def cash_out(
    *,
    pix_key: object,
    pix_key_type: object,
    amount_centavos: object,
    amount: object,
    description: object,
    external_id: object,
    recipient_ispb: object,
    end_to_end_id: object,
    purpose: object,
    idempotency_key: str | None,
) -> Op[Payout]:
    key = required_text("pix_key", pix_key, max_length=limits.PIX_KEY_MAX_CHARS)
    if pix_key_type is not None and pix_key_type not in KEY_TYPES:
        raise ArgumentError(f"pix_key_type must be one of {', '.join(KEY_TYPES)}")
    if pix_key_type is None and is_ambiguous_key(key):
        raise ArgumentError(
            "an 11-digit key without pix_key_type is ambiguous (CPF or phone): pass"
            " pix_key_type='cpf' or 'phone', or ask client.pix.resolve_key_type(key)"
        )
    body = _body(
        amount=request_centavos(amount_centavos, amount),
        pix_key=key,
        pix_key_type=pix_key_type,
        description=optional_text("description", description, max_length=MAX_DESCRIPTION_LENGTH),
        external_id=reference_text(
            "external_id",
            external_id,
            limits.EXTERNAL_ID_MAX_CHARS,
            ": the service would drop it without a word, and the payment would carry no"
            " external_id to reconcile it by",
        ),
        recipient_ispb=ispb_text("recipient_ispb", recipient_ispb),
        end_to_end_id=end_to_end_text("end_to_end_id", end_to_end_id),
        purpose=optional_text("purpose", purpose, max_length=limits.PURPOSE_MAX_CHARS),
    )
    call = Call("POST", "/pix/cash-out", body=body, idempotency_key=idempotency_key)
    return Op(call, whole(Payout))


def refund(
    *,
    original_transaction_id: object,
    amount_centavos: object,
    amount: object,
    reason: object,
    description: object,
    idempotency_key: str | None,
) -> Op[Refund]:
    body = _body(
        original_transaction_id=required_text(
            "original_transaction_id",
            original_transaction_id,
            max_length=limits.TRANSACTION_ID_MAX_CHARS,
        ),
        amount=request_centavos(amount_centavos, amount, required=False),
        reason=optional_text("reason", reason, max_length=limits.REFUND_REASON_MAX_CHARS),
        description=optional_text("description", description, max_length=MAX_DESCRIPTION_LENGTH),
    )
    call = Call("POST", "/pix/refund", body=body, idempotency_key=idempotency_key)
    return Op(call, whole(Refund))


def pix_keys() -> Op[list[PixKey]]:
    return Op(Call("GET", "/pix/keys"), _data(PixKeysResponse))


def get_transaction(transaction_id: object) -> Op[Transaction]:
    ident = path_id("transaction_id", transaction_id)
    return Op(Call("GET", f"/transactions/{ident}"), _data(TransactionResponse))


def by_end_to_end(end_to_end_id: object) -> Op[Transaction]:
    ident = path_id("end_to_end_id", end_to_end_id)
    return Op(Call("GET", f"/transactions/e2e/{ident}"), _data(TransactionResponse))


def by_reference(kind: str, value: object, page: int, per_page: int) -> Op[TransactionPage]:
    ident = path_id(kind, value)
    segment = "tag" if kind == "tag" else "ref"
    query = page_query(page, per_page)
    return Op(Call("GET", f"/transactions/{segment}/{ident}", query), whole(TransactionPage))


def receipt(transaction_id: object) -> Op[Receipt]:
    ident = path_id("transaction_id", transaction_id)
    return Op(Call("GET", f"/transactions/{ident}/receipt"), _data(ReceiptResponse))


def list_query_of(filters: dict[str, Any], *, iterating: bool) -> dict[str, str]:
    options = dict(filters_of(filters))
    if iterating:
        if "page" in options:
            raise ArgumentError("iteration starts at page 1: drop page=")
        options.setdefault("per_page", DEFAULT_ITER_PER_PAGE)
    return list_query(**options)


def statement_page(path: str, filters: dict[str, Any]) -> Op[StatementPage]:
    return page_of(path, list_query_of(filters, iterating=False))


def page_of(path: str, query: dict[str, str]) -> Op[StatementPage]:
    """One page of `/statement` or `/transactions` for a query already checked."""
    return Op(Call("GET", path, query), whole(StatementPage))


def create_webhook(url: object, event_types: object, description: object) -> Op[Webhook]:
    types: list[str] | None = None
    if event_types is not None:
        if isinstance(event_types, str) or not isinstance(event_types, list | tuple):
            raise ArgumentError("event_types must be a list of event type names")
        types = [required_text("event_types[]", item, max_length=64) for item in event_types]
    body = _body(
        url=required_text("url", url, max_length=limits.WEBHOOK_URL_MAX_CHARS),
        event_types=types,
        description=optional_text("description", description, max_length=MAX_DESCRIPTION_LENGTH),
    )
    return Op(Call("POST", "/webhooks", body=body), _data(WebhookResponse))


def list_webhooks() -> Op[list[Webhook]]:
    return Op(Call("GET", "/webhooks"), _data(WebhookListResponse))


def delete_webhook(webhook_id: object) -> Op[WebhookDeleted]:
    ident = path_id("webhook_id", webhook_id)
    return Op(Call("DELETE", f"/webhooks/{ident}"), _data(WebhookDeletedResponse))


def list_med(
    status: object, transaction_id: object, page: object, per_page: object
) -> Op[MedCasePage]:
    query = page_query(page, per_page)
    if status is not None:
        # Any case, as the service matches it (the spec: normalise case before comparing).
        if not isinstance(status, str) or status.upper() not in MED_STATUSES:
            raise ArgumentError(
                f"status must be one of {', '.join(MED_STATUSES)} (any case), not {status!r}"
            )
        query["status"] = status.upper()
    if transaction_id is not None:
        query["transaction_id"] = required_text("transaction_id", transaction_id, max_length=512)
    return Op(Call("GET", "/med", query), whole(MedCasePage))


def get_med(case_id: object) -> Op[MedCase]:
    ident = path_id("case_id", case_id)
    return Op(Call("GET", f"/med/{ident}"), _data(MedCaseResponse))


def defend_med(case_id: object, text: object) -> Op[MedCase]:
    ident = path_id("case_id", case_id)
    defense = required_text("text", text, max_length=MAX_DEFENSE_LENGTH)
    return Op(
        Call("POST", f"/med/{ident}/defense", body={"defense": defense}), _data(MedCaseResponse)
    )
