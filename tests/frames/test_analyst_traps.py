"""The pandas moves `load_statement`'s docstring warns about, and the words of its refusals."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from pixops.frames import (
    MONEY_DTYPE,
    WINDOW_ATTR,
    LocalStore,
    SchemaDriftError,
    check_frame,
    load_statement,
)


def test_the_documented_traps_are_what_pandas_does(day: pd.DataFrame) -> None:
    # If pandas changes any of these, load_statement's docstring must change with it.
    kept = [
        day.set_index(day["created_at"].dt.tz_convert("America/Sao_Paulo"))
        .resample("D")["amount_base"]
        .sum(),
        day["amount_base"].fillna(0),
        day["amount_base"].cumsum(),
        pd.concat([day, day.iloc[:0]])["amount_base"],
    ]
    assert all(series.dtype == MONEY_DTYPE for series in kept)
    assert day["amount_base"].rolling(2).sum().dtype == "float64"
    assert pd.concat([day, pd.DataFrame(columns=day.columns)])["amount_base"].dtype == object
    buffer = io.BytesIO()
    day.to_parquet(buffer)
    with pytest.raises(TypeError):  # pandas cannot rebuild the dictionary columns alone
        pd.read_parquet(io.BytesIO(buffer.getvalue()))
    back = pd.read_parquet(io.BytesIO(buffer.getvalue()), dtype_backend="pyarrow")
    check_frame(back)
    assert back["amount_base"].tolist() == day["amount_base"].tolist()


def test_a_numpy_money_column_is_told_which_dtype_to_use(day: pd.DataFrame) -> None:
    with pytest.raises(SchemaDriftError, match=r"amount_base: int64 is not Arrow-backed "
                       r"\(want int64\[pyarrow\]\)"):  # fmt: skip
        check_frame(day.astype({"amount_base": "int64"}))


@pytest.mark.parametrize(
    ("status", "hint"),
    [
        ("completed", "matches the payment_status column, not status"),
        ("Settled", "write 'settled'"),
        (" FAILED ", "write 'failed'"),
    ],
)
def test_a_status_filter_of_another_column_says_which_column_it_filters(
    status: str, hint: str
) -> None:
    # Refused before any call: no client is needed to find the mistake.
    with pytest.raises(ValueError, match=f"status must be one of .*{hint}"):
        load_statement(object(), "2026-01-15", "2026-01-15", status=status)


def test_loaded_frames_carry_the_window_they_were_loaded_for(
    demo_client: Any, day: pd.DataFrame, tmp_path: Path
) -> None:
    window = {"start": "2026-01-15T03:00:00+00:00", "end": "2026-01-16T03:00:00+00:00"}
    assert day.attrs[WINDOW_ATTR] == window
    store = LocalStore(tmp_path / "pix.duckdb")
    store.sync(demo_client, "2026-01-15", "2026-01-15", tz="America/Sao_Paulo", progress=False)
    stored = store.statement("2026-01-15", "2026-01-15", tz="America/Sao_Paulo")
    store.close()
    assert stored.attrs[WINDOW_ATTR] == window
