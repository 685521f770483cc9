"""Hostile and foreign ledgers: clear pixops errors naming the column, line or byte."""

from __future__ import annotations

import io
from datetime import date
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pixops._cli_recon._run import EXIT_BAD_INPUT, run
from pixops.cli import build_parser
from pixops.recon import LedgerError, LedgerMapping, load_ledger, read_ledger, reconcile
from tests.recon.builders import DAY, clean_pair
from tests.recon.ptbr_ledger import write_ptbr_ledger

HEADER = "entry_id,reference,direction,amount_base,fee_base,status,booked_on\n"
PTBR = LedgerMapping(
    entry_id="Documento",
    reference="Referência",
    amount="Valor",
    direction=None,
    fee="Tarifa",
    status="Situação",
    booked_on="Data",
)


def _write(tmp_path: Path, text: str, name: str = "ledger.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "amounts",
    [["9223372036854775807", "100", "200"], ["9000000000000000000", "9000000000000000000"]],
)
def test_amounts_that_sum_past_64_bits_name_the_column(tmp_path: Path, amounts: list[str]) -> None:
    rows = "".join(
        f"L{n},r{n},inbound,{amount},0,settled,2026-01-15\n" for n, amount in enumerate(amounts)
    )
    path = _write(tmp_path, HEADER + rows)
    statement, _ = clean_pair(2)
    with pytest.raises(LedgerError, match=r"column 'amount_base': the amounts add up past"):
        reconcile(statement, path, start=DAY, end=DAY)
    with pytest.raises(LedgerError, match=r"largest, \d+ base units on line 2"):
        read_ledger(path)


def test_fees_that_sum_past_64_bits_name_their_column(tmp_path: Path) -> None:
    rows = "".join(f"L{n},r{n},inbound,1,{9 * 10**18},,2026-01-15\n" for n in range(2))
    with pytest.raises(LedgerError, match=r"column 'fee_base': the fees add up past"):
        read_ledger(_write(tmp_path, HEADER + rows))


def test_the_cli_exits_two_on_a_ledger_past_64_bits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PIXOPS_BASE_URL", raising=False)
    rows = "".join(f"L{n},r{n},inbound,{9 * 10**18},0,,2026-01-15\n" for n in range(2))
    path = _write(tmp_path, HEADER + rows)
    args = build_parser().parse_args(
        ["recon", "--date", "2026-01-15", "--ledger", str(path), "--out", str(tmp_path / "o")]
    )
    out, err = io.StringIO(), io.StringIO()
    assert run(args, out, err) == EXIT_BAD_INPUT
    assert "column 'amount_base': the amounts add up past the 64-bit range" in err.getvalue()
    assert "Traceback" not in err.getvalue()
    assert not (tmp_path / "o").exists()


def test_a_windows_1252_file_with_undefined_bytes_names_them(tmp_path: Path) -> None:
    path = tmp_path / "ledger.csv"
    # "à" (0xe0) is valid Windows-1252 and not UTF-8; 0x81 and 0x8d are undefined there.
    path.write_bytes(HEADER.encode() + b"L1,\xe0 vista\x81\x8d,inbound,1,0,,2026-01-15\n")
    with pytest.raises(LedgerError, match=r"byte 0x81, which Windows-1252 leaves undefined"):
        read_ledger(path)


def test_parquet_cells_are_named_by_row_and_csv_cells_by_line(tmp_path: Path) -> None:
    frame = pd.DataFrame(
        {
            "entry_id": ["L1", "L2"],
            "reference": ["a", "b"],
            "direction": ["inbound", "inbound"],
            "amount_base": ["1", "1,5"],
            "fee_base": ["0", "0"],
            "status": ["settled", "settled"],
            "booked_on": ["2026-01-15", "2026-01-15"],
        }
    )
    parquet = tmp_path / "ledger.parquet"
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), parquet)
    with pytest.raises(LedgerError, match=r"^row 2, column 'amount_base'"):
        read_ledger(parquet)
    csv_path = tmp_path / "ledger.csv"
    frame.to_csv(csv_path, index=False)
    with pytest.raises(LedgerError, match=r"^line 3, column 'amount_base'"):
        read_ledger(csv_path)


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (
            "L1,a,inbound,1,0,,2026-01-15\nL2,b,inbound,-5,0,,2026-01-15\n",
            r"^line 3: column 'amount_base' is negative",
        ),
        (
            "L1,a,inbound,1,0,,2026-01-15\nL2,b,inbound,,0,,2026-01-15\n",
            r"^line 3: column 'amount_base' is empty",
        ),
        (
            "L1,a,inbound,1,0,,2026-01-15\nL2,,inbound,1,0,,2026-01-15\n",
            r"^line 3: column 'reference' is empty",
        ),
        ("L1,a,inbound,1,0,,\n", r"^line 2: column 'booked_on' is empty"),
    ],
)
def test_negative_and_empty_cells_give_their_line(tmp_path: Path, rows: str, message: str) -> None:
    with pytest.raises(LedgerError, match=message):
        read_ledger(_write(tmp_path, HEADER + rows))


