"""The central bank's answers to a sent payment (or their absence): settle, reject,
or fail; the hold is captured on settlement and released on any other end.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final

from pixops.engine import events, ledger, scheduler
from pixops.engine.clock import to_db, to_wire
from pixops.engine.pix.payouts._rows import find_payout
from pixops.engine.pix.records import hold_of
from pixops.engine.rows import TransactionRow

if TYPE_CHECKING:
    from pixops.engine.core import Engine


ORPHAN_REASON: Final = "orphan_force_voided"


_ORPHAN_DESCRIPTION: Final = (
    "No pacs.002 from the central bank within 30 minutes; the transfer was voided and "
    "the funds released"
)


@scheduler.timer("payout.pacs002")
def _pacs002(engine: Engine, conn: sqlite3.Connection, ref: str, payload: dict[str, Any]) -> None:
    row = find_payout(conn, ref)
    if row is None or row.status != "processing":
        return
    scheduler.cancel(conn, "payout.orphan", ref)
    now = engine.clock.now()
    code = payload.get("code")
    if code is None:
        settle(engine, conn, row, now)
    else:
        reject(engine, conn, row, str(code), str(payload["description"]), now)


@scheduler.timer("payout.orphan")
def _orphan(engine: Engine, conn: sqlite3.Connection, ref: str, payload: dict[str, Any]) -> None:
    row = find_payout(conn, ref)
    if row is None or row.status != "processing":
        return
    scheduler.cancel(conn, "payout.pacs002", ref)
    fail(engine, conn, row, ORPHAN_REASON, _ORPHAN_DESCRIPTION, engine.clock.now())


def settle(engine: Engine, conn: sqlite3.Connection, row: TransactionRow, now: datetime) -> None:
    merchant_id = row.merchant_id
    transaction_id = row.transaction_id
    amount_base = int(row.amount_base)
    fee_base = int(row.fee_base)
    entries = [(-amount_base, "cash_out")]
    if fee_base:
        entries.append((-fee_base, "cash_out_fee"))
    ledger.capture_and_post(
        conn, hold_of(row), merchant_id, entries, now, transaction_id=transaction_id
    )
    conn.execute(
        "UPDATE transactions SET version = version + 1,"
        " status = 'settled', stage = 3, completed_at = ?,"
        " reason_code = NULL, reason_description = NULL WHERE transaction_id = ?",
        (to_db(now), transaction_id),
    )
    events.emit(
        engine,
        conn,
        merchant_id,
        "pix.payout.confirmed",
        {
            "transaction_id": transaction_id,
            "end_to_end_id": row.end_to_end_id,
            "external_id": row.external_id,
            "amount": amount_base,
            "fee_amount": fee_base,
            "net_amount": amount_base + fee_base,
            "status": "settled",
            "completed_at": to_wire(now),
        },
        at=now,
        transaction_id=transaction_id,
    )


def _close_unsuccessful(
    conn: sqlite3.Connection,
    row: TransactionRow,
    status: str,
    code: str,
    description: str,
    now: datetime,
) -> None:
    ledger.release_hold(conn, hold_of(row), now)
    conn.execute(
        "UPDATE transactions SET version = version + 1,"
        " status = ?, stage = 3, failed_at = ?, reason_code = ?,"
        " reason_description = ?, failure_reason = ? WHERE transaction_id = ?",
        (status, to_db(now), code, description, description, row.transaction_id),
    )


def reject(
    engine: Engine,
    conn: sqlite3.Connection,
    row: TransactionRow,
    code: str,
    description: str,
    now: datetime,
) -> None:
    _close_unsuccessful(conn, row, "rejected", code, description, now)
    _emit_end(engine, conn, row, "pix.payout.rejected", "rejected", code, description, now)


def fail(
    engine: Engine,
    conn: sqlite3.Connection,
    row: TransactionRow,
    code: str,
    description: str,
    now: datetime,
) -> None:
    _close_unsuccessful(conn, row, "failed", code, description, now)
    _emit_end(engine, conn, row, "pix.payout.failed", "failed", code, description, now)


def _emit_end(
    engine: Engine,
    conn: sqlite3.Connection,
    row: TransactionRow,
    event_type: str,
    status: str,
    code: str,
    description: str,
    now: datetime,
) -> None:
    events.emit(
        engine,
        conn,
        row.merchant_id,
        event_type,
        {
            "transaction_id": row.transaction_id,
            "end_to_end_id": row.end_to_end_id,
            "external_id": row.external_id,
            "amount": int(row.amount_base),
            "status": status,
            "reason_code": code,
            "reason_description": description,
        },
        at=now,
        transaction_id=row.transaction_id,
    )
