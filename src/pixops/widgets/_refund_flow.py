"""`RefundFlow`: the refund panel's steps as a plain class, testable without ipywidgets.

Find (by any id, or by payer or amount within dates) → select a payment → review an
amount, a reason and a note → confirm (the only step that moves money) → follow up (the
outcome and the service's notices). Each step reads and writes this object's state; the
panel (`RefundPanel`) only shows it.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import TYPE_CHECKING, Final

from pixops import money
from pixops.client import ConflictError, ServerError, TransportError, WaitTimeoutError
from pixops.errors import PixopsError
from pixops.schema import (
    FailedInbound,
    MedCase,
    OutboundInFlight,
    QrCharge,
    QrFallback,
    Refund,
    SettledTransaction,
    Transaction,
)
from pixops.widgets._base import (
    Clock,
    Event,
    EventSource,
    InvalidTextError,
    events_for,
    valid_text,
)
from pixops.widgets._format import brl, label, local_time, plural, problem
from pixops.widgets._line import Line, Tone
from pixops.widgets._payment_search import PaymentMatches, find_payments, matches_note
from pixops.widgets._reads import (
    Received,
    RefundRecord,
    Row,
    find_transactions,
    open_cases_of,
    received,
    refunded_base_of,
    refunds_between,
    status_of,
)
from pixops.widgets._refund_words import (
    ACCEPTED_UNREAD,
    FOLLOW_UP_SECONDS,
    REASONS,
    UNKNOWN_OUTCOME,
    amount_centavos,
    deadline_passed,
    final_outcome,
    last_day,
    not_refundable,
    nothing_found,
    payment_label,
    reason_help,
    settled_at,
    still_processing,
    still_valid,
)

if TYPE_CHECKING:
    from pixops.client import Client

__all__ = ["RefundFlow", "RefundRequest", "SentCard"]

#: The longest note the service takes (what the payer's bank shows).
MAX_NOTE_CHARS: Final = 140


@dataclass(frozen=True)
class RefundRequest:
    """A reviewed refund: what Confirm sends."""

    payment_id: str
    centavos: int
    reason: str
    note: str


@dataclass
class SentCard:
    """The "Refund sent" card: its fixed lines, the refund's latest answer (its status
    changes on Follow up), and the service's notices once followed up."""

    items: list[tuple[str, str]]
    answer: Refund | Transaction
    notices: list[Event] | None = None


