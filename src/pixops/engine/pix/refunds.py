"""Refunds (devoluções) of received PIX: voluntary through the API, automatic after MED.

A refund holds its amount from acceptance, then the central bank answers after the
settlement latency: it completes (the hold is captured and the debit posted) or it
fails for a reason code outside the accepted set or a passed deadline (the hold is
released). Only the caller checks totals and balance (`request_refund` does for the
API); `start_refund` is the bare movement, shared with the MED module.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Final, Literal

from pixops.engine import events, ledger, scheduler
from pixops.engine.clock import from_db, to_db
from pixops.engine.errors import NotFoundError, RuleError
from pixops.engine.pix import records
from pixops.engine.pix.records import NewTransaction, hold_of
from pixops.engine.rows import TransactionRow
from pixops.engine.world import central_bank
from pixops.ids import new_return_id, refund_transaction_id
from pixops.money import centavos_to_base, format_brl_base

if TYPE_CHECKING:
    from pixops.engine.core import Engine

__all__ = [
    "DEFAULT_DESCRIPTION",
    "DEFAULT_REASON",
    "committed_total_base",
    "find_original",
    "refunded_total_base",
    "request_refund",
    "start_refund",
]

DEFAULT_REASON: Final = "MD06"
DEFAULT_DESCRIPTION: Final = "Devolução de PIX"
_REFUND_KINDS: Final = ("refund", "med_refund")


def find_original(
    conn: sqlite3.Connection, merchant_id: str, identifier: str
) -> TransactionRow | None:
    """The merchant's received PIX with this transaction_id or end-to-end ID, or the credit
    of the merchant's paid charge whose QR tx_id this is (the charge's own reference, which
    `GET /transactions/:id` accepts too). An unpaid, expired or cancelled QR has no credit."""
    # `+merchant_id` keeps SQLite on the id indexes instead of scanning the merchant's rows.
    found: sqlite3.Row | None = conn.execute(
        "SELECT * FROM transactions WHERE +merchant_id = ? AND kind = 'cash_in' AND seq IN ("
        "SELECT seq FROM transactions WHERE transaction_id = ?"
        " UNION SELECT seq FROM transactions WHERE end_to_end_id = ?)"
        " ORDER BY status = 'settled' DESC, seq DESC LIMIT 1",
        (merchant_id, identifier, identifier),
    ).fetchone()
    if found is None:
        found = conn.execute(
            "SELECT t.* FROM charges AS c JOIN transactions AS t"
            " ON t.transaction_id = c.transaction_id AND t.kind = 'cash_in'"
            " WHERE c.txid = ? AND c.merchant_id = ? AND c.status = 'paid'"
            " AND t.merchant_id = c.merchant_id",
            (identifier, merchant_id),
        ).fetchone()
    return None if found is None else TransactionRow.from_db(found)


def committed_total_base(conn: sqlite3.Connection, original_transaction_id: str) -> int:
    """Refunds of the original that completed or may still complete, in base units.

    Read from `refund_totals`, which the store's triggers keep equal to the sum of those
    refunds' amounts."""
    row = conn.execute(
        "SELECT committed_base FROM refund_totals WHERE original_transaction_id = ?",
        (original_transaction_id,),
    ).fetchone()
    return 0 if row is None else int(row[0])


def refunded_total_base(conn: sqlite3.Connection, original_transaction_id: str) -> int:
    """Refunds of the original that completed, in base units (see `committed_total_base`)."""
    row = conn.execute(
        "SELECT refunded_base FROM refund_totals WHERE original_transaction_id = ?",
        (original_transaction_id,),
    ).fetchone()
    return 0 if row is None else int(row[0])


def request_refund(
    engine: Engine,
    conn: sqlite3.Connection,
    *,
    merchant_id: str,
    original_id: str,
    amount_centavos: int | None,
    reason: str,
    description: str,
    now: datetime,
) -> TransactionRow:
    """A voluntary refund through the API: ownership, total and balance, then the movement."""
    original = find_original(conn, merchant_id, original_id)
    if original is None:
        raise NotFoundError("original transaction not found")
    if original.status != "settled":
        raise RuleError(
            f"transaction {original.transaction_id} is {original.status}; only a "
            "settled received PIX can be refunded"
        )
    original_base = int(original.amount_base)
    amount_base = original_base if amount_centavos is None else centavos_to_base(amount_centavos)
    committed_base = committed_total_base(conn, original.transaction_id)
    if committed_base + amount_base > original_base:
        remaining_base = max(original_base - committed_base, 0)
        raise RuleError(
            f"refund amount {_brl(amount_base)} exceeds the original transaction amount: "
            f"{_brl(remaining_base)} of {_brl(original_base)} is still refundable"
        )
    safe_base = ledger.balance(conn, merchant_id).safe_base
    if safe_base < amount_base:
        raise RuleError(
            f"insufficient balance: available {_brl(safe_base)}, refund amount {_brl(amount_base)}"
        )
    return start_refund(
        engine,
        conn,
        merchant_id=merchant_id,
        original_transaction_id=original.transaction_id,
        amount_base=amount_base,
        reason=reason,
        description=description,
        now=now,
    )


def _find(conn: sqlite3.Connection, transaction_id: str) -> TransactionRow | None:
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM transactions WHERE transaction_id = ?", (transaction_id,)
    ).fetchone()
    return None if row is None else TransactionRow.from_db(row)


def _transaction(conn: sqlite3.Connection, transaction_id: str) -> TransactionRow:
    row = _find(conn, transaction_id)
    if row is None:
        raise LookupError(f"no transaction {transaction_id!r}")
    return row


