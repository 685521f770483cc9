"""Accepting a cash-out: ceiling, fee, balance and hold, then the first dispatch."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from pixops.engine import ledger
from pixops.engine.errors import PaymentRefusedError
from pixops.engine.fees import FeeSchedule
from pixops.engine.merchants import require_merchant
from pixops.engine.pix import records
from pixops.engine.pix.payouts._dispatch import Refusal, Waiting, dispatch
from pixops.engine.pix.payouts._queue import enter_queue
from pixops.engine.pix.payouts._rows import reload
from pixops.engine.pix.records import NewTransaction
from pixops.engine.rows import TransactionRow
from pixops.ids import CASH_OUT_PREFIX, derive_end_to_end_id, new_outbound_request_id
from pixops.money import INT64_MAX, centavos_to_base, format_brl_base

if TYPE_CHECKING:
    from pixops.engine.core import Engine


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


def create_payout(
    engine: Engine,
    conn: sqlite3.Connection,
    merchant_id: str,
    request: PayoutRequest,
    now: datetime,
) -> TransactionRow:
    """Accept a cash-out or raise its synchronous Format A refusal; returns the row."""
    merchant = require_merchant(conn, merchant_id)
    amount_base = centavos_to_base(request.amount_centavos)
    ceiling_base = int(merchant.ceiling_base)
    if amount_base > ceiling_base:
        raise PaymentRefusedError(
            422,
            "ceiling_exceeded",
            f"Amount {_brl(amount_base)} exceeds the per-transaction limit of {_brl(ceiling_base)}",
            {"ceiling": ceiling_base, "amount": amount_base},
        )
    fee_base = FeeSchedule.from_json(merchant.fees).cash_out.fee_base(amount_base)
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
    dual_control = bool(merchant.dual_control)
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
        "UPDATE transactions SET version = version + 1,"
        " hold_id = ?, outbound_request_id = ?, purpose = ?,"
        " recipient_key_type = ? WHERE transaction_id = ?",
        (
            hold_id,
            new_outbound_request_id(engine.rng),
            request.purpose,
            request.pix_key_type,
            transaction_id,
        ),
    )
    row = reload(conn, transaction_id)
    if dual_control:
        return row
    outcome = dispatch(engine, conn, row, now)
    if isinstance(outcome, Refusal):
        raise PaymentRefusedError(outcome.status, outcome.code, outcome.message, outcome.params)
    if isinstance(outcome, Waiting):
        enter_queue(engine, conn, row, outcome.reason_code, now)
    return reload(conn, transaction_id)


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
