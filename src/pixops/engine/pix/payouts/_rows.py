"""Finding a cash-out row."""

from __future__ import annotations

import sqlite3

from pixops.engine.rows import TransactionRow


def find_payout(conn: sqlite3.Connection, transaction_id: str) -> TransactionRow | None:
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM transactions WHERE transaction_id = ? AND kind = 'cash_out'",
        (transaction_id,),
    ).fetchone()
    return None if row is None else TransactionRow.from_db(row)


def reload(conn: sqlite3.Connection, transaction_id: str) -> TransactionRow:
    row = find_payout(conn, transaction_id)
    assert row is not None
    return row
