"""Write `sample_ledger.csv` and `balances.csv`: the merchant's books for the demo month.

    .venv/bin/python data/make_sample_ledger.py            # rewrites both files in data/

The month is `pixops.demo.demo_month()` (seed 7, January 2026 in São Paulo), read
through the CLIENT only, exactly as a merchant's back office would have recorded it,
with deliberate discrepancies planted (listed in `data/README.md` and in `PLANTED`).
Deterministic: the same month always gives byte-identical files.
"""

from __future__ import annotations

import csv
import io
import sys
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pandas as pd

from pixops.demo import demo_month
from pixops.frames import load_transactions
from pixops.recon import balance_snapshot

HERE = Path(__file__).resolve().parent
SAO_PAULO = ZoneInfo("America/Sao_Paulo")
FIRST_DAY = date(2026, 1, 1)
LAST_DAY = date(2026, 1, 31)
#: The business day where every category of discrepancy occurs.
PLANTED_DAY = date(2026, 1, 15)
#: The day the issue's CLI example reconciles; a few findings there too.
SECOND_DAY = date(2026, 1, 31)
LEDGER_COLUMNS = (
    "entry_id",
    "reference",
    "direction",
    "amount_base",
    "fee_base",
    "status",
    "booked_on",
    "memo",
    "booked_at",
    "document",
    "name",
    "kind",
)
#: The treasury spreadsheet's closing of the planted day is off by R$ 150,00.
BALANCE_ERROR_BASE = -1_500_000


@dataclass
class Entry:
    reference: str
    direction: str
    amount_base: int
    fee_base: int
    status: str
    booked_on: date
    memo: str
    created_at: datetime
    #: The rules columns (docs/reconciliation-rules.md), kept only on the planted lines.
    booked_at: str = ""
    document: str = ""
    name: str = ""
    kind: str = ""
    #: What the statement says of the payer (not written: the back office keeps none).
    payer_document: str = ""
    payer_name: str = ""


@dataclass(frozen=True)
class Books:
    ledger_csv: str
    balances_csv: str
    planted: dict[str, list[str]]


def _business_day(moment: datetime) -> date:
    return moment.astimezone(SAO_PAULO).date()


def _midnight(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=SAO_PAULO).astimezone(UTC)


def _memo(row: pd.Series) -> str:
    if isinstance(row["original_transaction_id"], str):
        return f"devolução de {row['original_transaction_id']}"
    if row["direction"] == "outbound":
        return "pagamento a fornecedor"
    return "venda PIX"


def _entries(month: pd.DataFrame) -> list[Entry]:
    """What the back office books: every movement that moved money, as it knew it."""
    entries = []
    booked = month[month["payment_status"].isin(["settled", "rejected"])]
    for _, row in booked.iterrows():
        external = row["external_id"]
        linked = isinstance(row["original_transaction_id"], str)
        # Refunds and returns are booked by their own id (a return repeats the payout's
        # external_id); everything else by the order id when the payment carries one.
        reference = external if isinstance(external, str) and not linked else row["transaction_id"]
        created = row["created_at"].to_pydatetime()
        entries.append(
            Entry(
                reference=reference,
                direction=str(row["direction"]),
                amount_base=int(row["amount_base"]),
                fee_base=int(row["fee_base"]),
                status=str(row["payment_status"]),
                booked_on=_business_day(created),
                memo=_memo(row),
                created_at=created,
                payer_document="" if pd.isna(row["payer_document"]) else str(row["payer_document"]),
                payer_name=""
                if pd.isna(row["counterparty_name"])
                else str(row["counterparty_name"]),
            )
        )
    entries.sort(key=lambda entry: (entry.created_at, entry.reference))
    return entries


