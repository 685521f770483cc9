"""The simulated central bank (SPI): pacs.002 verdicts on payments and on refunds.

Only the rules the central bank itself enforces live here: duplicate end-to-end IDs,
routing to an institution that is not an active Pix participant or does not hold the
recipient's account, and the allowed codes and deadlines of refunds. What a test key
forces (see `world.sandbox_keys`) is decided by the caller.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final
from zoneinfo import ZoneInfo

from pixops import participants

__all__ = [
    "INVALID_REFUND_REASON_CODE",
    "LATE_REFUND_CODE",
    "REASON_CODES",
    "REFUND_DEADLINE_DAYS",
    "REFUND_DEADLINE_ZONE",
    "Rejection",
    "describe",
    "judge_payment",
    "judge_refund",
    "refund_deadline_passed",
]

#: Central-bank (pacs.002 RJCT) reason codes and their English descriptions.
REASON_CODES: Final[dict[str, str]] = {
    "AB03": "Settlement timeout",
    "AB09": "Error at the receiving institution",
    "AB11": "Payer institution timeout",
    "AC03": "Account missing or invalid",
    "AC06": "Account blocked",
    "AC07": "Account closed",
    "AC14": "Wrong account type",
    "AG03": "Transaction type not supported",
    "AM01": "Zero amount",
    "AM02": "Amount over the account's limit",
    "AM04": "Payer institution lacks settlement funds",
    "AM09": "Refund exceeds the original amount",
    "BE01": "Document inconsistent with the account holder",
    "BE17": "QR code rejected",
    "CH11": "Receiver document incorrect",
    "DS04": "Order rejected",
    "DS27": "Participant not active",
    "DT05": "Refund outside the allowed window",
    "DUPL": "Duplicate payment",
    "ED05": "Settlement failed",
    "FF08": "Malformed end-to-end ID",
    "FRAD": "Well-founded fraud suspicion",
    "RR04": "Sanctioned party",
    "SL02": "Not a withdrawal or change transaction",
}

#: Refund reason codes the central bank accepts, with the window in calendar days
#: after the original's settlement: MD06 90 days (spec), BE08 and FR01 the MED
#: notification window of 80 days, the others the operational maximum of 30 days.
#: Days are calendar days in `REFUND_DEADLINE_ZONE`, the central bank's own calendar.
REFUND_DEADLINE_DAYS: Final[dict[str, int]] = {
    "MD06": 90,
    "BE08": 80,
    "FR01": 80,
    "AM09": 30,
    "SL02": 30,
    "RR04": 30,
}

#: The calendar refund deadlines are counted in: the central bank's, Brasília time.
REFUND_DEADLINE_ZONE: Final = ZoneInfo("America/Sao_Paulo")

#: A refund whose reason is outside `REFUND_DEADLINE_DAYS`: the return type is unsupported.
INVALID_REFUND_REASON_CODE: Final = "AG03"
#: A refund requested after its reason's window.
LATE_REFUND_CODE: Final = "DT05"


@dataclass(frozen=True)
class Rejection:
    """A pacs.002 RJCT: the central-bank code and its English description."""

    code: str
    description: str


def describe(code: str) -> str:
    """The English description of a central-bank reason code."""
    return REASON_CODES.get(code, f"Rejected by the central bank ({code})")


def judge_payment(
    *,
    duplicate: bool,
    routed_ispb: str,
    account_ispb: str,
    forced_code: str | None = None,
) -> Rejection | None:
    """The SPI's verdict on a payment it received; None settles it.

    `routed_ispb` is where the payment was sent (the caller's `recipient_ispb`, or the
    key's institution), `account_ispb` where the recipient's account really is.
    `forced_code` is a rejection the receiving institution answers with (a test key).
    """
    if duplicate:
        return Rejection("DUPL", "Duplicate payment: this end-to-end ID was already used")
    participant = participants.lookup(routed_ispb)
    if participant is None or not participant.pix:
        return Rejection("DS27", f"Participant {routed_ispb} is not an active Pix participant")
    if routed_ispb != account_ispb:
        return Rejection(
            "AC03", f"Account missing or invalid: the recipient has no account at {routed_ispb}"
        )
    if forced_code is not None:
        return Rejection(forced_code, describe(forced_code))
    return None


def refund_deadline_passed(
    days: int, original_settled_at: datetime, requested_at: datetime
) -> bool:
    """Whether a refund requested at `requested_at` is past `days` calendar days after the
    original settled: both instants are read as dates in `REFUND_DEADLINE_ZONE`, and the
    last allowed day is the settlement's date plus `days`, to its very end."""
    settled_day = original_settled_at.astimezone(REFUND_DEADLINE_ZONE).date()
    requested_day = requested_at.astimezone(REFUND_DEADLINE_ZONE).date()
    return requested_day > settled_day + timedelta(days=days)


def judge_refund(
    reason: str, original_settled_at: datetime, requested_at: datetime
) -> Rejection | None:
    """The SPI's verdict on a voluntary refund (pacs.004); None settles it.

    The deadline is judged against the moment the merchant requested the refund, not
    when the central bank answers: a refund asked for in time is in time.
    """
    days = REFUND_DEADLINE_DAYS.get(reason)
    if days is None:
        allowed = ", ".join(REFUND_DEADLINE_DAYS)
        return Rejection(
            INVALID_REFUND_REASON_CODE,
            f"Refund reason {reason!r} is not an accepted return code ({allowed})",
        )
    if refund_deadline_passed(days, original_settled_at, requested_at):
        return Rejection(
            LATE_REFUND_CODE,
            f"Refund outside the allowed window: {reason} refunds are accepted up to "
            f"{days} calendar days after the original payment",
        )
    return None
