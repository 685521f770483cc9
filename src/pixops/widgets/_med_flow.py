"""`MedFlow`: the MED panel's steps as a plain class, testable without ipywidgets.

Pick a case (the list most urgent first) → write the defense (a draft kept per case) →
submit it (once: a case takes one) → check the outcome (the central bank's decision).
Each step reads and writes this object's state; `MedDefensePanel` only shows it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Final, Literal

from pixops.client import ConflictError, ServerError, TransportError
from pixops.errors import PixopsError
from pixops.schema import (
    FailedInbound,
    MedCase,
    OutboundInFlight,
    QrCharge,
    QrFallback,
    SettledTransaction,
    Transaction,
)
from pixops.widgets._api import parse_time
from pixops.widgets._base import Clock, EventSource, InvalidTextError, events_for, valid_text
from pixops.widgets._format import (
    brl,
    count_text,
    decision_label,
    event_label,
    label,
    local_time,
    plural,
    problem,
)
from pixops.widgets._line import Line, Tone
from pixops.widgets._med_rules import (
    DECISIONS,
    case_outcome,
    missed_deadline,
    urgency,
    why_closed,
)
from pixops.widgets._med_table import CaseRow
from pixops.widgets._reads import cases_of, status_of

if TYPE_CHECKING:
    from pixops.client import Client

__all__ = [
    "MAX_DEFENSE_CHARS",
    "MIN_DEFENSE_CHARS",
    "REASONS",
    "MedFlow",
    "Receipt",
    "Step",
    "case_label",
]

#: The service keeps at most this many characters of a defense (the DICT API's limit).
MAX_DEFENSE_CHARS: Final = 2000
#: Fewer characters say nothing the central bank can weigh ("ok", "x"), and a case takes
#: one defense: such a text is a slip, refused before it is sent.
MIN_DEFENSE_CHARS: Final = 10
_ACTIVE: Final = ("OPEN", "ACKNOWLEDGED")
#: A case's reason code in words.
REASONS: Final = {
    "FRAUD": "fraud suspected by the payer's bank",
    "OPERATIONAL_FLAW": "operational flaw",
    "REFUND_REQUEST": "the payer asks for the money back",
}
_FIRST: Final = datetime.min.replace(tzinfo=UTC)


@dataclass(frozen=True)
class Step:
    """A line of a case's history: when (unknown: first), and what happened."""

    at: datetime | None
    what: str


@dataclass(frozen=True)
class Receipt:
    """The "Defense received" card: its lines and the service's answer."""

    items: list[tuple[str, str]]
    answer: MedCase


