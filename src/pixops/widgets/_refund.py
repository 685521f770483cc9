"""`RefundPanel`: find a received payment, see what is left to refund, refund it, follow it.

Steps, each a button: Find (by any id, or by payer or amount within dates) → pick a
payment → choose amount and reason (each code's meaning and deadline shown) → Review →
Confirm (the only step that moves money) → Follow up (the outcome and its webhooks).
The steps are `RefundFlow`'s (a plain class); this panel only shows its state.
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
    date_echo,
    fitted,
    inbox_for,
    panel_heading,
    side_by_side,
    when_clicked,
)
from pixops.widgets._format import message, text_of
from pixops.widgets._line import Line
from pixops.widgets._refund_flow import RefundFlow
from pixops.widgets._refund_html import details_html, notices_block, sent_block
from pixops.widgets._refund_words import REASONS, search_dates

if TYPE_CHECKING:
    from pixops.client import Client
    from pixops.schema import MedCase, Refund
    from pixops.widgets._reads import Received, RefundRecord

__all__ = ["RefundPanel"]


class RefundPanel(w.VBox):  # type: ignore[misc]
    """Refund a received PIX, in full or in part, with the reason's deadline in view.

    A view over `RefundFlow` (`.flow`): its state shows in the widgets and as traitlets
    (`payment_id`, `remaining_base`, `status_text`, `can_confirm`, `can_follow`)."""

    #: The payment shown, or None.
    payment_id = traitlets.Unicode(None, allow_none=True, read_only=True)
    #: What can still be refunded of it, in base units.
    remaining_base = traitlets.Int(0, read_only=True)
    #: The status line as text (what was found, or why not).
    status_text = traitlets.Unicode("", read_only=True)
    #: A reviewed refund waits for Confirm.
    can_confirm = traitlets.Bool(False, read_only=True)
    #: A refund was sent from this panel: Follow up can wait for its outcome.
    can_follow = traitlets.Bool(False, read_only=True)

    def __init__(
        self, client: Client, *, now: Clock | None = None, inbox: EventSource | None = None
    ) -> None:
        check_client(client, "pix", "transactions", "statement")
        self.client = client
        self._now = clock_for(client, now)
        self.flow = RefundFlow(client, self._now, inbox_for(client, inbox))
        self._card_shown = self.flow.card_version
        self._quiet = False  # the results list is being filled: no payment to read

        first, today = search_dates(self._now())
        self.search = w.Text(
            placeholder=(
                "transaction or end-to-end id, external id, payer name, CPF/CNPJ or R$ amount"
            ),
            layout=fitted("520px"),
        )
        self.date_from = w.DatePicker(description="From", value=first)
        self.date_to = w.DatePicker(description="To", value=today)
        self.find_button = w.Button(description="Find", button_style="primary", icon="search")
        self.results = w.Dropdown(description="Payment", options=[], layout=fitted("720px"))
        self.details = w.HTML()
        self.amount = w.Text(description="Amount", placeholder="R$ 0,00 (empty: all that is left)")
        self.reason = w.Dropdown(
            description="Reason",
            options=[(f"{r.code} — {r.meaning}", r.code) for r in REASONS.values()],
            value="MD06",
            layout=fitted("520px"),
        )
        self.description = w.Text(description="Note", placeholder="optional, up to 140 characters")
        self.reason_help = w.HTML()
        self.review_button = w.Button(description="Review refund", icon="eye")
        self.confirm_button = w.Button(
            description="Confirm refund", button_style="danger", disabled=True, icon="check"
        )
        self.follow_button = w.Button(description="Follow up", disabled=True, icon="refresh")
        self.status = w.HTML()
        self.output = w.Output()

        when_clicked(self.find_button, self.find, busy=True)
        self.results.observe(self._picked, names="value")
        self.reason.observe(lambda _: self._changed(), names="value")
        self.amount.observe(lambda _: self._changed(), names="value")
        self.description.observe(lambda _: self._changed(), names="value")
        when_clicked(self.review_button, self.review)
        when_clicked(self.confirm_button, self.confirm)
        when_clicked(self.follow_button, self.follow_up, busy=True)
        super().__init__(
            [
                panel_heading("Refund a received PIX"),
                side_by_side(self.search, self.find_button),
                side_by_side(
                    side_by_side(self.date_from, date_echo(self.date_from)),
                    side_by_side(self.date_to, date_echo(self.date_to)),
                ),
                self.results,
                self.details,
                side_by_side(self.amount, self.description),
                self.reason,
                self.reason_help,
                side_by_side(self.review_button, self.confirm_button, self.follow_button),
                self.status,
                self.output,
            ]
        )
        self._show()

    # -- what the flow holds -----------------------------------------------------

    @property
    def selected(self) -> Received | None:
        """The payment shown (the client's model), or None."""
        return self.flow.selected

    @property
    def refunds(self) -> list[RefundRecord]:
        """The refunds of the payment shown, oldest first."""
        return self.flow.refunds

    @property
    def disputes(self) -> list[MedCase]:
        """The MED cases still open on the payment shown."""
        return self.flow.disputes

    @property
    def last_refund(self) -> Refund | None:
        """The service's answer to the last refund sent from this panel."""
        return self.flow.last_refund

    # -- the steps ---------------------------------------------------------------

    def find(self) -> None:
        """Look the search text up as an identifier, else as a payer or an amount."""
        self.flow.find(self.search.value, self.date_from.value, self.date_to.value)
        self._show()

    def select(self, transaction_id: str | None) -> None:
        """Show one payment: what it was, what was refunded, what is left."""
        self.flow.select(transaction_id)
        self._show()

    def review(self) -> None:
        """Check the refund and ask for confirmation; nothing is sent yet."""
        self.flow.review(self.amount.value, str(self.reason.value), self.description.value)
        self._show()

    def confirm(self) -> None:
        """Send the reviewed refund (the one step that moves money)."""
        if self.flow.confirm():
            # The next refund starts from scratch: a new amount, a new review.
            self.amount.value = ""
            self.description.value = ""
        self._show()

    def follow_up(self) -> None:
        """Wait until the last refund is final, then show its status and its notices."""
        if self.flow.last_refund is not None:  # said while the panel waits
            refund_id = self.flow.last_refund.transaction_id
            self._show_status(
                Line(f"Waiting for the outcome of refund {refund_id} (up to a minute)…")
            )
        self.flow.follow_up()
        self._show()

    def _picked(self, change: dict[str, Any]) -> None:
        if not self._quiet:
            self.select(change["new"])

    def _changed(self) -> None:
        """The amount, the reason or the note changed: a reviewed refund needs a new review."""
        self.flow.changed()
        self._show()

    # -- showing -------------------------------------------------------------------

    def _show(self) -> None:
        """Every widget and trait from the flow's state."""
        flow = self.flow
        options = tuple(flow.options)
        chosen = flow.chosen if any(flow.chosen == key for _, key in options) else None
        if tuple(self.results.options) != options or self.results.value != chosen:
            self._quiet = True
            try:
                self.results.options = options
                self.results.value = chosen
            finally:
                self._quiet = False
        self.details.value = details_html(flow)
        line = flow.reason_line(str(self.reason.value))
        self.reason_help.value = message(line.text, line.tone)
        self._show_status(flow.status)
        self.confirm_button.disabled = flow.pending is None
        self.follow_button.disabled = not flow.can_follow
        if self._card_shown != flow.card_version:
            self._card_shown = flow.card_version
            self.output.outputs = ()
            if flow.card is not None:
                self.output.append_display_data(sent_block(flow.card))
                if flow.card.notices is not None:
                    self.output.append_display_data(notices_block(flow.card))
        shown = None if flow.selected is None else flow.selected.transaction_id
        self.set_trait("payment_id", shown)
        self.set_trait("remaining_base", flow.remaining_base)
        self.set_trait("can_confirm", flow.pending is not None)
        self.set_trait("can_follow", flow.can_follow)

    def _show_status(self, line: Line) -> None:
        self.status.value = message(line.text, line.tone) if line.text else ""
        self.set_trait("status_text", text_of(self.status.value))
