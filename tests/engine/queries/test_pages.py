"""Statement pages from rendered items: the same bytes as rendering every row each time.

The routes send `Reader.statement_encoded` (items kept encoded by row version); the
reference is `Reader.statement` (every row rendered again) through the plain encoder.
"""

from __future__ import annotations

import itertools
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pixops import wire
from pixops.engine.http import EncodedJSON, encode_json
from pixops.engine.merchants import require_merchant
from pixops.engine.pipeline import encode_body
from pixops.engine.queries import ListFilters, Page, Reader
from pixops.engine.queries import _pages as pages
from pixops.engine.queries._inflight import in_flight_view
from pixops.engine.store import Connection
from pixops.sandbox import Sandbox

#: Documented test keys (docs/sandbox-test-keys.md): settle, reject, orphan, DICT queue.
KEYS = (
    "maria.silva@sandbox.pixops.dev",
    "reject.ac03@sandbox.pixops.dev",
    "orphan@sandbox.pixops.dev",
    "queue.client@sandbox.pixops.dev",
    "instant@sandbox.pixops.dev",
)
STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("cash_out"), st.sampled_from(KEYS), st.integers(1, 50_000)),
        st.tuples(st.just("receive"), st.integers(1, 50_000)),
        st.tuples(st.just("refund"), st.integers(0, 20), st.integers(1, 3_000)),
        st.tuples(st.just("advance"), st.sampled_from([1, 2, 3, 10, 2_000])),
    ),
    max_size=30,
)
FILTERS = st.builds(
    ListFilters, status=st.sampled_from([None, "settled", "rejected", "failed", "processing"])
)
PAGES = st.builds(Page, page=st.integers(1, 3), per_page=st.integers(1, 7))


class RollbackError(Exception):
    """Raised inside a unit of work to roll it back."""


def play(steps: list[tuple[Any, ...]]) -> tuple[Sandbox, str]:
    """A merchant's history: cash-outs of every outcome, credits, refunds, time passing."""
    sandbox, merchant_id, player = player_of(Sandbox(seed=11))
    for step in steps:
        player(step)
    return sandbox, merchant_id


def player_of(sandbox: Sandbox) -> tuple[Sandbox, str, Any]:
    """A merchant on `sandbox`, and a function playing one step of a history for it."""
    merchant = sandbox.create_merchant("Loja", balance_centavos=10_000_000)
    key = sandbox.issue_api_key(merchant.id, ip_whitelist=["127.0.0.1"])
    credits: list[str] = []

    def post(path: str, payload: dict[str, Any]) -> int:
        body = wire.canonical_json(payload)
        answer = sandbox.engine.handle(
            "POST",
            f"/api/external{path}",
            [
                ("authorization", f"ApiKey {key.client_id}:{key.client_secret}"),
                ("content-type", "application/json"),
                ("hmac", wire.sign(body, key.client_secret)),
            ],
            body,
            "127.0.0.1",
        )
        return answer.status

    def step_of(step: tuple[Any, ...]) -> None:
        if step[0] == "cash_out":
            assert post("/pix/cash-out", {"amount": step[2], "pix_key": step[1]}) in (200, 202)
        elif step[0] == "receive":
            credits.append(sandbox.receive_pix(merchant.id, amount_centavos=step[1]))
        elif step[0] == "refund" and credits:
            original = credits[step[1] % len(credits)]
            post("/pix/refund", {"original_transaction_id": original, "amount": step[2]})
        elif step[0] == "advance":
            sandbox.advance(step[1])

    return sandbox, merchant.id, step_of


def reader(sandbox: Sandbox, merchant_id: str) -> Reader:
    conn = sandbox.engine.store.conn
    return Reader(conn, require_merchant(conn, merchant_id), sandbox.now(), "99999999")


def reference(
    found: Reader, filters: ListFilters, page: Page, *, with_tag: bool, camel: bool
) -> bytes:
    body: dict[str, Any] = {
        "worked": True,
        "data": found.statement(filters, page, with_tag=with_tag),
        "page": page.page,
        "per_page": page.per_page,
    }
    converted = wire.camelize_keys(body) if camel else body
    assert isinstance(converted, dict)
    return encode_json(converted)


def encoded(
    found: Reader, filters: ListFilters, page: Page, *, with_tag: bool, camel: bool
) -> bytes:
    body = {
        "worked": True,
        "data": found.statement_encoded(filters, page, with_tag=with_tag),
        "page": page.page,
        "per_page": page.per_page,
    }
    return encode_body(body, camel)