def _plant(entries: list[Entry], planted: dict[str, list[str]]) -> list[Entry]:
    """Plant one of every discrepancy on PLANTED_DAY and a few on SECOND_DAY."""
    day = [e for e in entries if e.booked_on == PLANTED_DAY]
    sales = [e for e in day if e.direction == "inbound" and e.memo == "venda PIX"]
    payouts = [e for e in day if e.memo == "pagamento a fornecedor"]
    refunds = [e for e in day if e.memo.startswith("devolução")]
    # What the statement charged that day, before any planted slip (the fees line's sum).
    day_fees = sum(e.fee_base for e in day if e.status == "settled")

    missing = sales[5]
    entries.remove(missing)
    planted["missing_in_ledger"] = [missing.reference]

    sales[10].amount_base += 100_000
    sales[10].memo = "venda PIX (valor digitado errado: +R$ 10,00)"
    planted["amount_mismatch"] = [sales[10].reference]

    payouts[0].fee_base = 4_000
    payouts[0].memo = "pagamento a fornecedor (tarifa antiga de R$ 0,40)"
    planted["fee_mismatch"] = [payouts[0].reference]

    payouts[1].status = "failed"
    payouts[1].memo = "pagamento a fornecedor (marcado como falho após timeout)"
    planted["status_mismatch"] = [payouts[1].reference]

    twice = sales[20]
    copy = Entry(**{**twice.__dict__, "memo": "venda PIX (lançada duas vezes)"})
    entries.insert(entries.index(twice) + 1, copy)
    planted["duplicate"] = [twice.reference]

    # A sale of whole reais reads plainly once in centavos (R$ 50,00 as R$ 0,50); any sale
    # not planted otherwise when the day has none.
    others = [e for i, e in enumerate(sales) if i not in (5, 10, 20)]
    unit = next((e for e in others if e.amount_base % 10_000 == 0), others[-1])
    unit.amount_base //= 100
    unit.memo = "venda PIX (valor em centavos na coluna de unidades-base)"
    planted["unit_error"] = [unit.reference]

    unbooked = refunds[0]
    entries.remove(unbooked)
    planted["unbooked_refund"] = [unbooked.reference]

    next_day = [
        e
        for e in entries
        if e.booked_on == PLANTED_DAY + timedelta(days=1) and e.memo == "venda PIX"
    ]
    late = next_day[0]
    late.booked_on = PLANTED_DAY
    late.memo = "venda PIX (pedido do dia 15, pago depois da meia-noite)"
    planted["timing_difference"] = [late.reference]

    ghost = Entry(
        reference="pedido-20260115-9001",
        direction="inbound",
        amount_base=2_500_000,
        fee_base=24_750,
        status="settled",
        booked_on=PLANTED_DAY,
        memo="venda PIX (pedido marcado como pago, pagamento nunca chegou)",
        created_at=_midnight(PLANTED_DAY) + timedelta(hours=14),
    )
    entries.append(ghost)
    planted["missing_in_statement"] = [ghost.reference]

    _plant_rules(entries, day_fees, sales, planted)

    last = [e for e in entries if e.booked_on == SECOND_DAY and e.memo == "venda PIX"]
    entries.remove(last[3])
    planted["missing_in_ledger"].append(last[3].reference)
    last[7].amount_base -= 50_000
    last[7].memo = "venda PIX (desconto dado no caixa, não no PIX)"
    planted["amount_mismatch"].append(last[7].reference)
    entries.sort(key=lambda entry: (entry.created_at, entry.reference))
    return entries


