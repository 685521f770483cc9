"""`ReviewPanel`: the pairs a reconciliation left for a person, side by side; Confirm or
Reject saves the decision to the review file. A thin view of `ReviewQueue`."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import ipywidgets as w

from pixops.errors import PixopsError
from pixops.widgets._base import fitted, side_by_side, valid_text, when_clicked
from pixops.widgets._format import html_table, message, problem
from pixops.widgets._review_model import Candidate, ReviewQueue

if TYPE_CHECKING:
    from pixops.recon import ReconResult

__all__ = ["ReviewPanel"]

_SIDES = [("field", ""), ("ledger", "Ledger entry"), ("statement", "Statement row")]


class ReviewPanel(w.VBox):  # type: ignore[misc]
    """Pick a suggested pair, see both sides, Confirm or Reject (with an optional note);
    ``decided`` is called after each decision (the dashboard reconciles again)."""

    def __init__(self, queue: ReviewQueue, decided: Callable[[], None] | None = None) -> None:
        self.queue = queue
        self._decided = decided
        self.headline = w.HTML()
        self.pick = w.Dropdown(description="Pair", options=[], layout=fitted("560px"))
        self.sides = w.HTML()
        self.rivals = w.HTML()
        self.note = w.Text(description="Note", placeholder="why (optional)", layout=fitted("420px"))
        self.confirm_button = w.Button(description="Confirm", icon="check", button_style="success")
        self.reject_button = w.Button(description="Reject", icon="times", button_style="warning")
        self.status = w.HTML()
        self.pick.observe(lambda _: self._show(), names="value")
        when_clicked(self.confirm_button, lambda: self.decide("confirmed"), busy=True)
        when_clicked(self.reject_button, lambda: self.decide("rejected"), busy=True)
        super().__init__(
            [
                self.headline,
                self.pick,
                self.sides,
                self.rivals,
                side_by_side(self.note, self.confirm_button, self.reject_button),
                self.status,
            ]
        )
        self.refresh()

    def show(self, result: ReconResult | None) -> None:
        """The pairs of a new run."""
        self.queue.load(result)
        self.renew()

    def renew(self) -> None:
        """The pairs of a queue loaded elsewhere (the dashboard's flow loads it each run)."""
        self.status.value = ""
        self.refresh()

    def refresh(self) -> None:
        pending = self.queue.pending
        self.layout.display = None if pending or self.queue.decided else "none"
        self.headline.value = message(self.queue.headline(), "warn" if pending else "ok")
        self.pick.options = [(c.label(), c.key) for c in pending]
        self.pick.value = pending[0].key if pending else None
        for widget in (self.pick, self.note, self.confirm_button, self.reject_button):
            widget.disabled = not pending
        self._show()

    def selected(self) -> Candidate | None:
        if self.pick.value is None:
            return None
        entry_id, statement_id = self.pick.value
        return self.queue.find(entry_id, statement_id)

    def _show(self) -> None:
        candidate = self.selected()
        if candidate is None:
            self.sides.value = self.rivals.value = ""
            return
        self.sides.value = html_table(candidate.sides(), _SIDES, id_columns=("statement",))
        others = self.queue.rivals(candidate)
        detail = candidate.detail.rstrip()
        self.rivals.value = message(
            (detail if not detail or detail.endswith(".") else f"{detail}.")
            + (f" Equally good: {', '.join(o.entry_id for o in others)}." if others else ""),
            "info",
        )

    def decide(self, decision: str) -> None:
        candidate = self.selected()
        if candidate is None:
            return
        try:
            note = valid_text(self.note.value, "note")
            made = self.queue.decide(
                candidate.entry_id,
                candidate.statement_id,
                "confirmed" if decision == "confirmed" else "rejected",
                note,
            )
        except (PixopsError, ValueError, KeyError, OSError) as error:
            self.status.value = message(f"Not saved: {problem(error)}", "error")
            return
        self.note.value = ""
        self.refresh()
        if self._decided is not None:  # the dashboard reconciles again: the pair applied
            self._decided()
        self.status.value = message(self.queue.said(made), "ok")
        self.layout.display = None  # what was saved stays in sight, queue empty or not