@settings(max_examples=40, deadline=None)
@given(steps=STEPS, filters=FILTERS, page=PAGES, with_tag=st.booleans(), camel=st.booleans())
def test_an_encoded_page_is_byte_for_byte_the_rendered_page(
    steps: list[tuple[Any, ...]], filters: ListFilters, page: Page, with_tag: bool, camel: bool
) -> None:
    sandbox, merchant_id = play(steps)
    found = reader(sandbox, merchant_id)
    expected = reference(found, filters, page, with_tag=with_tag, camel=camel)
    # Twice: the first fills the memo, the second is served from it.
    assert encoded(found, filters, page, with_tag=with_tag, camel=camel) == expected
    assert encoded(found, filters, page, with_tag=with_tag, camel=camel) == expected


def test_a_row_that_changes_is_rendered_again() -> None:
    sandbox, merchant_id = play([("cash_out", KEYS[0], 1_000)])
    first = encoded(
        reader(sandbox, merchant_id), ListFilters(), Page(), with_tag=False, camel=False
    )
    assert b'"payment_status":"processing"' in first
    sandbox.advance(5)  # settles: the row's version grows
    found = reader(sandbox, merchant_id)
    after = encoded(found, ListFilters(), Page(), with_tag=False, camel=False)
    assert b'"payment_status":"processing"' not in after
    assert after == reference(found, ListFilters(), Page(), with_tag=False, camel=False)


def test_every_update_of_a_transaction_row_grows_its_version() -> None:
    sandbox, _ = play([("cash_out", KEYS[0], 1_000)])
    conn = sandbox.engine.store.conn
    before = conn.execute("SELECT seq, version FROM transactions").fetchone()
    with sandbox.engine.store.transaction():
        conn.execute("UPDATE transactions SET description = 'x' WHERE seq = ?", (before[0],))
        conn.execute("UPDATE transactions SET description = 'y' WHERE seq = ?", (before[0],))
    after = conn.execute("SELECT version FROM transactions WHERE seq = ?", (before[0],)).fetchone()
    assert after[0] == before[1] + 2


def test_an_update_that_bumps_the_version_itself_grows_it_once() -> None:
    """The engine's own UPDATEs set `version = version + 1` (sparing the trigger's second
    write): the same +1 a statement that leaves it to the trigger gets."""
    sandbox, _ = play([("cash_out", KEYS[0], 1_000)])
    conn = sandbox.engine.store.conn
    seq, version = conn.execute("SELECT seq, version FROM transactions").fetchone()
    with sandbox.engine.store.transaction():
        conn.execute(
            "UPDATE transactions SET version = version + 1, description = 'x' WHERE seq = ?",
            (seq,),
        )
    assert (
        conn.execute("SELECT version FROM transactions WHERE seq = ?", (seq,)).fetchone()[0]
        == version + 1
    )


def test_a_transaction_that_changed_rows_renders_without_keeping() -> None:
    sandbox, merchant_id = play([("cash_out", KEYS[0], 1_000)])
    store = sandbox.engine.store
    conn = store.conn
    assert isinstance(conn, Connection)
    conn.rendered.clear()

    seen: list[bytes] = []

    def change_render_and_fail() -> None:
        with store.transaction():
            conn.execute("UPDATE transactions SET description = 'not kept'")
            seen.append(
                encoded(
                    reader(sandbox, merchant_id), ListFilters(), Page(), with_tag=False, camel=False
                )
            )
            raise RollbackError

    with pytest.raises(RollbackError):
        change_render_and_fail()
    assert b"not kept" in seen[0]
    assert all(not memo for memo in conn.rendered.values())
    # Rolled back: the same version number, committed again with other content, renders anew.
    with store.transaction():
        conn.execute("UPDATE transactions SET description = 'kept'")
    page = encoded(reader(sandbox, merchant_id), ListFilters(), Page(), with_tag=False, camel=False)
    assert b"kept" in page
    assert b"not kept" not in page


def test_the_memo_stays_within_its_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pages, "MEMO_LIMIT", 4)
    sandbox, merchant_id = play([("receive", 100 + n) for n in range(12)])
    found = reader(sandbox, merchant_id)
    for number in range(1, 4):
        encoded(found, ListFilters(), Page(page=number, per_page=4), with_tag=False, camel=False)
    conn = sandbox.engine.store.conn
    assert isinstance(conn, Connection)
    assert 0 < len(conn.rendered[(False, False)]) <= 4


