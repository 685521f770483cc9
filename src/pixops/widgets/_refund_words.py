"""The refund panel's words: the central bank's refund reasons with their deadlines, why a
transaction cannot be refunded, and how to type an amount that was not understood."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Final

from pixops import money
from pixops.schema import FailedInbound, MedCase, OutboundInFlight, Transaction
from pixops.widgets._format import BUSINESS_TZ, brl, label, local_time, plural
from pixops.widgets._inspector_html import failure_words
from pixops.widgets._reads import Received, Row, is_refund_id

__all__ = [
    "ACCEPTED_UNREAD",
    "FOLLOW_UP_SECONDS",
    "REASONS",
    "REFUND_REASONS",
    "UNKNOWN_OUTCOME",
    "RefundReason",
    "amount_centavos",
    "amount_problem",
    "deadline_passed",
    "disputed",
    "final_outcome",
    "last_day",
    "not_refundable",
    "nothing_found",
    "payment_label",
    "reason_help",
    "search_dates",
    "settled_at",
    "still_processing",
    "still_valid",
]

#: After a 500 the service may have made the refund, and only 2xx answers are replayed
#: for a key: sending it again could refund twice, so the payment is read again instead.
UNKNOWN_OUTCOME: Final = (
    "The PIX service failed while handling the refund, so it may have been made. The payment "
    "was read again: check its refunds and what is left before reviewing a new one."
)

#: The service answered 2xx to the refund but pixops could not read the answer (a proxy's
#: page, a body cut short): the refund was made; the same one confirmed again reuses its key.
ACCEPTED_UNREAD: Final = (
    "The PIX service accepted the refund, but its answer could not be read (tell the team "
    "that maintains pixops). The payment was read again: its refunds above show the one "
    "made. Do not send it again as a new refund."
)
#: How long Follow up waits for a refund to become final. The client's default is two
#: hours: on the real service the notebook, every button with it, froze that long.
FOLLOW_UP_SECONDS: Final = 60


@dataclass(frozen=True)
class RefundReason:
    """A central-bank refund code, what it means, and how long after settlement it is valid."""

    code: str
    meaning: str
    deadline_days: int


#: The spec's reason codes (refund rule 4) with their deadlines (rule 5).
REFUND_REASONS: Final = (
    RefundReason("MD06", "agreement between the parties (the usual refund)", 90),
    RefundReason("AM09", "incorrect amount charged", 30),
    RefundReason("SL02", "settlement error", 30),
    RefundReason("RR04", "transaction not recognised by the payer", 30),
    RefundReason("BE08", "fraud (follows the MED deadline)", 80),
    RefundReason("FR01", "fraud reported on the recipient side (MED)", 80),
)
#: Each code's entry, in the order above.
REASONS: Final = {reason.code: reason for reason in REFUND_REASONS}


def not_refundable(record: Transaction) -> str:
    """Why an identifier that names a transaction finds nothing to refund, in words."""
    ident = record.transaction_id
    if record.direction != "inbound":
        what = "a refund you sent" if is_refund_id(ident) else "a payment you sent"
        return (
            f"{ident} is {what}, not a payment you received: "
            "only received payments can be refunded."
        )
    if record.type == "pix_qrcode":
        return (
            f"{ident} is a QR code charge, not the payment itself: search for the payer, "
            "the amount or the payment's end-to-end id."
        )
    return (
        f"{ident} is a received payment that did not settle ({label(record.status)}): "
        "no money arrived, so there is nothing to refund."
    )


def nothing_found(text: str, date_from: date | None, date_to: date | None) -> str:
    """No received payment matched: where it was looked for, and what to try next."""
    typed = " ".join(text.split())
    if date_from is None or date_to is None:
        return f"No received payment matches “{typed}”: check the spelling."
    return (
        f"No received payment from {date_from:%d/%m/%Y} to {date_to:%d/%m/%Y} matches "
        f"“{typed}”: check the spelling, or choose an earlier From date."
    )


def amount_centavos(typed: str, remaining_base: int) -> int:
    """The amount to refund in centavos: the one typed, or (empty) everything that is left;
    ValueError in words when it is not understood."""
    text = typed.strip()
    if not text:
        if remaining_base % 100:
            raise ValueError("what is left is not a whole number of centavos; type it")
        return remaining_base // 100
    try:
        centavos = money.parse_centavos(text)
    except money.MoneyError as error:
        raise ValueError(amount_problem(text, str(error))) from None
    if centavos <= 0:
        raise ValueError("the amount must be more than R$ 0,00")
    return centavos


def still_processing(refund_id: str, last: Transaction) -> str:
    """Follow up's words when the refund is not final yet: where it stands, what to do."""
    status = label(last.status)
    return (
        f"Refund {refund_id}: still {status} after {FOLLOW_UP_SECONDS} seconds; the payer's "
        "bank has not answered yet. Press Follow up again in a few minutes."
    )


