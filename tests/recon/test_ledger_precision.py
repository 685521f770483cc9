"""A ledger kept in centavos is compared to the centavo: smaller differences are rounding,
counted apart; a ledger whose unit looks wrong says so in one line."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from pixops.recon import LedgerMapping, ReconResult, reconcile
from tests.recon.builders import DAY, statement_row, statement_table

CENTAVOS = LedgerMapping(amount="valor_centavos", fee="tarifa_centavos")


def _ledger(tmp_path: Path, rows: list[tuple[int, int]]) -> Path:
    """A CSV ledger in centavos: one (amount, fee) row per statement row 0, 1, ..."""
    lines = ["entry_id,reference,direction,valor_centavos,tarifa_centavos,status,booked_on"]
    lines += [
        f"L{n},PIXIN{n:06d},inbound,{amount},{fee},settled,{DAY}"
        for n, (amount, fee) in enumerate(rows)
    ]
    path = tmp_path / "razao.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _run(statement: pa.Table, ledger: Path) -> ReconResult:
    return reconcile(statement, ledger, mapping=CENTAVOS, start=DAY, end=DAY)


def test_sub_centavo_fees_are_rounding_counted_apart(tmp_path: Path) -> None:
    fees = [1305, 9900, 1350, 1305]
    statement = statement_table([statement_row(n, fee_base=fee) for n, fee in enumerate(fees)])
    # R$ 0,1305 kept as R$ 0,13 (down), R$ 0,99 exactly, R$ 0,135 as R$ 0,14 (up), and
    # R$ 0,1305 kept as R$ 0,12: a centavo and more off, a fee that differs.
    result = _run(
        statement, _ledger(tmp_path, [(10_000, 13), (10_000, 99), (10_000, 14), (10_000, 12)])
    )
    assert result.ledger_reading is not None
    assert result.ledger_reading.step_base == 100
    assert "amounts in centavos (compared to the centavo)" in result.ledger_reading.line()
    counts = result.counts
    assert (counts["matched"], counts["rounding"], counts["fee_mismatch"]) == (1, 2, 1)
    rounding = result.category("rounding")
    assert list(rounding["detail"]) == [
        "fee rounded down to the centavo in the ledger: under its precision, not a difference",
        "fee rounded up to the centavo in the ledger: under its precision, not a difference",
    ]
    row = result.summary[result.summary["category"] == "rounding"].iloc[0]
    assert (int(row["ledger_amount_base"]), int(row["statement_amount_base"])) == (2700, 2655)
    assert int(row["difference_base"]) == -45
    assert list(result.category("fee_mismatch")["entry_id"]) == ["L3"]


def test_a_day_of_rounding_alone_needs_no_attention(tmp_path: Path) -> None:
    statement = statement_table([statement_row(n, fee_base=1305) for n in range(3)])
    result = _run(statement, _ledger(tmp_path, [(10_000, 13)] * 3))
    assert result.counts["rounding"] == 3
    assert not result.needs_attention
    assert result.matched.empty


def test_a_ledger_in_base_units_has_no_rounding_row(tmp_path: Path) -> None:
    statement = statement_table([statement_row(0, fee_base=1305)])
    ledger = tmp_path / "ledger.csv"
    ledger.write_text(
        "entry_id,reference,direction,amount_base,fee_base,status,booked_on\n"
        f"L0,PIXIN000000,inbound,1000000,1300,settled,{DAY}\n",
        encoding="utf-8",
    )
    result = reconcile(statement, ledger, start=DAY, end=DAY)
    assert "rounding" not in set(result.summary["category"])
    assert result.counts["fee_mismatch"] == 1  # base units: five of them is a difference


@pytest.mark.parametrize(
    ("unit", "ledger_amount", "fix"),
    [
        (
            "base",
            10_000,
            "its amounts look like centavos, read as base units; give --amount-unit centavos.",
        ),
        (
            "centavos",
            1_000_000,
            "its amounts look like base units, read as centavos; give --amount-unit base.",
        ),
    ],
)
def test_a_ledger_in_another_unit_says_so_first_in_one_line(
    tmp_path: Path, unit: str, ledger_amount: int, fix: str
) -> None:
    statement = statement_table([statement_row(n, fee_base=0) for n in range(4)])
    path = tmp_path / "ledger.csv"
    path.write_text(
        "entry_id,reference,direction,valor,status,booked_on\n"
        + "".join(f"L{n},PIXIN{n:06d},inbound,{ledger_amount},,{DAY}\n" for n in range(4)),
        encoding="utf-8",
    )
    mapping = LedgerMapping(amount="valor", fee=None, amount_unit=unit)  # type: ignore[arg-type]
    result = reconcile(statement, path, mapping=mapping, start=DAY, end=DAY)
    hint = result.unit_hint()
    assert hint is not None
    assert hint.startswith("The ledger's unit looks wrong: 4 of 4 pairs differ by exactly 100x")
    assert hint.endswith(fix)
    assert "\n" not in hint
    said = result.unit_hint(how='amount_unit = "{unit}" in the settings cell')
    assert said is not None
    assert said.endswith('give amount_unit = "centavos" in the settings cell.') or said.endswith(
        'give amount_unit = "base" in the settings cell.'
    )


def test_a_few_unit_errors_are_findings_not_a_wrong_unit(tmp_path: Path) -> None:
    statement = statement_table([statement_row(n, fee_base=0) for n in range(4)])
    amounts = [1_000_000, 1_000_000, 1_000_000, 10_000]  # one typed in centavos
    path = tmp_path / "ledger.csv"
    path.write_text(
        "entry_id,reference,direction,amount_base,booked_on\n"
        + "".join(f"L{n},PIXIN{n:06d},inbound,{a},{DAY}\n" for n, a in enumerate(amounts)),
        encoding="utf-8",
    )
    mapping = LedgerMapping(fee=None, status=None)
    result = reconcile(statement, path, mapping=mapping, start=DAY, end=DAY)
    assert result.counts["unit_error"] == 1
    assert result.unit_hint() is None
