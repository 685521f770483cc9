"""The schema's derived data stays equal to what it derives from, whatever happens:
refund totals (kept by triggers) equal the sums of the refunds they stand for, also on a
database that had refunds before the migration that added them."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pixops import wire
from pixops.engine.migrations import MIGRATIONS
from pixops.engine.store import Store
from pixops.sandbox import Sandbox

TOTALS = (
    "SELECT original_transaction_id,"
    " SUM(CASE WHEN status NOT IN ('failed', 'rejected') THEN amount_base ELSE 0 END),"
    " SUM(CASE WHEN status = 'settled' THEN amount_base ELSE 0 END)"
    " FROM transactions WHERE kind IN ('refund', 'med_refund')"
    " AND original_transaction_id IS NOT NULL GROUP BY original_transaction_id"
)
KEPT = "SELECT original_transaction_id, committed_base, refunded_base FROM refund_totals"

STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("receive"), st.integers(100, 20_000)),
        # A valid reason settles; an unknown one is refused later by the central bank.
        st.tuples(
            st.just("refund"),
            st.integers(0, 10),
            st.integers(1, 25_000),
            st.sampled_from(["MD06", "BE08", "XX99"]),
        ),
        st.tuples(st.just("med"), st.integers(0, 10), st.sampled_from(["AGREED", "DISAGREED"])),
        st.tuples(st.just("advance"), st.sampled_from([1, 5, 3_600, 8 * 86_400])),
    ),
    max_size=25,
)


def totals(conn: sqlite3.Connection, query: str) -> dict[str, tuple[int, int]]:
    return {row[0]: (int(row[1]), int(row[2])) for row in conn.execute(query).fetchall()}


def kept_equal_summed(conn: sqlite3.Connection) -> None:
    kept = {ref: pair for ref, pair in totals(conn, KEPT).items() if pair != (0, 0)}
    summed = {ref: pair for ref, pair in totals(conn, TOTALS).items() if pair != (0, 0)}
    assert kept == summed


@settings(max_examples=40, deadline=None)
@given(steps=STEPS)
def test_refund_totals_equal_the_refunds_they_sum(steps: list[tuple[Any, ...]]) -> None:
    sandbox = Sandbox(seed=5)
    merchant = sandbox.create_merchant("Loja", balance_centavos=5_000_000)
    key = sandbox.issue_api_key(merchant.id, ip_whitelist=["127.0.0.1"])
    credits: list[str] = []
    for step in steps:
        if step[0] == "receive":
            credits.append(sandbox.receive_pix(merchant.id, amount_centavos=step[1]))
        elif step[0] == "refund" and credits:
            payload = {
                "original_transaction_id": credits[step[1] % len(credits)],
                "amount": step[2],
                "reason": step[3],
            }
            body = wire.canonical_json(payload)
            sandbox.engine.handle(
                "POST",
                "/api/external/pix/refund",
                [
                    ("authorization", f"ApiKey {key.client_id}:{key.client_secret}"),
                    ("content-type", "application/json"),
                    ("hmac", wire.sign(body, key.client_secret)),
                ],
                body,
                "127.0.0.1",
            )
        elif step[0] == "med" and credits:
            with contextlib.suppress(Exception):  # a case may already be open or closed
                case = sandbox.open_med_case(credits[step[1] % len(credits)], reason="FRAUD")
                sandbox.resolve_med_case(case.id, result=step[2])
        elif step[0] == "advance":
            sandbox.advance(step[1])
        kept_equal_summed(sandbox.engine.store.conn)


def test_the_migration_backfills_totals_of_earlier_refunds(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    with contextlib.closing(sqlite3.connect(db, isolation_level=None)) as old:
        for number, script in enumerate(MIGRATIONS[:9], start=1):
            old.executescript(f"BEGIN; {script}; PRAGMA user_version = {number}; COMMIT;")
        columns = (
            "id, merchant_id, transaction_id, end_to_end_id, type, direction, kind, status,"
            " stage, amount_base, fee_base, original_transaction_id, created_at"
        )
        rows = [
            ("a1", "PIXRET1", "refund", "settled", 300, "PIXIN1"),
            ("a2", "PIXRET2", "refund", "processing", 200, "PIXIN1"),
            ("a3", "PIXRET3", "refund", "failed", 900, "PIXIN1"),
            ("a4", "PIXRET4", "med_refund", "settled", 50, "PIXIN2"),
        ]
        for internal, transaction_id, kind, status, amount, original in rows:
            old.execute(
                f"INSERT INTO transactions ({columns}) VALUES"
                " (?, 'm', ?, 'D1', 'pix', 'outbound', ?, ?, 3, ?, 0, ?, '2026')",
                (internal, transaction_id, kind, status, amount, original),
            )
    store = Store(db)
    try:
        assert totals(store.conn, KEPT) == {"PIXIN1": (500, 300), "PIXIN2": (50, 50)}
        with store.transaction() as conn:
            conn.execute("UPDATE transactions SET status = 'settled' WHERE id = 'a2'")
            conn.execute(
                "UPDATE transactions SET original_transaction_id = 'PIXIN2' WHERE id = 'a1'"
            )
            conn.execute("DELETE FROM transactions WHERE id = 'a4'")
        kept_equal_summed(store.conn)
        assert totals(store.conn, KEPT)["PIXIN1"] == (200, 200)
    finally:
        store.close()
