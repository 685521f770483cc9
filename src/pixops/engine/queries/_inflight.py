"""Page 1's in-flight rows, kept per merchant and refreshed by changes, not re-read.

Page 1 of the statement (and of `GET /transactions`) lists every outbound row still in
flight (`stage < 3`), newest first. A busy account has hundreds, and most fetches follow
a few changes: so each connection keeps, per merchant that asked, the (seq, version) of
its in-flight rows, and before answering reads again only the rows written since
(`Connection.changed_transactions`, noted by temporary triggers), or everything when
another connection has committed since (`PRAGMA data_version` moved), when the noting
overflowed, or the first time. The answer is the same list, in the same order, as the
query over the covering index (`Reader.statement_refs`' own query, which tests compare).

Used only when every row the connection can see is committed (its open transaction, if
any, has changed nothing): a view never holds a change that could still roll back.
"""

from __future__ import annotations

import sqlite3
from typing import Final

from pixops.engine.store import Connection

#: Merchants with a view per connection; past it every view is dropped (rebuilt on use).
VIEWS_LIMIT: Final = 1_024
#: Rows read per query when refreshing (well under SQLite's bound on parameters).
_FETCH_CHUNK: Final = 500

#: A row of a page: (seq, version).
Ref = tuple[int, int]


class _View:
    """One merchant's in-flight rows: (created_at, seq, version) by seq, and their order."""

    __slots__ = ("ordered", "rows")

    def __init__(self, rows: dict[int, tuple[str, int, int]]) -> None:
        self.rows = rows
        self.ordered: list[Ref] | None = None

    def refs(self) -> list[Ref]:
        if self.ordered is None:
            self.ordered = [
                (seq, version) for _, seq, version in sorted(self.rows.values(), reverse=True)
            ]
        return self.ordered


class InFlight:
    """The views of one connection (kept on it: `in_flight_view(conn)`)."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn
        self._views: dict[str, _View] = {}
        self._data_version: int | None = None

    def refs(self, merchant_id: str) -> list[Ref]:
        """(seq, version) of the merchant's in-flight outbound rows, newest first."""
        conn = self._conn
        changes = conn.changed_transactions
        # Read before any row: a commit by another connection after this moment moves
        # it again, so the next call starts over instead of trusting a stale view.
        version = int(conn.execute("PRAGMA data_version").fetchone()[0])
        seqs, overflowed = changes.take()
        if version != self._data_version or overflowed or len(self._views) >= VIEWS_LIMIT:
            self._views.clear()
            seqs = set()
        self._data_version = version
        changes.watching = True
        if seqs and self._views:
            self._refresh(seqs)
        view = self._views.get(merchant_id)
        if view is None:
            view = self._views[merchant_id] = _View(self._load(merchant_id))
        return view.refs()

    def _load(self, merchant_id: str) -> dict[int, tuple[str, int, int]]:
        plain = self._conn.cursor()
        plain.row_factory = None
        rows = plain.execute(
            "SELECT seq, created_at, version FROM transactions WHERE merchant_id = ?"
            " AND stage < 3 AND direction = 'outbound'",
            (merchant_id,),
        ).fetchall()
        return {seq: (created_at, seq, version) for seq, created_at, version in rows}

    def _refresh(self, seqs: set[int]) -> None:
        """Read the changed rows again and move each into or out of its merchant's view."""
        ordered = sorted(seqs)
        plain = self._conn.cursor()
        plain.row_factory = None
        seen: set[int] = set()
        for start in range(0, len(ordered), _FETCH_CHUNK):
            chunk = ordered[start : start + _FETCH_CHUNK]
            marks = ", ".join("?" for _ in chunk)
            rows = plain.execute(
                "SELECT seq, merchant_id, created_at, version, stage < 3"  # noqa: S608
                f" AND direction = 'outbound' FROM transactions WHERE seq IN ({marks})",
                chunk,
            ).fetchall()
            for seq, merchant_id, created_at, version, in_flight in rows:
                seen.add(seq)
                # A row could in principle move between merchants: out of every other view.
                for owner, view in self._views.items():
                    if owner != merchant_id and seq in view.rows:
                        del view.rows[seq]
                        view.ordered = None
                mine = self._views.get(merchant_id)
                if mine is None:
                    continue
                if in_flight:
                    entry = (created_at, seq, version)
                    if mine.rows.get(seq) != entry:
                        mine.rows[seq] = entry
                        mine.ordered = None
                elif seq in mine.rows:
                    del mine.rows[seq]
                    mine.ordered = None
        for seq in seqs - seen:  # deleted rows
            for view in self._views.values():
                if view.rows.pop(seq, None) is not None:
                    view.ordered = None


def in_flight_view(conn: sqlite3.Connection) -> InFlight | None:
    """The connection's views, or None when they cannot be trusted now: a plain
    connection (no change triggers), or an open transaction that has changed rows."""
    if not isinstance(conn, Connection) or not hasattr(conn, "changed_transactions"):
        return None
    if conn.in_transaction and conn.total_changes != conn.changes_at_begin:
        return None
    found = conn.in_flight
    if not isinstance(found, InFlight):
        found = conn.in_flight = InFlight(conn)
    return found
