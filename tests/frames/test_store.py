"""The local DuckDB store: a month downloaded once, refreshed by delta, keyed by id."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from pixops.frames import STATEMENT_SCHEMA, LocalStore, load_statement
from pixops.sandbox import Sandbox


def test_a_month_is_downloaded_once(demo_client: Any, tmp_path: Path) -> None:
    path = tmp_path / "pix.duckdb"
    now = demo_client.balance().as_of
    with LocalStore(path) as store:
        first = store.sync(demo_client, "2026-01-10", "2026-01-12", now=now, progress=False)
        assert first.days_fetched == (date(2026, 1, 10), date(2026, 1, 11), date(2026, 1, 12))
        assert first.rows_inserted == first.rows_fetched > 0
        rows = store.row_count()
    with LocalStore(path) as store:  # reopened from the file
        again = store.sync(demo_client, "2026-01-10", "2026-01-13", now=now, progress=False)
        assert again.days_fetched == (date(2026, 1, 13),)
        assert again.days_skipped == (date(2026, 1, 10), date(2026, 1, 11), date(2026, 1, 12))
        assert store.row_count() == rows + again.rows_inserted
        stored = store.statement("2026-01-10", "2026-01-13")
    direct = load_statement(demo_client, "2026-01-10", "2026-01-13", progress=False)
    assert list(stored.columns) == STATEMENT_SCHEMA.names
    assert (
        stored.sort_values("id")
        .reset_index(drop=True)
        .equals(direct.sort_values("id").reset_index(drop=True))
    )


def test_in_flight_rows_are_updated_when_they_settle() -> None:
    sandbox = Sandbox()
    merchant = sandbox.create_merchant("Loja", balance_centavos=1_000_000)
    client = sandbox.client(sandbox.issue_api_key(merchant.id))
    payout = client.pix.cash_out(
        pix_key="maria.silva@sandbox.pixops.dev", pix_key_type="email", amount_centavos=1_000
    )
    day = sandbox.now().date()
    with LocalStore() as store:
        store.sync(client, day, day, now=sandbox.now(), progress=False)
        before = store.statement(day, day)
        assert list(before["payment_status"].astype("string")) == ["processing"]
        sandbox.advance(minutes=5)
        report = store.sync(client, day, day, now=sandbox.now(), progress=False)
        after = store.statement(day, day)
    assert (report.rows_inserted, report.rows_updated, report.rows_unchanged) == (0, 1, 0)
    assert list(after["transaction_id"]) == [payout.transaction_id]
    assert list(after["payment_status"].astype("string")) == ["settled"]
    assert after["completed_at"].notna().all()


def test_rerunning_never_duplicates(demo_client: Any) -> None:
    with LocalStore() as store:
        now = demo_client.balance().as_of
        store.sync(demo_client, "2026-02-12", "2026-02-13", now=now, progress=False)
        count = store.row_count()
        # The 13th was synced before it was over: fetched again, upserted, not duplicated.
        report = store.sync(demo_client, "2026-02-12", "2026-02-13", now=now, progress=False)
        assert date(2026, 2, 13) in report.days_fetched
        assert store.row_count() == count
        # Fetched again exactly as stored: nothing counts as updated.
        assert report.rows_fetched > 0
        assert (report.rows_inserted, report.rows_updated) == (0, 0)
        assert report.rows_unchanged == report.rows_fetched
        ids = store.connection.execute(
            "SELECT COUNT(DISTINCT id), COUNT(*) FROM statement"
        ).fetchone()
        assert ids is not None
        assert ids[0] == ids[1]


def test_bad_arguments() -> None:
    with pytest.raises(TypeError):
        LocalStore(42)  # type: ignore[arg-type]
    with LocalStore() as store, pytest.raises(ValueError, match="aware"):
        store.sync(object(), "2026-01-01", "2026-01-01", now="yesterday")  # type: ignore[arg-type]


def test_a_path_that_is_no_store_is_a_value_error_naming_it(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.duckdb"
    garbage.write_bytes(b"not a database" * 100)
    for path in (tmp_path, garbage, garbage / "x.duckdb"):
        with pytest.raises(ValueError, match=re.escape(f"cannot open the store {path}")):
            LocalStore(path)


def test_a_missing_folder_of_the_store_is_made(tmp_path: Path) -> None:
    path = tmp_path / "data" / "out" / "pix.duckdb"
    with LocalStore(path) as store:
        assert store.days_to_fetch(date(2026, 1, 2), date(2026, 1, 2)) == [date(2026, 1, 2)]
    assert path.is_file()


def test_a_store_path_under_a_file_or_a_folder_says_so(tmp_path: Path) -> None:
    blocker = tmp_path / "notes.txt"
    blocker.write_text("a file where a folder should be")
    with pytest.raises(ValueError, match=r"is under a file .*notes\.txt.*: give a folder"):
        LocalStore(blocker / "pix.duckdb")
    with pytest.raises(ValueError, match=r"is a folder, not a file: .*pix\.duckdb"):
        LocalStore(tmp_path)


def test_days_to_fetch_refuses_a_range_that_runs_backwards_or_is_no_dates() -> None:
    with LocalStore() as store:
        assert store.days_to_fetch(date(2026, 1, 2), date(2026, 1, 2)) == [date(2026, 1, 2)]
        with pytest.raises(ValueError, match=r"last \(2026-01-01\) is before first"):
            store.days_to_fetch(date(2026, 1, 2), date(2026, 1, 1))
        with pytest.raises(TypeError, match="first must be a date, not str"):
            store.days_to_fetch("2026-01-01", date(2026, 1, 1))  # type: ignore[arg-type]


def test_a_closed_store_says_so() -> None:
    store = LocalStore()
    store.close()
    for use in (
        store.row_count,
        lambda: store.statement("2026-01-01", "2026-01-01"),
        lambda: store.days_to_fetch(date(2026, 1, 1), date(2026, 1, 1)),
        lambda: store.sync(object(), "2026-01-01", "2026-01-01"),
    ):
        with pytest.raises(ValueError, match="the store :memory: is closed"):
            use()
