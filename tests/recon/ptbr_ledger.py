"""`data/sample_ledger.csv` as a pt-BR back office exports it: what the e2e tests read."""

from __future__ import annotations

import csv
from datetime import date
from pathlib import Path

from pixops.money import format_brl_base

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample_ledger.csv"
HEADER = ["Documento", "Referência", "Valor", "Tarifa", "Situação", "Data"]
_STATUS = {"settled": "Liquidado", "rejected": "Rejeitado", "failed": "Falhou"}


def _reais(amount_base: int) -> str:
    """``1.234,56`` (four decimals when a fraction of a centavo needs them)."""
    return format_brl_base(amount_base).replace("R$\xa0", "").replace("R$ ", "")


def write_ptbr_ledger(
    path: Path, *, centavos: bool = False, days: tuple[date, date] | None = None
) -> Path:
    """The sample ledger as ``Documento;Referência;Valor;Tarifa;Situação;Data``:
    semicolons, Windows-1252 after a UTF-8 byte order mark, signed amounts in reais
    (``-1.234,56`` outbound) and dd/mm/yyyy days; with ``centavos``, whole centavos with
    each fee rounded half up to the centavo; with ``days``, the entries booked on those
    days only (first and last included). Entries without a reference (the sample's rules
    cases, docs/reconciliation-rules.md) are left out: this export has no column for
    what matches them."""
    rows = []
    with SAMPLE.open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            sign = -1 if row["direction"] == "outbound" else 1
            amount, fee = int(row["amount_base"]), int(row["fee_base"])
            if centavos:
                shown_amount, shown_fee = str(sign * amount // 100), str((fee + 50) // 100)
            else:
                shown_amount, shown_fee = _reais(sign * amount), _reais(fee)
            day = date.fromisoformat(row["booked_on"])
            if days is not None and not days[0] <= day <= days[1]:
                continue
            if not row["reference"]:  # the rules cases need columns this export keeps none of
                continue
            rows.append(
                [
                    row["entry_id"],
                    row["reference"],
                    shown_amount,
                    shown_fee,
                    _STATUS[row["status"]],
                    f"{day:%d/%m/%Y}",
                ]
            )
    lines = [";".join(HEADER)] + [";".join(row) for row in rows]
    path.write_bytes(b"\xef\xbb\xbf" + ("\r\n".join(lines) + "\r\n").encode("cp1252"))
    return path


#: The pt-BR example ledger of docs/ledger-mapping.md: the sample ledger's entries booked
#: from 14 to 16 January (what reconciling 2026-01-15 reads), as a back office exports them.
EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "razao.csv"
EXAMPLE_DAYS = (date(2026, 1, 14), date(2026, 1, 16))

if __name__ == "__main__":  # python -m tests.recon.ptbr_ledger: writes EXAMPLE again
    write_ptbr_ledger(EXAMPLE, days=EXAMPLE_DAYS)