def test_page_one_reads_in_flight_rows_from_their_covering_index() -> None:
    sandbox, merchant_id = play([("cash_out", KEYS[0], 1_000)])
    conn = sandbox.engine.store.conn
    traced: list[str] = []
    conn.set_trace_callback(traced.append)
    try:
        reader(sandbox, merchant_id).statement_refs(ListFilters(), Page())
    finally:
        conn.set_trace_callback(None)
    in_flight = next(sql for sql in traced if "stage < 3" in sql)
    plan = " ".join(
        str(row[3]) for row in conn.execute("EXPLAIN QUERY PLAN " + in_flight).fetchall()
    )
    assert "COVERING INDEX transactions_in_flight" in plan


def test_a_plain_connection_renders_without_a_memo() -> None:
    sandbox, merchant_id = play([("receive", 500)])
    conn = sandbox.engine.store.conn
    plain = sqlite3.connect(":memory:")
    conn.backup(plain)
    plain.row_factory = sqlite3.Row
    refs = reader(sandbox, merchant_id).statement_refs(ListFilters(), Page())
    assert pages.encode_items(plain, refs, with_tag=False, camel=False) == pages.encode_items(
        conn, refs, with_tag=False, camel=False
    )


def query_refs(conn: sqlite3.Connection, merchant_id: str) -> list[tuple[int, int]]:
    """Page 1's in-flight rows as the covering index gives them (the view's reference)."""
    return [
        (int(seq), int(version))
        for seq, version in conn.execute(
            "SELECT seq, version FROM transactions WHERE merchant_id = ? AND stage < 3"
            " AND direction = 'outbound' ORDER BY created_at DESC, seq DESC",
            (merchant_id,),
        ).fetchall()
    ]


def view_refs(sandbox: Sandbox, merchant_id: str) -> list[tuple[int, int]]:
    view = in_flight_view(sandbox.engine.store.conn)
    assert view is not None
    return view.refs(merchant_id)


@settings(max_examples=30, deadline=None)
@given(steps=STEPS, reads=st.lists(st.integers(0, 30), max_size=6))
def test_the_kept_in_flight_rows_and_items_are_the_ones_the_index_gives(
    steps: list[tuple[Any, ...]], reads: list[int]
) -> None:
    """Read at random moments of a history (the view is kept between reads and refreshed
    by what changed): always the same rows, versions and order as the query, and the same
    page bytes as rendering every row again, in every encoding."""
    sandbox, merchant_id, player = player_of(Sandbox(seed=11))
    conn = sandbox.engine.store.conn
    for number in range(len(steps) + 1):
        if number in reads or number == len(steps):
            assert view_refs(sandbox, merchant_id) == query_refs(conn, merchant_id)
            found = reader(sandbox, merchant_id)
            for with_tag, camel in itertools.product((False, True), repeat=2):
                page = encoded(found, ListFilters(), Page(), with_tag=with_tag, camel=camel)
                assert page == reference(
                    found, ListFilters(), Page(), with_tag=with_tag, camel=camel
                )
        if number < len(steps):
            player(steps[number])


def test_the_kept_rows_follow_a_write_rolled_back_and_one_committed() -> None:
    sandbox, merchant_id = play([("cash_out", KEYS[0], 1_000), ("cash_out", KEYS[2], 2_000)])
    store = sandbox.engine.store
    conn = store.conn
    before = view_refs(sandbox, merchant_id)
    assert len(before) == 2

    def settle_and_fail() -> None:
        with store.transaction():
            conn.execute("UPDATE transactions SET stage = 3 WHERE direction = 'outbound'")
            # Inside a transaction that changed rows the view stands aside.
            assert in_flight_view(conn) is None
            raise RollbackError

    with pytest.raises(RollbackError):
        settle_and_fail()
    assert view_refs(sandbox, merchant_id) == query_refs(conn, merchant_id) == before
    with store.transaction():
        conn.execute("UPDATE transactions SET stage = 3 WHERE seq = ?", (before[0][0],))
    assert view_refs(sandbox, merchant_id) == query_refs(conn, merchant_id) == before[1:]


