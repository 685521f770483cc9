"""A statement kept in a file comes back exactly as it was saved."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from pixops.frames import (
    MONEY_DTYPE,
    SchemaDriftError,
    check_frame,
    load_transactions,
    read_statement,
    read_transactions,
)
from pixops.frames._schema import TRANSACTIONS_SCHEMA


def _same(read: pd.DataFrame, saved: pd.DataFrame) -> None:
    assert list(read.columns) == list(saved.columns)
    for name in saved.columns:
        assert _values(read[name]) == _values(saved[name]), name


def _values(column: pd.Series) -> list[Any]:
    """The values, an empty text as missing: a CSV cannot tell them apart."""
    return [None if pd.isna(value) or value == "" else value for value in column.tolist()]


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_a_saved_statement_reads_back_exactly(
    day: pd.DataFrame, tmp_path: Path, suffix: str
) -> None:
    path = tmp_path / f"day{suffix}"
    if suffix == ".csv":
        day.to_csv(path, index=False)
    else:
        day.to_parquet(path)
    read = check_frame(read_statement(path))
    assert read["amount_base"].dtype == MONEY_DTYPE
    # Text stays text: on a plain read_csv a CPF lost its leading zero as a number.
    assert read["payer_document"].dropna().str.len().isin([11, 14]).all()
    _same(read, day)


def test_a_filtered_statement_with_its_index_reads_back(day: pd.DataFrame, tmp_path: Path) -> None:
    received = day[day["direction"] == "inbound"]
    received.to_parquet(tmp_path / "received.parquet")  # the index is stored as a column
    received.to_csv(tmp_path / "received.csv")  # and written as the first column
    for name in ("received.parquet", "received.csv"):
        _same(read_statement(tmp_path / name), received.reset_index(drop=True))


def test_saved_transactions_read_back(demo_client: Any, tmp_path: Path) -> None:
    listed = load_transactions(demo_client, "2026-01-15", "2026-01-15", progress=False)
    listed.to_parquet(tmp_path / "transactions.parquet")
    read = read_transactions(tmp_path / "transactions.parquet")
    check_frame(read, TRANSACTIONS_SCHEMA)
    _same(read, listed)


def test_what_is_not_a_saved_statement_is_refused_in_words(
    day: pd.DataFrame, tmp_path: Path
) -> None:
    with pytest.raises(FileNotFoundError, match="no such file"):
        read_statement(tmp_path / "missing.parquet")
    with pytest.raises(ValueError, match="is a folder"):
        read_statement(tmp_path)
    (tmp_path / "day.xlsx").write_bytes(b"PK")
    with pytest.raises(ValueError, match=r"read a \.parquet or \.csv file, not \.xlsx"):
        read_statement(tmp_path / "day.xlsx")
    day.drop(columns=["fee_base"]).to_csv(tmp_path / "short.csv", index=False)
    with pytest.raises(SchemaDriftError, match="fee_base"):
        read_statement(tmp_path / "short.csv")
    gap = day.astype({"amount_base": object})
    gap.loc[gap.index[0], "amount_base"] = None  # a money cell left empty
    gap.to_csv(tmp_path / "gap.csv", index=False)
    with pytest.raises(SchemaDriftError, match="amount_base"):
        read_statement(tmp_path / "gap.csv")
    (tmp_path / "text.csv").write_text("id,amount_base\nx,12,50\n", encoding="utf-8")
    with pytest.raises(SchemaDriftError, match="does not read as this schema"):
        read_statement(tmp_path / "text.csv")


@pytest.mark.parametrize("encoding", ["cp1252", "utf-16"])
def test_a_csv_excel_saved_in_another_encoding_says_to_save_it_as_utf8(
    day: pd.DataFrame, tmp_path: Path, encoding: str
) -> None:
    named = day.copy()
    named["counterparty_name"] = "João Conceição"  # a letter UTF-8 writes otherwise
    path = tmp_path / "day.csv"
    named.to_csv(path, index=False, encoding=encoding)
    with pytest.raises(SchemaDriftError, match=r"day\.csv is not UTF-8 text.*'CSV UTF-8'"):
        read_statement(path)
