"""Balance, CPF validation and PIX keys."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from pixops import limits
from pixops.schema import _formats
from pixops.schema._base import Envelope, WireModel
from pixops.schema._money import Amount
from pixops.schema._time import UtcDateTime

__all__ = [
    "Balance",
    "BalanceResponse",
    "CpfRequest",
    "CpfValidation",
    "CpfValidationResponse",
    "KeyType",
    "PixKey",
    "PixKeysResponse",
]

KeyType = Literal["cpf", "cnpj", "email", "phone", "evp"]


class Balance(WireModel):
    """`GET /balance`: every figure in base units."""

    balance: Amount = Field(description="ledger balance")
    available_balance: Amount = Field(description="ledger less holds and blocks")
    held_amount: Amount | None = Field(None, description="in-flight outbound holds")
    blocked_amount: Amount | None = Field(None, description="blocked by MED cases")
    safe_balance: Amount = Field(
        description="the lower of balance and available_balance; cash-out and refunds"
        " check against it"
    )
    currency: Literal["BRL"]
    as_of: UtcDateTime


class BalanceResponse(Envelope):
    data: Balance


class CpfRequest(WireModel):
    """`POST /cpf/validate`."""

    cpf: str = Field(
        pattern=_formats.trimmed_text(limits.CPF_INPUT_MAX_CHARS, allow_empty=True),
        description="digits, with or without . and -; at most"
        f" {limits.CPF_INPUT_MAX_CHARS} characters once trimmed",
    )


class CpfValidation(WireModel):
    cpf: str = Field(description="the digits checked")
    valid: bool


class CpfValidationResponse(Envelope):
    data: CpfValidation


class PixKey(WireModel):
    """One of the account's PIX keys."""

    key: str
    key_type: KeyType
    status: str | None = None
    created_at: UtcDateTime | None = None
    owner_name: str | None = None
    ispb: str | None = None


class PixKeysResponse(Envelope):
    data: list[PixKey]
