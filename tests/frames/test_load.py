"""Loading through the client: business-day windows, schema, refunds linked, no float."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import duckdb
import pandas as pd
import pyarrow as pa
import pytest

from pixops.frames import (
    STATEMENT_SCHEMA,
    as_relation,
    as_table,
    check_frame,
    load_statement,
    load_statement_table,
    load_transactions,
)

MONEY = pd.ArrowDtype(pa.int64())


@pytest.fixture(scope="module")
def day(demo_client: Any) -> pd.DataFrame:
    return load_statement(
        demo_client, "2026-01-15", "2026-01-15", tz="America/Sao_Paulo", progress=False
    )


def test_a_business_day_is_trimmed_at_both_ends(demo_client: Any, day: pd.DataFrame) -> None:
    start, end = datetime(2026, 1, 15, 3, tzinfo=UTC), datetime(2026, 1, 16, 3, tzinfo=UTC)
    assert day["created_at"].min() >= start
    assert day["created_at"].max() < end
    utc_days = load_statement(demo_client, "2026-01-15", "2026-01-16", progress=False)
    inside = utc_days[(utc_days["created_at"] >= start) & (utc_days["created_at"] < end)]
    assert sorted(day["id"]) == sorted(inside["id"])
    assert len(day) == 302  # the demo month's 15th (see data/README.md)


def test_rows_agree_with_the_clients_model_path(demo_client: Any, day: pd.DataFrame) -> None:
    models = {
        item.id: item
        for item in demo_client.statement.iter(date_from="2026-01-15", date_to="2026-01-16")
    }
    for row in day.head(50).itertuples(index=False):
        model = models[row.id]
        assert (int(model.amount), int(model.fee_amount), int(model.net_amount)) == (
            row.amount_base,
            row.fee_base,
            row.net_base,
        )
        assert model.transaction_id == row.transaction_id


def test_the_frame_has_the_declared_schema(day: pd.DataFrame) -> None:
    check_frame(day)
    assert list(day.columns) == STATEMENT_SCHEMA.names
    assert day["id"].is_unique


def test_refunds_are_linked_to_their_originals(day: pd.DataFrame) -> None:
    refunds = day[day["end_to_end_id"].str.startswith("D")]
    assert len(refunds) > 0
    assert refunds["original_transaction_id"].notna().all()
    assert (
        day.loc[~day["end_to_end_id"].str.startswith("D"), "original_transaction_id"].isna().all()
    )


def test_no_float_after_merges_groupbys_and_missing_values(day: pd.DataFrame) -> None:
    for name in ("amount_base", "fee_base", "net_base"):
        assert day[name].dtype == MONEY
    sums = day.groupby("direction", observed=True)[["amount_base", "fee_base"]].sum()
    assert all(dtype == MONEY for dtype in sums.dtypes)
    ledger = pd.DataFrame(
        {
            "transaction_id": pd.array(
                ["nope", day["transaction_id"].iloc[0]], dtype="string[pyarrow]"
            ),
            "expected_base": pd.array([1, 2], dtype=MONEY),
        }
    )
    merged = day.merge(ledger, on="transaction_id", how="outer")
    assert merged["amount_base"].dtype == MONEY
    assert merged["expected_base"].dtype == MONEY
    assert merged["amount_base"].isna().sum() == 1
    assert (merged["amount_base"] - merged["expected_base"]).dtype == MONEY
    total = int(day["net_base"].sum())
    assert total == sum(int(v) for v in day["net_base"])


def test_duckdb_relation_sums_exactly(day: pd.DataFrame) -> None:
    con = duckdb.connect()
    relation = as_relation(day, con)
    total = relation.aggregate("CAST(SUM(net_base) AS BIGINT) AS total").to_arrow_table()
    assert total.schema.field("total").type == pa.int64()
    assert total.column("total")[0].as_py() == sum(int(v) for v in day["net_base"])
    assert as_table(day).schema == STATEMENT_SCHEMA


def test_table_and_transactions(demo_client: Any) -> None:
    table = load_statement_table(demo_client, "2026-01-15", "2026-01-15", progress=False)
    assert table.schema == STATEMENT_SCHEMA
    listed = load_transactions(
        demo_client,
        "2026-01-01",
        "2026-01-31",
        tz="America/Sao_Paulo",
        progress=False,
        status="rejected",
    )
    assert len(listed) > 0
    assert set(listed["payment_status"].astype("string")) == {"rejected"}
    assert listed["external_id"].notna().all()


def test_progress_bar_can_be_switched_off(
    demo_client: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    load_statement(demo_client, "2026-01-15", "2026-01-15", progress=True, link_refunds=False)
    assert "page" in capsys.readouterr().err
    load_statement(demo_client, "2026-01-15", "2026-01-15", progress=False, link_refunds=False)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    ("filters", "error"),
    [
        ({"date_from": "2026-01-01"}, "unknown filters"),
        ({"status": "paid"}, "status must be one of"),
        ({"type": "boleto"}, "type must be one of"),
        ({"per_page": 0}, "per_page"),
        ({"per_page": True}, "per_page"),
    ],
)
def test_bad_filters_are_refused(demo_client: Any, filters: dict[str, Any], error: str) -> None:
    with pytest.raises(ValueError, match=error):
        load_statement(demo_client, "2026-01-15", "2026-01-15", progress=False, **filters)


def test_not_a_client_is_refused() -> None:
    with pytest.raises(TypeError, match=r"pixops\.Client"):
        load_statement(object(), "2026-01-15", "2026-01-15", progress=False)
    with pytest.raises(TypeError, match="progress"):
        load_statement(object(), "2026-01-15", "2026-01-15", progress="no")  # type: ignore[arg-type]


def test_a_connection_given_keeps_its_time_zone(day: pd.DataFrame) -> None:
    con = duckdb.connect()
    con.execute("SET TimeZone = 'America/Sao_Paulo'").fetchall()
    relation = as_relation(day, con)
    assert con.execute("SELECT current_setting('TimeZone')").fetchall() == [("America/Sao_Paulo",)]
    first = relation.aggregate("MIN(created_at) AS first").to_arrow_table().column("first")[0]
    assert first.as_py() == day["created_at"].min().to_pydatetime()  # the same instant
    own = as_relation(day)
    assert own.query("r", "SELECT current_setting('TimeZone')").fetchall() == [("UTC",)]
    with pytest.raises(TypeError, match="DuckDB connection"):
        as_relation(day, "not a connection")  # type: ignore[arg-type]
