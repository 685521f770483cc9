"""Statement pages as bytes, each row rendered once per version of it.

Page 1 of the statement (and of `GET /transactions`) lists every payout still in flight,
and the newest settled rows stay the same from one fetch to the next, so most of a page
was rendered by the fetch before. An item is a pure function of its row, and a row's
`version` (a trigger bumps it on every UPDATE, see the store's migration 8) names its
content; so each item is kept encoded, by (seq, version) for each (with_tag, camel), in
a bounded memo on the connection, and a page costs one query for its (seq, version) pairs plus
the rendering of the rows it has not met yet.

Only committed rows are ever kept: a transaction that has changed rows renders without
storing, so a rolled-back change can never leave an item behind under a version that a
later commit reuses.
"""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Sequence
from typing import Final, cast

from pixops import wire
from pixops.engine.http import EncodedJSON, encode_json
from pixops.engine.queries._statement import statement_item
from pixops.engine.rows import TransactionRow
from pixops.engine.store import Connection

#: Items kept per connection and rendering: every in-flight payout of a busy account plus
#: the newest pages.
MEMO_LIMIT: Final = 8_192
#: Rows fetched per query when rendering (well under SQLite's bound on parameters).
_FETCH_CHUNK: Final = 500

#: A row of a page: (seq, version).
Ref = tuple[int, int]


def encoded_items(conn: sqlite3.Connection, refs: Sequence[Ref], *, with_tag: bool) -> EncodedJSON:
    """The JSON array of the statement items of `refs`, in order, encoded on demand.

    Encoded when the pipeline knows the key casing, inside the request's transaction,
    so the rows fetched then are the ones `refs` was read from."""
    frozen = tuple(refs)

    def render(camel: bool) -> bytes:
        return encode_items(conn, frozen, with_tag=with_tag, camel=camel)

    return EncodedJSON(render)


def encode_items(
    conn: sqlite3.Connection, refs: Sequence[Ref], *, with_tag: bool, camel: bool
) -> bytes:
    """`encode_json([statement_item(row) ...])` (keys camelCased when asked), from the memo
    where it can."""
    memos = conn.rendered if isinstance(conn, Connection) else {}
    memo = memos.setdefault((with_tag, camel), {})
    # A busy page 1 has hundreds of rows: the lookups run in C, keyed by the refs as read.
    parts: list[bytes | None] = list(map(memo.get, refs))
    if None in parts:
        missing = [ref[0] for ref, part in zip(refs, parts, strict=True) if part is None]
        rendered = _render(conn, missing, with_tag=with_tag, camel=camel)
        keep = _only_committed_rows(conn)
        for index, ref in enumerate(refs):
            if parts[index] is None:
                version, part = rendered[ref[0]]
                parts[index] = part
                if keep:
                    memo[(ref[0], version)] = part
        _trim(memo)
    return b"[" + b",".join(cast("list[bytes]", parts)) + b"]"


def _render(
    conn: sqlite3.Connection, seqs: list[int], *, with_tag: bool, camel: bool
) -> dict[int, tuple[int, bytes]]:
    """(version, encoded item) of each row, by seq."""
    rendered: dict[int, tuple[int, bytes]] = {}
    for start in range(0, len(seqs), _FETCH_CHUNK):
        chunk = seqs[start : start + _FETCH_CHUNK]
        marks = ", ".join("?" for _ in chunk)
        rows = conn.execute(
            f"SELECT * FROM transactions WHERE seq IN ({marks})",  # noqa: S608 - only "?" marks
            chunk,
        ).fetchall()
        for row in rows:
            item = statement_item(TransactionRow.from_db(row), with_tag=with_tag)
            if camel:
                converted = wire.camelize_keys(item)
                assert isinstance(converted, dict)
                item = converted
            rendered[int(row["seq"])] = (int(row["version"]), encode_json(item))
    missing = set(seqs) - rendered.keys()
    if missing:
        raise LookupError(f"statement rows vanished while rendering: {sorted(missing)}")
    return rendered


def _only_committed_rows(conn: sqlite3.Connection) -> bool:
    """Whether every row this connection can see is committed: its open transaction (if
    any) has changed nothing."""
    if not isinstance(conn, Connection):
        return False
    return not conn.in_transaction or conn.total_changes == conn.changes_at_begin


def _trim(memo: dict[Ref, bytes]) -> None:
    """Past the limit, forget the oldest half (insertion order): amortised O(1)."""
    if len(memo) <= MEMO_LIMIT:
        return
    for key in list(itertools.islice(memo, len(memo) // 2)):
        del memo[key]