@dataclass
class MedFlow:
    """Open MED cases sorted by deadline; a case, its payment and history; the defense."""

    client: Client
    now: Clock
    inbox: EventSource | None = None
    #: "active" (the cases that need attention) or "all".
    show: Literal["active", "all"] = "active"
    cases: list[MedCase] = field(default_factory=list)
    #: The cases as the table shows them, and the picker's lines (case label, id).
    rows: list[CaseRow] = field(default_factory=list)
    options: list[tuple[str, str]] = field(default_factory=list)
    #: The case id picked (kept when its reading failed: Refresh reads it again).
    chosen: str | None = None
    case: MedCase | None = None
    payment: Transaction | None = None
    history: list[Step] = field(default_factory=list)
    #: When the case shown was read (what its deadline is judged against).
    read_at: datetime | None = None
    #: The defense typed for the case shown.
    defense: str = ""
    #: Defenses typed and not sent, by case: switching cases never carries one over.
    drafts: dict[str, str] = field(default_factory=dict)
    status: Line = field(default_factory=Line)
    receipt: Receipt | None = None
    #: Counts every change of `receipt`, so a view redraws it only when it changed.
    receipt_version: int = 0
    #: The case the status line and the receipt speak of.
    about: str | None = None

    # -- the list ----------------------------------------------------------------

    def reload(self) -> None:
        """Refresh asked for by a person: the status line spoke of the older reading."""
        self.status = Line()
        self.refresh()

    def refresh(self) -> None:
        """Reload the cases, most urgent first, and read the case picked again."""
        try:
            cases = cases_of(self.client)
        except PixopsError as error:
            self.status = Line(f"Could not list the MED cases. {problem(error)}", "error")
            return
        if self.show == "active":
            cases = [c for c in cases if c.status in _ACTIVE]
        cases.sort(key=_priority)
        self.cases = cases
        now = self.now()
        # An open case's defense deadline; a closed one's, long past, says less than the
        # time of its decision.
        self.rows = [
            CaseRow(
                c.id,
                int(c.amount),
                c.reason,
                _standing(c, now),
                c.closed_at or c.defense_deadline,
                bool(c.closed_at),
            )
            for c in cases
        ]
        # The case shown, else the one picked whose reading failed.
        current = self.chosen if self.case is None else self.case.id
        self.options = [(case_label(c, now), c.id) for c in cases]
        ids = [value for _, value in self.options]
        self.select(current if current in ids else (ids[0] if ids else None))

    # -- one case ----------------------------------------------------------------

    def select(self, case_id: str | None) -> None:
        """Read a case with its payment and history.

        The status line and the receipt speak of one case: another case picked, they go
        (a "Defense received" under a case nobody defended is not true of it)."""
        if case_id != self.about:
            self.about = case_id
            self.status = Line()
            self._set_receipt(None)
        self.chosen = case_id
        if not case_id:
            self._keep_draft(None)
            self.case, self.payment, self.history = None, None, []
            return
        try:
            case = self.client.med.get(case_id)
            payment = self.client.transactions.get(case.transaction_id)
        except PixopsError as error:
            # Nothing of the case shown before stays (a defense would go to it); the text
            # typed for it is kept aside, and Refresh reads the case picked again.
            self._keep_draft(None)
            self.case, self.payment, self.history = None, None, []
            self.status = Line(
                f"Could not read case {case_id}. {problem(error)} Press Refresh to try again.",
                "error",
            )
            return
        self._keep_draft(case_id)
        self.case, self.payment = case, payment
        self.read_at = self.now()
        self.history = self._history(case)

    def _keep_draft(self, case_id: str | None) -> None:
        """Put the text typed for the case shown aside, and bring back `case_id`'s."""
        shown = None if self.case is None else self.case.id
        if shown == case_id:
            return
        if shown is not None and self.defense.strip():
            self.drafts[shown] = self.defense
        elif shown is not None:
            self.drafts.pop(shown, None)
        self.defense = self.drafts.pop(case_id, "") if case_id else ""

    @property
    def can_defend(self) -> bool:
        """The case shown still takes a defense (OPEN, before its deadline, none sent)."""
        return self.case is not None and why_closed(self.case, self.now()) is None

    def _history(self, case: MedCase) -> list[Step]:
        reason = REASONS.get(str(case.reason), str(case.reason))
        opened = f"Opened by the central bank: {reason}"
        if case.details:
            opened += f" ({case.details})"
        steps = [Step(case.opened_at, opened)]
        if case.defended_at:
            # What was argued, in the merchant's words: the text box is empty once sent.
            defense = " ".join((case.defense or "").split())
            what = f"Defense submitted: {defense}" if defense else "Defense submitted"
            steps.append(Step(case.defended_at, what))
        missed = missed_deadline(case, self.now())
        if missed is not None:
            steps.append(Step(missed, "Deadline passed without a defense"))
        if case.closed_at:
            result = case.analysis_result or case.status
            what = DECISIONS.get(str(result), f"Closed ({label(result)})")
            if case.analysis_details:
                what += f": {case.analysis_details}"
            steps.append(Step(case.closed_at, what))
        for event in events_for(self.inbox, {case.id}):
            what = f"{event_label(event.get('type'))} (the service's notice)"
            steps.append(Step(_event_time(event.get("created_at")), what))
        if case.refund_transaction_id:
            steps.append(self._refund_step(case.refund_transaction_id))
        steps.sort(key=lambda s: s.at or _FIRST)
        return steps

    def _refund_step(self, refund_id: str) -> Step:
        try:
            refund = self.client.transactions.get(refund_id)
        except PixopsError:
            return Step(None, f"Payer refunded automatically: {refund_id}")
        what = f"Automatic refund {refund_id} of {brl(refund.amount)}: {label(refund.status)}"
        return Step(_moment(refund), what)

    # -- acting --------------------------------------------------------------------

    def submit(self) -> None:
        """Send the defense of the case shown."""
        if self.case is None:
            self.status = Line("Choose a case first.", "error")
            return
        closed = why_closed(self.case, self.now())
        if closed is not None:
            self.status = Line(f"This case no longer takes a defense: {closed}.", "error")
            return
        text = self.defense.strip()
        if not text:
            self.status = Line("Write the defense first.", "error")
            return
        try:
            valid_text(text, "defense")
        except InvalidTextError as error:
            self.status = Line(str(error), "error")
            return
        if len(text) < MIN_DEFENSE_CHARS:
            self.status = Line(
                f"A defense of {plural(len(text), 'character')} says nothing the central bank"
                " can weigh, and a case takes one: write what was sold, the delivery proof"
                " and any contact with the payer.",
                "error",
            )
            return
        if len(text) > MAX_DEFENSE_CHARS:
            self.status = Line(
                f"The defense must be at most {count_text(MAX_DEFENSE_CHARS)} characters.",
                "error",
            )
            return
        self._send(self.case.id, text)

    def _send(self, case_id: str, text: str) -> None:
        try:
            answer = self.client.med.defend(case_id, text)
        except (TransportError, ServerError, ConflictError) as error:
            # No answer (yet): the defense may have been recorded. Sending it again is safe: a
            # case takes one defense, so a second one is refused, never recorded twice.
            self.status = Line(
                f"{problem(error)} The defense may or may not have arrived: press Check "
                "outcome, or Submit defense again (a case never takes two).",
                "error",
            )
            return
        except PixopsError as error:
            if 200 <= (status_of(error) or 0) < 300:  # accepted, its answer unreadable
                self.select(case_id)
                self.status = Line(
                    "The PIX service accepted the defense, but its answer could not be read "
                    "(tell the team that maintains pixops): press Check outcome.",
                    "error",
                )
                return
            why = problem(error)
            if status_of(error) == 422:
                # The case moved on since it was read (decided, or its deadline passed):
                # read it again and say so in words; the text typed stays.
                self.select(case_id)
                closed = None if self.case is None else why_closed(self.case, self.now())
                why = why if closed is None else f"This case no longer takes one: {closed}."
            self.status = Line(f"The service refused the defense. {why}", "error")
            return
        status = label(answer.status)
        self.status = Line(
            f"Defense of {case_id} received; case now {status}. The central bank decides "
            "next: press Check outcome to see its decision.",
            "ok",
        )
        items = [
            ("Case", case_id),
            ("Status", status),
            ("Submitted", local_time(answer.defended_at)),
            ("Disputed amount", brl(answer.amount)),
            ("Blocked meanwhile", brl(answer.blocked_amount)),
            ("Defense deadline", local_time(answer.defense_deadline)),
        ]
        self._set_receipt(Receipt(items, answer))
        self.defense = ""
        self.refresh()
        self.select(case_id)

    def check_outcome(self) -> None:
        """Read the case shown again and say where it stands."""
        if self.case is None:
            self.status = Line("Choose a case first.", "error")
            return
        self.select(self.case.id)
        if self.case is None:
            return
        said = case_outcome(self.case, self.now())
        self.status = Line(said.text, _tone(said.tone))

    def _set_receipt(self, receipt: Receipt | None) -> None:
        if receipt is None and self.receipt is None:
            return
        self.receipt = receipt
        self.receipt_version += 1


