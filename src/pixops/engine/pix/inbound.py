"""Money coming in: plain PIX credits, rejected credits, and returns of our cash-outs.

A credit is accepted or refused by the receiving side (us) before any money moves:
an inactive account refuses with AC06, an amount above the account's per-transaction
limit with AM02, and the simulated world may force any central-bank code. A refused
credit is stored as a failed inbound transaction; an accepted one is booked with the
cash-in fee of the merchant's schedule.
"""

from __future__ import annotations

import re
import sqlite3
from datetime import datetime
from typing import TYPE_CHECKING, Final

from pixops import limits
from pixops.engine import events, ledger
from pixops.engine.clock import to_db
from pixops.engine.fees import FeeSchedule
from pixops.engine.merchants import require_merchant
from pixops.engine.pix import records
from pixops.engine.pix.records import NewTransaction, SimulationError
from pixops.engine.rows import MerchantRow, TransactionRow
from pixops.engine.world import central_bank
from pixops.engine.world.payers import Payer, PayerError, random_ispb, resolve_payer
from pixops.ids import (
    CASH_IN_PREFIX,
    cash_in_transaction_id,
    hex_to_uuid,
    new_end_to_end_id,
    new_hex_id,
    new_return_id,
)
from pixops.money import MoneyError, centavos_to_base

if TYPE_CHECKING:
    from pixops.engine.core import Engine

__all__ = [
    "MAX_DESCRIPTION_LENGTH",
    "RETURN_DESCRIPTIONS",
    "book_credit",
    "cash_in_fee_base",
    "credit_refusal",
    "payer_from",
    "receive_pix",
    "receive_return",
    "receiving_key",
    "record_failed_credit",
    "return_description",
    "returned_total_base",
]

MAX_DESCRIPTION_LENGTH: Final = limits.DESCRIPTION_MAX_CHARS
MAX_KEY_LENGTH: Final = limits.PIX_KEY_MAX_CHARS

#: Friendly text of the return reasons a payer is most likely to see.
RETURN_DESCRIPTIONS: Final[dict[str, str]] = {
    "MD06": "Devolução de Pix solicitada pelo recebedor",
    "BE08": "Devolução por falha operacional (MED)",
    "FR01": "Devolução por suspeita de fraude (MED)",
    "SL02": "Devolução de valor de Pix Saque ou Pix Troco",
}
_REASON_CODE = re.compile(r"[A-Z0-9]{4}")


def return_description(code: str) -> str:
    return RETURN_DESCRIPTIONS.get(code, f"Return from counterparty ({code})")


def cash_in_fee_base(merchant: MerchantRow, amount_base: int) -> int:
    """The cash-in fee, never above the amount: a credit never debits the account."""
    fee_base = FeeSchedule.from_json(merchant.fees).cash_in.fee_base(amount_base)
    return min(fee_base, amount_base)


def credit_refusal(merchant: MerchantRow, amount_base: int) -> str | None:
    """The central-bank code we refuse a credit with, or None to accept it."""
    if not merchant.active:
        return "AC06"
    if amount_base > merchant.ceiling_base:
        return "AM02"
    return None


def receiving_key(engine: Engine, conn: sqlite3.Connection, merchant: MerchantRow) -> str:
    """The merchant's PIX key for incoming payments: its oldest key in the directory.

    A merchant without a key gets a random (EVP) key on first use, as account
    providers do when they issue charges for an account.
    """
    row = conn.execute(
        "SELECT key FROM dict_keys WHERE merchant_id = ? ORDER BY created_at, key LIMIT 1",
        (merchant.id,),
    ).fetchone()
    if row is not None:
        return str(row[0])
    key = hex_to_uuid(new_hex_id(engine.rng))
    conn.execute(
        "INSERT INTO dict_keys (key, key_type, owner_name, owner_document, ispb, behavior,"
        " merchant_id, created_at) VALUES (?, 'evp', ?, ?, ?, 'settle', ?, ?)",
        (
            key,
            merchant.name,
            merchant.document,
            engine.config.service_ispb,
            merchant.id,
            to_db(engine.clock.now()),
        ),
    )
    return key


