"""`RefundPanel`: find a received payment, see what is left to refund, refund it, follow it.

Steps, each a button: Find (by any id, or by payer or amount within dates) → pick a
payment → choose amount and reason (each code's meaning and deadline shown) → Review →
Confirm (the only step that moves money) → Follow up (the outcome and its webhooks).
"""

from __future__ import annotations

import uuid
from datetime import date
from typing import Any, Final

import ipywidgets as w

from pixops import money
from pixops.client import ConflictError, ServerError, TransportError, WaitTimeoutError
from pixops.errors import PixopsError
from pixops.widgets._api import (
    Record,
    base_units,
    lookup,
    open_cases,
    plain,
    refunded_base,
    refunds_of,
    status_of,
)
from pixops.widgets._base import (
    Clock,
    InvalidTextError,
    check_client,
    clock_for,
    date_echo,
    events_for,
    fitted,
    inbox_for,
    panel_heading,
    side_by_side,
    valid_text,
    when_clicked,
)
from pixops.widgets._format import (
    HtmlBlock,
    brl,
    html_table,
    label,
    local_time,
    message,
    outcome,
    pairs,
    plural,
    problem,
    text_of,
)
from pixops.widgets._inspector_tables import refunds_table
from pixops.widgets._payment_search import PaymentMatches, find_payments, matches_note
from pixops.widgets._refund_words import (
    ACCEPTED_UNREAD,
    FOLLOW_UP_SECONDS,
    REASONS,
    UNKNOWN_OUTCOME,
    amount_centavos,
    deadline_passed,
    disputed,
    final_outcome,
    is_received,
    last_day,
    not_refundable,
    nothing_found,
    payment_label,
    reason_help,
    search_dates,
    settled_at,
    still_processing,
    still_valid,
)

__all__ = ["RefundPanel"]


_EVENT_COLUMNS: Final = (("created_at", "When"), ("type", "What happened"), ("status", "Status"))


