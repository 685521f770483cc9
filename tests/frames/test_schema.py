"""The declared schema: any drifted column raises, the declared one passes."""

from __future__ import annotations

import re

import pandas as pd
import pyarrow as pa
import pytest

from pixops.frames import (
    STATEMENT_SCHEMA,
    SchemaDriftError,
    check_frame,
    check_table,
    conform_table,
    deduplicate_by_id,
    to_frame,
)
from tests.recon.builders import statement_row, statement_table


@pytest.fixture
def frame() -> pd.DataFrame:
    return to_frame(statement_table([statement_row(n) for n in range(3)]))


def test_the_declared_frame_passes(frame: pd.DataFrame) -> None:
    assert check_frame(frame) is frame
    assert str(frame["amount_base"].dtype) == "int64[pyarrow]"
    assert str(frame["created_at"].dtype) == "timestamp[us, tz=UTC][pyarrow]"
    assert pa.types.is_dictionary(frame["payment_status"].dtype.pyarrow_dtype)


def test_money_turned_float_is_drift(frame: pd.DataFrame) -> None:
    drifted = frame.assign(amount_base=frame["amount_base"].astype("float64"))
    with pytest.raises(SchemaDriftError, match="amount_base: float64 is not Arrow-backed"):
        check_frame(drifted)


def test_money_as_numpy_int_is_drift(frame: pd.DataFrame) -> None:
    with pytest.raises(SchemaDriftError, match="fee_base"):
        check_frame(frame.assign(fee_base=frame["fee_base"].astype("int64")))


def test_arrow_double_is_drift(frame: pd.DataFrame) -> None:
    drifted = frame.assign(net_base=frame["net_base"].astype(pd.ArrowDtype(pa.float64())))
    with pytest.raises(SchemaDriftError, match=r"net_base: double \(want int64\)"):
        check_frame(drifted)


def test_missing_extra_and_reordered_columns_are_drift(frame: pd.DataFrame) -> None:
    with pytest.raises(SchemaDriftError, match="missing columns"):
        check_frame(frame.drop(columns=["tag"]))
    with pytest.raises(
        SchemaDriftError,
        match=re.escape("(keep the declared ones first: frame[STATEMENT_SCHEMA.names])"),
    ):
        check_frame(frame.assign(extra=1))
    with pytest.raises(SchemaDriftError, match="out of order"):
        check_frame(frame[list(reversed(frame.columns))])


def test_naive_timestamps_are_drift(frame: pd.DataFrame) -> None:
    naive = frame["created_at"].astype(pd.ArrowDtype(pa.timestamp("us")))
    with pytest.raises(SchemaDriftError, match="created_at"):
        check_frame(frame.assign(created_at=naive))


def test_a_null_in_a_required_column_is_drift(frame: pd.DataFrame) -> None:
    table = pa.Table.from_pandas(frame, preserve_index=False)
    broken = table.set_column(
        0, pa.field("id", pa.string()), pa.array([None, "b", "c"], pa.string())
    )
    with pytest.raises(SchemaDriftError, match="nulls in a non-null column"):
        check_table(broken)


def test_not_a_frame_is_refused() -> None:
    with pytest.raises(SchemaDriftError):
        check_frame([1, 2])  # type: ignore[arg-type]
    with pytest.raises(SchemaDriftError):
        check_table({"id": []})  # type: ignore[arg-type]


def test_the_empty_schema_table_passes() -> None:
    assert check_table(STATEMENT_SCHEMA.empty_table()).num_rows == 0


def test_a_column_twice_is_drift_not_an_attribute_error(frame: pd.DataFrame) -> None:
    doubled = pd.concat([frame, frame[["amount_base"]]], axis=1)
    with pytest.raises(SchemaDriftError, match=r"columns \['amount_base'\] appear more than once"):
        check_frame(doubled)


@pytest.mark.parametrize(
    ("column", "values", "message"),
    [
        # A whole float cast to int64 without a word: float money passed through.
        ("amount_base", pa.array([100.0], pa.float64()), "is not integer base units"),
        ("fee_base", pa.array(["12"]), "is not integer base units"),
        ("net_base", pa.array([1], pa.decimal128(10, 0)), "is not integer base units"),
        # A naive timestamp became UTC by guess.
        ("created_at", pa.array([0], pa.timestamp("us")), "is not a time-zone-aware"),
        ("completed_at", pa.array(["2026-01-15 12:00:00"]), "is not a time-zone-aware"),
    ],
)
def test_conform_table_refuses_casts_that_change_meaning(
    column: str, values: pa.Array, message: str
) -> None:
    table = statement_table([statement_row(1)])
    table = table.set_column(table.schema.get_field_index(column), column, values)
    with pytest.raises(SchemaDriftError, match=f"{column}: .* {message}"):
        conform_table(table)


def test_tables_only() -> None:
    frame = to_frame(statement_table([statement_row(1)]))
    with pytest.raises(SchemaDriftError, match=r"expected a pyarrow\.Table"):
        conform_table(frame)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"expected a pyarrow\.Table"):
        to_frame(frame)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"expected a pyarrow\.Table with an 'id' column"):
        deduplicate_by_id(frame)  # type: ignore[arg-type]
