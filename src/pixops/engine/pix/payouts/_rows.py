"""Finding a cash-out row."""

from __future__ import annotations

import sqlite3


def find_payout(conn: sqlite3.Connection, transaction_id: str) -> sqlite3.Row | None:
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM transactions WHERE transaction_id = ? AND kind = 'cash_out'",
        (transaction_id,),
    ).fetchone()
    return row


def reload(conn: sqlite3.Connection, transaction_id: str) -> sqlite3.Row:
    row = find_payout(conn, transaction_id)
    assert row is not None
    return row
