"""The DICT retry queue: a payout the directory's limits hold back is retried every few
seconds until its window (7200 s) ends, then fails DICT_QUEUE_TIMEOUT.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from pixops.engine import events, scheduler
from pixops.engine.clock import from_db, to_db
from pixops.engine.pix.payouts._answers import fail
from pixops.engine.pix.payouts._dispatch import Refusal, Waiting, dispatch
from pixops.engine.pix.payouts._rows import find_payout, reload
from pixops.engine.rows import TransactionRow
from pixops.engine.world import directory

if TYPE_CHECKING:
    from pixops.engine.core import Engine


def enter_queue(
    engine: Engine, conn: sqlite3.Connection, row: TransactionRow, reason_code: str, now: datetime
) -> None:
    transaction_id = row.transaction_id
    description = directory.QUEUE_REASONS[reason_code]
    config = engine.config
    deadline = now + timedelta(seconds=config.queue_ttl_seconds)
    conn.execute(
        "UPDATE transactions SET version = version + 1,"
        " status = 'queued', stage = 0, reason_code = ?,"
        " reason_description = ? WHERE transaction_id = ?",
        (reason_code, description, transaction_id),
    )
    scheduler.schedule(conn, deadline, "payout.queue_timeout", transaction_id)
    _schedule_retry(engine, conn, transaction_id, now, deadline)
    events.emit(
        engine,
        conn,
        row.merchant_id,
        "pix.payout.queued",
        {
            "transaction_id": transaction_id,
            "end_to_end_id": row.end_to_end_id,
            "external_id": row.external_id,
            "outbound_request_id": row.outbound_request_id,
            "amount": int(row.amount_base),
            "status": "queued",
            "reason_code": reason_code,
            "reason_description": description,
            "estimated_retry_seconds": config.queue_retry_seconds,
            "queue_ttl_seconds": config.queue_ttl_seconds,
        },
        at=now,
        transaction_id=transaction_id,
    )


def _schedule_retry(
    engine: Engine, conn: sqlite3.Connection, transaction_id: str, now: datetime, deadline: datetime
) -> None:
    retry_at = now + timedelta(seconds=engine.config.queue_retry_seconds)
    if retry_at < deadline:
        payload = {"deadline": to_db(deadline)}
        scheduler.schedule(conn, retry_at, "payout.queue_retry", transaction_id, payload)


@scheduler.timer("payout.queue_retry")
def _retry(engine: Engine, conn: sqlite3.Connection, ref: str, payload: dict[str, Any]) -> None:
    row = find_payout(conn, ref)
    if row is None or row.status != "queued":
        return
    now = engine.clock.now()
    conn.execute(
        "UPDATE transactions SET version = version + 1,"
        " attempts = attempts + 1 WHERE transaction_id = ?",
        (ref,),
    )
    outcome = dispatch(engine, conn, reload(conn, ref), now)
    if isinstance(outcome, Waiting):
        conn.execute(
            "UPDATE transactions SET version = version + 1, reason_code = ?, reason_description = ?"
            " WHERE transaction_id = ?",
            (outcome.reason_code, directory.QUEUE_REASONS[outcome.reason_code], ref),
        )
        _schedule_retry(engine, conn, ref, now, from_db(payload["deadline"]))
        return
    scheduler.cancel(conn, "payout.queue_timeout", ref)
    if isinstance(outcome, Refusal):
        fail(engine, conn, reload(conn, ref), outcome.code, outcome.message, now)


@scheduler.timer("payout.queue_timeout")
def _queue_timeout(
    engine: Engine, conn: sqlite3.Connection, ref: str, payload: dict[str, Any]
) -> None:
    row = find_payout(conn, ref)
    if row is None or row.status != "queued":
        return
    scheduler.cancel(conn, "payout.queue_retry", ref)
    reason = "DICT_QUEUE_TIMEOUT"
    fail(engine, conn, row, reason, directory.QUEUE_REASONS[reason], engine.clock.now())
