"""`TransactionInspector`: support's tool. Paste any identifier, see everything about it.

Any of transaction_id, end-to-end id, external_id, tag, QR tx_id or MED case id finds
the transaction, and so does a counterparty's name, CPF/CNPJ or amount (payments in or
out of the last `NAME_SEARCH_DAYS` days), or an id with a typo or two. The panel shows
its summary, a timeline of what happened (the record's own times, webhook events,
refunds, MED cases), its refunds and disputes, the receipt, and the record in every shape
the API returns it. The steps are `InspectorFlow`'s (a plain class); this panel only
shows its state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

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
from pixops.widgets._format import message, text_of
from pixops.widgets._inspector_flow import NAME_SEARCH_DAYS, InspectorFlow, TimelineStep
from pixops.widgets._inspector_html import cases_html, shapes_html
from pixops.widgets._inspector_summary import receipt_html, summary_html
from pixops.widgets._inspector_tables import (
    TAB_STYLE,
    TABS_CLASS,
    refund_records_table,
    timeline_table,
)

if TYPE_CHECKING:
    from pixops.client import Client
    from pixops.schema import MedCase, Receipt, Transaction
    from pixops.widgets._reads import RefundRecord

__all__ = ["NAME_SEARCH_DAYS", "TransactionInspector"]

TABS: Final = ("Summary", "Timeline", "Refunds", "MED", "Receipt", "API shapes")
#: What the search box takes, short enough to read whole in a narrow notebook.
PLACEHOLDER: Final = (
    "transaction id, end-to-end id, order, tag, QR or MED case id, name, CPF/CNPJ, R$ amount"
)
#: The shapes are for reading: the wire's money and documents are shown as people see them.
SHAPES_NOTE: Final = (
    "Money fields are shown in reais (the API sends integer base units, 100 per centavo);"
    " CPFs are masked as on the receipt. Times here are UTC, as the API sends them (the"
    " Z at the end): São Paulo is 3 hours behind, so 05:03:49Z is 02:03:49 in the other tabs."
)


class TransactionInspector(w.VBox):  # type: ignore[misc]
    """Everything the API knows about one transaction, from any of its identifiers.

    A view over `InspectorFlow` (`.flow`): its state shows in the tabs and as traitlets
    (`transaction_id`, `status_text`)."""

    #: The transaction shown, or None.
    transaction_id = traitlets.Unicode(None, allow_none=True, read_only=True)
    #: The status line as text.
    status_text = traitlets.Unicode("", read_only=True)

    def __init__(
        self, client: Client, *, now: Clock | None = None, inbox: EventSource | None = None
    ) -> None:
        check_client(client, "transactions", "statement", "med")
        self.client = client
        self._now = clock_for(client, now)
        self.flow = InspectorFlow(client, self._now, inbox_for(client, inbox))
        self._listing = False  # the matches are being replaced: no transaction picked

        self.identifier = w.Text(
            # Whole in a 590 px box (Lab at 1024 px with the file browser open).
            placeholder=PLACEHOLDER,
            layout=fitted("640px"),
        )
        self.inspect_button = w.Button(description="Inspect", button_style="primary", icon="search")
        self.matches = w.Dropdown(description="Matches", options=[], layout=fitted("900px"))
        self.status = w.HTML()
        self.summary = w.HTML()
        self.timeline_view = w.HTML()
        self.refunds_view = w.HTML()
        self.med_view = w.HTML()
        self.receipt_view = w.HTML()
        self.shapes_view = w.HTML()
        self.tabs = w.Tab(
            children=[
                self.summary,
                self.timeline_view,
                self.refunds_view,
                self.med_view,
                self.receipt_view,
                self.shapes_view,
            ]
        )
        for index, title in enumerate(TABS):
            self.tabs.set_title(index, title)
        self.tabs.add_class(TABS_CLASS)  # its labels whole on a phone (TAB_STYLE)

        when_clicked(self.inspect_button, self.inspect, busy=True)
        self.matches.observe(self._picked, names="value")
        super().__init__(
            [
                panel_heading("Transaction inspector", before=TAB_STYLE),
                side_by_side(self.identifier, self.inspect_button),
                self.matches,
                self.status,
                self.tabs,
            ]
        )

    # -- what the flow holds -----------------------------------------------------

    @property
    def record(self) -> Transaction | None:
        """The transaction shown (the client's model), or None."""
        return self.flow.record

    @property
    def shapes(self) -> dict[str, object]:
        """Every answer the API gives about it, as the wire carries them, by request."""
        return self.flow.shapes

    @property
    def receipt(self) -> Receipt | None:
        """Its receipt (settled transactions only)."""
        return self.flow.receipt

    @property
    def refunds(self) -> list[RefundRecord]:
        """Its refunds, oldest first."""
        return self.flow.refunds

    @property
    def cases(self) -> list[MedCase]:
        """Its MED cases."""
        return self.flow.cases

    @property
    def timeline(self) -> list[TimelineStep]:
        """What happened to it, in order."""
        return self.flow.timeline

    # -- the steps ---------------------------------------------------------------

    def inspect(self, identifier: str | None = None) -> None:
        """Find the transactions an identifier names and show the first."""
        if identifier is not None and not isinstance(identifier, str):
            raise TypeError("the identifier must be text")
        typed = self.identifier.value if identifier is None else identifier
        self._echo(typed)
        self.flow.inspect(typed)
        self._show()

    def show(self, transaction_id: str | None) -> None:
        """Load and show one transaction in every view."""
        self.flow.show(transaction_id)
        self._show()

    def _echo(self, typed: str) -> None:
        """What was inspected, in the box (never broken text: the notebook cannot send it)."""
        try:
            typed.encode("utf-8")
        except UnicodeEncodeError:
            return
        self.identifier.value = typed

    def _picked(self, change: dict[str, Any]) -> None:
        if not self._listing and change["new"]:
            self.show(change["new"])

    # -- showing -------------------------------------------------------------------

    def _show(self) -> None:
        """Every tab and trait from the flow's state."""
        flow = self.flow
        options = tuple(flow.options)
        chosen = flow.chosen if any(flow.chosen == key for _, key in options) else None
        if tuple(self.matches.options) != options or self.matches.value != chosen:
            self._listing = True
            try:
                self.matches.options = options
                self.matches.value = chosen
            finally:
                self._listing = False
        if flow.record is None:
            for view in (self.summary, self.timeline_view, self.refunds_view, self.med_view):
                view.value = ""
            self.receipt_view.value = ""
            self.shapes_view.value = ""
        else:
            self.summary.value = summary_html(flow)
            self.timeline_view.value = timeline_table(flow.timeline)
            self.refunds_view.value = refund_records_table(
                flow.refunds, empty="No refund of this transaction."
            )
            self.med_view.value = cases_html(flow.cases)
            self.receipt_view.value = receipt_html(flow)
            self.shapes_view.value = shapes_html(SHAPES_NOTE, flow.shapes)
        line = flow.status
        self.status.value = message(line.text, line.tone) if line.text else ""
        self.set_trait("status_text", text_of(self.status.value))
        shown = None if flow.record is None else flow.record.transaction_id
        self.set_trait("transaction_id", shown)