def _brl(amount_base: int) -> str:
    return format_brl_base(amount_base)


def start_refund(
    engine: Engine,
    conn: sqlite3.Connection,
    *,
    merchant_id: str,
    original_transaction_id: str,
    amount_base: int,
    reason: str,
    description: str | None,
    now: datetime,
    kind: Literal["refund", "med_refund"] = "refund",
) -> TransactionRow:
    """Hold `amount_base` and send the refund; returns the new row (status processing).

    No checks of totals or balance here: callers do them. A `med_refund` is ordered by
    the central bank itself (MED AGREED), so its reason and deadline are not judged.
    """
    if kind not in _REFUND_KINDS:
        raise ValueError(f"kind must be one of {_REFUND_KINDS}, got {kind!r}")
    found: sqlite3.Row | None = conn.execute(
        "SELECT * FROM transactions WHERE merchant_id = ? AND transaction_id = ?"
        " AND kind = 'cash_in'",
        (merchant_id, original_transaction_id),
    ).fetchone()
    original = None if found is None else TransactionRow.from_db(found)
    if original is None:
        raise LookupError(f"merchant {merchant_id} has no received PIX {original_transaction_id!r}")
    return_id = new_return_id(engine.config.service_ispb, now, engine.rng)
    transaction_id = refund_transaction_id(return_id)
    records.insert(
        conn,
        engine.rng,
        NewTransaction(
            merchant_id=merchant_id,
            transaction_id=transaction_id,
            end_to_end_id=return_id,
            type="pix",
            direction="outbound",
            kind=kind,
            status="processing",
            stage=2,
            amount_base=amount_base,
            created_at=now,
            description=DEFAULT_DESCRIPTION if description is None else description,
            counterparty_name=original.counterparty_name,
            recipient_document=original.payer_document,
            recipient_ispb=original.payer_ispb,
            original_transaction_id=original_transaction_id,
            refund_reason=reason,
        ),
    )
    hold_id = ledger.place_hold(
        conn, engine.rng, merchant_id, amount_base, kind, transaction_id, now
    )
    conn.execute(
        "UPDATE transactions SET version = version + 1, hold_id = ? WHERE transaction_id = ?",
        (hold_id, transaction_id),
    )
    due = now + timedelta(seconds=engine.config.settlement_latency_seconds)
    scheduler.schedule(conn, due, "refund.answer", transaction_id)
    return _transaction(conn, transaction_id)


@scheduler.timer("refund.answer")
def _answer(engine: Engine, conn: sqlite3.Connection, ref: str, payload: dict[str, Any]) -> None:
    """The central bank's answer to a refund: completed, or failed with a reason code."""
    row = _find(conn, ref)
    if row is None or row.status != "processing":
        return
    now = engine.clock.now()
    original = _transaction(conn, row.original_transaction_id or "")
    verdict = None
    if row.kind == "refund" and row.refund_reason is not None:
        settled_at = from_db(original.completed_at or original.created_at)
        requested_at = from_db(row.created_at)
        verdict = central_bank.judge_refund(row.refund_reason, settled_at, requested_at)
    if verdict is None:
        _complete(engine, conn, row, original, now)
    else:
        _fail(engine, conn, row, verdict, now)


def _complete(
    engine: Engine,
    conn: sqlite3.Connection,
    row: TransactionRow,
    original: TransactionRow,
    now: datetime,
) -> None:
    transaction_id = row.transaction_id
    amount_base = int(row.amount_base)
    ledger.capture_and_post(
        conn,
        hold_of(row),
        row.merchant_id,
        [(-amount_base, row.kind)],
        now,
        transaction_id=transaction_id,
    )
    conn.execute(
        "UPDATE transactions SET version = version + 1,"
        " status = 'settled', stage = 3, completed_at = ?"
        " WHERE transaction_id = ?",
        (to_db(now), transaction_id),
    )
    original_base = int(original.amount_base)
    total_base = refunded_total_base(conn, original.transaction_id)
    data = {
        "transaction_id": transaction_id,
        "end_to_end_id": row.end_to_end_id,
        "original_transaction_id": original.transaction_id,
        "original_end_to_end_id": original.end_to_end_id,
        "amount": amount_base,
        "reason": row.refund_reason,
        "status": "completed",
        "total_refunded": total_base,
        "remaining_refundable": original_base - total_base,
        "is_partial": amount_base < original_base,
    }
    for event_type in ("pix.refund.completed", "pix.payout.returned"):
        events.emit(
            engine, conn, row.merchant_id, event_type, dict(data), at=now,
            transaction_id=transaction_id,
        )  # fmt: skip


def _fail(
    engine: Engine,
    conn: sqlite3.Connection,
    row: TransactionRow,
    verdict: central_bank.Rejection,
    now: datetime,
) -> None:
    transaction_id = row.transaction_id
    ledger.release_hold(conn, hold_of(row), now)
    conn.execute(
        "UPDATE transactions SET version = version + 1,"
        " status = 'failed', stage = 3, failed_at = ?, reason_code = ?,"
        " reason_description = ?, failure_reason = ? WHERE transaction_id = ?",
        (to_db(now), verdict.code, verdict.description, verdict.description, transaction_id),
    )
    events.emit(
        engine,
        conn,
        row.merchant_id,
        "pix.payout.failed",
        {
            "transaction_id": transaction_id,
            "end_to_end_id": row.end_to_end_id,
            "external_id": row.external_id,
            "original_transaction_id": row.original_transaction_id,
            "amount": int(row.amount_base),
            "status": "failed",
            "reason_code": verdict.code,
            "reason_description": verdict.description,
        },
        at=now,
        transaction_id=transaction_id,
    )