def book_credit(
    engine: Engine,
    conn: sqlite3.Connection,
    merchant: MerchantRow,
    *,
    amount_base: int,
    payer: Payer,
    end_to_end_id: str,
    settled_at: datetime,
    booked_at: datetime,
    recipient_key: str,
    description: str | None = None,
    external_id: str | None = None,
    tag: str | None = None,
    charge_txid: str | None = None,
) -> tuple[str, int]:
    """Insert a settled received PIX and post it; returns (transaction_id, fee_base)."""
    fee_base = cash_in_fee_base(merchant, amount_base)
    received = _received(
        engine,
        merchant,
        payer=payer,
        end_to_end_id=end_to_end_id,
        amount_base=amount_base,
        recipient_key=recipient_key,
        status="settled",
        created_at=settled_at,
    )
    transaction_id = received.transaction_id
    records.insert(
        conn,
        engine.rng,
        received._replace(
            fee_base=fee_base,
            completed_at=settled_at,
            external_id=external_id,
            tag=tag,
            description=description,
            charge_txid=charge_txid,
        ),
    )
    entries = [(amount_base, "cash_in")]
    if fee_base:
        entries.append((-fee_base, "cash_in_fee"))
    ledger.post_entries(conn, merchant.id, entries, booked_at, transaction_id=transaction_id)
    return transaction_id, fee_base


def _received(
    engine: Engine,
    merchant: MerchantRow,
    *,
    payer: Payer,
    end_to_end_id: str,
    amount_base: int,
    recipient_key: str,
    status: str,
    created_at: datetime,
) -> NewTransaction:
    """A received PIX row with the fields every credit shares; callers add their outcome's
    with `_replace` (typed, unlike a `**kwargs` pass-through)."""
    return NewTransaction(
        merchant_id=merchant.id,
        transaction_id=cash_in_transaction_id(end_to_end_id),
        end_to_end_id=end_to_end_id,
        type="pix",
        direction="inbound",
        kind="cash_in",
        status=status,
        amount_base=amount_base,
        created_at=created_at,
        counterparty_name=payer.name,
        payer_document=payer.document,
        payer_ispb=payer.ispb,
        recipient_key=recipient_key,
        recipient_ispb=engine.config.service_ispb,
    )


def record_failed_credit(
    engine: Engine,
    conn: sqlite3.Connection,
    merchant: MerchantRow,
    *,
    amount_base: int,
    payer: Payer,
    end_to_end_id: str,
    reason_code: str,
    at: datetime,
    recipient_key: str,
    description: str | None = None,
    charge_txid: str | None = None,
) -> str:
    """Store a refused credit as a failed inbound transaction; no money moves."""
    received = _received(
        engine,
        merchant,
        payer=payer,
        end_to_end_id=end_to_end_id,
        amount_base=amount_base,
        recipient_key=recipient_key,
        status="failed",
        created_at=at,
    )
    records.insert(
        conn,
        engine.rng,
        received._replace(
            failed_at=at,
            description=description,
            reason_code=reason_code,
            reason_description=central_bank.describe(reason_code),
            failure_reason=records.failure_reason(reason_code),
            charge_txid=charge_txid,
        ),
    )
    return received.transaction_id


def receive_pix(
    engine: Engine,
    conn: sqlite3.Connection,
    merchant_id: str,
    *,
    amount_centavos: int,
    payer_name: str | None = None,
    payer_document: str | None = None,
    payer_ispb: str | None = None,
    description: str | None = None,
    recipient_key: str | None = None,
    fail_reason: str | None = None,
) -> str:
    """A PIX sent to one of the merchant's keys (no charge); returns its transaction_id."""
    now = engine.clock.now()
    merchant = require_merchant(conn, merchant_id)
    amount_base = _amount_base(amount_centavos)
    if description is not None and (
        not isinstance(description, str) or len(description) > MAX_DESCRIPTION_LENGTH
    ):
        raise SimulationError(f"description must be a string of at most {MAX_DESCRIPTION_LENGTH}")
    if recipient_key is not None and (
        not isinstance(recipient_key, str) or not 1 <= len(recipient_key) <= MAX_KEY_LENGTH
    ):
        raise SimulationError(f"recipient_key must be a string of 1 to {MAX_KEY_LENGTH} characters")
    if fail_reason is not None and fail_reason not in central_bank.REASON_CODES:
        raise SimulationError(
            f"fail_reason must be a central-bank code, one of {sorted(central_bank.REASON_CODES)}"
        )
    payer = payer_from(engine, payer_name, payer_document, payer_ispb)
    end_to_end_id = new_end_to_end_id(payer.ispb, now, engine.rng)
    key = recipient_key if recipient_key is not None else receiving_key(engine, conn, merchant)
    refusal = fail_reason or credit_refusal(merchant, amount_base)
    if refusal is not None:
        return record_failed_credit(
            engine,
            conn,
            merchant,
            amount_base=amount_base,
            payer=payer,
            end_to_end_id=end_to_end_id,
            reason_code=refusal,
            at=now,
            recipient_key=key,
            description=description,
        )
    transaction_id, _ = book_credit(
        engine,
        conn,
        merchant,
        amount_base=amount_base,
        payer=payer,
        end_to_end_id=end_to_end_id,
        settled_at=now,
        booked_at=now,
        recipient_key=key,
        description=description,
    )
    return transaction_id