def test_the_kept_rows_follow_another_connections_commit(tmp_path: Path) -> None:
    """A write this connection never saw (another process on the file) is caught by
    `PRAGMA data_version`: the view starts over."""
    path = tmp_path / "pix.db"
    sandbox, merchant_id, player = player_of(Sandbox(path=path, seed=5))
    try:
        for amount in (1_000, 2_000, 3_000):
            player(("cash_out", KEYS[0], amount))
        conn = sandbox.engine.store.conn
        before = view_refs(sandbox, merchant_id)
        assert len(before) == 3
        other = sqlite3.connect(path, isolation_level=None)
        try:
            other.execute("UPDATE transactions SET stage = 3 WHERE seq = ?", (before[1][0],))
        finally:
            other.close()
        assert view_refs(sandbox, merchant_id) == query_refs(conn, merchant_id)
        assert len(view_refs(sandbox, merchant_id)) == 2
    finally:
        sandbox.engine.store.close()


def test_changes_are_noted_only_while_a_view_is_kept() -> None:
    """Nothing accumulates on a connection whose pages nobody reads."""
    sandbox, merchant_id = play([("cash_out", KEYS[0], 1_000)] * 3)
    conn = sandbox.engine.store.conn
    assert isinstance(conn, Connection)
    assert not conn.changed_transactions.seqs
    view_refs(sandbox, merchant_id)
    sandbox.advance(5)
    assert conn.changed_transactions.seqs
    view_refs(sandbox, merchant_id)
    assert not conn.changed_transactions.seqs


@pytest.mark.parametrize(
    "update",
    [
        "UPDATE transactions SET stage = 3 WHERE seq = ?",
        "UPDATE transactions SET stage = 3, version = version + 7 WHERE seq = ?",
        "UPDATE transactions SET stage = 3, version = version WHERE seq = ?",
    ],
)
def test_every_kind_of_update_is_noted(update: str) -> None:
    """The change triggers watch `version`: an UPDATE that sets it, keeps it, or leaves it
    to the version trigger is noted all the same."""
    sandbox, merchant_id = play([("cash_out", KEYS[0], 1_000), ("cash_out", KEYS[0], 2_000)])
    store = sandbox.engine.store
    before = view_refs(sandbox, merchant_id)
    with store.transaction() as conn:
        conn.execute(update, (before[0][0],))
    assert view_refs(sandbox, merchant_id) == query_refs(store.conn, merchant_id) == before[1:]


def test_each_merchant_keeps_its_own_rows_even_when_one_moves() -> None:
    """Two merchants' views on one connection: each follows its own rows, and a row
    moved to the other merchant (never done by the engine; a direct write) leaves one
    view for the other."""
    sandbox = Sandbox(seed=11)
    _, first, play_first = player_of(sandbox)
    _, second, play_second = player_of(sandbox)
    conn = sandbox.engine.store.conn
    for amount in (1_000, 2_000):
        play_first(("cash_out", KEYS[0], amount))
        play_second(("cash_out", KEYS[2], amount + 1))
    assert view_refs(sandbox, first) == query_refs(conn, first)
    assert view_refs(sandbox, second) == query_refs(conn, second)
    play_first(("cash_out", KEYS[0], 3_000))
    play_second(("advance", 5))  # the first merchant's maria.silva payouts settle
    moved = query_refs(conn, second)[0][0]
    with sandbox.engine.store.transaction():
        conn.execute("UPDATE transactions SET merchant_id = ? WHERE seq = ?", (first, moved))
    for merchant_id in (first, second):
        assert view_refs(sandbox, merchant_id) == query_refs(conn, merchant_id)
    assert moved in {seq for seq, _ in view_refs(sandbox, first)}


def test_an_encoded_value_splices_its_pieces_or_its_bytes_alike() -> None:
    """`encode_body` splices an `EncodedJSON`'s pieces when it has them: the same body as
    its joined bytes, and as the plain encoder gives."""
    value = [{"a": 1}, {"b": [2, 3]}]
    parts = [encode_json(item) for item in value]
    whole = EncodedJSON(lambda camel: pages._array(list(parts)))
    pieced = EncodedJSON(
        lambda camel: pages._array(list(parts)), lambda camel: pages._array_pieces(list(parts))
    )
    expected = encode_json({"worked": True, "data": value, "page": 1})
    for data in (whole, pieced):
        assert encode_body({"worked": True, "data": data, "page": 1}, False) == expected
    assert whole.encode_pieces(False) == [pages._array(list(parts))]
    assert b"".join(pieced.encode_pieces(False)) == pages._array(list(parts))
    empty = EncodedJSON(lambda camel: b"[]", lambda camel: pages._array_pieces([]))
    assert encode_body({"data": empty}, False) == b'{"data":[]}'
    with pytest.raises(TypeError, match="pieces"):
        EncodedJSON(lambda camel: b"[]", "not callable")  # type: ignore[arg-type]
