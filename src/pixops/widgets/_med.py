"""`MedDefensePanel`: the MED cases that need an answer, most urgent first, and the defense.

A MED case is the central bank's dispute of a received PIX (fraud, or a refund
request). The merchant may defend while the case is OPEN and before its deadline;
the central bank then decides: AGREED refunds the payer automatically, DISAGREED
releases the blocked money.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

import ipywidgets as w

from pixops.client import ConflictError, ServerError, TransportError
from pixops.errors import PixopsError
from pixops.widgets._api import Record, med_cases, plain, status_of, time_key
from pixops.widgets._base import (
    Clock,
    InvalidTextError,
    check_client,
    clock_for,
    events_for,
    fitted,
    inbox_for,
    panel_heading,
    side_by_side,
    valid_text,
    when_clicked,
)
from pixops.widgets._format import (
    brl,
    count_text,
    decision_label,
    event_label,
    html_table,
    label,
    local_time,
    message,
    outcome,
    pairs,
    plural,
    problem,
)
from pixops.widgets._med_rules import (
    DECISIONS,
    case_heading,
    case_outcome,
    missed_deadline,
    urgency,
    why_closed,
)
from pixops.widgets._med_table import cases_table

__all__ = ["MAX_DEFENSE_CHARS", "MedDefensePanel", "urgency"]

#: The service keeps at most this many characters of a defense (the DICT API's limit).
MAX_DEFENSE_CHARS: Final = 2000
#: Fewer characters say nothing the central bank can weigh ("ok", "x"), and a case takes
#: one defense: such a text is a slip, refused before it is sent.
MIN_DEFENSE_CHARS: Final = 10
_ACTIVE: Final = ("OPEN", "ACKNOWLEDGED")
_REASONS: Final = {
    "FRAUD": "fraud suspected by the payer's bank",
    "OPERATIONAL_FLAW": "operational flaw",
    "REFUND_REQUEST": "the payer asks for the money back",
}
_HISTORY_COLUMNS: Final = (("at", "When"), ("what", "What happened"))


class MedDefensePanel(w.VBox):  # type: ignore[misc]
    """Open MED cases sorted by deadline; a case, its payment and history; the defense."""

    def __init__(self, client: Any, *, now: Clock | None = None, inbox: Any = None) -> None:
        check_client(client, "med", "transactions")
        self.client = client
        self._now = clock_for(client, now)
        self._inbox = inbox_for(client, inbox)
        self.cases: list[Record] = []
        self.case: Record | None = None
        #: Defenses typed and not sent, by case: switching cases never carries one over.
        self._drafts: dict[str, str] = {}
        #: The case the status line and the receipt speak of.
        self._about: str | None = None
        self._listing = False

        self.show = w.ToggleButtons(
            options=[("Needs attention", "active"), ("All cases", "all")], value="active"
        )
        self.refresh_button = w.Button(description="Refresh", icon="refresh")
        self.table = w.HTML()
        self.case_picker = w.Dropdown(description="Case", options=[], layout=fitted("620px"))
        self.details = w.HTML()
        self.defense = w.Textarea(
            placeholder="Your defense: what was sold, delivery proof, contact with the payer…",
            layout=fitted("720px", height="120px"),
        )
        self.counter = w.HTML()
        self.submit_button = w.Button(
            description="Submit defense", button_style="primary", disabled=True, icon="paper-plane"
        )
        self.outcome_button = w.Button(description="Check outcome", disabled=True, icon="gavel")
        self.status = w.HTML()
        self.output = w.Output()

        when_clicked(self.refresh_button, self._reload, busy=True)
        self.show.observe(lambda _: self._reload(), names="value")
        self.case_picker.observe(self._picked, names="value")
        self.defense.observe(lambda _: self._count(), names="value")
        when_clicked(self.submit_button, self.submit)
        when_clicked(self.outcome_button, self.check_outcome)
        super().__init__(
            [
                panel_heading("MED disputes"),
                side_by_side(self.show, self.refresh_button),
                self.table,
                self.case_picker,
                self.details,
                self.defense,
                self.counter,
                side_by_side(self.submit_button, self.outcome_button),
                self.status,
                self.output,
            ]
        )
        self._count()
        self.refresh()

    # -- the list ----------------------------------------------------------------

    def _reload(self) -> None:
        """Refresh asked for by a person: the status line spoke of the older reading."""
        self._set_status("")
        self.refresh()

    def refresh(self) -> None:
        """Reload the cases, most urgent first."""
        try:
            cases = med_cases(self.client)
        except PixopsError as error:
            self._set_status(f"Could not list the MED cases. {problem(error)}", "error")
            return
        if self.show.value == "active":
            cases = [c for c in cases if c.get("status") in _ACTIVE]
        cases.sort(key=_priority)
        self.cases = cases
        now = self._now()
        # An open case's defense deadline; a closed one's, long past, says less than the
        # time of its decision.
        rows = [
            {
                **c,
                "state": _standing(c, now),
                "when": c.get("closed_at") or c.get("defense_deadline"),
                "decided": bool(c.get("closed_at")),
            }
            for c in cases
        ]
        self.table.value = cases_table(rows, empty="No MED case needs attention.")
        # The case shown, else the one picked whose reading failed.
        current = self.case_picker.value if self.case is None else self.case.get("id")
        options = [(_label(c, now), str(c["id"])) for c in cases]
        ids = [value for _, value in options]
        chosen = current if current in ids else (ids[0] if ids else None)
        # New options move the picker to their first one on the way: not a case picked.
        self._listing = True
        try:
            self.case_picker.options = options
            self.case_picker.value = chosen
        finally:
            self._listing = False
        self.select(chosen)

    def _picked(self, change: dict[str, Any]) -> None:
        """A case picked by a person (not the picker's moves while the list is replaced)."""
        if not self._listing:
            self.select(change["new"])

    # -- one case ----------------------------------------------------------------

    def select(self, case_id: str | None) -> None:
        """Show a case with its payment and history; the defense opens only when allowed.

        The status line and the receipt under it speak of one case: another case picked,
        they go (a "Defense received" under a case nobody defended is not true of it)."""
        if case_id != self._about:
            self._about = case_id
            self._set_status("")
            self.output.outputs = ()
        if not case_id:
            self._keep_draft(None)
            self.case = None
            self.details.value = ""
            self.submit_button.disabled = True
            self.outcome_button.disabled = True
            return
        try:
            case = plain(self.client.med.get(case_id))
            payment = plain(self.client.transactions.get(str(case["transaction_id"])))
        except PixopsError as error:
            # Nothing of the case shown before stays (a defense would go to it); the text
            # typed for it is kept aside, and Refresh reads the case picked again.
            self._keep_draft(None)
            self.case = None
            self.details.value = ""
            self.submit_button.disabled = self.outcome_button.disabled = True
            self._set_status(
                f"Could not read case {case_id}. {problem(error)} Press Refresh to try again.",
                "error",
            )
            return
        self._keep_draft(case_id)
        self.case = case
        self.outcome_button.disabled = False
        self.submit_button.disabled = not self._can_defend()
        self._render(case, payment)

    def _keep_draft(self, case_id: str | None) -> None:
        """Put the text typed for the case shown aside, and bring back `case_id`'s."""
        shown = None if self.case is None else str(self.case.get("id"))
        if shown == case_id:
            return
        if shown is not None and self.defense.value.strip():
            self._drafts[shown] = self.defense.value
        elif shown is not None:
            self._drafts.pop(shown, None)
        self.defense.value = self._drafts.pop(case_id, "") if case_id else ""

    def _can_defend(self) -> bool:
        return self.case is not None and why_closed(self.case, self._now()) is None

    def _render(self, case: Record, payment: Record) -> None:
        heading = case_heading(case, self._now())
        decision = DECISIONS.get(str(case.get("analysis_result")))
        summary = pairs(
            [
                ("Case", str(case.get("id"))),
                ("Status", label(case.get("status"))),
                ("Decision", label(case.get("analysis_result")) if decision else "not yet"),
                ("Reason", _REASONS.get(str(case.get("reason")), str(case.get("reason")))),
                ("Disputed amount", brl(case.get("amount"))),
                ("Blocked meanwhile", brl(case.get("blocked_amount"))),
                ("Defense deadline", local_time(case.get("defense_deadline"))),
                ("Payment", str(payment.get("transaction_id"))),
                ("Paid by", str(payment.get("counterparty_name") or "—")),
                ("Payer's bank", str(payment.get("payer_bank_name") or "—")),
                ("Payment amount", brl(payment.get("amount"))),
                ("Paid at", local_time(payment.get("completed_at") or payment.get("created_at"))),
            ]
        )
        history = html_table(
            self._history(case), _HISTORY_COLUMNS, time_columns={"at"}, empty="No history."
        )
        self.details.value = (
            f"{message(heading.text, heading.tone)}{summary}"
            f"<h4 style='margin:6px 0 2px'>History</h4>{history}"
        )

    def _history(self, case: Record) -> list[Record]:
        steps: list[Record] = []
        reason = _REASONS.get(str(case.get("reason")), str(case.get("reason")))
        steps.append({"at": case.get("opened_at"), "what": f"Opened by the central bank: {reason}"})
        if case.get("details"):
            steps[-1]["what"] += f" ({case['details']})"
        if case.get("defended_at"):
            # What was argued, in the merchant's words: the text box is empty once sent.
            defense = " ".join(str(case.get("defense") or "").split())
            what = f"Defense submitted: {defense}" if defense else "Defense submitted"
            steps.append({"at": case["defended_at"], "what": what})
        missed = missed_deadline(case, self._now())
        if missed is not None:
            steps.append({"at": missed, "what": "Deadline passed without a defense"})
        if case.get("closed_at"):
            result = case.get("analysis_result") or case.get("status")
            what = DECISIONS.get(str(result), f"Closed ({label(result)})")
            if case.get("analysis_details"):
                what += f": {case['analysis_details']}"
            steps.append({"at": case["closed_at"], "what": what})
        for event in events_for(self._inbox, {str(case.get("id"))}):
            what = f"{event_label(event.get('type'))} (the service's notice)"
            steps.append({"at": event.get("created_at"), "what": what})
        refund_id = case.get("refund_transaction_id")
        if refund_id:
            steps.extend(self._refund_steps(str(refund_id)))
        steps.sort(key=lambda s: time_key(s.get("at")))
        return steps

    def _refund_steps(self, refund_id: str) -> list[Record]:
        try:
            refund = plain(self.client.transactions.get(refund_id))
        except PixopsError:
            return [{"at": None, "what": f"Payer refunded automatically: {refund_id}"}]
        when = refund.get("completed_at") or refund.get("failed_at") or refund.get("created_at")
        return [
            {
                "at": when,
                "what": f"Automatic refund {refund_id} of {brl(refund.get('amount'))}: "
                f"{label(refund.get('status'))}",
            }
        ]

    # -- acting --------------------------------------------------------------------

    def _count(self) -> None:
        used = len(self.defense.value.strip())
        tone = "error" if used > MAX_DEFENSE_CHARS else "info"
        self.counter.value = message(
            f"{count_text(used)} of {count_text(MAX_DEFENSE_CHARS)} characters", tone
        )

    def submit(self) -> None:
        """Send the defense of the selected case."""
        if self.case is None:
            self._set_status("Choose a case first.", "error")
            return
        closed = why_closed(self.case, self._now())
        if closed is not None:
            self._set_status(f"This case no longer takes a defense: {closed}.", "error")
            return
        text = self.defense.value.strip()
        if not text:
            self._set_status("Write the defense first.", "error")
            return
        try:
            valid_text(text, "defense")
        except InvalidTextError as error:
            self._set_status(str(error), "error")
            return
        if len(text) < MIN_DEFENSE_CHARS:
            self._set_status(
                f"A defense of {plural(len(text), 'character')} says nothing the central bank"
                " can weigh, and a case takes one: write what was sold, the delivery proof"
                " and any contact with the payer.",
                "error",
            )
            return
        if len(text) > MAX_DEFENSE_CHARS:
            self._set_status(
                f"The defense must be at most {count_text(MAX_DEFENSE_CHARS)} characters.",
                "error",
            )
            return
        case_id = str(self.case["id"])
        self.submit_button.disabled = True  # greyed while the defense is on its way
        try:
            self._send(case_id, text)
        finally:  # a defense taken, or a case moved on, leaves it greyed
            self.submit_button.disabled = not self._can_defend()

    def _send(self, case_id: str, text: str) -> None:
        try:
            answer = plain(self.client.med.defend(case_id, text))
        except (TransportError, ServerError, ConflictError) as error:
            # No answer (yet): the defense may have been recorded. Sending it again is safe: a
            # case takes one defense, so a second one is refused, never recorded twice.
            self._set_status(
                f"{problem(error)} The defense may or may not have arrived: press Check "
                "outcome, or Submit defense again (a case never takes two).",
                "error",
            )
            return
        except PixopsError as error:
            if 200 <= (status_of(error) or 0) < 300:  # accepted, its answer unreadable
                self.select(case_id)
                self._set_status(
                    "The PIX service accepted the defense, but its answer could not be read "
                    "(tell the team that maintains pixops): press Check outcome.",
                    "error",
                )
                return
            why = problem(error)
            if getattr(error, "status", None) == 422:
                # The case moved on since it was read (decided, or its deadline passed):
                # read it again and say so in words; the text typed stays.
                self.select(case_id)
                closed = None if self.case is None else why_closed(self.case, self._now())
                why = why if closed is None else f"This case no longer takes one: {closed}."
            self._set_status(f"The service refused the defense. {why}", "error")
            return
        status = label(answer.get("status"))
        self._set_status(
            f"Defense of {case_id} received; case now {status}. The central bank decides "
            "next: press Check outcome to see its decision.",
            "ok",
        )
        self.output.append_display_data(
            outcome(
                "Defense received",
                [
                    ("Case", case_id),
                    ("Status", status),
                    ("Submitted", local_time(answer.get("defended_at"))),
                    ("Disputed amount", brl(answer.get("amount"))),
                    ("Blocked meanwhile", brl(answer.get("blocked_amount"))),
                    ("Defense deadline", local_time(answer.get("defense_deadline"))),
                ],
                answer,
            )
        )
        self.defense.value = ""
        self.refresh()
        self.select(case_id)

    def check_outcome(self) -> None:
        """Reload the selected case and say where it stands."""
        if self.case is None:
            self._set_status("Choose a case first.", "error")
            return
        self.outcome_button.disabled = True  # greyed while the case is read again
        try:
            self._say_outcome(str(self.case["id"]))
        finally:  # a case that could not be read leaves nothing to check
            self.outcome_button.disabled = self.case is None

    def _say_outcome(self, case_id: str) -> None:
        self.select(case_id)
        if self.case is None:
            return
        said = case_outcome(self.case, self._now())
        self._set_status(said.text, said.tone)

    def _set_status(self, text: str, tone: str = "info") -> None:
        self.status.value = message(text, tone) if text else ""


def _state(case: Record) -> str:
    """The status in words; a decided case's decision, its time left saying "closed"."""
    result = case.get("analysis_result")
    return decision_label(result) if result else label(case.get("status"))


def _standing(case: Record, now: datetime) -> str:
    """The cases table's status: an open case's time left, "Awaiting decision" once
    defended ("No defense sent" once its deadline passed without one), a decided case's
    decision (short: the table fits beside the file browser)."""
    status = case.get("status")
    if status == "OPEN" and not case.get("analysis_result"):
        left, _ = urgency(case, now)
        return "Open, past deadline" if left == "deadline passed" else f"Open: {left}"
    if status == "ACKNOWLEDGED":
        return "Awaiting decision" if case.get("defended_at") else "No defense sent"
    return _state(case)


def _priority(case: Record) -> tuple[int, float]:
    """Open cases first, the nearest deadline first, then answered ones; then closed ones,
    the latest first (a decision just made is the one support is asked about)."""
    order = {"OPEN": 0, "ACKNOWLEDGED": 1}.get(str(case.get("status")), 2)
    when = case.get("closed_at") or case.get("defense_deadline")  # the date the table shows
    moment = time_key(when).timestamp()
    return order, -moment if order == 2 else moment


def _label(case: Record, now: datetime) -> str:
    """The picker's line: the case, its amount, and its time left or its decision."""
    text, _ = urgency(case, now)
    if case.get("analysis_result"):
        text = f"decided: {_state(case).lower()}"
    return f"{case.get('id')} · {brl(case.get('amount'))} · {label(case.get('status'))} · {text}"