def final_outcome(refund_id: str, final: Transaction) -> tuple[str, str]:
    """Follow up's words for a refund that is final, and their tone: settled, or why not
    in words (the code alone, "Failed (AG03)", told support nothing) and what now."""
    status = label(final.status)
    if final.status == "settled":
        return f"Refund {refund_id}: {status}.", "ok"
    why = (
        failure_words(final.reason_code, final.reason_description)
        if isinstance(final, FailedInbound | OutboundInFlight)
        else failure_words(None, None)
    )
    return (
        f"Refund {refund_id}: {status}. {why}. Nothing went back to the"
        " payer: the amount is left to refund again once what the reason says is dealt with.",
        "error",
    )


def amount_problem(text: str, reason: str) -> str:
    """Why a typed amount is not understood, in words (the parser's message is technical)."""
    if "ambiguous" in reason:
        return (
            f"{text} could be thousands or a decimal; type reais and centavos with a comma, "
            "like 1.000,00 or 1,00"
        )
    if "whole number" in reason:
        return "at most two digits after the comma (centavos), like 10,50"
    if "range" in reason or "too long" in reason:
        return "that amount is far too large"
    return "type reais and centavos like 10,50 or 1.234,56"


def disputed(cases: list[MedCase]) -> str:
    """The warning for a payment a MED case still disputes: a refund now may pay twice."""
    named = ", ".join(f"{c.id} ({brl(c.blocked_amount)} blocked)" for c in cases)
    return (
        f"MED case open on this payment: {named}. If the central bank agrees with the payer, "
        "the payer is refunded from the blocked money: refund now only if you agreed with "
        "the payer, or answer the case instead (MED disputes)."
    )


def reason_help(
    reason: RefundReason, settled: datetime | None, now: datetime, remaining_base: int | None
) -> tuple[str, str]:
    """The line under the reason (its code, meaning and deadline) and its tone: how many
    days are left, or that none are, or that nothing is left to refund at all."""
    text = f"{reason.code}: {reason.meaning}. Valid up to {reason.deadline_days} days"
    if settled is None:
        return text + " after the payment settled.", "info"
    last = last_day(reason, settled)
    days_left = (last - now.astimezone(BUSINESS_TZ).date()).days
    text += f" after the payment: up to and including {last:%d/%m/%Y}"
    if remaining_base == 0:
        return text + ". Nothing is left to refund on this payment.", "info"
    if days_left < 0:
        ago = plural(-days_left, "day")
        return text + (
            f", {ago} ago. The central bank will refuse it as too late (code DT05)."
        ), "error"
    if days_left == 0:
        return text + " (today is the last day).", "warn"
    return text + f" ({plural(days_left, 'day')} left).", "warn" if days_left <= 7 else "info"


def search_dates(now: datetime) -> tuple[date, date]:
    """The From and To a search starts with: the last 90 days up to today in São Paulo
    (at 22:00 there it is already tomorrow in UTC)."""
    today = now.astimezone(BUSINESS_TZ).date()
    return today - timedelta(days=90), today


def settled_at(payment: Received) -> datetime:
    """When a payment settled, the moment each reason's deadline counts from."""
    return payment.completed_at or payment.created_at


def payment_label(row: Row) -> str:
    """A received payment in the picker: when, how much, who, then its id."""
    when = local_time(row.completed_at or row.created_at)
    payer = row.counterparty_name or "unknown payer"
    return f"{when} · {brl(row.amount)} · {payer} · {row.transaction_id}"


def still_valid(settled: datetime | None, now: datetime) -> str:
    """After a reason's deadline: the reasons whose deadline has not passed, or that none
    is left (past MD06's 90 days the payment can no longer be refunded by PIX)."""
    if settled is None:
        return "Choose a reason still valid."
    valid = [r.code for r in REFUND_REASONS if not deadline_passed(r, settled, now)]
    if not valid:
        return "It is past every reason's deadline: no reason is valid any longer."
    return f"Still valid: {', '.join(valid)}."


def last_day(reason: RefundReason, settled: datetime) -> date:
    """The last day `reason` is accepted for a payment settled at `settled`: the central
    bank counts calendar days in São Paulo, and accepts the refund to that day's end."""
    return settled.astimezone(BUSINESS_TZ).date() + timedelta(days=reason.deadline_days)


def deadline_passed(reason: RefundReason, settled: datetime, now: datetime) -> bool:
    """Whether `reason` can no longer be used for a payment settled at `settled`: its last
    day (`last_day`, as `reason_help` counts what is left) is over in São Paulo."""
    return now.astimezone(BUSINESS_TZ).date() > last_day(reason, settled)
