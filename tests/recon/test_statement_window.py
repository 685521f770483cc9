"""`reconcile` warns when a loaded statement does not cover the days it reports on.

`load_statement` counts UTC days unless given ``tz`` while `reconcile` counts São Paulo
days: reconciling a UTC-loaded day turned the evening's ledger entries into silent
``missing_in_statement`` findings.
"""

from __future__ import annotations

import io
import warnings
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from pixops.frames import WINDOW_ATTR, as_table, load_statement
from pixops.recon import ReconResult, reconcile

LEDGER = Path(__file__).resolve().parents[2] / "data" / "sample_ledger.csv"
SP = "America/Sao_Paulo"


@pytest.fixture(scope="module")
def client() -> Any:
    from pixops.demo import demo_month

    month = demo_month()
    return month.sandbox.client(month.api_key)


def run(statement: pd.DataFrame | Any) -> tuple[ReconResult, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = reconcile(statement, LEDGER, start="2026-01-15", end="2026-01-15")
    return result, [str(w.message) for w in caught if issubclass(w.category, UserWarning)]


def test_a_statement_of_utc_days_is_warned_about(client: Any) -> None:
    statement = load_statement(client, "2026-01-15", "2026-01-15", progress=False)
    result, said = run(statement)
    assert result.counts["missing_in_statement"] > 1  # what the warning is about
    assert len(said) == 1
    assert "does not cover the days reported on" in said[0]
    assert "tz='America/Sao_Paulo'" in said[0]


def test_the_day_alone_is_warned_about_for_timing(client: Any) -> None:
    statement = load_statement(client, "2026-01-15", "2026-01-15", tz=SP, progress=False)
    result, said = run(statement)
    assert result.counts["timing_difference"] == 0
    assert len(said) == 1
    assert "a whole day either side" in said[0]


def test_a_day_either_side_is_quiet_and_survives_filters_and_parquet(client: Any) -> None:
    statement = load_statement(client, "2026-01-14", "2026-01-16", tz=SP, progress=False)
    result, said = run(statement)
    assert said == []
    assert result.counts["timing_difference"] == 1
    assert run(statement[statement["amount_base"] > 0])[1] == []
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the mark is JSON: pyarrow keeps it without a word
        as_table(statement)
        statement.to_parquet(buffer)
    back = pd.read_parquet(io.BytesIO(buffer.getvalue()), dtype_backend="pyarrow")
    assert back.attrs[WINDOW_ATTR] == statement.attrs[WINDOW_ATTR]


def test_a_table_or_an_unmarked_frame_is_not_judged(client: Any) -> None:
    statement = load_statement(client, "2026-01-15", "2026-01-15", progress=False)
    assert run(as_table(statement))[1] == []
    statement.attrs.clear()
    assert run(statement)[1] == []


def test_overlapping_loads_concatenated_are_warned_about_once(client: Any) -> None:
    first = load_statement(client, "2026-01-14", "2026-01-15", tz=SP, progress=False)
    second = load_statement(client, "2026-01-15", "2026-01-16", tz=SP, progress=False)
    both = pd.concat([first, second], ignore_index=True)
    result, said = run(both)
    copies = [text for text in said if "repeat an id" in text]
    assert len(copies) == 1
    assert copies[0].startswith(f"{result.counts['duplicate'] - 1} statement rows")
    assert "drop_duplicates('id', keep='last')" in copies[0]
    clean, said = run(both.drop_duplicates("id", keep="last"))
    assert clean.counts["duplicate"] == 1  # the planted double booking
    assert not [text for text in said if "repeat an id" in text]


def test_balance_snapshots_outside_the_loaded_statement_are_left_out(client: Any) -> None:
    """Every snapshot of the month beside a statement of three days gave 30 balances that
    "do not close": the statement lacks the movements around them."""
    from pixops.recon import read_balances

    snapshots = read_balances(LEDGER.parent / "balances.csv")
    statement = load_statement(client, "2026-01-14", "2026-01-16", tz=SP, progress=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = reconcile(
            statement, LEDGER, balances=snapshots, start="2026-01-15", end="2026-01-15"
        )
    said = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    loaded_from, loaded_to = (
        datetime(2026, 1, 14, 3, tzinfo=UTC),
        datetime(2026, 1, 17, 3, tzinfo=UTC),
    )
    inside = [s for s in snapshots if loaded_from <= s[0] <= loaded_to]
    assert len(said) == 1
    assert f"{len(snapshots) - len(inside)} of {len(snapshots)} balance snapshots" in said[0]
    assert len(result.rollforward) == len(inside) - 1
    # Only the planted break remains: the treasury's closing of the 15th, R$ 150,00 short.
    assert list(result.category("balance_difference")["difference_base"]) == [-1_500_000]
