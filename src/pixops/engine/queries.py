"""The read side: shapes of `GET /transactions/...` and `GET /statement`.

One record can answer in five shapes (see the spec's Resources):

* default: a settled row of `transactions` (inbound or outbound);
* failed inbound: a credit we refused;
* outbound in flight or failed: the cash-out query shape;
* reduced QR: a charge not paid (pending, expired, cancelled);
* QR fallback: a charge paid whose credit row is not stored yet.

Statement items are one flat shape for every row, with the display status.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import sqlite3
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from typing import Any, Final

from pixops import limits, participants, wire
from pixops.engine.clock import db_to_wire, to_db
from pixops.engine.config import SERVICE_NAME
from pixops.engine.http import JSONObject, bad_request
from pixops.engine.pix import charges, inbound, records
from pixops.ids import hex_to_uuid

__all__ = [
    "LIST_PARAMETERS",
    "PAGE_PARAMETERS",
    "Found",
    "ListFilters",
    "Page",
    "Reader",
    "read_list_query",
    "read_page_query",
]

DEFAULT_PER_PAGE: Final = limits.PER_PAGE_DEFAULT
MAX_PER_PAGE: Final = limits.PER_PAGE_MAX
MAX_PAGE: Final = limits.PAGE_MAX
STATUS_FILTERS: Final = ("settled", "rejected", "failed", "processing")
TYPE_FILTERS: Final = ("pix", "ted", "internal")
PAGE_PARAMETERS: Final = frozenset({"page", "per_page"})
LIST_PARAMETERS: Final = PAGE_PARAMETERS | {"status", "type", "date_from", "date_to"}

#: The statement's internal status codes: 1 a completed movement, 2 one in flight.
#: Each displays one way and is filtered another (spec, States and transitions).
_DISPLAY_BY_CODE: Final = {1: "completed", 2: "pending"}
_FILTER_BY_CODE: Final = {1: "settled", 2: "processing"}
#: Statement `type` of each transaction type: a received return is still a PIX.
_STATEMENT_TYPE: Final = {"pix": "pix", "pix_return": "pix"}

_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_INTEGER = re.compile(r"[0-9]{1,10}")


# -- query parameters ---------------------------------------------------------


@dataclass(frozen=True)
class Page:
    page: int = 1
    per_page: int = DEFAULT_PER_PAGE

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.per_page


@dataclass(frozen=True)
class ListFilters:
    """Statement filters; dates are inclusive UTC days."""

    status: str | None = None
    type: str | None = None
    date_from: date | None = None
    date_to: date | None = None


class _Params:
    """Query parameters by snake_case name, collecting every problem before refusing."""

    def __init__(self, query: dict[str, list[str]], allowed: frozenset[str]) -> None:
        merged: dict[str, list[str]] = {}
        for name, values in query.items():
            merged.setdefault(wire.to_snake(name), []).extend(values)
        self.errors: dict[str, list[str]] = {}
        self.values: dict[str, str] = {}
        known = ", ".join(sorted(allowed))
        for name, values in merged.items():
            if name not in allowed:
                self.fail(name, f"is not a known parameter; known parameters: {known}")
            elif len(values) > 1:
                self.fail(name, "is given more than once")
            else:
                self.values[name] = values[0]

    def fail(self, name: str, message: str) -> None:
        self.errors.setdefault(name, []).append(message)

    def integer(self, name: str, default: int, upper: int) -> int:
        text = self.values.get(name)
        if text is None:
            return default
        if _INTEGER.fullmatch(text) is None or not 1 <= int(text) <= upper:
            self.fail(name, f"must be an integer from 1 to {upper}")
            return default
        return int(text)

    def choice(self, name: str, allowed: tuple[str, ...]) -> str | None:
        text = self.values.get(name)
        if text is None:
            return None
        if text not in allowed:
            self.fail(name, f"must be one of {', '.join(allowed)}")
            return None
        return text

    def day(self, name: str) -> date | None:
        text = self.values.get(name)
        if text is None:
            return None
        if _DATE.fullmatch(text) is not None:
            with contextlib.suppress(ValueError):  # 2026-02-30 has the shape, not the date
                return date.fromisoformat(text)
        self.fail(name, "must be a calendar date written YYYY-MM-DD")
        return None

    def page(self) -> Page:
        return Page(
            page=self.integer("page", 1, MAX_PAGE),
            per_page=self.integer("per_page", DEFAULT_PER_PAGE, MAX_PER_PAGE),
        )

    def check(self) -> None:
        if self.errors:
            raise bad_request(self.errors)


def read_page_query(query: dict[str, list[str]]) -> Page:
    """`page` and `per_page` only (the list lookups by tag and external id)."""
    params = _Params(query, PAGE_PARAMETERS)
    page = params.page()
    params.check()
    return page


def read_list_query(query: dict[str, list[str]]) -> tuple[ListFilters, Page]:
    """The statement's parameters; any bad value is a 400 naming every bad parameter."""
    params = _Params(query, LIST_PARAMETERS)
    page = params.page()
    filters = ListFilters(
        status=params.choice("status", STATUS_FILTERS),
        type=params.choice("type", TYPE_FILTERS),
        date_from=params.day("date_from"),
        date_to=params.day("date_to"),
    )
    if filters.date_from and filters.date_to and filters.date_from > filters.date_to:
        params.fail("date_from", "must not be after date_to")
    params.check()
    return filters, page


