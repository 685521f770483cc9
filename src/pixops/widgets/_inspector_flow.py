"""`InspectorFlow`: the transaction inspector's steps as a plain class, testable without
ipywidgets.

Inspect (any identifier, else a name, CPF/CNPJ or amount, else an id with a typo) →
show one match: the record, every shape the API answers for it, its statement row,
receipt, refunds, MED cases and a timeline of all of them. `TransactionInspector` only
shows this object's state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Final

from pixops.errors import PixopsError
from pixops.schema import MedCase, Receipt, Transaction
from pixops.widgets._api import parse_time
from pixops.widgets._base import Clock, EventSource, InvalidTextError, events_for, valid_text
from pixops.widgets._format import BUSINESS_TZ, MED_VERDICTS, brl, event_label, label, plural
from pixops.widgets._format import problem as problem_text
from pixops.widgets._inspector_html import failure_text, failure_words, match_label, status_text
from pixops.widgets._line import Line, Tone
from pixops.widgets._movement import Movement, movement_of
from pixops.widgets._payment_search import (
    echo,
    find_payments,
    matches_note,
    similar_case_ids,
    similar_ids,
)
from pixops.widgets._reads import (
    QUOTES,
    RefundRecord,
    cases_of,
    find_transactions,
    refunded_base_of,
    refunds_between,
    statement_items,
)

if TYPE_CHECKING:
    from pixops.client import Client

__all__ = ["NAME_SEARCH_DAYS", "InspectorFlow", "TimelineStep"]

#: How far back a payer's name, document or amount is looked for.
NAME_SEARCH_DAYS: Final = 90
#: Where each timeline step comes from, in words.
_RECORD, _NOTICE, _REFUND, _MED = "Transaction", "Service notice", "Refund", "MED case"


@dataclass(frozen=True)
class TimelineStep:
    """One step of a transaction's life: when, from where (the record, a notice, a
    refund, a MED case), and what happened."""

    at: datetime
    source: str
    what: str


@dataclass
class InspectorFlow:
    """Everything the API knows about one transaction, from any of its identifiers."""

    client: Client
    now: Clock
    inbox: EventSource | None = None
    #: The matches of the last inspection: (line, transaction id).
    options: list[tuple[str, str]] = field(default_factory=list)
    #: The match shown.
    chosen: str | None = None
    status: Line = field(default_factory=Line)
    record: Transaction | None = None
    movement: Movement | None = None
    #: Every answer the API gives about it, as the wire carries them, by request.
    shapes: dict[str, object] = field(default_factory=dict)
    receipt: Receipt | None = None
    refunds: list[RefundRecord] = field(default_factory=list)
    cases: list[MedCase] = field(default_factory=list)
    timeline: list[TimelineStep] = field(default_factory=list)

    # -- finding -------------------------------------------------------------------

    def inspect(self, typed: str) -> None:
        """Find the transactions the text names and show the first."""
        try:
            # Checked before it is shown in the box: the notebook cannot send broken text.
            valid_text(typed, "text to inspect")
        except InvalidTextError as error:
            self._clear()
            self.status = Line(str(error), "warn")
            return
        try:
            found, note, tone = self._find(typed)
        except PixopsError as error:
            self._clear()
            self.status = Line(problem_text(error), "error")
            return
        except ValueError as error:  # nothing typed, or too little of a name
            self._clear()
            self.status = Line(problem_text(error), "warn")
            return
        by_id = {m.transaction_id: m for m in found}
        self.options = [(match_label(m), key) for key, m in by_id.items()]
        if not self.options:
            self._clear()
            self.status = Line(
                f"Nothing found for {echo(typed)}: no transaction, QR code, order number, "
                "tag or MED case has it, and no payment in or out of the last "
                f"{NAME_SEARCH_DAYS} days has that name, CPF/CNPJ or amount. Check it with "
                "the customer: an id is best copied from the receipt or the bank app.",
                "warn",
            )
            return
        self.status = Line(note, tone)
        self.show(self.options[0][1])
        case = next((c for c in self.cases if c.id.lower() in typed.lower()), None)
        if case is not None and len(self.options) == 1:
            self.status = Line(f"Found: MED case {case.id} disputes this payment.", "ok")

    def _find(self, typed: str) -> tuple[list[Movement], str, Tone]:
        """The matches of what was typed, the status line to show with them, its tone."""
        now = self.now()
        found = [movement_of(r) for r in find_transactions(self.client, typed, now)]
        if found:
            if len(found) == 1:
                return found, "Found.", "ok"
            return (
                found,
                f"Found. {plural(len(found), 'transaction')} match; showing the newest.",
                "ok",
            )
        bare = typed.strip().strip(QUOTES).strip()
        near = [movement_of(row) for row in similar_ids(self.client, bare, now)]
        if near:
            which = "one" if len(near) == 1 else f"{len(near)}"
            return (
                near,
                f"No transaction has the id {echo(bare)} exactly; {which} with an id a"
                " character or two different is shown. Read the id back to the customer"
                " before acting on it.",
                "warn",
            )
        cases = similar_case_ids(self.client, bare)
        if cases:  # a case id with a typo: the payment of the nearest case
            return (
                [movement_of(r) for r in find_transactions(self.client, cases[0], now)],
                f"No MED case has the id {echo(bare)} exactly; the payment of case {cases[0]},"
                " a character or two different, is shown. Read the id back to the customer"
                " before acting on it.",
                "warn",
            )
        today = now.astimezone(BUSINESS_TZ).date()  # the days searched are São Paulo's
        matches = find_payments(
            self.client, typed, today - timedelta(days=NAME_SEARCH_DAYS), today, now
        )
        shown = [movement_of(row) for row in matches.shown]
        return shown, matches_note(matches, typed), "warn" if matches.cut else "ok"

    # -- one transaction -----------------------------------------------------------

    def show(self, transaction_id: str | None) -> None:
        """Load one transaction and everything about it."""
        if not transaction_id:
            return
        self.chosen = transaction_id
        try:
            self._load(transaction_id)
        except PixopsError as error:
            self._clear_views()  # the tabs held another transaction, or parts of this one
            self.status = Line(f"Could not read {transaction_id}. {problem_text(error)}", "error")

    def _load(self, transaction_id: str) -> None:
        client = self.client
        record = client.transactions.get(transaction_id)
        movement = movement_of(record)
        shapes: dict[str, object] = {
            f"GET /transactions/{transaction_id}": record.model_dump(mode="json")
        }
        camel = _camel_case_shape(client, transaction_id)
        if camel is not None:
            shapes[f"GET /transactions/{transaction_id} (X-Key-Case: camelCase)"] = camel
        if movement.end_to_end_id:
            e2e = movement.end_to_end_id
            shapes[f"GET /transactions/e2e/{e2e}"] = client.transactions.by_e2e(e2e).model_dump(
                mode="json"
            )
        if movement.external_id:
            listed = client.transactions.by_external_id(movement.external_id)
            shapes[f"GET /transactions/ref/{movement.external_id}"] = _dumped(listed)
        if movement.tag:
            listed = client.transactions.by_tag(movement.tag)
            shapes[f"GET /transactions/tag/{movement.tag}"] = _dumped(listed)
        item = self._statement_item(movement)
        if item is not None:
            shapes["GET /statement (its row)"] = item
        receipt = None
        if movement.status == "settled" and not movement.is_qr:
            receipt = client.transactions.receipt(transaction_id)
            shapes[f"GET /transactions/{transaction_id}/receipt"] = receipt.model_dump(mode="json")
        received = movement.direction == "inbound" and movement.type == "pix"
        refunds: list[RefundRecord] = []
        cases: list[MedCase] = []
        if received and movement.created_at is not None:
            payer = movement.counterparty_name or ""
            refunds = refunds_between(
                client, transaction_id, movement.created_at, payer, self.now()
            )
        if received:
            cases = cases_of(client, transaction_id=transaction_id)
        self.record, self.movement, self.shapes, self.receipt = record, movement, shapes, receipt
        self.refunds, self.cases = refunds, cases
        self.timeline = self._timeline(movement)

    def _statement_item(self, movement: Movement) -> dict[str, object] | None:
        """Its statement row, as the wire carries it (a QR charge has none)."""
        if movement.created_at is None or movement.is_qr:
            return None
        day = movement.created_at.date()
        for row in statement_items(self.client, day, day, self.now()):
            if row.transaction_id == movement.transaction_id:
                return row.model_dump(mode="json")
        return None

    def _timeline(self, movement: Movement) -> list[TimelineStep]:
        steps: list[TimelineStep] = []
        tid = movement.transaction_id

        def add(at: datetime | None, source: str, what: str) -> None:
            if at:
                steps.append(TimelineStep(at, source, what))

        add(movement.created_at, _RECORD, f"Created ({brl(movement.amount)})")
        if movement.status == "settled":
            add(movement.completed_at, _RECORD, "Settled")
        why = failure_words(movement.reason_code, movement.reason_description)
        add(movement.failed_at, _RECORD, f"{status_text(movement)}: {why}")
        ids = {tid} | {r.transaction_id for r in self.refunds} | {c.id for c in self.cases}
        for event in events_for(self.inbox, ids):
            data = event.get("data") or {}
            what = event_label(event.get("type"))
            if data.get("reason_code"):
                what += f": {failure_text(data)}"
            if data.get("transaction_id") != tid:
                what += f" ({data.get('transaction_id')})"
            add(_event_time(event.get("created_at")), _NOTICE, what)
        for refund in self.refunds:
            rid = refund.transaction_id
            add(refund.created_at, _REFUND, f"Refund {rid} requested, {brl(refund.amount)}")
            add(refund.completed_at, _REFUND, f"Refund {rid} settled")
        for case in self.cases:
            cid = case.id
            add(case.opened_at, _MED, f"Case {cid} opened: {label(case.reason)}")
            add(case.defended_at, _MED, f"Case {cid}: defense submitted")
            result = case.analysis_result
            verdict = f": {MED_VERDICTS.get(str(result), label(result))}" if result else ""
            add(case.closed_at, _MED, f"Case {cid} closed{verdict}")
        steps.sort(key=lambda s: s.at)
        return steps

    @property
    def refunded_base(self) -> int:
        """What the refunds of the transaction shown take from it, in base units."""
        return refunded_base_of(self.refunds)

    def bank(self) -> str:
        """The counterparty's bank: the record's, else the receipt's (a refund's record
        names none)."""
        movement = self.movement
        if movement is None:
            return "—"
        bank = movement.payer_bank_name or movement.recipient_bank_name
        if not bank and self.receipt is not None:
            side = self.receipt.payer if movement.direction == "inbound" else self.receipt.recipient
            bank = None if side is None else side.bank_name
        return bank or "—"

    def _clear(self) -> None:
        self.options, self.chosen = [], None  # an earlier search's match goes
        self._clear_views()

    def _clear_views(self) -> None:
        self.record, self.movement, self.receipt = None, None, None
        self.shapes, self.timeline = {}, []
        self.refunds, self.cases = [], []


def _dumped(records: list[Transaction]) -> list[object]:
    return [record.model_dump(mode="json") for record in records]


def _event_time(value: object) -> datetime | None:
    """A notice's time (ISO 8601 text from outside): None when it is not one."""
    try:
        return parse_time(value)
    except (TypeError, ValueError):
        return None


def _camel_case_shape(client: Client, transaction_id: str) -> object | None:
    """The record as the wire carries it with ``X-Key-Case: camelCase`` (None if the
    client cannot send a raw request)."""
    twin = getattr(client, "with_options", None)
    if not callable(twin):
        return None
    answer = twin(key_case="camelCase").request("GET", f"/transactions/{transaction_id}")
    if answer.status_code != 200:
        return None
    body = answer.json()
    return body.get("data") if isinstance(body, dict) else None
