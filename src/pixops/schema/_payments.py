"""Money movement: cash-in (a dynamic QR charge), cash-out and refund.

Requests carry centavos (`amount`, 1.00 BRL = 100); responses carry base units
(`Amount`, 1.00 BRL = 10000). The cash-out answer is a discriminated union on
`status`: `PayoutAccepted` (accepted or settled), `PayoutQueued`, `PayoutPendingApproval`.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

from pydantic import ConfigDict, Discriminator, Field, StrictInt

from pixops import limits, money
from pixops.schema import _formats
from pixops.schema._account import KeyType
from pixops.schema._base import Closed, Envelope, WireModel
from pixops.schema._money import Amount
from pixops.schema._time import UtcDateTime

__all__ = [
    "MAX_CHARGE_CENTAVOS",
    "MAX_DESCRIPTION_LENGTH",
    "MAX_REQUEST_CENTAVOS",
    "Charge",
    "ChargePayer",
    "ChargeRequest",
    "ChargeResponse",
    "Payout",
    "PayoutAccepted",
    "PayoutPendingApproval",
    "PayoutQueued",
    "PayoutRequest",
    "Refund",
    "RefundRequest",
]

MAX_DESCRIPTION_LENGTH: Final = limits.DESCRIPTION_MAX_CHARS
MAX_CHARGE_CENTAVOS: Final = limits.CASH_IN_AMOUNT_MAX_CENTAVOS
REFERENCE_PATTERN: Final = _formats.trimmed(
    f"{_formats.REFERENCE_CHARS}{{1,{limits.EXTERNAL_ID_MAX_CHARS}}}"
)
TAG_PATTERN: Final = _formats.trimmed(f"{_formats.REFERENCE_CHARS}{{1,{limits.TAG_MAX_CHARS}}}")
MAX_REQUEST_CENTAVOS: Final = money.INT64_MAX // money.CENTAVO_IN_BASE
"""The most centavos a cash-out or refund can name: its base units must fit in 64 bits."""
CENTAVOS_DESCRIPTION: Final = (
    "centavos: 1.00 BRL = 100; a JSON integer written without a fraction or exponent"
    " (356, never 356.0)"
)


class ChargePayer(Closed):
    name: str = Field(
        pattern=_formats.trimmed_text(limits.PAYER_NAME_MAX_CHARS),
        description=f"1 to {limits.PAYER_NAME_MAX_CHARS} characters once trimmed",
    )
    document: str = Field(
        min_length=11,
        max_length=18,
        pattern=_formats.DOCUMENT_PATTERN,
        description="a valid CPF or CNPJ, bare or punctuated",
        json_schema_extra={"format": _formats.FORMAT_DOCUMENT},
    )


class ChargeRequest(Closed):
    """`POST /pix/cash-in`: unknown fields are refused."""

    amount: StrictInt = Field(ge=1, le=MAX_CHARGE_CENTAVOS, description=CENTAVOS_DESCRIPTION)
    description: str | None = Field(None, max_length=MAX_DESCRIPTION_LENGTH)
    expires_in: StrictInt | None = Field(
        None,
        ge=limits.CASH_IN_EXPIRES_IN_MIN_SECONDS,
        le=limits.CASH_IN_EXPIRES_IN_MAX_SECONDS,
        description="QR lifetime in seconds; a JSON integer (3600, never 3600.0)",
    )
    external_id: str | None = Field(
        None, pattern=REFERENCE_PATTERN, description="trimmed, then a-z A-Z 0-9 . _ : -"
    )
    tag: str | None = Field(
        None, pattern=TAG_PATTERN, description="trimmed, then a-z A-Z 0-9 . _ : -"
    )
    payer: ChargePayer | None = None


class Charge(WireModel):
    """A pending dynamic QR charge; query it with `GET /transactions/:transaction_id`."""

    transaction_id: str = Field(description="the QR's txid")
    tx_id: str | None = None
    type: Literal["pix_qrcode"]
    status: Literal["pending"]
    amount: Amount
    description: str | None = None
    external_id: str | None = None
    tag: str | None = None
    recipient_key: str | None = None
    payer: ChargePayer | None = None
    brcode: str = Field(description="EMV BR Code payload (copia e cola)")
    location: str | None = None
    expires_in: int | None = None
    created_at: UtcDateTime
    expires_at: UtcDateTime


class ChargeResponse(Envelope):
    data: Charge


class PayoutRequest(WireModel):
    """`POST /pix/cash-out` (the spec's service ignores fields it does not know).

    The key must have the shape of `pix_key_type`, or without it a shape the service
    detects (11 bare digits are a CPF or a phone: ambiguous); `anyOf` says so."""

    model_config = ConfigDict(json_schema_extra=_formats.pix_key_rules())

    amount: StrictInt = Field(ge=1, le=MAX_REQUEST_CENTAVOS, description=CENTAVOS_DESCRIPTION)
    pix_key: str = Field(
        min_length=1,
        max_length=limits.PIX_KEY_MAX_CHARS,
        description="recipient key: CPF (11 digits), CNPJ (14 characters), e-mail, phone"
        " (+55 and 11 digits, or the 11 digits with pix_key_type phone) or EVP (UUID v4);"
        " whether the directory holds it is answered by dict_key_not_found",
    )
    pix_key_type: KeyType | None = Field(
        None, description="auto-detected when omitted; an 11-digit key needs it"
    )
    description: str | None = Field(None, max_length=MAX_DESCRIPTION_LENGTH)
    external_id: Any = Field(
        None,
        description="a string of at most 128 characters of a-z A-Z 0-9 . _ : - after"
        " trimming; any other value is dropped by the service (external_id null), never"
        " refused",
    )
    recipient_ispb: str | None = Field(None, pattern="^[0-9]{8}$")
    end_to_end_id: str | None = Field(
        None,
        pattern=_formats.END_TO_END_PATTERN,
        description="optional; E, this institution's ISPB, yyyyMMddHHmm (UTC, a real minute),"
        " 11 letters or digits; omit it to get a deterministic ID",
        json_schema_extra={"format": _formats.FORMAT_END_TO_END_ID},
    )
    purpose: str | None = Field(None, max_length=limits.PURPOSE_MAX_CHARS)


class _PayoutIds(WireModel):
    transaction_id: str
    end_to_end_id: str
    external_id: str | None = None
    amount: Amount


class _PayoutBase(_PayoutIds):
    worked: Literal[True]
    final: bool = Field(description="true when terminal (settled)")
    fee_amount: Amount
    net_amount: Amount = Field(description="amount + fee_amount: the gross debit")
    detail: str


class PayoutAccepted(_PayoutBase):
    """Accepted (202, the outcome follows by webhook) or settled at once (200)."""

    status: Literal["accepted", "settled"]


class PayoutPendingApproval(_PayoutBase):
    """Held for dual-control approval in the portal (202)."""

    status: Literal["pending_approval"]


class PayoutQueued(_PayoutIds):
    """Queued by a DICT lookup limit and retried automatically for `queue_ttl_seconds`.

    The spec gives this answer its own body: the cash-out answer's `worked`, `final`,
    fees and `detail` may be absent (None then); the fee is known once it is sent.
    """

    status: Literal["queued"]
    worked: Literal[True] | None = None
    final: Literal[False] | None = None
    fee_amount: Amount | None = None
    net_amount: Amount | None = None
    detail: str | None = None
    type: Literal["pix"]
    outbound_request_id: str = Field(pattern="^[0-9A-F]{32}$")
    message: str
    reason_code: str | None = Field(
        None, description="DICT_CLIENT_RATE_LIMITED or DICT_BUCKET_EXHAUSTED"
    )
    estimated_retry_seconds: int
    queue_ttl_seconds: int


Payout = Annotated[PayoutAccepted | PayoutPendingApproval | PayoutQueued, Discriminator("status")]
"""The cash-out answer, by `status`."""


class RefundRequest(WireModel):
    """`POST /pix/refund`."""

    original_transaction_id: str = Field(
        pattern=_formats.trimmed_text(limits.TRANSACTION_ID_MAX_CHARS),
        description="the received PIX; 1 to"
        f" {limits.TRANSACTION_ID_MAX_CHARS} characters once trimmed",
        json_schema_extra={"format": _formats.FORMAT_TRANSACTION_ID},
    )
    amount: StrictInt | None = Field(
        None,
        ge=1,
        le=MAX_REQUEST_CENTAVOS,
        description=CENTAVOS_DESCRIPTION + "; omitted means the full original amount",
    )
    reason: str | None = Field(
        None,
        max_length=limits.REFUND_REASON_MAX_CHARS,
        description="central-bank refund code: MD06 (default), BE08, AM09, SL02, RR04,"
        " FR01; an unknown one fails later by webhook",
    )
    description: str | None = Field(None, max_length=MAX_DESCRIPTION_LENGTH)


class Refund(WireModel):
    """The refund answer: `accepted` (202) or `settled` (200)."""

    worked: Literal[True]
    transaction_id: str = Field(description="PIXRET + the D end-to-end ID")
    end_to_end_id: str
    amount: Amount
    status: Literal["accepted", "settled"]
    detail: str
