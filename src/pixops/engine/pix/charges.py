"""Cash-in charges: a dynamic QR code the merchant shows, and its life.

    pending --paid--> paid --linked--> (the PIXIN credit row exists)
    pending --expires_at--> expired        pending --cancel--> cancelled

Payment and linking are two steps, as in the real service: the QR learns its payment
time first, and the final credit row (with fee and journal entries) is stored when
the payment is linked, at once or after `link_after_seconds`. Between the two a query
answers the QR fallback shape.
"""

from __future__ import annotations

import dataclasses
import functools
import sqlite3
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Final

from pixops import brcode
from pixops.engine import events, scheduler
from pixops.engine.clock import from_db, to_db, to_wire
from pixops.engine.merchants import require_merchant
from pixops.engine.pix import inbound
from pixops.engine.pix.records import SimulationError
from pixops.engine.rows import ChargeRow, MerchantRow
from pixops.engine.scheduler import timer
from pixops.engine.world.payers import Payer
from pixops.ids import cash_in_transaction_id, new_charge_txid, new_end_to_end_id, new_hex_id
from pixops.money import centavos_to_base

if TYPE_CHECKING:
    from pixops.engine.core import Engine

__all__ = [
    "LOCATION_PREFIX",
    "MERCHANT_CITY",
    "ChargeRequest",
    "brcode_name",
    "cancel_charge",
    "create_charge",
    "effective_status",
    "find_charge",
    "link_charge",
    "location_of",
    "pay_charge",
]

LOCATION_PREFIX: Final = "pix.sandbox.pixops.dev/qr/v2/"
"""Where a dynamic code's payload lives, written without ``https://`` (field 26/25)."""
MERCHANT_CITY: Final = "SAO PAULO"
_FALLBACK_NAME: Final = "PIXOPS RECEBEDOR"

#: A charge's columns: its stored row, or the values just written to it.


@dataclass(frozen=True)
class ChargeRequest:
    """A validated `POST /pix/cash-in` body; money in centavos as the request carries it."""

    amount_centavos: int
    description: str | None = None
    expires_in_seconds: int | None = None
    external_id: str | None = None
    tag: str | None = None
    debtor_name: str | None = None
    debtor_document: str | None = None


def create_charge(
    engine: Engine,
    conn: sqlite3.Connection,
    merchant: MerchantRow,
    request: ChargeRequest,
    now: datetime,
) -> ChargeRow:
    """Store a pending charge with its BR Code and schedule its expiry.

    `merchant` is the merchant's row, already read by the caller in this transaction.
    Returns the stored row (exactly the values written, so there is no need to read
    them back).
    """
    lifetime = (
        int(merchant.qr_lifetime_seconds)
        if request.expires_in_seconds is None
        else request.expires_in_seconds
    )
    txid = new_charge_txid(engine.rng)
    expires_at = now + timedelta(seconds=lifetime)
    payload = brcode.encode(
        brcode.BRCode(
            merchant_name=brcode_name(merchant.name),
            merchant_city=MERCHANT_CITY,
            location=location_of(txid),
            amount_centavos=request.amount_centavos,
            reusable=False,
        )
    )
    charge = ChargeRow(
        id=new_hex_id(engine.rng),
        merchant_id=merchant.id,
        txid=txid,
        amount_base=centavos_to_base(request.amount_centavos),
        description=request.description,
        external_id=request.external_id,
        tag=request.tag,
        pix_key=inbound.receiving_key(engine, conn, merchant),
        status="pending",
        brcode=payload,
        created_at=to_db(now),
        expires_at=to_db(expires_at),
        paid_at=None,
        cancelled_at=None,
        end_to_end_id=None,
        transaction_id=None,
        payer_name=None,
        payer_document=None,
        payer_ispb=None,
        debtor_name=request.debtor_name,
        debtor_document=request.debtor_document,
    )
    conn.execute(
        "INSERT INTO charges (id, merchant_id, txid, amount_base, description, external_id, tag,"
        " pix_key, status, brcode, created_at, expires_at, debtor_name, debtor_document)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            charge.id, charge.merchant_id, charge.txid, charge.amount_base, charge.description,
            charge.external_id, charge.tag, charge.pix_key, charge.status, charge.brcode,
            charge.created_at, charge.expires_at, charge.debtor_name, charge.debtor_document,
        ),
    )  # fmt: skip
    scheduler.schedule(conn, expires_at, "charge.expire", txid)
    return charge