def _sample_with_references(folder: Path) -> pa.Table:
    """The sample ledger's entries that carry a reference (what the pt-BR export keeps:
    the rules cases need columns it has none of), read as the canonical table."""
    import csv

    sample = Path(__file__).resolve().parents[2] / "data" / "sample_ledger.csv"
    with sample.open(encoding="utf-8") as handle:
        rows = [row for row in csv.DictReader(handle) if row["reference"]]
    kept = ["entry_id", "reference", "direction", "amount_base", "fee_base", "status"]
    path = folder / "sample_with_references.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, [*kept, "booked_on"], extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return read_ledger(path)


def test_a_ptbr_export_is_read_and_said_in_one_line(tmp_path: Path) -> None:
    path = write_ptbr_ledger(tmp_path / "razao.csv")
    loaded = load_ledger(path, PTBR)
    assert loaded.reading.line() == (
        "read as: semicolon, Windows-1252, decimal comma, dd/mm/yyyy, amounts in reais"
    )
    canonical = _sample_with_references(tmp_path)
    assert loaded.table.equals(canonical)
    assert loaded.table.column("booked_on")[0].as_py() == date(2026, 1, 1)


def test_a_centavo_export_asks_for_its_unit(tmp_path: Path) -> None:
    path = write_ptbr_ledger(tmp_path / "razao.csv", centavos=True)
    with pytest.raises(LedgerError, match=r"'Valor' holds whole numbers: say their unit"):
        read_ledger(path, PTBR)
    reading = load_ledger(path, PTBR.updated(amount_unit="centavos")).reading
    assert reading.step_base == 100


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # Only "1.234" and "12,500": thousands or decimals? Asked, never guessed.
        (
            "id;ref;valor;dia\nL1;a;1.234;15/01/2026\nL2;b;12,500;15/01/2026\n",
            "--decimal comma or --decimal point",
        ),
        # Both marks in one column.
        (
            "id;ref;valor;dia\nL1;a;1.234,56;15/01/2026\nL2;b;1,234.56;15/01/2026\n",
            "has a decimal comma and",
        ),
        # A header with as many commas as semicolons.
        ("id,ref;valor,dia;x\nL1,a;1,2;3\n", "as many"),
    ],
)
def test_a_file_read_two_ways_asks_for_the_setting(tmp_path: Path, text: str, message: str) -> None:
    mapping = LedgerMapping(
        entry_id="id",
        reference="ref",
        amount="valor",
        direction=None,
        fee=None,
        status=None,
        booked_on="dia",
    )
    with pytest.raises(LedgerError, match=message):
        read_ledger(_write(tmp_path, text), mapping)


def test_the_settings_read_what_detection_asks_about(tmp_path: Path) -> None:
    text = "id;ref;valor;dia\nL1;a;1.234;01/02/2026\nL2;b;12,500;03/02/2026\n"
    mapping = LedgerMapping(
        entry_id="id",
        reference="ref",
        amount="valor",
        direction=None,
        fee=None,
        status=None,
        booked_on="dia",
        amount_unit="reais",
        decimal="comma",
        date_format="mm/dd/yyyy",
    )
    loaded = load_ledger(_write(tmp_path, text), mapping)
    assert loaded.table.column("amount_base").to_pylist() == [12_340_000, 125_000]
    assert loaded.table.column("booked_on").to_pylist() == [date(2026, 1, 2), date(2026, 3, 2)]
    assert loaded.reading.line() == (
        "read as: semicolon, UTF-8, decimal comma, mm/dd/yyyy, amounts in reais"
        " (compared to the centavo)"
    )


def test_the_documented_example_is_the_sample_ledger_in_pt_br(tmp_path: Path) -> None:
    """docs/examples/razao.csv and its mapping read as the sample ledger's entries of
    14 to 16 January: the documented commands find what the sample ledger finds."""
    from pixops.recon import find_mapping, read_mapping
    from tests.recon.ptbr_ledger import EXAMPLE, EXAMPLE_DAYS

    mapping_file = find_mapping(EXAMPLE)
    assert mapping_file == EXAMPLE.with_name("razao.mapping.toml")
    loaded = load_ledger(EXAMPLE, read_mapping(mapping_file))
    canonical = _sample_with_references(tmp_path)
    days = canonical.column("booked_on").to_pylist()
    kept = [EXAMPLE_DAYS[0] <= day <= EXAMPLE_DAYS[1] for day in days]
    assert loaded.table.equals(canonical.filter(pa.array(kept)))
    assert loaded.reading.line() == (
        "read as: semicolon, Windows-1252, decimal comma, dd/mm/yyyy, amounts in reais"
    )
