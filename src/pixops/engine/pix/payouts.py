"""Cash-out: acceptance checks, the DICT lookup and its retry queue, holds, and the
state machine that the central bank's answers (or their absence) drive.

    accept ──► pending_approval ──approve──► dispatch        (dual control)
    accept ──► dispatch ──► queued ──retry every 3 s──► dispatch
                    │          └──7200 s──► failed DICT_QUEUE_TIMEOUT
                    ├──► refused (synchronous: nothing written)
                    └──► processing ──pacs.002 ACSC──► settled
                                    ├─pacs.002 RJCT──► rejected
                                    └─30 min silent──► failed orphan_force_voided

Amount plus fee is held from acceptance; the hold is captured (and the debits
posted) on settlement, released on any other end. A refusal met during a
background step (an approval, a retry) fails the payout with the same code it
would have had synchronously.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Final

from pixops.engine import events, ledger, scheduler
from pixops.engine.clock import from_db, to_db, to_wire
from pixops.engine.errors import PaymentRefusedError
from pixops.engine.fees import FeeSchedule
from pixops.engine.merchants import AdminError, require_merchant
from pixops.engine.pix import records
from pixops.engine.pix.records import NewTransaction
from pixops.engine.world import central_bank
from pixops.engine.world import dict as directory
from pixops.ids import CASH_OUT_PREFIX, derive_end_to_end_id, new_outbound_request_id
from pixops.money import INT64_MAX, centavos_to_base, format_brl_base

if TYPE_CHECKING:
    from pixops.engine.core import Engine

__all__ = [
    "ORPHAN_REASON",
    "PROVIDER_ERRORS",
    "PayoutRequest",
    "approve_payout",
    "create_payout",
    "deny_payout",
    "find_payout",
]

#: Provider refusals a test key forces: (English message, the provider's HTTP status).
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
ORPHAN_REASON: Final = "orphan_force_voided"
_ORPHAN_DESCRIPTION: Final = (
    "No pacs.002 from the central bank within 30 minutes; the transfer was voided and "
    "the funds released"
)
_DENIED_REASON: Final = "approval_denied"
_SAME_INSTITUTION: Final = (
    "Transfers to a key at this institution are not supported (internal PIX is unavailable)"
)


@dataclass(frozen=True)
class PayoutRequest:
    """A validated cash-out request; the key is canonical (see `pixkeys.normalize_key`)."""

    amount_centavos: int
    pix_key: str
    pix_key_type: str
    description: str | None = None
    external_id: str | None = None
    recipient_ispb: str | None = None
    end_to_end_id: str | None = None
    purpose: str | None = None


@dataclass(frozen=True)
class _Refusal:
    status: int
    code: str
    message: str
    params: dict[str, Any] | list[Any]


@dataclass(frozen=True)
class _Waiting:
    reason_code: str


def find_payout(conn: sqlite3.Connection, transaction_id: str) -> sqlite3.Row | None:
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM transactions WHERE transaction_id = ? AND kind = 'cash_out'",
        (transaction_id,),
    ).fetchone()
    return row


def _reload(conn: sqlite3.Connection, transaction_id: str) -> sqlite3.Row:
    row = find_payout(conn, transaction_id)
    assert row is not None
    return row


def create_payout(
    engine: Engine,
    conn: sqlite3.Connection,
    merchant_id: str,
    request: PayoutRequest,
    now: datetime,
) -> sqlite3.Row:
    """Accept a cash-out or raise its synchronous Format A refusal; returns the row."""
    merchant = require_merchant(conn, merchant_id)
    amount_base = centavos_to_base(request.amount_centavos)
    ceiling_base = int(merchant["ceiling_base"])
    if amount_base > ceiling_base:
        raise PaymentRefusedError(
            422,
            "ceiling_exceeded",
            f"Amount {_brl(amount_base)} exceeds the per-transaction limit of {_brl(ceiling_base)}",
            {"ceiling": ceiling_base, "amount": amount_base},
        )
    fee_base = FeeSchedule.from_json(merchant["fees"]).cash_out.fee_base(amount_base)
    debit_base = amount_base + fee_base
    safe_base = ledger.balance(conn, merchant_id).safe_base
    if safe_base < debit_base:
        raise PaymentRefusedError(
            422,
            "insufficient_balance",
            f"Insufficient balance: available {_brl(safe_base)}, required "
            f"{_brl(debit_base)} (amount plus fee)",
            {"available": safe_base, "required": debit_base},
        )
    end_to_end_id = request.end_to_end_id or derive_end_to_end_id(
        engine.config.service_ispb,
        amount_centavos=request.amount_centavos,
        pix_key=request.pix_key,
        merchant_id=merchant_id,
        at=now,
    )
    transaction_id = _new_transaction_id(conn, end_to_end_id)
    dual_control = bool(merchant["dual_control"])
    records.insert(
        conn,
        engine.rng,
        NewTransaction(
            merchant_id=merchant_id,
            transaction_id=transaction_id,
            end_to_end_id=end_to_end_id,
            type="pix",
            direction="outbound",
            kind="cash_out",
            status="pending_approval" if dual_control else "processing",
            stage=0 if dual_control else 1,
            amount_base=amount_base,
            fee_base=fee_base,
            created_at=now,
            external_id=request.external_id,
            description=request.description,
            recipient_key=request.pix_key,
            recipient_ispb=request.recipient_ispb,
        ),
    )
    hold_id = ledger.place_hold(
        conn, engine.rng, merchant_id, debit_base, "cash_out", transaction_id, now
    )
    conn.execute(
        "UPDATE transactions SET hold_id = ?, outbound_request_id = ?, purpose = ?,"
        " recipient_key_type = ? WHERE transaction_id = ?",
        (
            hold_id,
            new_outbound_request_id(engine.rng),
            request.purpose,
            request.pix_key_type,
            transaction_id,
        ),
    )
    row = _reload(conn, transaction_id)
    if dual_control:
        return row
    outcome = _dispatch(engine, conn, row, now)
    if isinstance(outcome, _Refusal):
        raise PaymentRefusedError(outcome.status, outcome.code, outcome.message, outcome.params)
    if isinstance(outcome, _Waiting):
        _enter_queue(engine, conn, row, outcome.reason_code, now)
    return _reload(conn, transaction_id)


def _brl(amount_base: int) -> str:
    """Reais text for a refusal message; past the 64-bit range (a fee on a huge amount
    under a huge ceiling) the plain count of base units."""
    if abs(amount_base) > INT64_MAX:
        return f"{amount_base} base units"
    return format_brl_base(amount_base)


def _new_transaction_id(conn: sqlite3.Connection, end_to_end_id: str) -> str:
    """`PIXOUT<e2e>`; a further attempt with the same end-to-end ID gets `-<n>` appended."""
    attempts = conn.execute(
        "SELECT COUNT(*) FROM transactions WHERE end_to_end_id = ? AND kind = 'cash_out'",
        (end_to_end_id,),
    ).fetchone()[0]
    base = CASH_OUT_PREFIX + end_to_end_id
    return base if attempts == 0 else f"{base}-{int(attempts) + 1}"


def _dispatch(
    engine: Engine, conn: sqlite3.Connection, row: sqlite3.Row, now: datetime
) -> _Refusal | _Waiting | None:
    """Look the key up and send the payment; a refusal or a wait is the caller's to handle."""
    merchant = require_merchant(conn, row["merchant_id"])
    if not directory.admit_lookup(
        conn, row["merchant_id"], int(merchant["dict_lookups_per_minute"]), now
    ):
        return _Waiting("DICT_CLIENT_RATE_LIMITED")
    key = row["recipient_key"]
    result = directory.lookup(conn, key, attempt=int(row["attempts"]))
    if isinstance(result, directory.Queued):
        return _Waiting(result.reason_code)
    if isinstance(result, directory.Refused):
        params = {"pix_key": key, "pix_key_type": row["recipient_key_type"]}
        return _Refusal(400, result.code, result.message, params)
    entry = result.entry
    if entry.ispb == engine.config.service_ispb:
        return _Refusal(422, "same_institution_transfer", _SAME_INSTITUTION, [])
    provider_error = PROVIDER_ERRORS.get(entry.behavior.kind)
    if provider_error is not None:
        message, provider_status = provider_error
        return _Refusal(400, entry.behavior.kind, message, {"provider_status": provider_status})
    _send(engine, conn, row, entry, now)
    return None