# -- shapes -------------------------------------------------------------------


def _net_base(row: sqlite3.Row) -> int:
    """Outbound: the total debit (amount + fee). Inbound: the credit after the fee."""
    amount, fee = int(row["amount_base"]), int(row["fee_base"])
    return amount + fee if row["direction"] == "outbound" else amount - fee


def _inbound_only(row: sqlite3.Row, value: Any) -> Any:
    return value if row["direction"] == "inbound" else None


def _outbound_only(row: sqlite3.Row, value: Any) -> Any:
    return value if row["direction"] == "outbound" else None


def mask_document(document: str | None) -> str | None:
    """A CPF as receipts print it (``***.982.247-**``); a CNPJ is public and shown whole."""
    if document is None or len(document) != 11:
        return document
    return f"***.{document[3:6]}.{document[6:9]}-**"


def default_shape(row: sqlite3.Row) -> JSONObject:
    return {
        "id": row["id"],
        "transaction_id": row["transaction_id"],
        "end_to_end_id": row["end_to_end_id"],
        "external_id": row["external_id"],
        "tag": row["tag"],
        "type": row["type"],
        "status": row["status"],
        "amount": row["amount_base"],
        "fee_amount": row["fee_base"],
        "net_amount": _net_base(row),
        "description": row["description"],
        "direction": row["direction"],
        "counterparty_name": row["counterparty_name"],
        "payer_document": _inbound_only(row, row["payer_document"]),
        "recipient_document": _outbound_only(row, row["recipient_document"]),
        "recipient_key": row["recipient_key"],
        "payer_ispb": _inbound_only(row, row["payer_ispb"]),
        "payer_bank_name": _inbound_only(row, participants.bank_name(row["payer_ispb"])),
        "original_transaction_id": row["original_transaction_id"],
        "created_at": db_to_wire(row["created_at"]),
        "completed_at": db_to_wire(row["completed_at"]),
    }


def failed_inbound_shape(row: sqlite3.Row, merchant_name: str) -> JSONObject:
    return {
        "status": "failed",
        "transaction_id": row["transaction_id"],
        "end_to_end_id": row["end_to_end_id"],
        "amount": row["amount_base"],
        "fee_amount": row["fee_base"],
        "external_id": row["external_id"],
        "type": row["type"],
        "direction": "inbound",
        "payment_status": "failed",
        "failure_reason": row["failure_reason"],
        "reason_code": row["reason_code"],
        "reason_description": row["reason_description"],
        "started_at": db_to_wire(row["created_at"]),
        "failed_at": db_to_wire(row["failed_at"]),
        "recipient": {"name": merchant_name, "key": row["recipient_key"]},
    }


