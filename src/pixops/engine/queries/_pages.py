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
import operator
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

#: None, as often as `map` asks (finding the rows a memo lacks).
_NONES: Final = itertools.repeat(None)

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
    # A busy page 1 has a thousand rows: every pass over them runs in C (the lookups, and
    # finding the few missing), and Python only touches the rows rendered now.
    parts: list[bytes | None] = list(map(memo.get, refs))
    missing = list(itertools.compress(range(len(parts)), map(operator.is_, parts, _NONES)))
    if missing:
        seqs = [refs[index][0] for index in missing]
        rendered = _render(conn, seqs, with_tag=with_tag, camel=camel)
        keep = _only_committed_rows(conn)
        for index in missing:
            seq = refs[index][0]
            version, part = rendered[seq]
            parts[index] = part
            if keep:
                memo[(seq, version)] = part
        _trim(memo)
    if not parts:
        return b"[]"
    # The brackets go onto the first and last items, so the array is copied once.
    parts[0] = b"[" + cast("bytes", parts[0])
    parts[-1] = cast("bytes", parts[-1]) + b"]"
    return b",".join(cast("list[bytes]", parts))


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
