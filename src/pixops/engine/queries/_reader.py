"""The reader: one merchant's view of its records, resolving ids and rendering shapes."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime, time
from typing import Any

from pixops.engine.clock import to_db
from pixops.engine.http import EncodedJSON, JSONObject
from pixops.engine.pix import charges, records
from pixops.engine.queries._inflight import InFlight, in_flight_view
from pixops.engine.queries._pages import Ref, encoded_items
from pixops.engine.queries._params import ListFilters, Page
from pixops.engine.queries._receipt import receipt
from pixops.engine.queries._shapes import (
    default_shape,
    failed_inbound_shape,
    outbound_shape,
    qr_fallback_shape,
    qr_shape,
)
from pixops.engine.queries._statement import STATEMENT_TYPE, statement_item
from pixops.engine.rows import ChargeRow, MerchantRow, TransactionRow


@dataclass(frozen=True)
class Found:
    """What an identifier resolved to: a `transactions` row or a `charges` row."""

    source: str
    row: TransactionRow | ChargeRow


class Reader:
    """One merchant's view of its records at one moment."""

    def __init__(
        self, conn: sqlite3.Connection, merchant: MerchantRow, now: datetime, service_ispb: str
    ) -> None:
        self.conn = conn
        self.merchant = merchant
        self.merchant_id: str = merchant.id
        self.now = now
        self.service_ispb = service_ispb

    def _transaction(self, transaction_id: str | None) -> TransactionRow | None:
        if transaction_id is None:
            return None
        return records.find_by_transaction_id(self.conn, self.merchant_id, transaction_id)

    def _settle_charge(self, charge: ChargeRow) -> Found:
        """A paid and linked charge answers as its credit; anything else as the QR."""
        if charge.status == "paid":
            credit = self._transaction(charge.transaction_id)
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
        return None if charge is None else self._settle_charge(ChargeRow.from_db(charge))

    def render(self, found: Found) -> JSONObject:
        row = found.row
        if isinstance(row, ChargeRow):
            if row.status == "paid":
                return qr_fallback_shape(row, self.merchant)
            return qr_shape(row, self.now)
        if row.direction == "inbound" and row.status != "settled":
            return failed_inbound_shape(row, self.merchant.name)
        if row.direction == "outbound" and row.status != "settled":
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
            row: TransactionRow | ChargeRow | None
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
        """The page's statement items, as objects (`statement_encoded` is the same page
        as bytes, which is what the routes send)."""
        refs = self.statement_refs(filters, page)
        rows: dict[int, TransactionRow] = {}
        for seq, _ in refs:
            found = self.conn.execute("SELECT * FROM transactions WHERE seq = ?", (seq,)).fetchone()
            rows[seq] = TransactionRow.from_db(found)
        return [statement_item(rows[seq], with_tag=with_tag) for seq, _ in refs]

    def statement_encoded(
        self, filters: ListFilters, page: Page, *, with_tag: bool = False
    ) -> EncodedJSON:
        """The page's items as one encoded JSON array, each row rendered once per version;
        page 1's in-flight rows come from the merchant's kept view when there is one."""
        views = self._in_flight_views(filters, page)
        if views is None:
            return encoded_items(self.conn, self.statement_refs(filters, page), with_tag=with_tag)
        view = views.view(self.merchant_id)
        conn = self.conn

        def in_flight(camel: bool) -> list[bytes]:
            return view.encoded(conn, with_tag, camel)

        terminal = self._terminal_refs(filters, page)
        return encoded_items(conn, terminal, with_tag=with_tag, leading=in_flight)

    def statement_refs(self, filters: ListFilters, page: Page) -> list[Ref]:
        """(seq, version) of the page's rows: terminal rows, paginated; page 1 also lists
        in-flight outbound rows first.

        In-flight rows (stage < 3) are added to page 1 on top of the `per_page`
        terminal rows, as the spec's "page 1 also includes" says, and only without a
        status filter or with `processing`. A movement that finishes between two page
        fetches joins the terminal rows, so a walk through the pages can see it twice
        (or see a row move to the next page): clients de-duplicate by id.
        """
        refs: list[Ref] = []
        if page.page == 1 and filters.status in (None, "processing"):
            views = self._in_flight_views(filters, page)
            if views is not None:
                refs.extend(views.refs(self.merchant_id))
            else:
                where, args = self._filter_clauses(filters)
                plain = self.conn.cursor()
                plain.row_factory = None  # plain tuples: a busy page 1 has hundreds of rows
                # `stage < 3` selects the small partial index of in-flight rows.
                refs.extend(
                    plain.execute(
                        f"SELECT seq, version FROM transactions WHERE {where} AND stage < 3"  # noqa: S608
                        " AND direction = 'outbound' ORDER BY created_at DESC, seq DESC",
                        args,
                    ).fetchall()
                )
        refs.extend(self._terminal_refs(filters, page))
        return refs

    def _in_flight_views(self, filters: ListFilters, page: Page) -> InFlight | None:
        """The connection's kept views, when this page's in-flight rows are a view's: page
        1, no filter but `processing`, and a connection whose views can be trusted now."""
        if page.page != 1 or filters.status not in (None, "processing"):
            return None
        if filters.type is not None or filters.date_from is not None or filters.date_to is not None:
            return None
        return in_flight_view(self.conn)

    def _terminal_refs(self, filters: ListFilters, page: Page) -> list[Ref]:
        """(seq, version) of the page's terminal rows (none when filtering `processing`)."""
        if filters.status == "processing":
            return []
        where, args = self._filter_clauses(filters)
        plain = self.conn.cursor()
        plain.row_factory = None
        status_clause = "" if filters.status is None else " AND status = ?"
        status_args = [] if filters.status is None else [filters.status]
        refs: list[Ref] = plain.execute(
            f"SELECT seq, version FROM transactions WHERE {where} AND stage >= 3"  # noqa: S608
            f"{status_clause} ORDER BY created_at DESC, seq DESC LIMIT ? OFFSET ?",
            [*args, *status_args, page.per_page, page.offset],
        ).fetchall()
        return refs

    def _filter_clauses(self, filters: ListFilters) -> tuple[str, list[Any]]:
        clauses = ["merchant_id = ?"]
        args: list[Any] = [self.merchant_id]
        if filters.type is not None:
            types = [name for name, shown in STATEMENT_TYPE.items() if shown == filters.type]
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

    def receipt(self, row: TransactionRow) -> JSONObject:
        """The proof of a settled movement; identical on every fetch (see `receipt`)."""
        return receipt(row, self.merchant, self.service_ispb)
