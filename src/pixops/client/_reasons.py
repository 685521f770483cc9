"""Why a payment failed after it was accepted, in plain words, and whether to try again.

Asynchronous failures carry a `reason_code` (spec, States and Errors): central-bank
codes (UPPERCASE, from `pix.payout.rejected` or the status query), the automatic
reprocessing codes (`DICT_*`), and the service's own (`orphan_force_voided`). Codes are
compared case-insensitively, as the spec asks. `retryable` says whether a NEW payment
(a new request, never a replay of the failed one) can succeed later.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from pixops.errors import PixopsError

__all__ = ["REASON_CODES", "PaymentFailedError", "ReasonCode", "describe_reason"]


@dataclass(frozen=True)
class ReasonCode:
    code: str
    meaning: str
    retryable: bool


def _table(*rows: tuple[str, str, bool]) -> dict[str, ReasonCode]:
    return {code.upper(): ReasonCode(code, meaning, retryable) for code, meaning, retryable in rows}


REASON_CODES: Final = _table(
    ("AB03", "settlement timed out at the central bank", True),
    ("AB09", "error at the receiving institution", True),
    ("AB11", "the payer institution timed out", True),
    ("AC03", "the recipient account is missing or invalid", False),
    ("AC06", "the recipient account is blocked", False),
    ("AC07", "the recipient account is closed", False),
    ("AC14", "wrong account type", False),
    ("AG03", "transaction type not supported (e.g. an unknown refund reason)", False),
    ("AM01", "zero amount", False),
    ("AM02", "the amount is over the recipient account's limit", False),
    ("AM04", "the payer institution lacked settlement funds", True),
    ("AM09", "the refund exceeds the original amount", False),
    ("BE01", "document inconsistent with the account holder", False),
    ("BE17", "QR code rejected", False),
    ("CH11", "the receiver's document is incorrect", False),
    ("DS04", "order rejected", False),
    ("DS27", "the participant is not active in Pix", False),
    ("DT05", "refund outside the allowed window", False),
    ("DUPL", "duplicate payment: this end-to-end ID was already used", False),
    ("ED05", "settlement failed", True),
    ("FF08", "malformed end-to-end ID", False),
    ("FRAD", "well-founded fraud suspicion", False),
    ("RR04", "sanctioned party", False),
    ("SL02", "not a withdrawal or change transaction", False),
    ("DICT_CLIENT_RATE_LIMITED", "queued: this client's key-directory quota is spent", True),
    ("DICT_BUCKET_EXHAUSTED", "queued: the key directory's capacity is spent", True),
    ("DICT_QUEUE_TIMEOUT", "the key lookup did not succeed within the 7200 s window", True),
    ("orphan_force_voided", "no answer from the central bank in 30 minutes; voided", True),
    ("approval_denied", "denied in the portal's dual-control approval", False),
)


def describe_reason(code: str | None) -> ReasonCode | None:
    """The entry of a reason code, whatever its case; None for an unknown code."""
    if not isinstance(code, str) or not code.strip():
        return None
    return REASON_CODES.get(code.strip().upper())


class PaymentFailedError(PixopsError):
    """A payment reached a failed final status (raised by `wait_until_final` on request)."""

    def __init__(self, record: Any) -> None:
        self.record = record
        self.transaction_id: str = record.transaction_id
        raw = getattr(record, "reason_code", None)
        self.reason_code: str | None = raw
        known = describe_reason(raw)
        self.retryable = bool(known and known.retryable)
        meaning = known.meaning if known else getattr(record, "reason_description", None)
        super().__init__(
            f"{self.transaction_id} failed: {raw or 'no reason code'}"
            + (f" ({meaning})" if meaning else "")
        )
