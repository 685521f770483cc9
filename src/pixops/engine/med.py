"""MED dispute cases: the central bank's infraction notices on received PIX.

Lifecycle (the DICT infraction report's, seen from the receiving merchant):

    OPEN ──defense or deadline──► ACKNOWLEDGED ──analysis──► CLOSED (AGREED | DISAGREED)
    OPEN / ACKNOWLEDGED ──withdrawn by the notifier──► CANCELLED

Opening a case emits `pix.refund.requested` and blocks the disputed amount as a
precautionary measure (capped by what is available). The merchant may defend while
the case is OPEN and before `defense_deadline` (7 calendar days); submitting the
defense, or the deadline passing without one, moves the case to ACKNOWLEDGED. The
central bank's analysis closes it: AGREED releases the block and refunds the payer
automatically (a `med_refund`), DISAGREED only releases the block.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Final

from pixops import limits
from pixops.engine import events, ledger, scheduler
from pixops.engine.clock import from_db, to_db, to_wire
from pixops.engine.errors import DefenseRefusedError, MedError
from pixops.engine.pix import refunds
from pixops.engine.rows import TransactionRow
from pixops.ids import new_prefixed_id
from pixops.money import MoneyError, centavos_to_base

if TYPE_CHECKING:
    from pixops.engine.core import Engine

__all__ = [
    "DEFENSE_WINDOW",
    "MAX_TEXT_LENGTH",
    "NOTIFICATION_WINDOW",
    "REASONS",
    "REFUND_CODES",
    "RESULTS",
    "STATUSES",
    "DefenseRefusedError",
    "MedCase",
    "MedError",
    "cancel_case",
    "find_case",
    "list_cases",
    "open_case",
    "require_case",
    "resolve_case",
    "submit_defense",
]

REASONS: Final = ("FRAUD", "OPERATIONAL_FLAW", "REFUND_REQUEST")
#: The central-bank refund code of the automatic refund, per the case's reason.
REFUND_CODES: Final = {"FRAUD": "FR01", "REFUND_REQUEST": "FR01", "OPERATIONAL_FLAW": "BE08"}
STATUSES: Final = ("OPEN", "ACKNOWLEDGED", "CLOSED", "CANCELLED")
ACTIVE_STATUSES: Final = ("OPEN", "ACKNOWLEDGED")
RESULTS: Final = ("AGREED", "DISAGREED")
DEFENSE_WINDOW: Final = timedelta(days=7)
NOTIFICATION_WINDOW: Final = timedelta(days=80)
MAX_TEXT_LENGTH: Final = limits.DEFENSE_MAX_CHARS
_DEADLINE: Final = "med.defense_deadline"


@dataclass(frozen=True)
class MedCase:
    """A dispute case; money in base units (1 centavo = 100)."""

    id: str
    merchant_id: str
    transaction_id: str
    end_to_end_id: str
    amount_base: int
    blocked_base: int
    reason: str
    details: str | None
    status: str
    opened_at: datetime
    defense_deadline: datetime
    defense: str | None
    defended_at: datetime | None
    analysis_result: str | None
    analysis_details: str | None
    closed_at: datetime | None
    refund_transaction_id: str | None

    def resource(self) -> dict[str, Any]:
        """The wire shape of `GET /med/:id`."""
        return {
            "id": self.id,
            "transaction_id": self.transaction_id,
            "end_to_end_id": self.end_to_end_id,
            "amount": self.amount_base,
            "blocked_amount": self.blocked_base,
            "reason": self.reason,
            "details": self.details,
            "status": self.status,
            "opened_at": to_wire(self.opened_at),
            "defense_deadline": to_wire(self.defense_deadline),
            "defense": self.defense,
            "defended_at": _wire(self.defended_at),
            "analysis_result": self.analysis_result,
            "analysis_details": self.analysis_details,
            "closed_at": _wire(self.closed_at),
            "refund_transaction_id": self.refund_transaction_id,
        }


def _wire(moment: datetime | None) -> str | None:
    return None if moment is None else to_wire(moment)


def _maybe(text: str | None) -> datetime | None:
    return None if text is None else from_db(text)


def _case(row: sqlite3.Row) -> MedCase:
    return MedCase(
        id=row["id"],
        merchant_id=row["merchant_id"],
        transaction_id=row["transaction_id"],
        end_to_end_id=row["end_to_end_id"],
        amount_base=int(row["amount_base"]),
        blocked_base=int(row["blocked_base"]),
        reason=row["reason"],
        details=row["details"],
        status=row["status"],
        opened_at=from_db(row["opened_at"]),
        defense_deadline=from_db(row["defense_deadline"]),
        defense=row["defense"],
        defended_at=_maybe(row["defended_at"]),
        analysis_result=row["analysis_result"],
        analysis_details=row["analysis_details"],
        closed_at=_maybe(row["closed_at"]),
        refund_transaction_id=row["refund_transaction_id"],
    )


def find_case(
    conn: sqlite3.Connection, case_id: str, merchant_id: str | None = None
) -> MedCase | None:
    """The case, or None; with `merchant_id`, a case of another merchant is None too."""
    row = conn.execute("SELECT * FROM med_cases WHERE id = ?", (case_id,)).fetchone()
    if row is None or (merchant_id is not None and row["merchant_id"] != merchant_id):
        return None
    return _case(row)


def require_case(conn: sqlite3.Connection, case_id: str) -> MedCase:
    found = find_case(conn, case_id)
    if found is None:
        raise MedError(f"no MED case {case_id!r}")
    return found


def list_cases(
    conn: sqlite3.Connection,
    merchant_id: str,
    *,
    status: str | None = None,
    transaction_id: str | None = None,
    limit: int,
    offset: int,
) -> list[MedCase]:
    """The merchant's cases, newest first, optionally filtered."""
    sql = "SELECT * FROM med_cases WHERE merchant_id = ?"
    args: list[Any] = [merchant_id]
    if status is not None:
        sql += " AND status = ?"
        args.append(status)
    if transaction_id is not None:
        sql += " AND transaction_id = ?"
        args.append(transaction_id)
    sql += " ORDER BY opened_at DESC, rowid DESC LIMIT ? OFFSET ?"
    rows = conn.execute(sql, [*args, limit, offset]).fetchall()
    return [_case(row) for row in rows]