def outbound_shape(row: sqlite3.Row) -> JSONObject:
    """The cash-out query shape of an outbound row in flight, rejected or failed."""
    _, payment_status = _statement_status(row)
    return {
        "id": hex_to_uuid(row["id"]),
        "transaction_id": row["transaction_id"],
        "end_to_end_id": row["end_to_end_id"],
        "external_id": row["external_id"],
        "tag": row["tag"],
        "type": row["type"],
        "direction": "outbound",
        "status": "processing" if payment_status == "processing" else "failed",
        "payment_status": payment_status,
        "amount": row["amount_base"],
        "fee_amount": row["fee_base"],
        "net_amount": _net_base(row),
        "description": row["description"],
        "counterparty_name": row["counterparty_name"],
        "recipient_document": row["recipient_document"],
        "recipient_key": row["recipient_key"],
        "recipient_key_type": row["recipient_key_type"],
        "recipient_ispb": row["recipient_ispb"],
        "recipient_bank_name": participants.bank_name(row["recipient_ispb"]),
        "original_transaction_id": row["original_transaction_id"],
        "outbound_request_id": row["outbound_request_id"],
        "reason_code": row["reason_code"],
        "reason_description": row["reason_description"],
        "created_at": db_to_wire(row["created_at"]),
        "completed_at": None,
        "failed_at": db_to_wire(row["failed_at"]),
    }


def qr_shape(charge: sqlite3.Row, now: datetime) -> JSONObject:
    """The reduced QR-derived shape of a charge not (yet) paid."""
    return {
        "id": hex_to_uuid(charge["id"]),
        "transaction_id": charge["txid"],
        "amount": charge["amount_base"],
        "status": charges.effective_status(charge, now),
        "description": charge["description"],
        "recipient_key": charge["pix_key"],
        "type": "pix_qrcode",
        "direction": "credit",
        "counterparty_name": None,
        "created_at": db_to_wire(charge["created_at"]),
        "completed_at": db_to_wire(charge["paid_at"]),
    }


def qr_fallback_shape(charge: sqlite3.Row, merchant: sqlite3.Row) -> JSONObject:
    """A paid charge whose credit row is not stored yet: what the payment notice told us."""
    amount_base = int(charge["amount_base"])
    fee_base = inbound.cash_in_fee_base(merchant, amount_base)
    return {
        "id": hex_to_uuid(charge["id"]),
        "transaction_id": charge["txid"],
        "end_to_end_id": charge["end_to_end_id"],
        "external_id": charge["external_id"],
        "tag": charge["tag"],
        "type": "pix_qrcode",
        "status": "settled",
        "amount": amount_base,
        "fee_amount": fee_base,
        "net_amount": amount_base - fee_base,
        "description": charge["description"],
        "direction": "inbound",
        "counterparty_name": charge["payer_name"],
        "payer_document": charge["payer_document"],
        "recipient_document": None,
        "recipient_key": charge["pix_key"],
        "payer_ispb": charge["payer_ispb"],
        "payer_bank_name": participants.bank_name(charge["payer_ispb"]),
        "original_transaction_id": None,
        "created_at": db_to_wire(charge["created_at"]),
        "completed_at": db_to_wire(charge["paid_at"]),
    }


def _statement_status(row: sqlite3.Row) -> tuple[str, str]:
    """(display status, filter status) of a row."""
    if int(row["stage"]) < 3:
        code = 2
    elif row["status"] == "settled":
        code = 1
    else:
        return str(row["status"]), str(row["status"])
    return _DISPLAY_BY_CODE[code], _FILTER_BY_CODE[code]


def statement_item(row: sqlite3.Row, *, with_tag: bool = False) -> JSONObject:
    display, payment_status = _statement_status(row)
    item: JSONObject = {
        "id": hex_to_uuid(row["id"]),
        "transaction_id": row["transaction_id"],
        "end_to_end_id": row["end_to_end_id"],
        "external_id": row["external_id"],
        "type": _STATEMENT_TYPE.get(row["type"], row["type"]),
        "status": display,
        "payment_status": payment_status,
        "amount": row["amount_base"],
        "fee_amount": row["fee_base"],
        "net_amount": _net_base(row),
        # The spec types these two as plain strings in the statement (not "or null").
        "description": row["description"] or "",
        "direction": row["direction"],
        "counterparty_name": row["counterparty_name"] or "",
        "recipient_key": _outbound_only(row, row["recipient_key"]),
        "payer_document": _inbound_only(row, row["payer_document"]),
        "recipient_document": _outbound_only(row, row["recipient_document"]),
        "payer_ispb": _inbound_only(row, row["payer_ispb"]),
        "payer_bank_name": _inbound_only(row, participants.bank_name(row["payer_ispb"])),
        "created_at": db_to_wire(row["created_at"]),
        "completed_at": None if payment_status == "processing" else db_to_wire(row["completed_at"]),
    }
    if with_tag:
        item["tag"] = row["tag"]
    return item


