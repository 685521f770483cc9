"""`ledger.capture_and_post`: a settled movement's hold and debits in one account update,
with the same rows and balance as `capture_hold` followed by one `post` per entry."""

from __future__ import annotations

import random
import sqlite3
from datetime import UTC, datetime

import pytest

from pixops.engine import ledger
from pixops.engine.errors import LedgerError
from pixops.sandbox import Sandbox

AT = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)


def merchant_with_hold(amount_base: int) -> tuple[Sandbox, str, str]:
    sandbox = Sandbox(seed=3)
    merchant = sandbox.create_merchant("Loja", balance_centavos=1_000_000)
    with sandbox.engine.store.transaction() as conn:
        hold_id = ledger.place_hold(
            conn, random.Random(1), merchant.id, amount_base, "cash_out", "PIXOUTX", AT
        )
    return sandbox, merchant.id, hold_id


def state(conn: sqlite3.Connection, merchant_id: str) -> tuple[object, ...]:
    journal = conn.execute(
        "SELECT merchant_id, at, amount_base, kind, transaction_id, memo FROM journal"
        " WHERE merchant_id = ? ORDER BY seq",
        (merchant_id,),
    ).fetchall()
    holds = conn.execute("SELECT id, status, closed_at FROM holds ORDER BY id").fetchall()
    return (
        [tuple(row) for row in journal],
        [tuple(row) for row in holds],
        ledger.balance(conn, merchant_id),
        ledger.audit(conn, merchant_id).consistent,
    )


@pytest.mark.parametrize(
    "entries", [[(-10_000, "cash_out"), (-500, "cash_out_fee")], [(-7, "refund")]]
)
def test_the_same_rows_and_balance_as_capturing_then_posting(
    entries: list[tuple[int, str]],
) -> None:
    hold_base = -sum(amount for amount, _ in entries)
    one, merchant_one, hold_one = merchant_with_hold(hold_base)
    with one.engine.store.transaction() as conn:
        assert (
            ledger.capture_and_post(
                conn, hold_one, merchant_one, entries, AT, transaction_id="PIXOUTX"
            )
            == hold_base
        )
    other, merchant_other, hold_other = merchant_with_hold(hold_base)
    with other.engine.store.transaction() as conn:
        ledger.capture_hold(conn, hold_other, AT)
        for amount_base, kind in entries:
            ledger.post(conn, merchant_other, amount_base, kind, AT, transaction_id="PIXOUTX")
    # Same seeds: the same ids.
    assert merchant_one == merchant_other
    assert hold_one == hold_other
    assert state(one.engine.store.conn, merchant_one) == state(
        other.engine.store.conn, merchant_other
    )
    assert state(one.engine.store.conn, merchant_one)[3] is True


def test_a_hold_not_active_is_refused_and_nothing_is_written() -> None:
    sandbox, merchant_id, hold_id = merchant_with_hold(100)
    conn = sandbox.engine.store.conn
    with sandbox.engine.store.transaction():
        ledger.release_hold(conn, hold_id, AT)
    before = state(conn, merchant_id)
    with pytest.raises(LedgerError, match="is not active"), sandbox.engine.store.transaction():
        ledger.capture_and_post(
            conn, hold_id, merchant_id, [(-100, "cash_out")], AT, transaction_id="PIXOUTX"
        )
    assert state(conn, merchant_id) == before


def test_amounts_are_integers() -> None:
    sandbox, merchant_id, hold_id = merchant_with_hold(100)
    with pytest.raises(LedgerError, match="integers"), sandbox.engine.store.transaction() as conn:
        ledger.capture_and_post(
            conn,
            hold_id,
            merchant_id,
            [(-100.0, "cash_out")],
            AT,
            transaction_id="X",  # type: ignore[list-item]
        )