def _text(name: str, value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise MedError(f"{name} must be a string")
    if len(value) > MAX_TEXT_LENGTH:
        raise MedError(f"{name} must be at most {MAX_TEXT_LENGTH} characters")
    return value


def open_case(
    engine: Engine,
    conn: sqlite3.Connection,
    transaction_id: str,
    *,
    reason: str = "FRAUD",
    details: str | None = None,
    amount_centavos: int | None = None,
    now: datetime,
) -> MedCase:
    """The central bank notifies an infraction on a settled received PIX."""
    found: sqlite3.Row | None = conn.execute(
        "SELECT * FROM transactions WHERE transaction_id = ? OR"
        " (end_to_end_id = ? AND kind = 'cash_in') ORDER BY status = 'settled' DESC LIMIT 1",
        (transaction_id, transaction_id),
    ).fetchone()
    if found is None:
        raise MedError(f"no transaction {transaction_id!r}")
    original = TransactionRow.from_db(found)
    if original.kind != "cash_in" or original.status != "settled":
        raise MedError(
            f"MED applies to settled received PIX; {original.transaction_id} is a "
            f"{original.status} {original.kind}"
        )
    if reason not in REASONS:
        raise MedError(f"reason must be one of {', '.join(REASONS)}, got {reason!r}")
    details = _text("details", details)
    received_at = from_db(original.completed_at or original.created_at)
    if now - received_at > NOTIFICATION_WINDOW:
        raise MedError(
            f"a MED case may be opened up to {NOTIFICATION_WINDOW.days} days after the "
            f"transaction; {original.transaction_id} settled on {to_wire(received_at)}"
        )
    active = conn.execute(
        "SELECT id FROM med_cases WHERE transaction_id = ? AND status IN ('OPEN', 'ACKNOWLEDGED')",
        (original.transaction_id,),
    ).fetchone()
    if active is not None:
        raise MedError(f"transaction {original.transaction_id} already has MED case {active[0]}")
    refundable_base = int(original.amount_base) - refunds.committed_total_base(
        conn, original.transaction_id
    )
    if amount_centavos is None:
        amount_base = refundable_base
    else:
        if isinstance(amount_centavos, bool) or not isinstance(amount_centavos, int):
            raise MedError("amount_centavos must be an integer")
        try:
            amount_base = centavos_to_base(amount_centavos)
        except MoneyError as error:
            raise MedError(str(error)) from None
    if amount_base < 1:
        raise MedError(
            "amount_centavos must be positive"
            if amount_centavos is not None
            else f"{original.transaction_id} was already fully refunded"
        )
    if amount_base > refundable_base:
        raise MedError(
            f"the disputed amount ({amount_base} base units) exceeds what is still refundable "
            f"of {original.transaction_id} ({refundable_base} base units)"
        )
    merchant_id = original.merchant_id
    blocked_base = max(0, min(amount_base, ledger.balance(conn, merchant_id).available_base))
    ledger.set_blocked(conn, merchant_id, blocked_base)
    case_id = new_prefixed_id("med_", engine.rng)
    deadline = now + DEFENSE_WINDOW
    conn.execute(
        "INSERT INTO med_cases (id, merchant_id, transaction_id, end_to_end_id, amount_base,"
        " blocked_base, reason, details, status, opened_at, defense_deadline)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'OPEN', ?, ?)",
        (
            case_id,
            merchant_id,
            original.transaction_id,
            original.end_to_end_id,
            amount_base,
            blocked_base,
            reason,
            details,
            to_db(now),
            to_db(deadline),
        ),
    )
    scheduler.schedule(conn, deadline, _DEADLINE, case_id)
    events.emit(
        engine,
        conn,
        merchant_id,
        "pix.refund.requested",
        {
            "med_case_id": case_id,
            "transaction_id": original.transaction_id,
            "end_to_end_id": original.end_to_end_id,
            "amount": amount_base,
            "reason": reason,
            "status": "OPEN",
            "defense_deadline": to_wire(deadline),
        },
        at=now,
        transaction_id=original.transaction_id,
    )
    return require_case(conn, case_id)


@scheduler.timer(_DEADLINE)
def _deadline_passed(
    engine: Engine, conn: sqlite3.Connection, ref: str, payload: dict[str, Any]
) -> None:
    """No defense by the deadline: the analysis goes on without one."""
    conn.execute(
        "UPDATE med_cases SET status = 'ACKNOWLEDGED' WHERE id = ? AND status = 'OPEN'", (ref,)
    )


def submit_defense(
    conn: sqlite3.Connection, merchant_id: str, case_id: str, defense: str, *, now: datetime
) -> MedCase | None:
    """Record the defense; None if the case is not theirs; DefenseRefusedError if refused."""
    case = find_case(conn, case_id, merchant_id)
    if case is None:
        return None
    if case.status not in ACTIVE_STATUSES:
        raise DefenseRefusedError(
            f"MED case {case_id} is {case.status}; a defense is no longer accepted"
        )
    if case.defended_at is not None:
        raise DefenseRefusedError(
            f"A defense was already submitted for MED case {case_id} at "
            f"{to_wire(case.defended_at)}; it cannot be replaced"
        )
    if now >= case.defense_deadline:
        raise DefenseRefusedError(
            f"The defense deadline of MED case {case_id} passed at {to_wire(case.defense_deadline)}"
        )
    if case.status != "OPEN":
        raise DefenseRefusedError(f"MED case {case_id} is {case.status}; a defense needs it OPEN")
    conn.execute(
        "UPDATE med_cases SET defense = ?, defended_at = ?, status = 'ACKNOWLEDGED' WHERE id = ?",
        (defense, to_db(now), case_id),
    )
    scheduler.cancel(conn, _DEADLINE, case_id)
    return require_case(conn, case_id)


def _release_block(conn: sqlite3.Connection, case: MedCase) -> None:
    if case.blocked_base:
        ledger.set_blocked(conn, case.merchant_id, -case.blocked_base)
        conn.execute("UPDATE med_cases SET blocked_base = 0 WHERE id = ?", (case.id,))


def resolve_case(
    engine: Engine,
    conn: sqlite3.Connection,
    case_id: str,
    *,
    result: str,
    details: str | None = None,
    now: datetime,
) -> MedCase:
    """The central bank's analysis closes the case; AGREED refunds the payer automatically.

    The refund is what is still refundable of the disputed amount, limited by the
    merchant's safe balance once the block is released; nothing is refunded when
    that is zero.
    """
    case = require_case(conn, case_id)
    if case.status not in ACTIVE_STATUSES:
        raise MedError(f"MED case {case_id} is already {case.status}")
    if result not in RESULTS:
        raise MedError(f"result must be AGREED or DISAGREED, got {result!r}")
    details = _text("details", details)
    _release_block(conn, case)
    scheduler.cancel(conn, _DEADLINE, case_id)
    refund_transaction_id: str | None = None
    if result == "AGREED":
        refund_transaction_id = _refund(engine, conn, case, now)
    conn.execute(
        "UPDATE med_cases SET status = 'CLOSED', analysis_result = ?, analysis_details = ?,"
        " closed_at = ?, refund_transaction_id = ? WHERE id = ?",
        (result, details, to_db(now), refund_transaction_id, case_id),
    )
    return require_case(conn, case_id)


def _refund(engine: Engine, conn: sqlite3.Connection, case: MedCase, now: datetime) -> str | None:
    original = conn.execute(
        "SELECT amount_base FROM transactions WHERE transaction_id = ?", (case.transaction_id,)
    ).fetchone()
    refundable_base = int(original["amount_base"]) - refunds.committed_total_base(
        conn, case.transaction_id
    )
    safe_base = ledger.balance(conn, case.merchant_id).safe_base
    amount_base = min(case.amount_base, refundable_base, safe_base)
    if amount_base < 1:
        return None
    row = refunds.start_refund(
        engine,
        conn,
        merchant_id=case.merchant_id,
        original_transaction_id=case.transaction_id,
        amount_base=amount_base,
        reason=REFUND_CODES[case.reason],
        description=f"Devolução MED {case.id}",
        now=now,
        kind="med_refund",
    )
    return row.transaction_id


def cancel_case(conn: sqlite3.Connection, case_id: str, *, now: datetime) -> MedCase:
    """The notifier withdraws the notice: the block is released, nothing is refunded."""
    case = require_case(conn, case_id)
    if case.status not in ACTIVE_STATUSES:
        raise MedError(f"MED case {case_id} is already {case.status}")
    _release_block(conn, case)
    scheduler.cancel(conn, _DEADLINE, case_id)
    conn.execute(
        "UPDATE med_cases SET status = 'CANCELLED', closed_at = ? WHERE id = ?",
        (to_db(now), case_id),
    )
    return require_case(conn, case_id)
