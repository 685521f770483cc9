"""Small statement and ledger tables for the frames and reconciliation tests."""

from __future__ import annotations

import csv
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa

from pixops.frames import STATEMENT_SCHEMA, conform_table
from pixops.recon import LEDGER_SCHEMA

#: 2026-01-15 12:00 in São Paulo.
NOON = datetime(2026, 1, 15, 15, 0, tzinfo=UTC)
DAY = date(2026, 1, 15)


def statement_row(
    n: int,
    *,
    amount_base: int = 1_000_000,
    fee_base: int = 9_900,
    direction: str = "inbound",
    status: str = "settled",
    created_at: datetime = NOON,
    external_id: str | None = None,
    original: str | None = None,
    row_id: str | None = None,
) -> dict[str, Any]:
    """One statement item of the declared schema (money in base units)."""
    net = amount_base - fee_base if direction == "inbound" else amount_base + fee_base
    display = {"settled": "completed", "processing": "pending"}.get(status, status)
    return {
        "id": row_id or f"00000000-0000-4000-8000-{n:012d}",
        "transaction_id": f"PIXIN{n:06d}" if direction == "inbound" else f"PIXOUT{n:06d}",
        "end_to_end_id": f"{'D' if original else 'E'}99999999{n:023d}",
        "external_id": external_id,
        "tag": None,
        "type": "pix",
        "status": display,
        "payment_status": status,
        "direction": direction,
        "amount_base": amount_base,
        "fee_base": fee_base,
        "net_base": net,
        "description": "",
        "counterparty_name": "Maria Silva",
        "recipient_key": None,
        "payer_document": None,
        "recipient_document": None,
        "payer_ispb": None,
        "payer_bank_name": None,
        "original_transaction_id": original,
        "created_at": created_at + timedelta(seconds=n),
        "completed_at": None if status == "processing" else created_at + timedelta(seconds=n),
    }


def statement_table(rows: list[dict[str, Any]]) -> pa.Table:
    plain = pa.schema(
        [
            pa.field(f.name, pa.string() if pa.types.is_dictionary(f.type) else f.type)
            for f in STATEMENT_SCHEMA
        ]
    )
    return conform_table(pa.Table.from_pylist(rows, schema=plain))


def ledger_row(
    entry_id: str,
    reference: str,
    *,
    amount_base: int = 1_000_000,
    direction: str = "inbound",
    fee_base: int | None = None,
    status: str | None = None,
    booked_on: date = DAY,
) -> dict[str, Any]:
    return {
        "entry_id": entry_id,
        "reference": reference,
        "direction": direction,
        "amount_base": amount_base,
        "fee_base": fee_base,
        "status": status,
        "booked_on": booked_on,
    }


def ledger_table(rows: list[dict[str, Any]]) -> pa.Table:
    return pa.Table.from_pylist(rows, schema=LEDGER_SCHEMA)


def clean_pair(count: int) -> tuple[pa.Table, pa.Table]:
    """A statement and a ledger that agree on every row."""
    stmt = [statement_row(n) for n in range(count)]
    ledger = [ledger_row(f"L{n}", f"PIXIN{n:06d}") for n in range(count)]
    return statement_table(stmt), ledger_table(ledger)


def foreign_ledger(path: Path) -> Path:
    """The demo month's ledger with every reference replaced by one of other books: a
    ledger of another account, which pairs with no movement of the demo month."""
    sample = Path(__file__).resolve().parents[2] / "data" / "sample_ledger.csv"
    with sample.open(encoding="utf-8", newline="") as source:
        rows = list(csv.DictReader(source))
    with path.open("w", encoding="utf-8", newline="") as target:
        writer = csv.DictWriter(target, fieldnames=list(rows[0]))
        writer.writeheader()
        for number, row in enumerate(rows):
            writer.writerow({**row, "reference": f"other-books-{number:06d}"})
    return path
