"""Dual control: a payout pending approval is dispatched when approved in the merchant
portal, or failed `approval_denied` when denied.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import TYPE_CHECKING, Final

from pixops.engine.merchants import AdminError
from pixops.engine.pix.payouts._answers import fail
from pixops.engine.pix.payouts._dispatch import Refusal, Waiting, dispatch
from pixops.engine.pix.payouts._queue import enter_queue
from pixops.engine.pix.payouts._rows import find_payout, reload
from pixops.engine.rows import TransactionRow

if TYPE_CHECKING:
    from pixops.engine.core import Engine


_DENIED_REASON: Final = "approval_denied"


def _pending(conn: sqlite3.Connection, transaction_id: str) -> TransactionRow:
    row = find_payout(conn, transaction_id)
    if row is None:
        raise AdminError(f"no cash-out {transaction_id!r}")
    if row.status != "pending_approval":
        raise AdminError(
            f"cash-out {transaction_id} is {row.status}; only a payout pending approval "
            "can be approved or denied"
        )
    return row


def approve_payout(
    engine: Engine, conn: sqlite3.Connection, transaction_id: str, now: datetime
) -> TransactionRow:
    """The second approver says yes: the payout is dispatched as if it had just arrived."""
    row = _pending(conn, transaction_id)
    conn.execute(
        "UPDATE transactions SET version = version + 1,"
        " status = 'processing', stage = 1 WHERE transaction_id = ?",
        (transaction_id,),
    )
    row = reload(conn, transaction_id)
    outcome = dispatch(engine, conn, row, now)
    if isinstance(outcome, Refusal):
        fail(engine, conn, row, outcome.code, outcome.message, now)
    elif isinstance(outcome, Waiting):
        enter_queue(engine, conn, row, outcome.reason_code, now)
    return reload(conn, transaction_id)


def deny_payout(
    engine: Engine, conn: sqlite3.Connection, transaction_id: str, now: datetime
) -> TransactionRow:
    """The second approver says no: the hold is released and the payout fails."""
    row = _pending(conn, transaction_id)
    fail(engine, conn, row, _DENIED_REASON, "Denied by the dual-control approver", now)
    return reload(conn, transaction_id)
