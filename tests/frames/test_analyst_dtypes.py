"""What an analyst does next with a statement frame, and where money stays int64.

These pin what `as_relation`'s docstring says: pandas keeps `int64[pyarrow]` on its own;
DuckDB's SUM widens (a float through `.df()`), the documented CAST does not.
"""

from __future__ import annotations

import io
from typing import Any

import duckdb
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pixops.frames import (
    MONEY_COLUMNS,
    MONEY_DTYPE,
    STATEMENT_SCHEMA,
    as_relation,
    as_table,
    check_frame,
    load_statement,
    to_frame,
)


@pytest.fixture(scope="module")
def empty(demo_client: Any) -> pd.DataFrame:
    return load_statement(demo_client, "2025-06-01", "2025-06-01", progress=False)


def test_an_empty_window_has_the_schema_and_sums_to_an_int_zero(empty: pd.DataFrame) -> None:
    assert len(empty) == 0
    check_frame(empty)
    for column in MONEY_COLUMNS:
        assert empty[column].dtype == MONEY_DTYPE
        total = empty[column].sum()
        assert total == 0
        assert isinstance(total, int)
    assert as_table(empty).schema == STATEMENT_SCHEMA


def test_pandas_keeps_money_int64_through_an_analysts_steps(
    day: pd.DataFrame, empty: pd.DataFrame
) -> None:
    both = pd.concat([day, empty], ignore_index=True)
    check_frame(both)
    sums = day.groupby("direction", observed=True)["net_base"].sum()
    assert sums.dtype == MONEY_DTYPE
    assert int(sums.sum()) == sum(int(value) for value in day["net_base"])
    pivot = day.pivot_table(
        index="direction", columns="payment_status", values="amount_base", aggfunc="sum",
        observed=True,
    )  # fmt: skip
    assert all(dtype == MONEY_DTYPE for dtype in pivot.dtypes)
    ids = [*day["id"][:2], "not-a-row"]
    again = day.set_index("id")["amount_base"].reindex(ids)
    assert again.dtype == MONEY_DTYPE
    assert again.isna().tolist() == [False, False, True]
    merged = day.merge(day[["id", "fee_base"]], on="id", suffixes=("", "_again"))
    assert merged["fee_base_again"].dtype == MONEY_DTYPE
    # pandas' own choice: a mean is not money.
    assert day.groupby("direction", observed=True)["net_base"].mean().dtype != MONEY_DTYPE


def test_parquet_round_trip_is_exact(day: pd.DataFrame) -> None:
    buffer = io.BytesIO()
    pq.write_table(as_table(day), buffer)
    table = pq.read_table(io.BytesIO(buffer.getvalue()))
    assert table.equals(as_table(day))
    frame = pd.read_parquet(io.BytesIO(buffer.getvalue()), dtype_backend="pyarrow")
    check_frame(frame)
    assert to_frame(table).equals(day.reset_index(drop=True))


def test_duckdb_sum_widens_and_the_documented_cast_does_not(day: pd.DataFrame) -> None:
    relation = as_relation(day, duckdb.connect())
    widened = relation.aggregate("SUM(amount_base) AS total")
    assert widened.df()["total"].dtype == "float64"  # DuckDB's, not ours: see as_relation
    exact = relation.aggregate("CAST(SUM(amount_base) AS BIGINT) AS total").to_arrow_table()
    assert exact.schema.field("total").type == pa.int64()
    assert exact.column("total")[0].as_py() == sum(int(value) for value in day["amount_base"])
