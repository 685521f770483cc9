"""The ledger: a journal of every movement, materialised balances, and holds.

The journal is the truth; `accounts` caches its sum and the active holds so that a
balance read costs one row. `audit` checks both against their sources.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from pixops.engine.clock import to_db
from pixops.engine.errors import LedgerError as LedgerError
from pixops.ids import new_hex_id

if TYPE_CHECKING:
    import random


@dataclass(frozen=True)
class Balance:
    """All figures in base units (1 centavo = 100)."""

    ledger_base: int
    held_base: int
    blocked_base: int

    @property
    def available_base(self) -> int:
        """What is free to move: the ledger less holds and MED blocks."""
        return self.ledger_base - self.held_base - self.blocked_base

    @property
    def safe_base(self) -> int:
        """The lower of the two balance figures; cash-out and refund check against it."""
        return min(self.ledger_base, self.available_base)


def open_account(conn: sqlite3.Connection, merchant_id: str) -> None:
    conn.execute("INSERT INTO accounts (merchant_id) VALUES (?)", (merchant_id,))


def balance(conn: sqlite3.Connection, merchant_id: str) -> Balance:
    row = conn.execute(
        "SELECT ledger_base, held_base, blocked_base FROM accounts WHERE merchant_id = ?",
        (merchant_id,),
    ).fetchone()
    if row is None:
        raise LedgerError(f"no account for merchant {merchant_id}")
    return Balance(int(row[0]), int(row[1]), int(row[2]))


def post(
    conn: sqlite3.Connection,
    merchant_id: str,
    amount_base: int,
    kind: str,
    at: datetime,
    *,
    transaction_id: str | None = None,
    memo: str | None = None,
) -> None:
    """One journal entry (credit positive, debit negative) and its balance update."""
    if not isinstance(amount_base, int) or isinstance(amount_base, bool):
        raise LedgerError("journal amounts are integers in base units")
    updated = conn.execute(
        "UPDATE accounts SET ledger_base = ledger_base + ? WHERE merchant_id = ?",
        (amount_base, merchant_id),
    ).rowcount
    if updated != 1:
        raise LedgerError(f"no account for merchant {merchant_id}")
    conn.execute(
        "INSERT INTO journal (merchant_id, at, amount_base, kind, transaction_id, memo)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (merchant_id, to_db(at), amount_base, kind, transaction_id, memo),
    )


def post_entries(
    conn: sqlite3.Connection,
    merchant_id: str,
    entries: Sequence[tuple[int, str]],
    at: datetime,
    *,
    transaction_id: str | None = None,
) -> None:
    """Several journal entries of one movement, `(amount_base, kind)` each and in order
    (an amount and its fee), with one balance update for their sum."""
    _check_amounts(entries)
    updated = conn.execute(
        "UPDATE accounts SET ledger_base = ledger_base + ? WHERE merchant_id = ?",
        (sum(amount_base for amount_base, _ in entries), merchant_id),
    ).rowcount
    _journal_entries(conn, updated, merchant_id, entries, at, transaction_id)


def place_hold(
    conn: sqlite3.Connection,
    rng: random.Random,
    merchant_id: str,
    amount_base: int,
    kind: str,
    transaction_id: str,
    at: datetime,
) -> str:
    """Reserve funds for an in-flight outbound movement; returns the hold id."""
    if amount_base < 0:
        raise LedgerError("a hold cannot be negative")
    hold_id = new_hex_id(rng)
    conn.execute(
        "INSERT INTO holds (id, merchant_id, kind, amount_base, transaction_id, status, created_at)"
        " VALUES (?, ?, ?, ?, ?, 'active', ?)",
        (hold_id, merchant_id, kind, amount_base, transaction_id, to_db(at)),
    )
    conn.execute(
        "UPDATE accounts SET held_base = held_base + ? WHERE merchant_id = ?",
        (amount_base, merchant_id),
    )
    return hold_id


def _mark_closed(conn: sqlite3.Connection, hold_id: str, status: str, at: datetime) -> sqlite3.Row:
    """Close an active hold as `status`; its row (merchant and amount) before closing."""
    row: sqlite3.Row | None = conn.execute(
        "SELECT merchant_id, amount_base, status FROM holds WHERE id = ?", (hold_id,)
    ).fetchone()
    if row is None or row["status"] != "active":
        raise LedgerError(f"hold {hold_id} is not active")
    conn.execute(
        "UPDATE holds SET status = ?, closed_at = ? WHERE id = ?", (status, to_db(at), hold_id)
    )
    return row


def _close_hold(conn: sqlite3.Connection, hold_id: str, status: str, at: datetime) -> int:
    row = _mark_closed(conn, hold_id, status, at)
    conn.execute(
        "UPDATE accounts SET held_base = held_base - ? WHERE merchant_id = ?",
        (row["amount_base"], row["merchant_id"]),
    )
    return int(row["amount_base"])


def release_hold(conn: sqlite3.Connection, hold_id: str, at: datetime) -> int:
    """The movement did not happen: the reserved funds are free again."""
    return _close_hold(conn, hold_id, "released", at)


def capture_hold(conn: sqlite3.Connection, hold_id: str, at: datetime) -> int:
    """The movement happened: close the hold; the caller posts the debits."""
    return _close_hold(conn, hold_id, "captured", at)


def capture_and_post(
    conn: sqlite3.Connection,
    hold_id: str,
    merchant_id: str,
    entries: Sequence[tuple[int, str]],
    at: datetime,
    *,
    transaction_id: str,
) -> int:
    """The movement happened: `capture_hold`, then `post` each `(amount_base, kind)` entry
    in order (an amount and its fee), with one account update for all of it (the hold off
    `held_base`, the entries onto `ledger_base`). Returns the hold's amount."""
    _check_amounts(entries)
    row = _mark_closed(conn, hold_id, "captured", at)
    held_base = int(row["amount_base"])
    posted_base = sum(amount_base for amount_base, _ in entries)
    if row["merchant_id"] == merchant_id:
        updated = conn.execute(
            "UPDATE accounts SET held_base = held_base - ?, ledger_base = ledger_base + ?"
            " WHERE merchant_id = ?",
            (held_base, posted_base, merchant_id),
        ).rowcount
    else:
        conn.execute(
            "UPDATE accounts SET held_base = held_base - ? WHERE merchant_id = ?",
            (held_base, row["merchant_id"]),
        )
        updated = conn.execute(
            "UPDATE accounts SET ledger_base = ledger_base + ? WHERE merchant_id = ?",
            (posted_base, merchant_id),
        ).rowcount
    _journal_entries(conn, updated, merchant_id, entries, at, transaction_id)
    return held_base