# -- reading ------------------------------------------------------------------


@dataclass(frozen=True)
class Found:
    """What an identifier resolved to: a `transactions` row or a `charges` row."""

    source: str
    row: sqlite3.Row


class Reader:
    """One merchant's view of its records at one moment."""

    def __init__(
        self, conn: sqlite3.Connection, merchant: sqlite3.Row, now: datetime, service_ispb: str
    ) -> None:
        self.conn = conn
        self.merchant = merchant
        self.merchant_id: str = merchant["id"]
        self.now = now
        self.service_ispb = service_ispb

    def _transaction(self, transaction_id: str | None) -> sqlite3.Row | None:
        if transaction_id is None:
            return None
        return records.find_by_transaction_id(self.conn, self.merchant_id, transaction_id)

    def _settle_charge(self, charge: sqlite3.Row) -> Found:
        """A paid and linked charge answers as its credit; anything else as the QR."""
        if charge["status"] == "paid":
            credit = self._transaction(charge["transaction_id"])
            if credit is not None:
                return Found("transaction", credit)
        return Found("charge", charge)

    def resolve(self, ident: str) -> Found | None:
        """By transaction_id, or by a charge's txid (or its credit's id before linking)."""
        row = self._transaction(ident)
        if row is not None:
            return Found("transaction", row)
        charge = charges.find_charge(self.conn, self.merchant_id, ident)
        return None if charge is None else self._settle_charge(charge)

    def resolve_end_to_end(self, end_to_end_id: str) -> Found | None:
        row = records.find_by_end_to_end_id(self.conn, self.merchant_id, end_to_end_id)
        if row is not None:
            return Found("transaction", row)
        charge: sqlite3.Row | None = self.conn.execute(
            "SELECT * FROM charges WHERE merchant_id = ? AND end_to_end_id = ?",
            (self.merchant_id, end_to_end_id),
        ).fetchone()
        return None if charge is None else self._settle_charge(charge)

    def render(self, found: Found) -> JSONObject:
        row = found.row
        if found.source == "charge":
            if row["status"] == "paid":
                return qr_fallback_shape(row, self.merchant)
            return qr_shape(row, self.now)
        if row["direction"] == "inbound" and row["status"] != "settled":
            return failed_inbound_shape(row, self.merchant["name"])
        if row["direction"] == "outbound" and row["status"] != "settled":
            return outbound_shape(row)
        return default_shape(row)

    def records_by(self, column: str, value: str, page: Page) -> list[JSONObject]:
        """Every record carrying this tag or external_id, newest first.

        Charges are listed until their credit is stored; from then on the credit row
        (which carries the charge's tag and external_id) stands for them.
        """
        if column not in ("tag", "external_id"):
            raise ValueError(f"cannot list by {column!r}")
        refs = self.conn.execute(
            f"SELECT 'transaction' AS source, transaction_id AS ref, created_at, seq AS n"  # noqa: S608
            f" FROM transactions WHERE merchant_id = ? AND {column} = ?"
            f" UNION ALL"
            f" SELECT 'charge', c.txid, c.created_at, c.rowid FROM charges AS c"
            f" WHERE c.merchant_id = ? AND c.{column} = ? AND NOT EXISTS"
            f" (SELECT 1 FROM transactions AS t WHERE t.transaction_id = c.transaction_id)"
            f" ORDER BY created_at DESC, source DESC, n DESC LIMIT ? OFFSET ?",
            (self.merchant_id, value, self.merchant_id, value, page.per_page, page.offset),
        ).fetchall()
        found: list[JSONObject] = []
        for source, ref, _, _ in refs:
            if source == "transaction":
                row = self._transaction(ref)
            else:
                row = charges.find_charge(self.conn, self.merchant_id, ref)
            assert row is not None
            found.append(self.render(Found(source, row)))
        return found

    def statement(
        self, filters: ListFilters, page: Page, *, with_tag: bool = False
    ) -> list[JSONObject]:
        """Terminal rows, paginated; page 1 also lists in-flight outbound rows first.

        In-flight rows (stage < 3) are added to page 1 on top of the `per_page`
        terminal rows, as the spec's "page 1 also includes" says, and only without a
        status filter or with `processing`; so terminal pagination never shifts as
        outbound movements start and finish.
        """
        where, args = self._filter_clauses(filters)
        items: list[JSONObject] = []
        if page.page == 1 and filters.status in (None, "processing"):
            in_flight = self.conn.execute(
                f"SELECT * FROM transactions WHERE {where} AND stage < 3"  # noqa: S608
                " AND direction = 'outbound' ORDER BY created_at DESC, seq DESC",
                args,
            ).fetchall()
            items.extend(statement_item(row, with_tag=with_tag) for row in in_flight)
        if filters.status != "processing":
            status_clause = "" if filters.status is None else " AND status = ?"
            status_args = [] if filters.status is None else [filters.status]
            terminal = self.conn.execute(
                f"SELECT * FROM transactions WHERE {where} AND stage >= 3{status_clause}"  # noqa: S608
                " ORDER BY created_at DESC, seq DESC LIMIT ? OFFSET ?",
                [*args, *status_args, page.per_page, page.offset],
            ).fetchall()
            items.extend(statement_item(row, with_tag=with_tag) for row in terminal)
        return items

    def _filter_clauses(self, filters: ListFilters) -> tuple[str, list[Any]]:
        clauses = ["merchant_id = ?"]
        args: list[Any] = [self.merchant_id]
        if filters.type is not None:
            types = [name for name, shown in _STATEMENT_TYPE.items() if shown == filters.type]
            types = types or [filters.type]
            clauses.append(f"type IN ({', '.join('?' for _ in types)})")
            args.extend(types)
        if filters.date_from is not None:
            clauses.append("created_at >= ?")
            args.append(to_db(datetime.combine(filters.date_from, time.min, tzinfo=UTC)))
        if filters.date_to is not None:
            clauses.append("created_at <= ?")
            args.append(to_db(datetime.combine(filters.date_to, time.max, tzinfo=UTC)))
        return " AND ".join(clauses), args

    def receipt(self, row: sqlite3.Row) -> JSONObject:
        """The proof of a settled movement; identical on every fetch.

        `authentication_code` is the SHA-256 of the receipt's canonical JSON without
        the code, so anyone holding the receipt can check that no field was altered.
        """
        merchant_party = {
            "name": self.merchant["name"],
            "document": mask_document(self.merchant["document"]),
            "ispb": self.service_ispb,
            "bank_name": SERVICE_NAME,
        }
        inbound_row = row["direction"] == "inbound"
        if inbound_row:
            payer = {
                "name": row["counterparty_name"],
                "document": mask_document(row["payer_document"]),
                "ispb": row["payer_ispb"],
                "bank_name": participants.bank_name(row["payer_ispb"]),
            }
            recipient = {**merchant_party, "key": row["recipient_key"]}
        else:
            payer = merchant_party
            recipient = {
                "name": row["counterparty_name"],
                "document": mask_document(row["recipient_document"]),
                "key": row["recipient_key"],
                "ispb": row["recipient_ispb"],
                "bank_name": participants.bank_name(row["recipient_ispb"]),
            }
        data: JSONObject = {
            "receipt_id": "rcpt_" + row["id"],
            "transaction_id": row["transaction_id"],
            "end_to_end_id": row["end_to_end_id"],
            "external_id": row["external_id"],
            "type": row["type"],
            "direction": row["direction"],
            "status": row["status"],
            "amount": row["amount_base"],
            "fee_amount": row["fee_base"],
            "net_amount": _net_base(row),
            "description": row["description"],
            "original_transaction_id": row["original_transaction_id"],
            "payer": payer,
            "recipient": recipient,
            "created_at": db_to_wire(row["created_at"]),
            "completed_at": db_to_wire(row["completed_at"]),
        }
        data["authentication_code"] = hashlib.sha256(wire.canonical_json(data)).hexdigest()
        return data
