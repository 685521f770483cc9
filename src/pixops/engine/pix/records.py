"""Shared helpers over the `transactions` table: insert a row, find rows, reason codes.

Every money movement a merchant can query is one row (see docs/engine-internals.md);
this module is the one place that writes the column list.
"""

from __future__ import annotations

import functools
import random
import re
import sqlite3
from datetime import datetime
from typing import Final, NamedTuple

from pixops import limits
from pixops.engine.clock import to_db
from pixops.engine.errors import LedgerError, SimulationError
from pixops.engine.rows import TransactionRow
from pixops.ids import new_hex_id
from pixops.pixkeys import PixKeyError, detect_key_type

__all__ = [
    "EXTERNAL_ID_PATTERN",
    "TAG_PATTERN",
    "NewTransaction",
    "SimulationError",
    "failure_reason",
    "find_by_end_to_end_id",
    "find_by_transaction_id",
    "hold_of",
    "insert",
    "key_type_of",
]


#: Central-bank (pacs.002) reason codes and their English descriptions.

#: The merchant-facing category of a rejected credit, per the spec's list
#: (limit exceeded, account blocked or nonexistent, duplicate, central-bank rejection).
_FAILURE_REASONS: Final[dict[str, str]] = {
    "AM02": "limit_exceeded",
    "AC06": "account_blocked",
    "AC07": "account_closed",
    "AC03": "account_not_found",
    "DUPL": "duplicate",
}


def failure_reason(code: str) -> str:
    return _FAILURE_REASONS.get(code, "central_bank_rejection")


@functools.lru_cache(maxsize=4096)
def key_type_of(key: str | None) -> str | None:
    """The detected type of a PIX key; None when unknown or ambiguous (11 digits).

    Cached: a pure function of the key, and a merchant's credits repeat its own key.
    """
    if key is None:
        return None
    try:
        return detect_key_type(key).value
    except PixKeyError:
        return None


class NewTransaction(NamedTuple):
    """One row to insert; money in base units, times as aware datetimes.

    A named tuple rather than a frozen dataclass: as immutable, and much cheaper to
    build with this many fields (every money movement builds one).
    """

    merchant_id: str
    transaction_id: str
    end_to_end_id: str
    type: str
    direction: str
    kind: str
    status: str
    amount_base: int
    created_at: datetime
    fee_base: int = 0
    stage: int = 3
    external_id: str | None = None
    tag: str | None = None
    description: str | None = None
    counterparty_name: str | None = None
    payer_document: str | None = None
    recipient_document: str | None = None
    recipient_key: str | None = None
    payer_ispb: str | None = None
    recipient_ispb: str | None = None
    reason_code: str | None = None
    reason_description: str | None = None
    failure_reason: str | None = None
    charge_txid: str | None = None
    original_transaction_id: str | None = None
    refund_reason: str | None = None
    completed_at: datetime | None = None
    failed_at: datetime | None = None


def insert(conn: sqlite3.Connection, rng: random.Random, tx: NewTransaction) -> str:
    """Insert `tx` with a fresh internal id (32 lowercase hex); returns that id."""
    internal_id = new_hex_id(rng)
    conn.execute(
        "INSERT INTO transactions (id, merchant_id, transaction_id, end_to_end_id, external_id,"
        " tag, type, direction, kind, status, stage, amount_base, fee_base, description,"
        " counterparty_name, payer_document, recipient_document, recipient_key,"
        " recipient_key_type, payer_ispb, recipient_ispb, reason_code, reason_description,"
        " failure_reason, charge_txid, original_transaction_id, refund_reason, created_at,"
        " completed_at, failed_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
        " ?, ?, ?)",
        (
            internal_id,
            tx.merchant_id,
            tx.transaction_id,
            tx.end_to_end_id,
            tx.external_id,
            tx.tag,
            tx.type,
            tx.direction,
            tx.kind,
            tx.status,
            tx.stage,
            tx.amount_base,
            tx.fee_base,
            tx.description,
            tx.counterparty_name,
            tx.payer_document,
            tx.recipient_document,
            tx.recipient_key,
            key_type_of(tx.recipient_key),
            tx.payer_ispb,
            tx.recipient_ispb,
            tx.reason_code,
            tx.reason_description,
            tx.failure_reason,
            tx.charge_txid,
            tx.original_transaction_id,
            tx.refund_reason,
            to_db(tx.created_at),
            None if tx.completed_at is None else to_db(tx.completed_at),
            None if tx.failed_at is None else to_db(tx.failed_at),
        ),
    )
    return internal_id


def hold_of(row: TransactionRow) -> str:
    """The ledger hold of an outbound row in flight (every one has one from acceptance)."""
    if row.hold_id is None:
        raise LedgerError(f"{row.transaction_id} has no hold to close")
    return row.hold_id


def find_by_transaction_id(
    conn: sqlite3.Connection, merchant_id: str, transaction_id: str
) -> TransactionRow | None:
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM transactions WHERE merchant_id = ? AND transaction_id = ?",
        (merchant_id, transaction_id),
    ).fetchone()
    return None if row is None else TransactionRow.from_db(row)


def find_by_end_to_end_id(
    conn: sqlite3.Connection, merchant_id: str, end_to_end_id: str
) -> TransactionRow | None:
    """The merchant's row with this end-to-end ID; a settled one wins over a failed one."""
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM transactions WHERE merchant_id = ? AND end_to_end_id = ?"
        " ORDER BY status = 'settled' DESC, seq DESC LIMIT 1",
        (merchant_id, end_to_end_id),
    ).fetchone()
    return None if row is None else TransactionRow.from_db(row)


#: Caller references: `external_id` (cash-out's rule) and `tag`, both URL-path safe.
EXTERNAL_ID_PATTERN: Final = re.compile(rf"[a-zA-Z0-9._:-]{{1,{limits.EXTERNAL_ID_MAX_CHARS}}}")
TAG_PATTERN: Final = re.compile(rf"[a-zA-Z0-9._:-]{{1,{limits.TAG_MAX_CHARS}}}")