def _tone(tone: str) -> Tone:
    return _TONES.get(tone, "info")


_TONES: Final[dict[str, Tone]] = {"info": "info", "ok": "ok", "warn": "warn", "error": "error"}


def _event_time(value: object) -> datetime | None:
    """A notice's time (ISO 8601 text from outside): None when it is not one."""
    try:
        return parse_time(value)
    except (TypeError, ValueError):
        return None


def _moment(refund: Transaction) -> datetime | None:
    """When a refund last moved: completed, failed, or (in flight) created."""
    if isinstance(refund, OutboundInFlight):
        return refund.failed_at or refund.created_at
    if isinstance(refund, FailedInbound):
        return refund.failed_at
    if isinstance(refund, SettledTransaction | QrCharge | QrFallback):
        return refund.completed_at or refund.created_at
    return None


def _state(case: MedCase) -> str:
    """The status in words; a decided case's decision, its time left saying "closed"."""
    result = case.analysis_result
    return decision_label(result) if result else label(case.status)


def _standing(case: MedCase, now: datetime) -> str:
    """The cases table's status: an open case's time left, "Awaiting decision" once
    defended ("No defense sent" once its deadline passed without one), a decided case's
    decision (short: the table fits beside the file browser)."""
    if case.status == "OPEN" and not case.analysis_result:
        left, _ = urgency(case, now)
        return "Open, past deadline" if left == "deadline passed" else f"Open: {left}"
    if case.status == "ACKNOWLEDGED":
        return "Awaiting decision" if case.defended_at else "No defense sent"
    return _state(case)


def _priority(case: MedCase) -> tuple[int, float]:
    """Open cases first, the nearest deadline first, then answered ones; then closed ones,
    the latest first (a decision just made is the one support is asked about)."""
    order = {"OPEN": 0, "ACKNOWLEDGED": 1}.get(case.status, 2)
    when = case.closed_at or case.defense_deadline  # the date the table shows
    moment = (when or _FIRST).timestamp()
    return order, -moment if order == 2 else moment


def case_label(case: MedCase, now: datetime) -> str:
    """The picker's line: the case, its amount, and its time left or its decision."""
    text, _ = urgency(case, now)
    if case.analysis_result:
        text = f"decided: {_state(case).lower()}"
    return f"{case.id} · {brl(case.amount)} · {label(case.status)} · {text}"
