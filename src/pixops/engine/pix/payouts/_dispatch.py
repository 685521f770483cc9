"""The directory lookup and the hand-over to the central bank: a payment is sent, refused
(Format A), or told to wait (the DICT limits).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Final

from pixops.engine import scheduler
from pixops.engine.merchants import require_merchant
from pixops.engine.pix.payouts._answers import settle
from pixops.engine.pix.payouts._rows import reload
from pixops.engine.rows import TransactionRow
from pixops.engine.world import central_bank, directory

if TYPE_CHECKING:
    from pixops.engine.core import Engine


PROVIDER_ERRORS: Final[dict[str, tuple[str, int]]] = {
    "provider_rejected": (
        "The payment provider rejected the transfer (unclassified 4xx); inspect params "
        "and contact support",
        422,
    ),
    "provider_schema_error": (
        "The payment provider could not read the integration payload; report it and do "
        "not retry without guidance",
        400,
    ),
    "provider_unknown_error": (
        "The payment provider answered with a status outside 400..499; support has the log",
        502,
    ),
}


_SAME_INSTITUTION: Final = (
    "Transfers to a key at this institution are not supported (internal PIX is unavailable)"
)


@dataclass(frozen=True)
class Refusal:
    status: int
    code: str
    message: str
    params: dict[str, Any] | list[Any]


@dataclass(frozen=True)
class Waiting:
    reason_code: str


def dispatch(
    engine: Engine, conn: sqlite3.Connection, row: TransactionRow, now: datetime
) -> Refusal | Waiting | None:
    """Look the key up and send the payment; a refusal or a wait is the caller's to handle."""
    merchant = require_merchant(conn, row.merchant_id)
    if not directory.admit_lookup(
        conn, row.merchant_id, int(merchant.dict_lookups_per_minute), now
    ):
        return Waiting("DICT_CLIENT_RATE_LIMITED")
    key = row.recipient_key
    if key is None:
        raise LookupError(f"cash-out {row.transaction_id} has no recipient key")
    result = directory.lookup(conn, key, attempt=row.attempts)
    if isinstance(result, directory.Queued):
        return Waiting(result.reason_code)
    if isinstance(result, directory.Refused):
        params = {"pix_key": key, "pix_key_type": row.recipient_key_type}
        return Refusal(400, result.code, result.message, params)
    entry = result.entry
    if entry.ispb == engine.config.service_ispb:
        return Refusal(422, "same_institution_transfer", _SAME_INSTITUTION, [])
    provider_error = PROVIDER_ERRORS.get(entry.behavior.kind)
    if provider_error is not None:
        message, provider_status = provider_error
        return Refusal(400, entry.behavior.kind, message, {"provider_status": provider_status})
    _send(engine, conn, row, entry, now)
    return None


def _send(
    engine: Engine,
    conn: sqlite3.Connection,
    row: TransactionRow,
    entry: directory.Entry,
    now: datetime,
) -> None:
    """Hand the payment to the central bank and schedule its answer (or the watchdog)."""
    transaction_id = row.transaction_id
    routed_ispb = row.recipient_ispb or entry.ispb
    conn.execute(
        "UPDATE transactions SET version = version + 1,"
        " status = 'processing', stage = 2, counterparty_name = ?,"
        " recipient_document = ?, recipient_ispb = ?, reason_code = NULL,"
        " reason_description = NULL WHERE transaction_id = ?",
        (entry.owner_name, entry.owner_document, routed_ispb, transaction_id),
    )
    behavior = entry.behavior
    verdict = central_bank.judge_payment(
        duplicate=_is_duplicate(conn, row),
        routed_ispb=routed_ispb,
        account_ispb=entry.ispb,
        forced_code=behavior.code if behavior.kind == "reject" else None,
    )
    if verdict is None and behavior.kind == "settle_instant":
        settle(engine, conn, reload(conn, transaction_id), now)
        return
    answer_at = now + timedelta(seconds=engine.config.settlement_latency_seconds)
    scheduler.schedule(
        conn,
        now + timedelta(seconds=engine.config.orphan_after_seconds),
        "payout.orphan",
        transaction_id,
    )
    if verdict is not None:
        payload = {"code": verdict.code, "description": verdict.description}
        scheduler.schedule(conn, answer_at, "payout.pacs002", transaction_id, payload)
    elif behavior.kind != "orphan":
        scheduler.schedule(conn, answer_at, "payout.pacs002", transaction_id, {})


def _is_duplicate(conn: sqlite3.Connection, row: TransactionRow) -> bool:
    """Whether another payment with this end-to-end ID reached the central bank and stands."""
    other = conn.execute(
        "SELECT 1 FROM transactions WHERE end_to_end_id = ? AND kind = 'cash_out'"
        " AND transaction_id != ? AND stage >= 2 AND status IN ('processing', 'settled')",
        (row.end_to_end_id, row.transaction_id),
    ).fetchone()
    return other is not None
