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
from collections.abc import Callable, Sequence
from typing import Final, cast

from pixops import wire
from pixops.engine.http import EncodedJSON, encode_json, encode_json_value
from pixops.engine.queries._statement import statement_item
from pixops.engine.rows import TRANSACTION_COLUMNS, TransactionRow
from pixops.engine.store import Connection

#: Items kept per connection and rendering: every in-flight payout of a busy account plus
#: the newest pages.
MEMO_LIMIT: Final = 8_192
#: Rows fetched per query when rendering (well under SQLite's bound on parameters).
_FETCH_CHUNK: Final = 500

#: None, as often as `map` asks (finding the rows a memo lacks).
_NONES: Final = itertools.repeat(None)

#: The columns of a `TransactionRow`, in its order, for a query's select list.
_COLUMNS: Final = ", ".join(TRANSACTION_COLUMNS)

#: A row of a page: (seq, version).
Ref = tuple[int, int]


def encoded_items(
    conn: sqlite3.Connection,
    refs: Sequence[Ref],
    *,
    with_tag: bool,
    leading: Callable[[bool], list[bytes]] | None = None,
) -> EncodedJSON:
    """The JSON array of the statement items of `refs`, in order, encoded on demand;
    `leading(camel)`, when given, are items already encoded that come first (page 1's
    in-flight rows, kept by `queries._inflight`).

    Encoded when the pipeline knows the key casing, inside the request's transaction,
    so the rows fetched then are the ones `refs` was read from."""
    frozen = tuple(refs)

    def items(camel: bool) -> list[bytes]:
        parts = _parts(conn, frozen, with_tag=with_tag, camel=camel)
        return parts if leading is None else leading(camel) + parts

    def render(camel: bool) -> bytes:
        return _array(items(camel))

    def pieces(camel: bool) -> list[bytes]:
        return _array_pieces(items(camel))

    return EncodedJSON(render, pieces)


def encode_items(
    conn: sqlite3.Connection, refs: Sequence[Ref], *, with_tag: bool, camel: bool
) -> bytes:
    """`encode_json([statement_item(row) ...])` (keys camelCased when asked), from the memo
    where it can."""
    return _array(_parts(conn, refs, with_tag=with_tag, camel=camel))


def render_rows(
    conn: sqlite3.Connection, refs: Sequence[Ref], *, with_tag: bool, camel: bool
) -> dict[int, bytes]:
    """The encoded item of each row, by seq (from the memo where it can)."""
    return dict(
        zip(
            (seq for seq, _ in refs),
            _parts(conn, refs, with_tag=with_tag, camel=camel),
            strict=True,
        )
    )


def _parts(
    conn: sqlite3.Connection, refs: Sequence[Ref], *, with_tag: bool, camel: bool
) -> list[bytes]:
    memos = conn.rendered if isinstance(conn, Connection) else {}
    memo = memos.setdefault((with_tag, camel), {})
    # Every pass over the rows runs in C (the lookups, and finding the few missing), and
    # Python only touches the rows rendered now.
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
    return cast("list[bytes]", parts)


def _array_pieces(parts: list[bytes]) -> list[bytes]:
    """`_array(parts)` as pieces to join (the items and the commas between them), so
    whoever joins the whole body copies the items once."""
    if not parts:
        return [b"[]"]
    pieces: list[bytes] = [b","] * (2 * len(parts) - 1)
    pieces[0::2] = parts
    return [b"[", *pieces, b"]"]


def _array(parts: list[bytes]) -> bytes:
    """`[` parts joined by commas `]`, copied once: the brackets go onto the first and last
    items (a busy page 1 is hundreds of kilobytes)."""
    if not parts:
        return b"[]"
    if len(parts) == 1:
        return b"[" + parts[0] + b"]"
    first, last = parts[0], parts[-1]
    parts[0] = b"[" + first
    parts[-1] = last + b"]"
    try:
        return b",".join(parts)
    finally:
        parts[0], parts[-1] = first, last


def _render(
    conn: sqlite3.Connection, seqs: list[int], *, with_tag: bool, camel: bool
) -> dict[int, tuple[int, bytes]]:
    """(version, encoded item) of each row, by seq.

    The statement's items and the transactions page's differ only by a last member
    (`tag`), so both are made from one rendering, and the one not asked for is kept in
    its own memo (when rows are committed): the other page finds it there."""
    rendered: dict[int, tuple[int, bytes]] = {}
    memos = conn.rendered if isinstance(conn, Connection) else {}
    sibling = memos.setdefault((not with_tag, camel), {}) if _only_committed_rows(conn) else {}
    tag_name = encode_json_value(wire.to_camel("tag") if camel else "tag")
    plain = conn.cursor()
    plain.row_factory = None
    for start in range(0, len(seqs), _FETCH_CHUNK):
        chunk = seqs[start : start + _FETCH_CHUNK]
        marks = ", ".join("?" for _ in chunk)
        rows = plain.execute(
            f"SELECT {_COLUMNS}, version FROM transactions WHERE seq IN ({marks})",  # noqa: S608 - only "?" marks
            chunk,
        ).fetchall()
        for values in rows:
            row = TransactionRow.from_values(values[:-1])
            item = statement_item(row, with_tag=False)
            if camel:
                converted = wire.camelize_keys(item)
                assert isinstance(converted, dict)
                item = converted
            plain_item = encode_json(item)
            tagged = plain_item[:-1] + b"," + tag_name + b":" + encode_json_value(row.tag) + b"}"
            version = int(values[-1])
            wanted, other = (tagged, plain_item) if with_tag else (plain_item, tagged)
            rendered[row.seq] = (version, wanted)
            sibling[(row.seq, version)] = other
    missing = set(seqs) - rendered.keys()
    if missing:
        raise LookupError(f"statement rows vanished while rendering: {sorted(missing)}")
    if sibling:
        _trim(sibling)
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