class RefundPanel(w.VBox):  # type: ignore[misc]
    """Refund a received PIX, in full or in part, with the reason's deadline in view."""

    def __init__(self, client: Any, *, now: Clock | None = None, inbox: Any = None) -> None:
        check_client(client, "pix", "transactions", "statement")
        self.client = client
        self._now = clock_for(client, now)
        self._inbox = inbox_for(client, inbox)
        self.selected: Record | None = None
        self.refunds: list[Record] = []
        #: The MED cases still open on the selected payment (the payer may be refunded by them).
        self.disputes: list[Record] = []
        self.last_refund: Record | None = None
        self._pending_centavos: int | None = None
        #: A refund whose sending got no answer, and the Idempotency-Key it went with:
        #: confirming the same refund again reuses the key, so it is made at most once.
        self._unanswered: tuple[tuple[str, int, str, str | None], str] | None = None
        #: The "Refund sent" card's lines, its status left out (it changes on Follow up).
        self._sent_items: list[tuple[str, str]] = []

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
        self.results.observe(lambda change: self.select(change["new"]), names="value")
        self.reason.observe(lambda _: self._reason_changed(), names="value")
        self.amount.observe(lambda _: self._invalidate_review(), names="value")
        self.description.observe(lambda _: self._invalidate_review(), names="value")
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
        self._show_reason()

    # -- finding ---------------------------------------------------------------

    def find(self) -> None:
        """Look the search text up as an identifier, else as a payer or an amount."""
        self._pending_centavos, self.confirm_button.disabled = None, True  # its question goes
        self._set_status("")
        try:
            valid_text(self.search.value, "search")
            named = lookup(self.client, self.search.value, self._now())
            found = [r for r in named if is_received(r)]
            if named and not found:
                self._show_nothing(not_refundable(named[0]))
                return
            matches = PaymentMatches(found, len(found))
            if not found:
                matches = find_payments(
                    self.client,
                    self.search.value,
                    self.date_from.value,
                    self.date_to.value,
                    self._now(),
                    received_only=True,
                )
        except (PixopsError, ValueError) as error:  # the last search's payment goes too
            self._show_nothing(problem(error), "warn" if isinstance(error, ValueError) else "error")
            return
        options = [(payment_label(r), str(r["transaction_id"])) for r in matches.shown]
        if not options:
            self._show_nothing(
                nothing_found(self.search.value, self.date_from.value, self.date_to.value)
            )
            return
        read = self.refunds  # every reading of a payment replaces the list
        self.results.options = options
        note = matches_note(matches, self.search.value, "received payment")
        self._set_status(note, "warn" if matches.cut else "ok")
        self.results.value = options[0][1]
        if self.refunds is read:  # the payment shown already: Find reads it afresh
            self.select(options[0][1])
        if self.selected is not None and self.remaining_base == 0:
            self._set_status(
                f"{plural(matches.total, 'received payment')} found; the one shown has been "
                "refunded in full already.",
                "warn",
            )

    def _show_nothing(self, why: str, tone: str = "warn") -> None:
        self.results.options = []
        self.results.value = None
        self.select(None)
        self._set_status(why, tone)

    def select(self, transaction_id: str | None) -> None:
        """Show one payment: what it was, what was refunded, what is left."""
        self._invalidate_review()
        self.follow_button.disabled = True
        if self.selected is None or self.selected.get("transaction_id") != transaction_id:
            self.output.outputs = ()  # the last "Refund sent" card is another payment's
        if not transaction_id:
            self.selected, self.refunds, self.disputes = None, [], []
            self.details.value = ""
            self._show_reason()
            return
        try:
            record = plain(self.client.transactions.get(transaction_id))
            self.refunds = refunds_of(self.client, record, self._now())
            self.disputes = open_cases(self.client, transaction_id)
        except PixopsError as error:
            # Nothing of the payment shown before stays: Review would refund that one.
            self.selected, self.refunds, self.disputes = None, [], []
            self.details.value = ""
            self._show_reason()
            self._set_status(f"Could not read payment {transaction_id}. {problem(error)}", "error")
            return
        self.selected = record
        self._render_details()
        self._show_reason()

    @property
    def status_text(self) -> str:
        """The status line as text (what was found, or why not)."""
        return text_of(self.status.value)

    @property
    def remaining_base(self) -> int:
        """What can still be refunded of the selected payment, in base units."""
        if self.selected is None:
            return 0
        amount = base_units(self.selected.get("amount")) or 0
        return max(0, amount - refunded_base(self.refunds))

    def _render_details(self) -> None:
        record = self.selected
        assert record is not None
        summary = pairs(
            [
                ("Payment", str(record.get("transaction_id"))),
                ("Received", local_time(record.get("completed_at") or record.get("created_at"))),
                ("Payer", str(record.get("counterparty_name") or "—")),
                ("Payer's bank", str(record.get("payer_bank_name") or "—")),
                ("Amount received", brl(record.get("amount"))),
                ("Fee", brl(record.get("fee_amount"))),
                ("Already refunded", brl(refunded_base(self.refunds))),
                ("Left to refund", brl(self.remaining_base)),
            ]
        )
        table = refunds_table(self.refunds, empty="No refund yet.")  # the inspector's too
        warning = message(disputed(self.disputes), "warn") if self.disputes else ""
        self.details.value = f"{warning}{summary}<h4 style='margin:6px 0 2px'>Refunds</h4>{table}"

    # -- reason and amount -----------------------------------------------------

    def _reason_changed(self) -> None:
        self._invalidate_review()  # a reviewed refund goes with the reason it was reviewed with
        self._show_reason()

    def _show_reason(self) -> None:
        settled = None if self.selected is None else settled_at(self.selected)
        left = None if self.selected is None else self.remaining_base
        text, tone = reason_help(REASONS[self.reason.value], settled, self._now(), left)
        self.reason_help.value = message(text, tone)

    def _deadline_passed(self) -> date | None:
        """The chosen reason's last day for the selected payment, when it has passed."""
        settled = None if self.selected is None else settled_at(self.selected)
        if settled is None:
            return None
        reason = REASONS[self.reason.value]
        if not deadline_passed(reason, settled, self._now()):
            return None
        return last_day(reason, settled)

    def _invalidate_review(self) -> None:
        if self._pending_centavos is not None:
            self._set_status("Changed after the review: press Review refund again.", "warn")
        self._pending_centavos = None
        self.confirm_button.disabled = True

    # -- acting ----------------------------------------------------------------

    def review(self) -> None:
        """Check the refund and ask for confirmation; nothing is sent yet."""
        self._invalidate_review()
        if self.selected is None and self.results.value:
            self.select(self.results.value)  # its reading failed: try it again
            if self.selected is None:
                return
        if self.selected is None:
            self._set_status("Find and choose a payment first.", "error")
            return
        if self.remaining_base == 0:
            self._set_status("This payment has been refunded in full already.", "error")
            return
        try:
            valid_text(self.description.value, "note")
            valid_text(self.amount.value, "amount")
        except InvalidTextError as error:
            self._set_status(str(error), "error")
            return
        try:
            centavos = amount_centavos(self.amount.value, self.remaining_base)
        except ValueError as error:
            self._set_status(f"Amount not understood: {error}", "error")
            return
        if centavos == 0:
            self._set_status("This payment has been refunded in full already.", "error")
            return
        if centavos * 100 > self.remaining_base:
            self._set_status(
                f"{money.format_brl(centavos)} is more than what is left to refund "
                f"({brl(self.remaining_base)}).",
                "error",
            )
            return
        late = self._deadline_passed()
        if late is not None:
            self._set_status(
                f"Too late for reason {self.reason.value}: its last day was {late:%d/%m/%Y}, "
                "so the central bank would refuse this refund. "
                + still_valid(settled_at(self.selected), self._now()),
                "error",
            )
            return
        if len(self.description.value.strip()) > 140:
            self._set_status("The note must be at most 140 characters.", "error")
            return
        self._pending_centavos = centavos
        self.confirm_button.disabled = False
        payer = self.selected.get("counterparty_name") or "the payer"
        note = self.description.value.strip()
        self._set_status(
            f"Refund {money.format_brl(centavos)} to {payer} with reason {self.reason.value}"
            + (f" and the note “{note}”? " if note else "? ")
            + ("A MED case is open on it (see above). " if self.disputes else "")
            + "Press Confirm refund to send it.",
            "warn",
        )

    def confirm(self) -> None:
        """Send the reviewed refund (the one step that moves money)."""
        if self._pending_centavos is None or self.selected is None:
            self._set_status("Review the refund first.", "error")
            return
        centavos, self._pending_centavos = self._pending_centavos, None
        self.confirm_button.disabled = True
        payment_id = str(self.selected["transaction_id"])
        request = (payment_id, centavos, str(self.reason.value), self.description.value.strip())
        same = self._unanswered is not None and self._unanswered[0] == request
        key = self._unanswered[1] if same and self._unanswered else uuid.uuid4().hex
        try:
            response = plain(
                self.client.pix.refund(
                    payment_id,
                    amount_centavos=centavos,
                    reason=self.reason.value,
                    description=request[3] or None,
                    idempotency_key=key,
                )
            )
        except (TransportError, ServerError, ConflictError) as error:
            if isinstance(error, ServerError) and error.status == 500:
                self._unanswered = None
                self.select(payment_id)
                self._set_status(UNKNOWN_OUTCOME, "error")
                return
            # No answer yet (a drop, 409 in flight, 502-504): the same key makes it once.
            self._unanswered = (request, key)
            self._pending_centavos = centavos
            self.confirm_button.disabled = False
            self._set_status(
                f"{problem(error)} The refund may or may not have been made: press Confirm "
                "refund again to retry it; it cannot be made twice.",
                "error",
            )
            return
        except PixopsError as error:
            made = 200 <= (status_of(error) or 0) < 300  # accepted, its answer unreadable
            self._unanswered = (request, key) if made else None  # the same refund: its key
            self.select(payment_id)  # what is left may have changed (another refund)
            if made:
                self._set_status(ACCEPTED_UNREAD, "error")
                return
            verdict = "refused" if status_of(error) not in (401, 403, 429) else "did not make"
            self._set_status(f"The service {verdict} the refund. {problem(error)}", "error")
            return
        self._unanswered = None
        self.last_refund = response
        # The next refund starts from scratch: a new amount, a new review.
        self.amount.value = ""
        self.description.value = ""
        self.select(str(self.selected["transaction_id"]))
        self.follow_button.disabled = False
        refund_id, status = response.get("transaction_id"), label(response.get("status"))
        self._set_status(
            f"Refund {refund_id} of {brl(response.get('amount'))}: {status}. "
            "The outcome arrives shortly (Follow up).",
            "ok",
        )
        reason = REASONS[self.reason.value]
        self._sent_items = [
            ("Refund", str(refund_id)),
            ("Of payment", str(self.selected["transaction_id"])),
            ("Amount", brl(response.get("amount"))),
            ("Reason", f"{reason.code}: {reason.meaning}"),
            *([("Note", request[3])] if request[3] else []),  # what the payer's bank shows
            ("Requested", local_time(self._now())),
        ]
        self._show_sent(response)

    def _show_sent(self, refund: Record) -> None:
        """The "Refund sent" card with the refund's latest status (it replaces the last)."""
        items = [*self._sent_items[:3], ("Status", label(refund.get("status")))]
        if refund.get("completed_at"):
            items.append(("Completed", local_time(refund.get("completed_at"))))
        self.output.outputs = ()
        self.output.append_display_data(
            outcome("Refund sent", [*items, *self._sent_items[3:]], refund)
        )

    def follow_up(self) -> None:
        """Wait until the last refund is final, then show its status and its events."""
        if self.last_refund is None:
            self._set_status("No refund sent from this panel yet.", "error")
            return
        refund_id = str(self.last_refund["transaction_id"])
        self._set_status(f"Waiting for the outcome of refund {refund_id} (up to a minute)…")
        try:
            final = plain(self.client.wait_until_final(refund_id, timeout=FOLLOW_UP_SECONDS))
        except WaitTimeoutError as waited:  # the payer's bank has not answered: never block long
            self._set_status(still_processing(refund_id, plain(waited.last)), "warn")
            self._show_sent(plain(waited.last))
            return
        except PixopsError as error:
            self._set_status(f"Could not follow the refund. {problem(error)}", "error")
            return
        self._set_status(*final_outcome(refund_id, final))
        self._show_sent(final)
        events = events_for(self._inbox, {refund_id})
        rows = [{**e, "status": (e.get("data") or {}).get("status")} for e in events]
        self.output.append_display_data(
            HtmlBlock(
                "<b>The service's notices about this refund</b>"
                + html_table(
                    rows,
                    _EVENT_COLUMNS,
                    time_columns={"created_at"},
                    code_columns={"status"},
                    event_columns={"type"},
                    empty="No notice received yet (or none kept here).",
                )
            )
        )
        if self.selected is not None:
            self.select(str(self.selected["transaction_id"]))
            self.follow_button.disabled = False

    def _set_status(self, text: str, tone: str = "info") -> None:
        self.status.value = message(text, tone) if text else ""
