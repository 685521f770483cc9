"""Ledgers as an analyst hands them over: Decimal reais, pandas timestamps, pt-BR days."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pixops.frames import reais_decimal
from pixops.recon import LedgerError, LedgerMapping, read_ledger


def ledger(**columns: object) -> pd.DataFrame:
    base: dict[str, object] = {
        "entry_id": ["L1", "L2"],
        "reference": ["a", "b"],
        "direction": ["inbound", "outbound"],
        "amount_base": [10_000, 5],
        "fee_base": [99, 0],
        "status": ["settled", "settled"],
        "booked_on": ["2026-01-15", "2026-01-16"],
    }
    base.update(columns)
    return pd.DataFrame(base)


def test_decimal_reais_are_converted_exactly() -> None:
    # What `frames.reais_decimal` gives back must be a ledger `reconcile` can read.
    amounts = reais_decimal(pd.Series([12_345_678_901_234_567, 1]))
    frame = ledger(amount_base=list(amounts), fee_base=[Decimal("0.0099"), Decimal("0")])
    table = read_ledger(frame, LedgerMapping(amount_unit="reais"))
    assert table.column("amount_base").to_pylist() == [12_345_678_901_234_567, 1]
    assert table.column("fee_base").to_pylist() == [99, 0]


def test_decimal_centavos_and_base_units_must_be_whole(tmp_path: Path) -> None:
    frame = ledger(amount_base=[Decimal("1050"), Decimal("3")], fee_base=[None, Decimal("1")])
    path = tmp_path / "ledger.parquet"
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path)
    table = read_ledger(path, LedgerMapping(amount_unit="centavos"))
    assert table.column("amount_base").to_pylist() == [105_000, 300]
    assert table.column("fee_base").to_pylist() == [None, 100]
    half = ledger(amount_base=[Decimal("10.5"), Decimal("3")])
    with pytest.raises(LedgerError, match=r"row 1, column 'amount_base': 10\.5.*centavos"):
        read_ledger(half, LedgerMapping(amount_unit="centavos"))


def test_a_fifth_decimal_of_reais_is_refused_not_rounded() -> None:
    frame = ledger(amount_base=[Decimal("1.00005"), Decimal("1")])
    with pytest.raises(LedgerError, match=r"row 1, column 'amount_base': 1\.00005"):
        read_ledger(frame, LedgerMapping(amount_unit="reais"))


def test_naive_midnights_are_days_and_naive_times_are_refused() -> None:
    days = pd.to_datetime(pd.Series(["2026-01-15", "2026-01-16"]))
    table = read_ledger(ledger(booked_on=days))
    assert table.column("booked_on").to_pylist() == [date(2026, 1, 15), date(2026, 1, 16)]
    times = pd.to_datetime(pd.Series(["2026-01-15 23:30", "2026-01-16 00:00"]))
    with pytest.raises(LedgerError, match=r"times of day without a time zone.*\.dt\.date"):
        read_ledger(ledger(booked_on=times))


def test_a_pt_br_excel_ledger_is_read_with_its_days(tmp_path: Path) -> None:
    path = tmp_path / "razao.csv"
    path.write_text(
        "entry_id;reference;direction;amount_base;fee_base;status;booked_on\n"
        "L1;a;inbound;10000;99;settled;15/01/2026\n"
        "L2;b;outbound;5;0;settled;01/02/2026\n",
        encoding="utf-8-sig",
    )
    table = read_ledger(path)
    assert table.column("booked_on").to_pylist() == [date(2026, 1, 15), date(2026, 2, 1)]


@pytest.mark.parametrize(
    ("days", "message"),
    [
        (["30/02/2026", "01/02/2026"], "'30/02/2026' is not a day written DD/MM/YYYY"),
        (["15/01/2026", "2026-01-16"], "all in one form"),
        (["01/15/2026", "01/16/2026"], "YYYY-MM-DD or DD/MM/YYYY"),
    ],
)
def test_days_in_a_mix_of_forms_or_impossible_are_refused(days: list[str], message: str) -> None:
    with pytest.raises(LedgerError, match=message):
        read_ledger(ledger(booked_on=days))


def test_reais_text_in_a_base_unit_column_says_which_unit_to_give() -> None:
    frame = ledger(amount_base=["R$ 157,16", "3"])
    with pytest.raises(LedgerError, match=r"row 1, .*base units.*amount_unit='reais'"):
        read_ledger(frame)
    with pytest.raises(LedgerError, match=r"centavos \(R\$ 1,00 is 100\)$"):
        read_ledger(ledger(amount_base=["abc", "3"]), LedgerMapping(amount_unit="centavos"))


def test_a_ledger_read_by_pandas_with_an_empty_fee_says_how_to_read_it(tmp_path: Path) -> None:
    path = tmp_path / "ledger.csv"
    path.write_text(
        "entry_id,reference,direction,amount_base,fee_base,status,booked_on\n"
        "L1,a,inbound,10000,,settled,2026-01-15\nL2,b,inbound,5,1,settled,2026-01-15\n",
        encoding="utf-8",
    )
    with pytest.raises(LedgerError, match=r"'fee_base' is double.*dtype=str"):
        read_ledger(pd.read_csv(path))
    assert read_ledger(pd.read_csv(path, dtype=str)).column("fee_base").to_pylist() == [None, 1]
    assert read_ledger(path).column("fee_base").to_pylist() == [None, 1]