def location_of(txid: str) -> str:
    return LOCATION_PREFIX + txid


@functools.lru_cache(maxsize=1024)
def brcode_name(name: str) -> str:
    """Field 59: the merchant's name in plain ASCII, at most 25 characters.

    Cached: a pure function of the name, and every charge of a merchant repeats it.
    """
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    printable = " ".join("".join(c for c in folded if c.isprintable()).split())
    return printable[: brcode.MAX_NAME_LENGTH].rstrip() or _FALLBACK_NAME


def effective_status(charge: ChargeRow, now: datetime) -> str:
    """The QR's status as a merchant sees it: pending past its expiry is already expired."""
    status = charge.status
    if status == "pending" and from_db(charge.expires_at) <= now:
        return "expired"
    return status


def find_charge(conn: sqlite3.Connection, merchant_id: str, ident: str) -> ChargeRow | None:
    """The merchant's charge by its txid or by the credit's transaction_id."""
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM charges WHERE merchant_id = ? AND id IN ("
        "SELECT id FROM charges WHERE txid = ?"
        " UNION SELECT id FROM charges WHERE transaction_id = ?)",
        (merchant_id, ident, ident),
    ).fetchone()
    return None if row is None else ChargeRow.from_db(row)


def _require_charge(conn: sqlite3.Connection, txid: str) -> ChargeRow:
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM charges WHERE txid = ?", (txid,)
    ).fetchone()
    if row is None:
        raise SimulationError(f"no charge with txid {txid!r}")
    return ChargeRow.from_db(row)


def pay_charge(
    engine: Engine,
    conn: sqlite3.Connection,
    txid: str,
    *,
    payer_name: str | None = None,
    payer_document: str | None = None,
    payer_ispb: str | None = None,
    link_after_seconds: int | None = None,
) -> str:
    """A payer pays the QR; returns the credit's transaction_id (``PIXIN`` + e2e).

    The receiving side may still refuse the credit (inactive account, amount over the
    limit): then the refusal is stored as a failed inbound transaction, the QR stays
    pending, and that failed transaction's id is returned.
    """
    now = engine.clock.now()
    charge = _require_charge(conn, txid)
    status = effective_status(charge, now)
    if status != "pending":
        raise SimulationError(f"charge {txid} is {status}; only a pending charge can be paid")
    delay = (
        engine.config.charge_link_delay_seconds
        if link_after_seconds is None
        else link_after_seconds
    )
    if isinstance(delay, bool) or not isinstance(delay, int) or delay < 0:
        raise SimulationError("link_after_seconds must be a non-negative integer")
    payer = inbound.payer_from(
        engine,
        charge.debtor_name if payer_name is None else payer_name,
        charge.debtor_document if payer_document is None else payer_document,
        payer_ispb,
    )
    merchant = require_merchant(conn, charge.merchant_id)
    end_to_end_id = new_end_to_end_id(payer.ispb, now, engine.rng)
    amount_base = int(charge.amount_base)
    refusal = inbound.credit_refusal(merchant, amount_base)
    if refusal is not None:
        return inbound.record_failed_credit(
            engine,
            conn,
            merchant,
            amount_base=amount_base,
            payer=payer,
            end_to_end_id=end_to_end_id,
            reason_code=refusal,
            at=now,
            recipient_key=charge.pix_key,
            description=charge.description,
            charge_txid=txid,
        )
    transaction_id = cash_in_transaction_id(end_to_end_id)
    paid_at = to_db(now)
    conn.execute(
        "UPDATE charges SET status = 'paid', paid_at = ?, end_to_end_id = ?, transaction_id = ?,"
        " payer_name = ?, payer_document = ?, payer_ispb = ? WHERE txid = ?",
        (paid_at, end_to_end_id, transaction_id, payer.name, payer.document, payer.ispb, txid),
    )
    scheduler.cancel(conn, "charge.expire", txid)
    if delay == 0:
        # The row as the UPDATE above left it: link without reading it back.
        paid = dataclasses.replace(
            charge,
            status="paid",
            paid_at=paid_at,
            end_to_end_id=end_to_end_id,
            transaction_id=transaction_id,
            payer_name=payer.name,
            payer_document=payer.document,
            payer_ispb=payer.ispb,
        )
        if not _already_linked(conn, paid):
            _book_paid_charge(engine, conn, paid, merchant, now)
    else:
        scheduler.schedule(conn, now + timedelta(seconds=delay), "charge.link", txid)
    return transaction_id


