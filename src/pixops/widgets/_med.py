"""`MedDefensePanel`: the MED cases that need an answer, most urgent first, and the defense.

A MED case is the central bank's dispute of a received PIX (fraud, or a refund
request). The merchant may defend while the case is OPEN and before its deadline;
the central bank then decides: AGREED refunds the payer automatically, DISAGREED
releases the blocked money. The steps are `MedFlow`'s (a plain class); this panel
only shows its state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import ipywidgets as w
import traitlets

from pixops.widgets._base import (
    Clock,
    EventSource,
    check_client,
    clock_for,
    fitted,
    inbox_for,
    panel_heading,
    side_by_side,
    when_clicked,
)
from pixops.widgets._format import count_text, message, text_of
from pixops.widgets._med_flow import MAX_DEFENSE_CHARS, MedFlow
from pixops.widgets._med_html import case_html, receipt_block
from pixops.widgets._med_rules import urgency
from pixops.widgets._med_table import cases_table

if TYPE_CHECKING:
    from pixops.client import Client
    from pixops.schema import MedCase

__all__ = ["MAX_DEFENSE_CHARS", "MedDefensePanel", "urgency"]


class MedDefensePanel(w.VBox):  # type: ignore[misc]
    """Open MED cases sorted by deadline; a case, its payment and history; the defense.

    A view over `MedFlow` (`.flow`): its state shows in the widgets and as traitlets
    (`case_id`, `status_text`, `can_defend`)."""

    #: The case shown, or None.
    case_id = traitlets.Unicode(None, allow_none=True, read_only=True)
    #: The status line as text.
    status_text = traitlets.Unicode("", read_only=True)
    #: The case shown still takes a defense.
    can_defend = traitlets.Bool(False, read_only=True)

    def __init__(
        self, client: Client, *, now: Clock | None = None, inbox: EventSource | None = None
    ) -> None:
        check_client(client, "med", "transactions")
        self._now = clock_for(client, now)
        self.flow = MedFlow(client, self._now, inbox_for(client, inbox))
        self._receipt_shown = self.flow.receipt_version
        self._listing = False  # the picker's options are being replaced: no case picked

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
        self.defense.observe(lambda _: self._typed(), names="value")
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

    # -- what the flow holds -----------------------------------------------------

    @property
    def client(self) -> Client:
        """The client the panel asks (the flow's)."""
        return self.flow.client

    @client.setter
    def client(self, client: Client) -> None:
        self.flow.client = client

    @property
    def cases(self) -> list[MedCase]:
        """The cases listed, most urgent first (the client's models)."""
        return self.flow.cases

    @property
    def case(self) -> MedCase | None:
        """The case shown, or None."""
        return self.flow.case

    # -- the steps ---------------------------------------------------------------

    def _reload(self) -> None:
        """Refresh asked for by a person: the status line spoke of the older reading."""
        self.flow.show = "all" if self.show.value == "all" else "active"
        self.flow.reload()
        self._show()

    def refresh(self) -> None:
        """Reload the cases, most urgent first."""
        self.flow.show = "all" if self.show.value == "all" else "active"
        self.flow.refresh()
        self._show()

    def select(self, case_id: str | None) -> None:
        """Show a case with its payment and history; the defense opens only when allowed."""
        self.flow.select(case_id)
        self._show()

    def submit(self) -> None:
        """Send the defense of the selected case."""
        self.submit_button.disabled = True  # greyed while the defense is on its way
        try:
            self.flow.submit()
        finally:  # a defense taken, or a case moved on, leaves it greyed
            self._show()

    def check_outcome(self) -> None:
        """Reload the selected case and say where it stands."""
        self.outcome_button.disabled = True  # greyed while the case is read again
        try:
            self.flow.check_outcome()
        finally:  # a case that could not be read leaves nothing to check
            self._show()

    def _picked(self, change: dict[str, Any]) -> None:
        """A case picked by a person (not the picker's moves while the list is replaced)."""
        if not self._listing:
            self.select(change["new"])

    def _typed(self) -> None:
        self.flow.defense = self.defense.value
        self._count()

    # -- showing -------------------------------------------------------------------

    def _show(self) -> None:
        """Every widget and trait from the flow's state."""
        flow = self.flow
        self.table.value = cases_table(flow.rows, empty="No MED case needs attention.")
        options = tuple(flow.options)
        chosen = flow.chosen if any(flow.chosen == key for _, key in options) else None
        if tuple(self.case_picker.options) != options or self.case_picker.value != chosen:
            # New options move the picker to their first one on the way: not a case picked.
            self._listing = True
            try:
                self.case_picker.options = options
                self.case_picker.value = chosen
            finally:
                self._listing = False
        if self.defense.value != flow.defense:
            self.defense.value = flow.defense
        self.details.value = case_html(flow)
        self.submit_button.disabled = not flow.can_defend
        self.outcome_button.disabled = flow.case is None
        if self._receipt_shown != flow.receipt_version:
            self._receipt_shown = flow.receipt_version
            self.output.outputs = ()
            if flow.receipt is not None:
                self.output.append_display_data(receipt_block(flow.receipt))
        self.status.value = message(flow.status.text, flow.status.tone) if flow.status.text else ""
        self.set_trait("status_text", text_of(self.status.value))
        self.set_trait("case_id", None if flow.case is None else flow.case.id)
        self.set_trait("can_defend", flow.can_defend)

    def _count(self) -> None:
        used = len(self.defense.value.strip())
        tone = "error" if used > MAX_DEFENSE_CHARS else "info"
        self.counter.value = message(
            f"{count_text(used)} of {count_text(MAX_DEFENSE_CHARS)} characters", tone
        )
