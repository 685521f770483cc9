"""What a reader sees of a DataFrame's cells in `frame_table` and `brl`: a missing value
as a dash, NumPy integers as reais, times in São Paulo, decimals the pt-BR way."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pandas as pd
import pytest

from pixops.widgets import brl, count_text, frame_table, local_time


def test_a_numpy_integer_from_a_frame_is_shown_in_reais() -> None:
    frame = pd.DataFrame({"amount_base": [12_345_600, 100]})
    assert brl(frame["amount_base"].sum()) == "R$ 1.234,57"
    assert brl(frame["amount_base"].iloc[0]) == "R$ 1.234,56"
    assert brl(np.int32(5_000)) == "R$ 0,50"


def test_a_missing_amount_is_a_dash_and_a_real_float_is_still_refused() -> None:
    assert brl(float("nan")) == "—"
    assert brl(pd.NA) == "—"
    with pytest.raises(TypeError, match="integers in base units"):
        brl(1.5)


def test_missing_cells_read_as_a_dash_never_nan() -> None:
    frame = pd.DataFrame(
        {
            "Payer": ["Ana", None, np.nan],
            "When": [pd.Timestamp("2026-01-15T13:04:00Z"), pd.NaT, pd.NaT],
            "Items": [3, None, 1200],
            "Amount": pd.array([12_345_600, None, 100], dtype="int64[pyarrow]"),
        }
    )
    text = repr(frame_table(frame, money_columns={"Amount"}, number_columns={"Items"}))
    lines = text.splitlines()
    assert lines[1] == "Ana  15/01/2026 10:04  3  R$ 1.234,56"
    assert lines[2] == "—  —  —  —"
    assert lines[3] == "—  —  1.200  R$ 0,01"
    for raw in ("nan", "NaT", "None", "+00:00", "1.0"):
        assert raw not in text


def test_a_decimal_number_is_written_the_pt_br_way() -> None:
    assert count_text(1234.5) == "1.234,5"
    assert count_text(2.0) == "2"
    table = repr(frame_table(pd.DataFrame({"Average": [1234.25]}), number_columns={"Average"}))
    assert "1.234,25" in table
    with pytest.raises(TypeError, match="a number"):
        count_text(None)  # type: ignore[arg-type]


def test_times_without_a_zone_are_shown_as_written() -> None:
    assert local_time(datetime(2026, 1, 15, 13, 4, tzinfo=UTC)) == "15/01/2026 10:04"
    assert local_time(pd.Timestamp("2026-01-15 10:04")) == "15/01/2026 10:04"
    assert local_time(pd.NaT) == "—"


def test_frame_table_names_what_is_wrong_with_its_arguments() -> None:
    frame = pd.DataFrame({"amount_base": [12_345_600]})
    with pytest.raises(ValueError, match=r"'amout_base'.*amount_base"):
        frame_table(frame, money_columns={"amout_base"})  # a typo left raw base units
    with pytest.raises(TypeError, match="a pandas DataFrame"):
        frame_table(None)  # type: ignore[arg-type]
    assert repr(frame_table(frame.iloc[0:0])) == "Nothing to show."


def test_a_money_column_that_became_float_is_refused_with_the_way_out() -> None:
    gap = pd.DataFrame({"Amount": [12_345_600, None]})  # a gap: pandas makes it float64
    assert gap["Amount"].dtype == "float64"
    with pytest.raises(TypeError, match=r"'Amount' holds floats \(float64\).*'Int64'"):
        frame_table(gap, money_columns={"Amount"})
    with pytest.raises(TypeError, match="'0' holds floats"):
        frame_table(pd.DataFrame({0: [1.5]}), money_columns={"0"})
