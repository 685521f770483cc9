"""Ledger, webhook and balance inputs: documented mapping, integer money, clear errors."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pixops.recon import (
    LEDGER_SCHEMA,
    LedgerError,
    LedgerMapping,
    balances_table,
    read_balances,
    read_ledger,
)

HEADER = "entry_id,reference,direction,amount_base,fee_base,status,booked_on,memo\n"


def write(tmp_path: Path, text: str, name: str = "ledger.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_the_sample_layout_is_the_default(tmp_path: Path) -> None:
    path = write(tmp_path, HEADER + " L1 , pedido-1 ,INBOUND,10000,99,,2026-01-15,a memo\n")
    ledger = read_ledger(path)
    assert ledger.schema == LEDGER_SCHEMA
    assert ledger.to_pylist() == [
        {
            "entry_id": "L1",
            "reference": "pedido-1",
            "direction": "inbound",
            "amount_base": 10_000,
            "fee_base": 99,
            "status": None,
            "booked_on": date(2026, 1, 15),
        }
    ]


def test_a_mapping_in_reais_with_signed_amounts(tmp_path: Path) -> None:
    text = "id;pedido;valor;data\n1;A-1;1.234,56;2026-01-15\n2;A-2;-0,05;2026-01-16\n"
    path = write(tmp_path, text.replace(";", "\t"), "ledger.txt")
    frame = pd.read_csv(path, sep="\t", dtype=str)
    mapping = LedgerMapping(
        entry_id="id",
        reference="pedido",
        amount="valor",
        direction=None,
        fee=None,
        status=None,
        booked_on="data",
        amount_unit="reais",
    )
    ledger = read_ledger(frame, mapping)
    assert ledger.column("amount_base").to_pylist() == [12_345_600, 500]
    assert ledger.column("direction").to_pylist() == ["inbound", "outbound"]


def test_centavos_integers_and_parquet(tmp_path: Path) -> None:
    table = pa.table(
        {
            "entry_id": ["L1"],
            "reference": ["x"],
            "direction": ["outbound"],
            "amount_centavos": pa.array([1_050], pa.int64()),
            "booked_on": pa.array([date(2026, 1, 15)], pa.date32()),
        }
    )
    pq.write_table(table, tmp_path / "ledger.parquet")
    mapping = LedgerMapping(amount="amount_centavos", fee=None, status=None, amount_unit="centavos")
    ledger = read_ledger(tmp_path / "ledger.parquet", mapping)
    assert ledger.column("amount_base").to_pylist() == [105_000]


def test_booked_timestamps_are_read_as_business_days() -> None:
    moment = datetime(2026, 1, 16, 2, 30, tzinfo=UTC)  # 23:30 on the 15th in São Paulo
    frame = pd.DataFrame(
        {
            "entry_id": ["L1"],
            "reference": ["x"],
            "direction": ["inbound"],
            "amount_base": [1],
            "fee_base": [0],
            "status": ["settled"],
            "booked_on": [moment],
        }
    )
    assert read_ledger(frame).column("booked_on").to_pylist() == [date(2026, 1, 15)]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (HEADER + "L1,x,inbound,10.5,0,,2026-01-15,\n", r"line 2, .*not a whole number of base"),
        (HEADER + "L1,x,sideways,1,0,,2026-01-15,\n", "not one of"),
        (HEADER + "L1,x,inbound,1,0,paid,2026-01-15,\n", "not one of"),
        (HEADER + "L1,x,inbound,1,0,,01/15/2026,\n", "YYYY-MM-DD or DD/MM/YYYY"),
        (HEADER + "L1,x,inbound,1,0,,2026-01-15,\nL1,y,inbound,1,0,,2026-01-15,\n", "unique"),
        (HEADER + "L1,,inbound,1,0,,2026-01-15,\n", "reference"),
        (HEADER + "L1,x,inbound,,0,,2026-01-15,\n", "amount_base"),
        (HEADER + "L1,x,inbound,-5,0,,2026-01-15,\n", "negative"),
        (HEADER + "L1,x,inbound,500,-7,,2026-01-15,\n", "1 ledger rows with a negative fee"),
        (HEADER + "L1,x,inbound,99999999999999999999,0,,2026-01-15,\n", "64-bit"),
        ("entry_id,reference\nL1,x\n", "no column"),
        ("", "header"),
    ],
)
def test_bad_ledgers_are_clear_errors(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(LedgerError, match=message):
        read_ledger(write(tmp_path, text))


def test_a_float_column_is_refused() -> None:
    frame = pd.DataFrame(
        {
            "entry_id": ["L1"],
            "reference": ["x"],
            "direction": ["inbound"],
            "amount_base": [100.0],
            "fee_base": [0],
            "status": [None],
            "booked_on": ["2026-01-15"],
        }
    )
    with pytest.raises(LedgerError, match="not floats"):
        read_ledger(frame)


def test_other_sources_are_refused(tmp_path: Path) -> None:
    with pytest.raises(LedgerError, match="no such ledger file"):
        read_ledger(tmp_path / "missing.csv")
    with pytest.raises(LedgerError, match=r"\.csv or \.parquet"):
        read_ledger(write(tmp_path, "x", "ledger.xlsx"))
    with pytest.raises(LedgerError, match="a path, a DataFrame"):
        read_ledger(42)  # type: ignore[arg-type]
    with pytest.raises(LedgerError, match="amount_unit"):
        LedgerMapping(amount_unit="dollars")  # type: ignore[arg-type]


def test_a_windows_1252_file_is_read_with_its_accents(tmp_path: Path) -> None:
    """Excel in Brazil saves a plain "CSV" in Windows-1252, with semicolons."""
    path = tmp_path / "ledger.csv"
    text = HEADER.replace(",", ";") + "L1;pedido-ç1;inbound;1;0;;2026-01-15;venda à vista – €\n"
    path.write_bytes(text.encode("cp1252"))
    table = read_ledger(path)
    assert table.column("reference").to_pylist() == ["pedido-ç1"]
    assert table.column("amount_base").to_pylist() == [1]
    header_too = tmp_path / "header.csv"  # an accent in the header (an extra column)
    header_too.write_bytes(
        (HEADER.strip() + ",observação\n" + "L1,p,,1,0,,2026-01-15,,é\n").encode("cp1252")
    )
    assert read_ledger(header_too).column("reference").to_pylist() == ["p"]


def test_balances_in_windows_1252_are_read(tmp_path: Path) -> None:
    path = tmp_path / "balances.csv"
    path.write_bytes(
        "as_of,balance_base,memo\n2026-01-01T03:00:00Z,5,abertura ç\n".encode("cp1252")
    )
    assert read_balances(path) == [(datetime(2026, 1, 1, 3, tzinfo=UTC), 5)]


def test_a_file_in_neither_utf8_nor_windows_1252_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "ledger.csv"
    # 0xe9 is not UTF-8 here but a valid "é" of Windows-1252, which leaves 0x81 undefined:
    # the byte that makes the file neither is 0x81.
    path.write_bytes(HEADER.encode() + b"L1,p\xe9dido\x81,inbound,1,0,,2026-01-15,\n")
    message = r"not UTF-8 or Windows-1252 text \(it holds the byte 0x81, which Windows-1252"
    with pytest.raises(LedgerError, match=message) as caught:
        read_ledger(path)
    assert isinstance(caught.value.__cause__, UnicodeDecodeError)  # what a panel looks for
    assert "save it as 'CSV UTF-8'" in str(caught.value)
    utf16 = tmp_path / "utf16.csv"  # Excel's "Unicode text": every other byte a NUL
    utf16.write_bytes(HEADER.encode("utf-16"))
    with pytest.raises(LedgerError, match="not UTF-8 or Windows-1252 text"):
        read_ledger(utf16)


def test_balances_are_validated() -> None:
    moment = datetime(2026, 1, 15, 3, tzinfo=UTC)
    assert balances_table([(moment, 10)]).column("balance_base").to_pylist() == [10]
    with pytest.raises(TypeError, match="balance_base must be an int"):
        balances_table([(moment, 10.0)])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="aware"):
        balances_table([(datetime(2026, 1, 15), 1)])
    with pytest.raises(ValueError, match="same instant"):
        balances_table([(moment, 1), (moment, 2)])
    with pytest.raises(ValueError, match="lack columns"):
        balances_table(pd.DataFrame({"as_of": [moment]}))


def test_directions_and_statuses_are_trimmed_and_lowered_only_when_needed() -> None:
    frame = pd.DataFrame(
        {
            "entry_id": ["L1", "L2", "L3"],
            "reference": ["a", "b", "c"],
            "direction": [" Outbound ", "inbound", None],
            "amount_base": [1, 2, 3],
            "fee_base": [None, None, None],
            "status": ["settled", "Settled ", None],
            "booked_on": ["2026-01-15"] * 3,
        }
    ).astype({"fee_base": "Int64"})
    ledger = read_ledger(frame)
    assert ledger.column("direction").to_pylist() == ["outbound", "inbound", None]
    assert ledger.column("status").to_pylist() == ["settled", "settled", None]
    clean = read_ledger(frame.assign(direction="inbound", status="failed"))
    assert set(clean.column("direction").to_pylist()) == {"inbound"}
    with pytest.raises(LedgerError, match=r"^row 1: column 'direction': 'sideways' is not one of"):
        read_ledger(frame.assign(direction=" sideways "))
    with pytest.raises(LedgerError, match=r"^row 3: column 'status': 'paid' is not one of"):
        read_ledger(frame.assign(status=["settled", "failed", "paid"]))


def test_a_word_not_allowed_names_its_line_in_a_file(tmp_path: Path) -> None:
    path = tmp_path / "ledger.csv"
    path.write_text(
        HEADER
        + "L1,a,inbound,1,0,settled,2026-01-15,\n"
        + "L2,b,Saída,1,0,Liquidado,2026-01-15,\n"
        + "L3,c,sideways,1,0,settled,2026-01-15,\n",
        encoding="utf-8",
    )
    with pytest.raises(LedgerError, match=r"^line 4: column 'direction': 'sideways' is not one"):
        read_ledger(path)


@settings(max_examples=60, deadline=None)
@given(year=st.integers(1970, 2100), month=st.integers(1, 12), day=st.integers(27, 31))
def test_a_booked_day_is_that_day_or_refused(year: int, month: int, day: int) -> None:
    # Arrow's strptime rolled 2026-02-30 over to 2026-03-02: a booking moved two days.
    text = f"{year:04d}-{month:02d}-{day:02d}"
    frame = pd.DataFrame(
        {
            "entry_id": ["L1"],
            "reference": ["r"],
            "direction": ["inbound"],
            "amount_base": [1],
            "fee_base": [0],
            "status": ["settled"],
            "booked_on": [text],
        }
    )
    try:
        wanted = date(year, month, day)
    except ValueError:
        with pytest.raises(LedgerError, match=f"{text!r} is not a day"):
            read_ledger(frame)
    else:
        assert read_ledger(frame).column("booked_on").to_pylist() == [wanted]


def test_two_columns_of_one_name_are_refused_by_name(tmp_path: Path) -> None:
    path = write(tmp_path, "entry_id," + HEADER + "L0,L1,r,inbound,1,0,settled,2026-01-15,m\n")
    with pytest.raises(LedgerError, match="2 columns named 'entry_id'"):
        read_ledger(path)


@pytest.mark.parametrize(
    ("column", "values", "match"),
    [
        ("amount_base", [1, "2"], "ledger frame: .*amount_base"),
        ("booked_on", ["2026-01-15", date(2026, 1, 15)], "ledger frame: .*booked_on"),
        ("amount_base", pd.Series([2**63, 1], dtype="uint64"), "overflows 64-bit"),
    ],
)
def test_frames_arrow_cannot_read_are_ledger_errors(
    column: str, values: object, match: str
) -> None:
    frame = pd.DataFrame(
        {
            "entry_id": ["L1", "L2"],
            "reference": ["a", "b"],
            "direction": ["inbound", "inbound"],
            "amount_base": [1, 2],
            "fee_base": [0, 0],
            "status": ["settled", "settled"],
            "booked_on": ["2026-01-15", "2026-01-15"],
        }
    )
    frame[column] = values
    with pytest.raises(LedgerError, match=match):
        read_ledger(frame)


def test_the_most_negative_signed_amount_is_an_overflow_not_an_arrow_error() -> None:
    frame = pd.DataFrame(
        {
            "entry_id": ["L1"],
            "reference": ["a"],
            "amount_base": [-(2**63)],
            "booked_on": ["2026-01-15"],
        }
    )
    mapping = LedgerMapping(direction=None, fee=None, status=None)
    with pytest.raises(LedgerError, match="overflows 64-bit"):
        read_ledger(frame, mapping)


@pytest.mark.parametrize("separator", [";", "\t"])
def test_a_ledger_separated_by_semicolons_or_tabs_is_read(tmp_path: Path, separator: str) -> None:
    """A pt-BR Excel saves "CSV" with semicolons (its decimal separator is the comma)."""
    rows = [HEADER.strip(), "L1,pedido-1,inbound,10000,99,,2026-01-15,venda, à vista"]
    text = "\n".join(row.replace(",", separator, 7) for row in rows) + "\n"
    ledger = read_ledger(write(tmp_path, text))
    assert ledger.column("reference").to_pylist() == ["pedido-1"]
    assert ledger.column("amount_base").to_pylist() == [10000]


def test_a_line_of_the_wrong_width_is_named_by_its_text(tmp_path: Path) -> None:
    path = write(tmp_path, HEADER + "L1,x,inbound,1,0,,2026-01-15,venda, à vista\n")
    message = (
        "a line has 9 fields where the header has 8 ('L1,x,inbound,1,0,,2026-01-15,venda,"
        " à vista'); a field that holds a comma needs double quotes"
    )
    with pytest.raises(LedgerError, match=re.escape(message)):
        read_ledger(path)


def test_a_folder_and_a_missing_column_are_said_in_words(tmp_path: Path) -> None:
    with pytest.raises(LedgerError, match="is a folder, not a ledger file"):
        read_ledger(tmp_path)
    path = write(tmp_path, "entry_id,reference,direction\n")
    with pytest.raises(
        LedgerError,
        match=r"no column 'amount_base' \(its columns: entry_id, reference, direction\)",
    ):
        read_ledger(path)


def test_a_missing_column_says_what_it_holds_and_how_to_name_another() -> None:
    table = pa.table({"id": ["L1"], "ref": ["PIX1"], "amount_base": [100], "booked_on": ["x"]})
    with pytest.raises(LedgerError) as raised:
        read_ledger(table)
    text = str(raised.value)
    assert text.startswith(
        "ledger has no column 'entry_id' (its columns: id, ref, amount_base, booked_on):"
        " it needs one with the ledger's own id of each entry;"
        " also missing: 'reference', 'direction', 'fee_base', 'status'."
    )
    assert "or name yours with LedgerMapping(entry_id='...'), --column entry_id=NAME" in text


def test_a_missing_optional_column_says_it_may_be_none() -> None:
    table = pa.table(
        {
            "entry_id": ["L1"],
            "reference": ["PIX1"],
            "direction": ["inbound"],
            "amount_base": [100],
            "status": ["settled"],
            "booked_on": ["2026-01-15"],
        }
    )
    with pytest.raises(LedgerError, match=r"LedgerMapping\(fee='...'\) \(fee=None if the ledger"):
        read_ledger(table)
    assert read_ledger(table, LedgerMapping(fee=None)).num_rows == 1