def cancel_charge(engine: Engine, conn: sqlite3.Connection, txid: str) -> None:
    """The merchant (portal) or an administrator cancels a pending QR."""
    now = engine.clock.now()
    charge = _require_charge(conn, txid)
    status = effective_status(charge, now)
    if status != "pending":
        raise SimulationError(f"charge {txid} is {status}; only a pending charge can be cancelled")
    conn.execute(
        "UPDATE charges SET status = 'cancelled', cancelled_at = ? WHERE txid = ?",
        (to_db(now), txid),
    )
    scheduler.cancel(conn, "charge.expire", txid)


def link_charge(engine: Engine, conn: sqlite3.Connection, txid: str, now: datetime) -> str | None:
    """Store the credit of a paid QR, post it and emit `pix.charge.paid`; once only."""
    charge = _require_charge(conn, txid)
    if charge.status != "paid":
        return None
    if _already_linked(conn, charge):
        return None
    merchant = require_merchant(conn, charge.merchant_id)
    return _book_paid_charge(engine, conn, charge, merchant, now)


def _already_linked(conn: sqlite3.Connection, charge: ChargeRow) -> bool:
    linked = conn.execute(
        "SELECT 1 FROM transactions WHERE transaction_id = ?", (charge.transaction_id,)
    ).fetchone()
    return linked is not None


def _book_paid_charge(
    engine: Engine,
    conn: sqlite3.Connection,
    charge: ChargeRow,
    merchant: MerchantRow,
    now: datetime,
) -> str:
    """The second half of `link_charge`: a paid, not yet linked charge's values (as
    stored) and its merchant's row, both read in this transaction."""
    txid = charge.txid
    end_to_end_id = charge.end_to_end_id
    if (
        charge.payer_name is None
        or charge.payer_document is None
        or charge.payer_ispb is None
        or charge.paid_at is None
        or end_to_end_id is None
    ):
        raise SimulationError(f"charge {txid} has no payment notice to book")
    payer = Payer(charge.payer_name, charge.payer_document, charge.payer_ispb)
    amount_base = charge.amount_base
    paid_at = from_db(charge.paid_at)
    transaction_id, fee_base = inbound.book_credit(
        engine,
        conn,
        merchant,
        amount_base=amount_base,
        payer=payer,
        end_to_end_id=end_to_end_id,
        settled_at=paid_at,
        booked_at=now,
        recipient_key=charge.pix_key,
        description=charge.description,
        external_id=charge.external_id,
        tag=charge.tag,
        charge_txid=txid,
    )
    data: dict[str, Any] = {
        "transaction_id": transaction_id,
        "charge_txid": txid,
        "end_to_end_id": charge.end_to_end_id,
        "external_id": charge.external_id,
        "tag": charge.tag,
        "amount": amount_base,
        "fee_amount": fee_base,
        "net_amount": amount_base - fee_base,
        "status": "paid",
        "payer_name": payer.name,
        "payer_document": payer.document,
        "payer_ispb": payer.ispb,
        "paid_at": to_wire(paid_at),
    }
    events.emit(
        engine,
        conn,
        charge.merchant_id,
        "pix.charge.paid",
        data,
        at=now,
        transaction_id=transaction_id,
    )
    return transaction_id


@timer("charge.expire")
def _expire(engine: Engine, conn: sqlite3.Connection, ref: str, payload: dict[str, Any]) -> None:
    conn.execute(
        "UPDATE charges SET status = 'expired' WHERE txid = ? AND status = 'pending'", (ref,)
    )


@timer("charge.link")
def _link(engine: Engine, conn: sqlite3.Connection, ref: str, payload: dict[str, Any]) -> None:
    link_charge(engine, conn, ref, engine.clock.now())