def _plant_rules(
    entries: list[Entry], day_fees: int, sales: list[Entry], planted: dict[str, list[str]]
) -> None:
    """The rules beyond identifiers on PLANTED_DAY (issue 31), read through the mapping
    beside the ledger (`sample_ledger.mapping.toml`: booked_at, document, name, kind)."""
    # A PIX received by key: no reference written down, only when, who and how much.
    by_key = sales[12]
    by_key.reference = ""
    by_key.booked_at = (by_key.created_at + timedelta(seconds=40)).isoformat()
    by_key.document, by_key.name = by_key.payer_document, by_key.payer_name
    by_key.memo = "venda PIX por chave (sem referência)"
    planted["inferred"] = [f"amount + CPF of {by_key.payer_name}"]

    # One payment booked twice without a reference, both within the window: a person picks.
    twice = sales[14]
    twice.reference = ""
    twice.booked_at = (twice.created_at + timedelta(seconds=30)).isoformat()
    twice.memo = "venda PIX no balcão (sem referência)"
    again = Entry(**{**twice.__dict__, "memo": "venda PIX no balcão (mesmo valor, sem referência)"})
    again.booked_at = (twice.created_at + timedelta(seconds=90)).isoformat()
    entries.insert(entries.index(twice) + 1, again)
    planted["needs_review"] = [f"two entries of {twice.amount_base} base units"]

    # The day's fees booked as one line, R$ 1,00 short of what the statement charged.
    fee_line = Entry(
        reference="",
        direction="outbound",
        amount_base=day_fees - 10_000,
        fee_base=0,
        status="settled",
        booked_on=PLANTED_DAY,
        memo="tarifas PIX do dia (lançamento único, R$ 1,00 a menos)",
        created_at=_midnight(PLANTED_DAY) + timedelta(hours=23, minutes=59),
        kind="fees",
    )
    entries.append(fee_line)
    planted["group_remainder"] = ["fees of 2026-01-15"]


def _ledger_csv(entries: list[Entry]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(LEDGER_COLUMNS)
    for number, entry in enumerate(entries, start=1):
        writer.writerow(
            [
                f"LED-{number:06d}",
                entry.reference,
                entry.direction,
                entry.amount_base,
                entry.fee_base,
                entry.status,
                entry.booked_on.isoformat(),
                entry.memo,
                entry.booked_at,
                entry.document,
                entry.name,
                entry.kind,
            ]
        )
    return out.getvalue()


def _balances_csv(month: pd.DataFrame, closing_base: int, closing_at: datetime) -> str:
    """Closing balance at each São Paulo midnight, rolled back from `GET /balance`."""
    settled = month[month["payment_status"] == "settled"]
    signed = settled["net_base"].where(settled["direction"] == "inbound", -settled["net_base"])
    after = settled["completed_at"] > pd.Timestamp(closing_at)
    if bool(after.any()):
        raise RuntimeError("settled movements after the balance snapshot: reload the month")
    opening_base = closing_base - int(signed.sum())
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["as_of", "balance_base", "memo"])
    day = FIRST_DAY
    while day <= LAST_DAY + timedelta(days=1):
        moment = _midnight(day)
        upto = settled["completed_at"] <= pd.Timestamp(moment)
        balance = opening_base + int(signed[upto].sum())
        memo = "abertura" if day == FIRST_DAY else f"fechamento de {day - timedelta(days=1)}"
        if day == PLANTED_DAY + timedelta(days=1):
            balance += BALANCE_ERROR_BASE
            memo += " (planilha da tesouraria com erro de R$ 150,00)"
        writer.writerow([moment.strftime("%Y-%m-%dT%H:%M:%SZ"), balance, memo])
        day += timedelta(days=1)
    return out.getvalue()


def build_books(*, cache_dir: str | Path | None = None) -> Books:
    """The sample ledger and balance snapshots, read through the client."""
    month_data = demo_month(cache_dir=cache_dir)
    client = month_data.sandbox.client(month_data.api_key)
    # Everything the account ever did: the January business days and what followed.
    month = load_transactions(client, FIRST_DAY, date(2026, 3, 1), tz=SAO_PAULO, progress=False)
    as_of, closing_base = balance_snapshot(client)
    january = month[
        month["created_at"].dt.tz_convert(SAO_PAULO).dt.date.between(FIRST_DAY, LAST_DAY)
    ]
    planted: dict[str, list[str]] = {}
    entries = _plant(_entries(january), planted)
    planted["balance_difference"] = [f"closing of {PLANTED_DAY}"]
    return Books(_ledger_csv(entries), _balances_csv(month, closing_base, as_of), planted)


def main() -> int:
    books = build_books()
    (HERE / "sample_ledger.csv").write_text(books.ledger_csv, encoding="utf-8")
    (HERE / "balances.csv").write_text(books.balances_csv, encoding="utf-8")
    for category, references in sorted(books.planted.items()):
        print(f"{category:<22} {', '.join(references)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