def receive_return(
    engine: Engine,
    conn: sqlite3.Connection,
    original_transaction_id: str,
    *,
    amount_centavos: int | None = None,
    reason_code: str = "MD06",
) -> str:
    """The recipient of one of our settled cash-outs returns (part of) it."""
    now = engine.clock.now()
    found: sqlite3.Row | None = conn.execute(
        "SELECT * FROM transactions WHERE transaction_id = ?", (original_transaction_id,)
    ).fetchone()
    original = None if found is None else TransactionRow.from_db(found)
    if original is None or original.kind != "cash_out":
        raise SimulationError(f"no cash-out {original_transaction_id!r} to return")
    if original.status != "settled":
        raise SimulationError(
            f"cash-out {original_transaction_id} is {original.status}; only a settled "
            "cash-out can be returned"
        )
    if not isinstance(reason_code, str) or _REASON_CODE.fullmatch(reason_code) is None:
        raise SimulationError(f"reason_code must be 4 characters [A-Z0-9], got {reason_code!r}")
    returned_base = returned_total_base(conn, original_transaction_id)
    remaining_base = int(original.amount_base) - returned_base
    amount_base = remaining_base if amount_centavos is None else _amount_base(amount_centavos)
    if remaining_base <= 0:
        raise SimulationError(f"cash-out {original_transaction_id} was already fully returned")
    if amount_base > remaining_base:
        raise SimulationError(
            f"a return of {amount_base} base units would exceed what is left to return of "
            f"{original_transaction_id} ({remaining_base} of {original.amount_base})"
        )
    returning_ispb = original.recipient_ispb or random_ispb(
        engine.rng, exclude=engine.config.service_ispb
    )
    return_id = new_return_id(returning_ispb, now, engine.rng)
    transaction_id = CASH_IN_PREFIX + return_id
    description = return_description(reason_code)
    merchant_id = original.merchant_id
    records.insert(
        conn,
        engine.rng,
        NewTransaction(
            merchant_id=merchant_id,
            transaction_id=transaction_id,
            end_to_end_id=return_id,
            type="pix_return",
            direction="inbound",
            kind="return_received",
            status="settled",
            amount_base=amount_base,
            created_at=now,
            completed_at=now,
            external_id=original.external_id,
            description=description,
            counterparty_name=original.counterparty_name,
            payer_document=original.recipient_document,
            payer_ispb=returning_ispb,
            recipient_ispb=engine.config.service_ispb,
            original_transaction_id=original_transaction_id,
            refund_reason=reason_code,
        ),
    )
    ledger.post(
        conn, merchant_id, amount_base, "return_received", now, transaction_id=transaction_id
    )
    total_base = returned_base + amount_base
    events.emit(
        engine,
        conn,
        merchant_id,
        "pix.return.received",
        {
            "transaction_id": transaction_id,
            "end_to_end_id": return_id,
            "original_transaction_id": original_transaction_id,
            "amount": amount_base,
            "reason_code": reason_code,
            "description": description,
            "total_refunded": total_base,
            "remaining_refundable": int(original.amount_base) - total_base,
            "is_partial": amount_base < int(original.amount_base),
        },
        at=now,
        transaction_id=transaction_id,
    )
    return transaction_id


def returned_total_base(conn: sqlite3.Connection, original_transaction_id: str) -> int:
    """What counterparties have returned of one cash-out so far, in base units."""
    total = conn.execute(
        "SELECT COALESCE(SUM(amount_base), 0) FROM transactions"
        " WHERE original_transaction_id = ? AND kind = 'return_received' AND status = 'settled'",
        (original_transaction_id,),
    ).fetchone()[0]
    return int(total)


def payer_from(engine: Engine, name: str | None, document: str | None, ispb: str | None) -> Payer:
    """The payer with the given attributes, the simulated world filling the gaps."""
    try:
        return resolve_payer(
            engine.rng,
            name=name,
            document=document,
            ispb=ispb,
            service_ispb=engine.config.service_ispb,
        )
    except PayerError as error:
        raise SimulationError(str(error)) from None


def _amount_base(amount_centavos: object) -> int:
    if isinstance(amount_centavos, bool) or not isinstance(amount_centavos, int):
        raise SimulationError("amount_centavos must be an integer number of centavos")
    if amount_centavos < 1:
        raise SimulationError("amount_centavos must be positive")
    try:
        return centavos_to_base(amount_centavos)
    except MoneyError as error:
        raise SimulationError(str(error)) from None
