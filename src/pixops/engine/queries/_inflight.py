"""Page 1's in-flight rows, kept per merchant and refreshed by changes, not re-read.

Page 1 of the statement (and of `GET /transactions`) lists every outbound row still in
flight (`stage < 3`), newest first. A busy account has hundreds, and most fetches follow
a few changes: so each connection keeps, per merchant that asked, its in-flight rows in
page order with their encoded items (per key casing and tag), and before answering
reads again only the rows written since (`Connection.changed_transactions`, noted by
temporary triggers), or everything when another connection has committed since
(`PRAGMA data_version` moved), when the noting overflowed, or the first time. A page
then costs the changed rows, not the rows in flight: one join of the kept items.

The rows are the ones, in the order, the query over the covering index gives
(`Reader.statement_refs`' own query, which tests compare), and each item is the bytes
`queries._pages` renders for that row's version.

Used only when every row the connection can see is committed (its open transaction, if
any, has changed nothing): a view never holds a change that could still roll back.
"""

from __future__ import annotations

import bisect
import sqlite3
from typing import Final, cast

from pixops.engine.queries._pages import Ref, render_rows
from pixops.engine.store import Connection

#: Merchants with a view per connection; past it every view is dropped (rebuilt on use).
VIEWS_LIMIT: Final = 1_024
#: Rows read per query when refreshing (well under SQLite's bound on parameters).
_FETCH_CHUNK: Final = 500

#: How an item is encoded: (with_tag, camel).
Encoding = tuple[bool, bool]
#: A row's place in the view: (created_at, seq), ascending (the page is newest first).
Key = tuple[str, int]


class _Items:
    """A view's items for one encoding, in the view's order; `stale` rows are re-rendered
    (or rendered the first time) before the next use."""

    __slots__ = ("parts", "stale")

    def __init__(self, parts: list[bytes | None], stale: set[int]) -> None:
        self.parts = parts
        self.stale = stale


class _View:
    """One merchant's in-flight rows: their keys in order, versions, and encoded items."""

    __slots__ = ("created", "items", "keys", "versions")

    def __init__(self, rows: list[tuple[int, str, int]]) -> None:
        self.keys: list[Key] = sorted((created_at, seq) for seq, created_at, _ in rows)
        self.created = {seq: created_at for seq, created_at, _ in rows}
        self.versions = {seq: version for seq, _, version in rows}
        self.items: dict[Encoding, _Items] = {}

    def refs(self) -> list[Ref]:
        versions = self.versions
        return [(seq, versions[seq]) for _, seq in reversed(self.keys)]

    def put(self, seq: int, created_at: str, version: int) -> None:
        """The row is in flight at this version: add it, or mark its items stale."""
        if self.created.get(seq) not in (None, created_at):
            self.remove(seq)
        if seq in self.versions:
            if self.versions[seq] != version:
                self.versions[seq] = version
                for items in self.items.values():
                    items.stale.add(seq)
            return
        key = (created_at, seq)
        index = bisect.bisect_left(self.keys, key)
        self.keys.insert(index, key)
        self.created[seq] = created_at
        self.versions[seq] = version
        for items in self.items.values():
            items.parts.insert(index, None)
            items.stale.add(seq)

    def remove(self, seq: int) -> None:
        created_at = self.created.pop(seq, None)
        if created_at is None:
            return
        del self.versions[seq]
        index = bisect.bisect_left(self.keys, (created_at, seq))
        del self.keys[index]
        for items in self.items.values():
            del items.parts[index]
            items.stale.discard(seq)

    def encoded(self, conn: sqlite3.Connection, with_tag: bool, camel: bool) -> list[bytes]:
        """The items of the rows, newest first, rendering only those not rendered yet."""
        items = self.items.get((with_tag, camel))
        if items is None:
            items = self.items[(with_tag, camel)] = _Items(
                [None] * len(self.keys), set(self.versions)
            )
        if items.stale:
            stale = [(seq, self.versions[seq]) for seq in sorted(items.stale)]
            rendered = render_rows(conn, stale, with_tag=with_tag, camel=camel)
            for seq, part in rendered.items():
                index = bisect.bisect_left(self.keys, (self.created[seq], seq))
                items.parts[index] = part
            items.stale.clear()
        # Every part is bytes now (each None was stale, and stale rows were rendered);
        # a None left would make the page's join raise, never a wrong page.
        return cast("list[bytes]", items.parts[::-1])


class InFlight:
    """The views of one connection (kept on it: `in_flight_view(conn)`)."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn
        self._views: dict[str, _View] = {}
        #: The merchant whose view holds each row (every row of every view is here).
        self._owner: dict[int, str] = {}
        self._data_version: int | None = None

    def view(self, merchant_id: str) -> _View:
        """The merchant's view, brought up to date with what this connection can see."""
        conn = self._conn
        changes = conn.changed_transactions
        # Read before any row: a commit by another connection after this moment moves
        # it again, so the next call starts over instead of trusting a stale view.
        version = int(conn.execute("PRAGMA data_version").fetchone()[0])
        seqs, overflowed = changes.take()
        if version != self._data_version or overflowed or len(self._views) >= VIEWS_LIMIT:
            self._views.clear()
            self._owner.clear()
            seqs = set()
        self._data_version = version
        changes.watching = True
        if seqs and self._views:
            self._refresh(seqs)
        view = self._views.get(merchant_id)
        if view is None:
            rows = self._load(merchant_id)
            view = self._views[merchant_id] = _View(rows)
            self._owner.update((seq, merchant_id) for seq, _, _ in rows)
        return view

    def refs(self, merchant_id: str) -> list[Ref]:
        """(seq, version) of the merchant's in-flight outbound rows, newest first."""
        return self.view(merchant_id).refs()

    def _load(self, merchant_id: str) -> list[tuple[int, str, int]]:
        plain = self._conn.cursor()
        plain.row_factory = None
        rows: list[tuple[int, str, int]] = plain.execute(
            "SELECT seq, created_at, version FROM transactions WHERE merchant_id = ?"
            " AND stage < 3 AND direction = 'outbound'",
            (merchant_id,),
        ).fetchall()
        return rows

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
                owner = self._owner.get(seq)
                if owner is not None and owner != merchant_id:
                    # A row could in principle move between merchants: out of the old view.
                    self._views[owner].remove(seq)
                    del self._owner[seq]
                mine = self._views.get(merchant_id)
                if mine is None:
                    continue
                if in_flight:
                    mine.put(seq, created_at, version)
                    self._owner[seq] = merchant_id
                else:
                    mine.remove(seq)
                    self._owner.pop(seq, None)
        for seq in seqs - seen:  # deleted rows
            owner = self._owner.pop(seq, None)
            if owner is not None:
                self._views[owner].remove(seq)


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