def _send(
    engine: Engine,
    conn: sqlite3.Connection,
    row: sqlite3.Row,
    entry: directory.Entry,
    now: datetime,
) -> None:
    """Hand the payment to the central bank and schedule its answer (or the watchdog)."""
    transaction_id = row["transaction_id"]
    routed_ispb = row["recipient_ispb"] or entry.ispb
    conn.execute(
        "UPDATE transactions SET status = 'processing', stage = 2, counterparty_name = ?,"
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
        _settle(engine, conn, _reload(conn, transaction_id), now)
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


def _is_duplicate(conn: sqlite3.Connection, row: sqlite3.Row) -> bool:
    """Whether another payment with this end-to-end ID reached the central bank and stands."""
    other = conn.execute(
        "SELECT 1 FROM transactions WHERE end_to_end_id = ? AND kind = 'cash_out'"
        " AND transaction_id != ? AND stage >= 2 AND status IN ('processing', 'settled')",
        (row["end_to_end_id"], row["transaction_id"]),
    ).fetchone()
    return other is not None


# -- the retry queue ----------------------------------------------------------


def _enter_queue(
    engine: Engine, conn: sqlite3.Connection, row: sqlite3.Row, reason_code: str, now: datetime
) -> None:
    transaction_id = row["transaction_id"]
    description = directory.QUEUE_REASONS[reason_code]
    config = engine.config
    deadline = now + timedelta(seconds=config.queue_ttl_seconds)
    conn.execute(
        "UPDATE transactions SET status = 'queued', stage = 0, reason_code = ?,"
        " reason_description = ? WHERE transaction_id = ?",
        (reason_code, description, transaction_id),
    )
    scheduler.schedule(conn, deadline, "payout.queue_timeout", transaction_id)
    _schedule_retry(engine, conn, transaction_id, now, deadline)
    events.emit(
        engine,
        conn,
        row["merchant_id"],
        "pix.payout.queued",
        {
            "transaction_id": transaction_id,
            "end_to_end_id": row["end_to_end_id"],
            "external_id": row["external_id"],
            "outbound_request_id": row["outbound_request_id"],
            "amount": int(row["amount_base"]),
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
    if row is None or row["status"] != "queued":
        return
    now = engine.clock.now()
    conn.execute("UPDATE transactions SET attempts = attempts + 1 WHERE transaction_id = ?", (ref,))
    outcome = _dispatch(engine, conn, _reload(conn, ref), now)
    if isinstance(outcome, _Waiting):
        conn.execute(
            "UPDATE transactions SET reason_code = ?, reason_description = ?"
            " WHERE transaction_id = ?",
            (outcome.reason_code, directory.QUEUE_REASONS[outcome.reason_code], ref),
        )
        _schedule_retry(engine, conn, ref, now, from_db(payload["deadline"]))
        return
    scheduler.cancel(conn, "payout.queue_timeout", ref)
    if isinstance(outcome, _Refusal):
        _fail(engine, conn, _reload(conn, ref), outcome.code, outcome.message, now)


@scheduler.timer("payout.queue_timeout")
def _queue_timeout(
    engine: Engine, conn: sqlite3.Connection, ref: str, payload: dict[str, Any]
) -> None:
    row = find_payout(conn, ref)
    if row is None or row["status"] != "queued":
        return
    scheduler.cancel(conn, "payout.queue_retry", ref)
    reason = "DICT_QUEUE_TIMEOUT"
    _fail(engine, conn, row, reason, directory.QUEUE_REASONS[reason], engine.clock.now())


# -- the central bank's answers -----------------------------------------------


@scheduler.timer("payout.pacs002")
def _pacs002(engine: Engine, conn: sqlite3.Connection, ref: str, payload: dict[str, Any]) -> None:
    row = find_payout(conn, ref)
    if row is None or row["status"] != "processing":
        return
    scheduler.cancel(conn, "payout.orphan", ref)
    now = engine.clock.now()
    code = payload.get("code")
    if code is None:
        _settle(engine, conn, row, now)
    else:
        _reject(engine, conn, row, str(code), str(payload["description"]), now)


@scheduler.timer("payout.orphan")
def _orphan(engine: Engine, conn: sqlite3.Connection, ref: str, payload: dict[str, Any]) -> None:
    row = find_payout(conn, ref)
    if row is None or row["status"] != "processing":
        return
    scheduler.cancel(conn, "payout.pacs002", ref)
    _fail(engine, conn, row, ORPHAN_REASON, _ORPHAN_DESCRIPTION, engine.clock.now())


def _settle(engine: Engine, conn: sqlite3.Connection, row: sqlite3.Row, now: datetime) -> None:
    merchant_id = row["merchant_id"]
    transaction_id = row["transaction_id"]
    amount_base = int(row["amount_base"])
    fee_base = int(row["fee_base"])
    ledger.capture_hold(conn, row["hold_id"], now)
    ledger.post(conn, merchant_id, -amount_base, "cash_out", now, transaction_id=transaction_id)
    if fee_base:
        ledger.post(
            conn, merchant_id, -fee_base, "cash_out_fee", now, transaction_id=transaction_id
        )
    conn.execute(
        "UPDATE transactions SET status = 'settled', stage = 3, completed_at = ?,"
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
            "end_to_end_id": row["end_to_end_id"],
            "external_id": row["external_id"],
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
    row: sqlite3.Row,
    status: str,
    code: str,
    description: str,
    now: datetime,
) -> None:
    ledger.release_hold(conn, row["hold_id"], now)
    conn.execute(
        "UPDATE transactions SET status = ?, stage = 3, failed_at = ?, reason_code = ?,"
        " reason_description = ?, failure_reason = ? WHERE transaction_id = ?",
        (status, to_db(now), code, description, description, row["transaction_id"]),
    )


def _reject(
    engine: Engine,
    conn: sqlite3.Connection,
    row: sqlite3.Row,
    code: str,
    description: str,
    now: datetime,
) -> None:
    _close_unsuccessful(conn, row, "rejected", code, description, now)
    _emit_end(engine, conn, row, "pix.payout.rejected", "rejected", code, description, now)


def _fail(
    engine: Engine,
    conn: sqlite3.Connection,
    row: sqlite3.Row,
    code: str,
    description: str,
    now: datetime,
) -> None:
    _close_unsuccessful(conn, row, "failed", code, description, now)
    _emit_end(engine, conn, row, "pix.payout.failed", "failed", code, description, now)


def _emit_end(
    engine: Engine,
    conn: sqlite3.Connection,
    row: sqlite3.Row,
    event_type: str,
    status: str,
    code: str,
    description: str,
    now: datetime,
) -> None:
    events.emit(
        engine,
        conn,
        row["merchant_id"],
        event_type,
        {
            "transaction_id": row["transaction_id"],
            "end_to_end_id": row["end_to_end_id"],
            "external_id": row["external_id"],
            "amount": int(row["amount_base"]),
            "status": status,
            "reason_code": code,
            "reason_description": description,
        },
        at=now,
        transaction_id=row["transaction_id"],
    )


# -- dual control (the merchant portal) ----------------------------------------


def _pending(conn: sqlite3.Connection, transaction_id: str) -> sqlite3.Row:
    row = find_payout(conn, transaction_id)
    if row is None:
        raise AdminError(f"no cash-out {transaction_id!r}")
    if row["status"] != "pending_approval":
        raise AdminError(
            f"cash-out {transaction_id} is {row['status']}; only a payout pending approval "
            "can be approved or denied"
        )
    return row


def approve_payout(
    engine: Engine, conn: sqlite3.Connection, transaction_id: str, now: datetime
) -> sqlite3.Row:
    """The second approver says yes: the payout is dispatched as if it had just arrived."""
    row = _pending(conn, transaction_id)
    conn.execute(
        "UPDATE transactions SET status = 'processing', stage = 1 WHERE transaction_id = ?",
        (transaction_id,),
    )
    row = _reload(conn, transaction_id)
    outcome = _dispatch(engine, conn, row, now)
    if isinstance(outcome, _Refusal):
        _fail(engine, conn, row, outcome.code, outcome.message, now)
    elif isinstance(outcome, _Waiting):
        _enter_queue(engine, conn, row, outcome.reason_code, now)
    return _reload(conn, transaction_id)


def deny_payout(
    engine: Engine, conn: sqlite3.Connection, transaction_id: str, now: datetime
) -> sqlite3.Row:
    """The second approver says no: the hold is released and the payout fails."""
    row = _pending(conn, transaction_id)
    _fail(engine, conn, row, _DENIED_REASON, "Denied by the dual-control approver", now)
    return _reload(conn, transaction_id)
