"""`TransactionInspector`: support's tool. Paste any identifier, see everything about it.

Any of transaction_id, end-to-end id, external_id, tag, QR tx_id or MED case id finds
the transaction, and so does a counterparty's name, CPF/CNPJ or amount (payments in or
out of the last `NAME_SEARCH_DAYS` days), or an id with a typo or two. The panel shows
its summary, a timeline of what happened (the record's own times, webhook events,
refunds, MED cases), its refunds and disputes, the receipt, and the record in every shape
the API returns it.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Final

import ipywidgets as w

from pixops.errors import PixopsError
from pixops.widgets._api import (
    Record,
    lookup,
    med_cases,
    parse_time,
    plain,
    refunded_base,
    refunds_of,
    rows_between,
    time_key,
)
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
    BUSINESS_TZ,
    MED_VERDICTS,
    brl,
    event_label,
    label,
    local_time,
    message,
    plural,
    problem,
)
from pixops.widgets._inspector_html import (
    cases_html,
    fact_table,
    failure_facts,
    failure_text,
    match_label,
    shapes_html,
    status_text,
    type_of,
)
from pixops.widgets._inspector_tables import (
    TAB_STYLE,
    TABS_CLASS,
    refunds_table,
    timeline_table,
)
from pixops.widgets._payment_search import (
    echo,
    find_payments,
    matches_note,
    similar_case_ids,
    similar_ids,
)
from pixops.widgets._reads import QUOTES

__all__ = ["TransactionInspector"]

TABS: Final = ("Summary", "Timeline", "Refunds", "MED", "Receipt", "API shapes")
#: What the search box takes, short enough to read whole in a narrow notebook.
PLACEHOLDER: Final = (
    "transaction id, end-to-end id, order, tag, QR or MED case id, name, CPF/CNPJ, R$ amount"
)
#: How far back a payer's name, document or amount is looked for.
NAME_SEARCH_DAYS: Final = 90
#: The shapes are for reading: the wire's money and documents are shown as people see them.
SHAPES_NOTE: Final = (
    "Money fields are shown in reais (the API sends integer base units, 100 per centavo);"
    " CPFs are masked as on the receipt. Times here are UTC, as the API sends them (the"
    " Z at the end): São Paulo is 3 hours behind, so 05:03:49Z is 02:03:49 in the other tabs."
)
#: Where each timeline step comes from, in words.
_RECORD, _NOTICE, _REFUND, _MED = "Transaction", "Service notice", "Refund", "MED case"


class TransactionInspector(w.VBox):  # type: ignore[misc]
    """Everything the API knows about one transaction, from any of its identifiers."""

    def __init__(self, client: Any, *, now: Clock | None = None, inbox: Any = None) -> None:
        check_client(client, "transactions", "statement", "med")
        self.client = client
        self._now = clock_for(client, now)
        self._inbox = inbox_for(client, inbox)
        self.record: Record | None = None
        self.shapes: dict[str, Any] = {}
        self.timeline: list[Record] = []
        self.refunds: list[Record] = []
        self.cases: list[Record] = []

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
        self.matches.observe(lambda change: self.show(change["new"]), names="value")
        super().__init__(
            [
                panel_heading("Transaction inspector", before=TAB_STYLE),
                side_by_side(self.identifier, self.inspect_button),
                self.matches,
                self.status,
                self.tabs,
            ]
        )
        self._found: dict[str, Record] = {}

    def inspect(self, identifier: str | None = None) -> None:
        """Find the transactions an identifier names and show the first."""
        if identifier is not None and not isinstance(identifier, str):
            raise TypeError("the identifier must be text")
        typed = self.identifier.value if identifier is None else identifier
        try:
            # Checked before it is shown in the box: the notebook cannot send broken text.
            valid_text(typed, "text to inspect")
        except InvalidTextError as error:
            self._clear()
            self._set_status(str(error), "warn")
            return
        self.identifier.value = typed
        try:
            found, note, tone = self._find(typed)
        except PixopsError as error:
            self._clear()
            self._set_status(problem(error), "error")
            return
        except ValueError as error:  # nothing typed, or too little of a name
            self._clear()
            self._set_status(problem(error), "warn")
            return
        self._found = {str(r.get("transaction_id")): r for r in found}
        options = [(match_label(r), key) for key, r in self._found.items()]
        self.matches.options = options
        if not options:
            self._clear()
            self._set_status(
                f"Nothing found for {echo(typed)}: no transaction, QR code, order number, "
                "tag or MED case has it, and no payment in or out of the last "
                f"{NAME_SEARCH_DAYS} days has that name, CPF/CNPJ or amount. Check it with "
                "the customer: an id is best copied from the receipt or the bank app.",
                "warn",
            )
            return
        self._set_status(note, tone)
        if self.matches.value == options[0][1]:
            self.show(options[0][1])
        else:
            self.matches.value = options[0][1]
        case = next((c for c in self.cases if str(c.get("id")).lower() in typed.lower()), None)
        if case is not None and len(options) == 1:
            self._set_status(f"Found: MED case {case['id']} disputes this payment.", "ok")

    def _find(self, typed: str) -> tuple[list[Record], str, str]:
        """The matches of what was typed, the status line to show with them, its tone."""
        now = self._now()
        found = lookup(self.client, typed, now)
        if found:
            if len(found) == 1:
                return found, "Found.", "ok"
            return (
                found,
                f"Found. {plural(len(found), 'transaction')} match; showing the newest.",
                "ok",
            )
        bare = typed.strip().strip(QUOTES).strip()
        near = [plain(row) for row in similar_ids(self.client, bare, now)]
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
                lookup(self.client, cases[0], now),
                f"No MED case has the id {echo(bare)} exactly; the payment of case {cases[0]},"
                " a character or two different, is shown. Read the id back to the customer"
                " before acting on it.",
                "warn",
            )
        today = now.astimezone(BUSINESS_TZ).date()  # the days searched are São Paulo's
        matches = find_payments(
            self.client, typed, today - timedelta(days=NAME_SEARCH_DAYS), today, now
        )
        tone = "warn" if matches.cut else "ok"
        return [plain(row) for row in matches.shown], matches_note(matches, typed), tone

    def show(self, transaction_id: str | None) -> None:
        """Load and show one transaction in every view."""
        if not transaction_id:
            return
        try:
            self._load(transaction_id)
        except PixopsError as error:
            self._clear_views()  # the tabs held another transaction, or parts of this one
            self._set_status(f"Could not read {transaction_id}. {problem(error)}", "error")
            return
        self._render()

    # -- loading -------------------------------------------------------------------

    def _load(self, transaction_id: str) -> None:
        record = plain(self.client.transactions.get(transaction_id))
        self.record = record
        shapes: dict[str, Any] = {f"GET /transactions/{transaction_id}": record}
        camel = _camel_case_shape(self.client, transaction_id)
        if camel is not None:
            shapes[f"GET /transactions/{transaction_id} (X-Key-Case: camelCase)"] = camel
        e2e = record.get("end_to_end_id")
        if isinstance(e2e, str) and e2e:
            shapes[f"GET /transactions/e2e/{e2e}"] = plain(self.client.transactions.by_e2e(e2e))
        for field, method, path in (
            ("external_id", "by_external_id", "ref"),
            ("tag", "by_tag", "tag"),
        ):
            value = record.get(field)
            if isinstance(value, str) and value:
                answer = getattr(self.client.transactions, method)(value)
                shapes[f"GET /transactions/{path}/{value}"] = _listed(answer)
        item = self._statement_item(record)
        if item is not None:
            shapes["GET /statement (its row)"] = item
        self.receipt: Record | None = None
        if record.get("status") == "settled" and record.get("type") != "pix_qrcode":
            self.receipt = plain(self.client.transactions.receipt(transaction_id))
            shapes[f"GET /transactions/{transaction_id}/receipt"] = self.receipt
        self.shapes = shapes
        received = record.get("direction") == "inbound" and record.get("type") == "pix"
        self.refunds = refunds_of(self.client, record, self._now()) if received else []
        self.cases = med_cases(self.client, transaction_id=transaction_id) if received else []
        self.timeline = self._timeline(record)

    def _statement_item(self, record: Record) -> Record | None:
        created = parse_time(record.get("created_at"))
        if created is None or record.get("type") == "pix_qrcode":
            return None
        day = created.date()
        for row in rows_between(self.client, day, day, self._now()):
            if row.get("transaction_id") == record.get("transaction_id"):
                return row
        return None

    def _timeline(self, record: Record) -> list[Record]:
        steps: list[Record] = []
        tid = str(record.get("transaction_id"))

        def add(at: Any, source: str, what: str) -> None:
            if at:
                steps.append({"at": at, "source": source, "what": what})

        amount = brl(record.get("amount"))
        add(record.get("created_at") or record.get("started_at"), _RECORD, f"Created ({amount})")
        if record.get("status") == "settled":
            add(record.get("completed_at"), _RECORD, "Settled")
        add(record.get("failed_at"), _RECORD, f"{status_text(record)}: {failure_text(record)}")
        ids = {tid} | {str(r.get("transaction_id")) for r in self.refunds}
        ids |= {str(c.get("id")) for c in self.cases}
        for event in events_for(self._inbox, ids):
            data = event.get("data") or {}
            what = event_label(event.get("type"))
            if data.get("reason_code"):
                what += f": {failure_text(data)}"
            if data.get("transaction_id") != tid:
                what += f" ({data.get('transaction_id')})"
            add(event.get("created_at"), _NOTICE, what)
        for refund in self.refunds:
            rid = refund.get("transaction_id")
            add(
                refund.get("created_at"),
                _REFUND,
                f"Refund {rid} requested, {brl(refund.get('amount'))}",
            )
            add(refund.get("completed_at"), _REFUND, f"Refund {rid} settled")
        for case in self.cases:
            cid = case.get("id")
            add(case.get("opened_at"), _MED, f"Case {cid} opened: {label(case.get('reason'))}")
            add(case.get("defended_at"), _MED, f"Case {cid}: defense submitted")
            result = case.get("analysis_result")
            verdict = f": {MED_VERDICTS.get(str(result), label(result))}" if result else ""
            add(case.get("closed_at"), _MED, f"Case {cid} closed{verdict}")
        steps.sort(key=lambda s: time_key(s["at"]))
        return steps

    # -- showing -------------------------------------------------------------------

    def _render(self) -> None:
        record = self.record
        assert record is not None
        inbound = record.get("direction") in ("inbound", "credit")
        rows: list[Any] = [
            ("Transaction", str(record.get("transaction_id")), True),
            ("End-to-end id", str(record.get("end_to_end_id") or "—"), True),
            ("External id", str(record.get("external_id") or "—"), True),
            ("Type", type_of(record)),
            ("Direction", "received" if inbound else "sent"),
            ("Status", status_text(record)),
            ("Amount", brl(record.get("amount"))),
            ("Fee", brl(record.get("fee_amount"))),
            (
                "Net (amount − fee)" if inbound else "Total (amount + fee)",
                brl(record.get("net_amount")),
            ),
            ("Counterparty", str(record.get("counterparty_name") or "—")),
            ("Bank", self._bank_of(record)),
            ("Created", local_time(record.get("created_at") or record.get("started_at"))),
        ]
        if record.get("failed_at"):  # a failure never completes: when it ended instead
            rows.append((status_text(record), local_time(record.get("failed_at"))))
        else:
            rows.append(("Completed", local_time(record.get("completed_at"))))
        if record.get("description"):  # a refund's says why ("Devolução MED med_…")
            rows.append(("Description", str(record["description"])))
        rows.extend(failure_facts(record))
        if record.get("original_transaction_id"):
            rows.append(("Refund of", str(record["original_transaction_id"]), True))
        if self.refunds:
            left = (int(record.get("amount") or 0)) - refunded_base(self.refunds)
            rows.append(("Refunded", brl(refunded_base(self.refunds))))
            rows.append(("Left to refund", brl(max(0, left))))
        if self.cases:
            cases = ", ".join(f"{c['id']} ({label(c['status'])})" for c in self.cases)
            rows.append(("MED cases", cases))
        self.summary.value = fact_table(rows)
        self.timeline_view.value = timeline_table(self.timeline)
        self.refunds_view.value = refunds_table(
            self.refunds, empty="No refund of this transaction."
        )
        self.med_view.value = cases_html(self.cases)
        self.receipt_view.value = self._receipt_html()
        self.shapes_view.value = shapes_html(SHAPES_NOTE, self.shapes)

    def _bank_of(self, record: Record) -> str:
        """The counterparty's bank: the record's, else the receipt's (a refund's record
        names none)."""
        bank = record.get("payer_bank_name") or record.get("recipient_bank_name")
        if not bank and self.receipt is not None:
            side = self.receipt.get(
                "payer" if record.get("direction") == "inbound" else "recipient"
            )
            bank = (side or {}).get("bank_name")
        return str(bank or "—")

    def _receipt_html(self) -> str:
        receipt = self.receipt
        if receipt is None:
            return message(
                "A receipt exists only for settled transactions: this one is "
                f"{status_text(self.record or {}).lower()}.",
                "info",
            )
        payer = receipt.get("payer") or {}
        recipient = receipt.get("recipient") or {}
        return fact_table(
            [
                ("Receipt", str(receipt.get("receipt_id")), True),
                ("Amount", brl(receipt.get("amount"))),
                ("Paid by", f"{payer.get('name') or '—'} ({payer.get('bank_name') or '—'})"),
                (
                    "Paid to",
                    f"{recipient.get('name') or '—'} ({recipient.get('bank_name') or '—'})",
                ),
                ("Settled", local_time(receipt.get("completed_at"), seconds=True)),
                ("End-to-end id", str(receipt.get("end_to_end_id") or "—"), True),
                ("Authentication code", str(receipt.get("authentication_code") or "—"), True),
            ]
        )

    def _clear(self) -> None:
        self.matches.options = []  # an earlier search's match no longer goes with the tabs
        self._clear_views()

    def _clear_views(self) -> None:
        self.record, self.shapes, self.timeline = None, {}, []
        self.refunds, self.cases = [], []
        for view in (self.summary, self.timeline_view, self.refunds_view, self.med_view):
            view.value = ""
        self.receipt_view.value = ""
        self.shapes_view.value = ""

    def _set_status(self, text: str, tone: str = "info") -> None:
        self.status.value = message(text, tone) if text else ""


def _camel_case_shape(client: Any, transaction_id: str) -> Any:
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


def _listed(answer: Any) -> Any:
    from pixops.widgets._api import items_of

    return items_of(answer)
