"""Where a MED case stands, in words that are true: plain functions of a case and a time.

The service's rules (its MED cases, as `05_med_disputes` explains them): a case opens
OPEN with a defense deadline 7 calendar days on; the merchant may defend while it is
OPEN and before the deadline. A defense sent, or the deadline passing without one,
moves it to ACKNOWLEDGED: the central bank's analysis, with or without a defense. The
analysis closes it: AGREED refunds the payer automatically from the blocked money,
DISAGREED releases the money to the merchant. The payer's bank may also withdraw the
case (CANCELLED): the money is released, nothing is refunded.

ACKNOWLEDGED alone does not say whether a defense was sent: ``defended_at`` does. The
panel's words follow it, never the status alone ("has your defense" of a case nobody
defended was the bug these functions exist to prevent).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Final

from pixops.schema import MedCase
from pixops.widgets._format import MED_VERDICTS, brl, label, local_time, plural

__all__ = [
    "DECISIONS",
    "Standing",
    "case_heading",
    "case_outcome",
    "missed_deadline",
    "urgency",
    "why_closed",
]

DECISIONS: Final = {result: f"Closed: {words}" for result, words in MED_VERDICTS.items()}
_VERDICTS: Final = {"AGREED": "the payer was refunded", "DISAGREED": "the money stays with you"}
#: What the central bank's analysis does next, whichever way it goes.
_NEXT: Final = (
    "The central bank decides next: if it agrees with the payer, the disputed {amount} is"
    " refunded to them automatically; if not, the {blocked} blocked meanwhile is released"
    " to you. Press Check outcome again later."
)


@dataclass(frozen=True)
class Standing:
    """One sentence about a case and its tone (error, warn, ok, info)."""

    text: str
    tone: str


def _when(value: object) -> str:
    """A service time as São Paulo time, said so (the sentence may be read alone)."""
    return f"{local_time(value)} (São Paulo time)"


def missed_deadline(case: MedCase, now: datetime) -> datetime | None:
    """The deadline a case let pass without a defense, else None (defended, decided,
    withdrawn, or still in time)."""
    if case.defended_at or case.analysis_result:
        return None
    if case.status not in ("OPEN", "ACKNOWLEDGED"):
        return None
    deadline = case.defense_deadline
    if deadline is None or now < deadline:
        return None
    return deadline


def urgency(case: MedCase, now: datetime) -> tuple[str, str]:
    """How pressing a case is: a short text and a tone (error, warn, ok, info)."""
    status = case.status
    if status == "ACKNOWLEDGED":
        # Short, so the cases table keeps fitting the panel ("Acknowledged" says answered).
        return "awaiting decision", "info"
    if status != "OPEN":
        return "closed", "info"
    deadline = case.defense_deadline
    if deadline is None:
        return "no deadline given", "warn"
    hours = int((deadline - now).total_seconds() // 3600)
    if deadline <= now:
        return "deadline passed", "error"
    if hours < 24:
        return f"{hours} h left", "error"
    if hours < 72:
        return f"{hours} h left", "warn"
    return f"{plural(hours // 24, 'day')} left", "ok"


def why_closed(case: MedCase, now: datetime) -> str | None:
    """Why a case takes no defense, in words; None while it does (OPEN, before its deadline)."""
    status = case.status
    if case.defended_at:
        return f"a defense was already submitted on {_when(case.defended_at)}"
    if status == "CLOSED" or case.analysis_result:
        decision = DECISIONS.get(str(case.analysis_result), "it is closed")
        return decision[:1].lower() + decision[1:]
    deadline = case.defense_deadline
    if deadline is not None and now >= deadline:
        return f"no defense was sent and its deadline passed on {_when(deadline)}"
    if status != "OPEN":
        return f"it is {label(status).lower()}"
    if deadline is None:
        return "the service gave it no deadline"
    return None


def case_outcome(case: MedCase, now: datetime) -> Standing:
    """What Check outcome says of a case just read: its decision, or what it waits for
    and what comes next."""
    case_id = case.id
    status = case.status
    result = case.analysis_result
    next_step = _NEXT.format(amount=brl(case.amount), blocked=brl(case.blocked_amount or 0))
    if result in _VERDICTS:
        verdict = _VERDICTS[str(result)]
        return Standing(f"Case {case_id} closed: {label(result)}, {verdict}.", "ok")
    if status == "CANCELLED":
        return Standing(
            f"Case {case_id} was withdrawn by the payer's bank on {_when(case.closed_at)}:"
            " the blocked money is released to you and nothing is refunded.",
            "ok",
        )
    missed = missed_deadline(case, now)
    if missed is not None:
        return Standing(
            f"Case {case_id}: no defense was sent, and the deadline passed on {_when(missed)},"
            " so the case goes to the central bank's analysis without one. No decision yet. "
            + next_step,
            "warn",
        )
    if case.defended_at:
        return Standing(
            f"Case {case_id} has your defense, sent on {_when(case.defended_at)}:"
            " no decision yet. " + next_step,
            "info",
        )
    closed = why_closed(case, now)
    if closed is None:
        return Standing(
            f"Case {case_id} is open: no decision yet, and it still takes your defense until"
            f" {_when(case.defense_deadline)}. Submit it before then: after that the"
            " central bank decides without it.",
            "warn",
        )
    return Standing(
        f"Case {case_id} is {label(status).lower()}: no decision yet ({closed}). "
        "Press Check outcome again later.",
        "info",
    )


def case_heading(case: MedCase, now: datetime) -> Standing:
    """The short line above a case's details: its decision, or what it waits for."""
    decision = DECISIONS.get(str(case.analysis_result))
    if decision is not None:
        return Standing(decision + ".", "ok")
    if case.status == "CANCELLED":
        return Standing(
            "Withdrawn by the payer's bank: the money is released, nothing is refunded.", "ok"
        )
    missed = missed_deadline(case, now)
    if missed is not None:
        return Standing(
            f"No defense was sent: the deadline passed on {_when(missed)}. The central bank"
            " decides without one.",
            "warn",
        )
    if case.status == "ACKNOWLEDGED" and case.defended_at:
        return Standing("Defense sent: awaiting the central bank's decision.", "info")
    text, tone = urgency(case, now)
    return Standing(text, tone)