@dataclass
class RefundFlow:
    """Refund a received PIX, in full or in part, with the reason's deadline in view."""

    client: Client
    now: Clock
    inbox: EventSource | None = None
    #: The payments the last Find listed: (picker line, transaction id).
    options: list[tuple[str, str]] = field(default_factory=list)
    #: The id picked in the list (kept when its reading failed: Review tries it again).
    chosen: str | None = None
    selected: Received | None = None
    refunds: list[RefundRecord] = field(default_factory=list)
    #: The MED cases still open on the selected payment (the payer may be refunded by them).
    disputes: list[MedCase] = field(default_factory=list)
    last_refund: Refund | None = None
    status: Line = field(default_factory=Line)
    pending: RefundRequest | None = None
    can_follow: bool = False
    card: SentCard | None = None
    #: The "Refund sent" card's lines of the last refund, its status left out.
    sent_items: list[tuple[str, str]] = field(default_factory=list)
    #: Counts every change of `card`, so a view redraws it only when it changed.
    card_version: int = 0
    #: A refund whose sending got no answer, and the Idempotency-Key it went with:
    #: confirming the same refund again reuses the key, so it is made at most once.
    unanswered: tuple[RefundRequest, str] | None = None

    # -- finding ---------------------------------------------------------------

    def find(self, text: str, date_from: date | None, date_to: date | None) -> None:
        """Look the text up as an identifier, else as a payer or an amount; the newest
        match is selected (read afresh, even when it was shown already)."""
        self.pending = None  # its question goes
        self.status = Line()
        try:
            valid_text(text, "search")
            named = find_transactions(self.client, text, self.now())
            found = [payment for r in named if (payment := received(r)) is not None]
            if named and not found:
                self._show_nothing(not_refundable(named[0]))
                return
            matches: PaymentMatches[Row] = PaymentMatches(found, len(found))
            if not found:
                matches = find_payments(
                    self.client, text, date_from, date_to, self.now(), received_only=True
                )
        except (PixopsError, ValueError) as error:  # the last search's payment goes too
            self._show_nothing(problem(error), "warn" if isinstance(error, ValueError) else "error")
            return
        rows = [(payment_label(r), r.transaction_id) for r in matches.shown]
        if not rows:
            self._show_nothing(nothing_found(text, date_from, date_to))
            return
        self.options = rows
        self.status = Line(
            matches_note(matches, text, "received payment"), "warn" if matches.cut else "ok"
        )
        self.select(rows[0][1])
        if self.selected is not None and self.remaining_base == 0:
            self.status = Line(
                f"{plural(matches.total, 'received payment')} found; the one shown has been "
                "refunded in full already.",
                "warn",
            )

    def _show_nothing(self, why: str, tone: Tone = "warn") -> None:
        self.options = []
        self.select(None)
        self.status = Line(why, tone)

    def select(self, transaction_id: str | None) -> None:
        """Read one payment: what it was, what was refunded, what is left."""
        self.changed()
        self.can_follow = False
        self.chosen = transaction_id
        if self.selected is None or self.selected.transaction_id != transaction_id:
            self._set_card(None)  # the last "Refund sent" card is another payment's
        if not transaction_id:
            self.selected, self.refunds, self.disputes = None, [], []
            return
        try:
            record = self.client.transactions.get(transaction_id)
            payment = received(record)
            if payment is None:
                raise ValueError(not_refundable(record))
            payer = payment.counterparty_name or ""
            refunds = refunds_between(
                self.client, transaction_id, payment.created_at, payer, self.now()
            )
            disputes = open_cases_of(self.client, transaction_id)
        except (PixopsError, ValueError) as error:
            # Nothing of the payment shown before stays: Review would refund that one.
            self.selected, self.refunds, self.disputes = None, [], []
            self.status = Line(
                f"Could not read payment {transaction_id}. {problem(error)}", "error"
            )
            return
        self.selected, self.refunds, self.disputes = payment, refunds, disputes

    @property
    def refunded_base(self) -> int:
        """What the refunds of the selected payment take from it, in base units."""
        return refunded_base_of(self.refunds)

    @property
    def remaining_base(self) -> int:
        """What can still be refunded of the selected payment, in base units."""
        if self.selected is None:
            return 0
        return max(0, int(self.selected.amount) - self.refunded_base)

    # -- reason and amount -----------------------------------------------------

    def changed(self) -> None:
        """The amount, the reason or the note changed: a reviewed refund needs a new review."""
        if self.pending is not None:
            self.status = Line("Changed after the review: press Review refund again.", "warn")
        self.pending = None

    def reason_line(self, reason_code: str) -> Line:
        """The line under the reason: its meaning and deadline for the selected payment."""
        settled = None if self.selected is None else settled_at(self.selected)
        left = None if self.selected is None else self.remaining_base
        text, tone = reason_help(REASONS[reason_code], settled, self.now(), left)
        return Line(text, _tone(tone))

    def _deadline_passed(self, reason_code: str) -> date | None:
        """The reason's last day for the selected payment, when it has passed."""
        if self.selected is None:
            return None
        settled = settled_at(self.selected)
        reason = REASONS[reason_code]
        if not deadline_passed(reason, settled, self.now()):
            return None
        return last_day(reason, settled)

    # -- acting ----------------------------------------------------------------

    def review(self, amount: str, reason_code: str, note: str) -> None:
        """Check the refund and ask for confirmation; nothing is sent yet."""
        self.changed()
        if self.selected is None and self.chosen:
            self.select(self.chosen)  # its reading failed: try it again
            if self.selected is None:
                return
        if self.selected is None:
            self.status = Line("Find and choose a payment first.", "error")
            return
        if self.remaining_base == 0:
            self.status = Line("This payment has been refunded in full already.", "error")
            return
        try:
            valid_text(note, "note")
            valid_text(amount, "amount")
        except InvalidTextError as error:
            self.status = Line(str(error), "error")
            return
        try:
            centavos = amount_centavos(amount, self.remaining_base)
        except ValueError as error:
            self.status = Line(f"Amount not understood: {error}", "error")
            return
        if centavos == 0:
            self.status = Line("This payment has been refunded in full already.", "error")
            return
        if centavos * 100 > self.remaining_base:
            self.status = Line(
                f"{money.format_brl(centavos)} is more than what is left to refund "
                f"({brl(self.remaining_base)}).",
                "error",
            )
            return
        late = self._deadline_passed(reason_code)
        if late is not None:
            self.status = Line(
                f"Too late for reason {reason_code}: its last day was {late:%d/%m/%Y}, "
                "so the central bank would refuse this refund. "
                + still_valid(settled_at(self.selected), self.now()),
                "error",
            )
            return
        kept = note.strip()
        if len(kept) > MAX_NOTE_CHARS:
            self.status = Line(f"The note must be at most {MAX_NOTE_CHARS} characters.", "error")
            return
        self.pending = RefundRequest(self.selected.transaction_id, centavos, reason_code, kept)
        payer = self.selected.counterparty_name or "the payer"
        self.status = Line(
            f"Refund {money.format_brl(centavos)} to {payer} with reason {reason_code}"
            + (f" and the note “{kept}”? " if kept else "? ")
            + ("A MED case is open on it (see above). " if self.disputes else "")
            + "Press Confirm refund to send it.",
            "warn",
        )

    def confirm(self) -> bool:
        """Send the reviewed refund (the one step that moves money); True when the
        service made it and answered (the next refund starts from a new amount)."""
        if self.pending is None or self.selected is None:
            self.status = Line("Review the refund first.", "error")
            return False
        request, self.pending = self.pending, None
        same = self.unanswered is not None and self.unanswered[0] == request
        key = self.unanswered[1] if same and self.unanswered else uuid.uuid4().hex
        try:
            response = self.client.pix.refund(
                request.payment_id,
                amount_centavos=request.centavos,
                reason=request.reason,
                description=request.note or None,
                idempotency_key=key,
            )
        except (TransportError, ServerError, ConflictError) as error:
            if isinstance(error, ServerError) and error.status == 500:
                self.unanswered = None
                self.select(request.payment_id)
                self.status = Line(UNKNOWN_OUTCOME, "error")
                return False
            # No answer yet (a drop, 409 in flight, 502-504): the same key makes it once.
            self.unanswered = (request, key)
            self.pending = request
            self.status = Line(
                f"{problem(error)} The refund may or may not have been made: press Confirm "
                "refund again to retry it; it cannot be made twice.",
                "error",
            )
            return False
        except PixopsError as error:
            made = 200 <= (status_of(error) or 0) < 300  # accepted, its answer unreadable
            self.unanswered = (request, key) if made else None  # the same refund: its key
            self.select(request.payment_id)  # what is left may have changed (another refund)
            if made:
                self.status = Line(ACCEPTED_UNREAD, "error")
                return False
            verdict = "refused" if status_of(error) not in (401, 403, 429) else "did not make"
            self.status = Line(f"The service {verdict} the refund. {problem(error)}", "error")
            return False
        self.unanswered = None
        self.last_refund = response
        self.select(request.payment_id)
        self.can_follow = True
        self.status = Line(
            f"Refund {response.transaction_id} of {brl(response.amount)}: "
            f"{label(response.status)}. The outcome arrives shortly (Follow up).",
            "ok",
        )
        reason = REASONS[request.reason]
        items = [
            ("Refund", response.transaction_id),
            ("Of payment", request.payment_id),
            ("Amount", brl(response.amount)),
            ("Reason", f"{reason.code}: {reason.meaning}"),
            *([("Note", request.note)] if request.note else []),  # what the payer's bank shows
            ("Requested", local_time(self.now())),
        ]
        self.sent_items = items
        self._set_card(SentCard(items, response))
        return True

    def follow_up(self) -> None:
        """Wait until the last refund is final, then keep its status and its notices."""
        if self.last_refund is None:
            self.status = Line("No refund sent from this panel yet.", "error")
            return
        refund_id = self.last_refund.transaction_id
        self.status = Line(f"Waiting for the outcome of refund {refund_id} (up to a minute)…")
        try:
            final = self.client.wait_until_final(refund_id, timeout=FOLLOW_UP_SECONDS)
        except WaitTimeoutError as waited:  # the payer's bank has not answered: never block long
            last = _transaction(waited.last)
            if last is not None:
                self.status = Line(still_processing(refund_id, last), "warn")
                self._answered(last)
            return
        except PixopsError as error:
            self.status = Line(f"Could not follow the refund. {problem(error)}", "error")
            return
        text, tone = final_outcome(refund_id, final)
        self.status = Line(text, _tone(tone))
        self._answered(final, notices=events_for(self.inbox, {refund_id}))
        if self.selected is not None:
            self.select(self.selected.transaction_id)
            self.can_follow = True

    def _answered(self, answer: Transaction, notices: list[Event] | None = None) -> None:
        """The card shows the refund's latest answer (and, followed up, its notices)."""
        self._set_card(SentCard(self.sent_items, answer, notices))

    def _set_card(self, card: SentCard | None) -> None:
        if card is None and self.card is None:
            return
        self.card = card
        self.card_version += 1


def _transaction(value: object) -> Transaction | None:
    """The record a `WaitTimeoutError` carries (the last one read), when it is one."""
    kinds = (SettledTransaction, FailedInbound, OutboundInFlight, QrCharge, QrFallback)
    return value if isinstance(value, kinds) else None


def _tone(tone: str) -> Tone:
    """A tone from the words modules (plain strings) as one the status line knows."""
    return _TONES.get(tone, "info")


_TONES: Final[dict[str, Tone]] = {"info": "info", "ok": "ok", "warn": "warn", "error": "error"}


def completed_at(answer: Refund | Transaction) -> datetime | None:
    """When a refund completed, as its latest answer says (the first answer never does)."""
    if isinstance(answer, SettledTransaction | OutboundInFlight | QrCharge | QrFallback):
        return answer.completed_at
    return None