def set_blocked(conn: sqlite3.Connection, merchant_id: str, delta_base: int) -> None:
    """MED precautionary blocks move funds out of the available figure."""
    conn.execute(
        "UPDATE accounts SET blocked_base = blocked_base + ? WHERE merchant_id = ?",
        (delta_base, merchant_id),
    )


@dataclass(frozen=True)
class Audit:
    journal_sum_base: int
    active_holds_base: int
    balance: Balance

    @property
    def consistent(self) -> bool:
        return (
            self.journal_sum_base == self.balance.ledger_base
            and self.active_holds_base == self.balance.held_base
        )


def audit(conn: sqlite3.Connection, merchant_id: str) -> Audit:
    """Recompute the balance from its sources; tests assert `consistent` after scenarios."""
    journal_sum = conn.execute(
        "SELECT COALESCE(SUM(amount_base), 0) FROM journal WHERE merchant_id = ?", (merchant_id,)
    ).fetchone()[0]
    holds_sum = conn.execute(
        "SELECT COALESCE(SUM(amount_base), 0) FROM holds"
        " WHERE merchant_id = ? AND status = 'active'",
        (merchant_id,),
    ).fetchone()[0]
    return Audit(int(journal_sum), int(holds_sum), balance(conn, merchant_id))


def _journal_entries(
    conn: sqlite3.Connection,
    accounts_updated: int,
    merchant_id: str,
    entries: Sequence[tuple[int, str]],
    at: datetime,
    transaction_id: str | None,
) -> None:
    """The journal lines of a movement whose account update touched `accounts_updated`
    rows (exactly one, or the merchant has no account)."""
    if accounts_updated != 1:
        raise LedgerError(f"no account for merchant {merchant_id}")
    at_db = to_db(at)
    conn.executemany(
        "INSERT INTO journal (merchant_id, at, amount_base, kind, transaction_id, memo)"
        " VALUES (?, ?, ?, ?, ?, NULL)",
        [(merchant_id, at_db, amount_base, kind, transaction_id) for amount_base, kind in entries],
    )


def _check_amounts(entries: Sequence[tuple[int, str]]) -> None:
    for amount_base, _ in entries:
        if not isinstance(amount_base, int) or isinstance(amount_base, bool):
            raise LedgerError("journal amounts are integers in base units")
