"""One DuckDB database per process; each use gets its own connection."""

from __future__ import annotations

import os

import duckdb
import pyarrow as pa
import pytest

from pixops.recon import _database, _steps


def test_each_cursor_has_its_own_registrations() -> None:
    with _database.cursor() as first, _database.cursor() as second:
        first.register("mine", pa.table({"x": [1]}))
        assert first.execute("SELECT x FROM mine").fetchall() == [(1,)]
        with pytest.raises(duckdb.CatalogException):
            second.execute("SELECT x FROM mine")


def test_insertion_order_is_not_kept() -> None:
    with _database.cursor() as con:
        row = con.execute("SELECT current_setting('preserve_insertion_order')").fetchone()
    assert row == (False,)


def test_only_the_steps_grouping_every_row_use_a_perfect_hash_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`picks` and `claims` group a million rows by number (an array indexed by it is
    half the CPU); the rules' steps group few rows, where that array costs more."""
    bits = "SELECT current_setting('perfect_ht_threshold') AS bits"
    steps = (("picks", bits, True), ("claims", bits, True), ("inferred", bits, True))
    monkeypatch.setattr(_steps, "STEPS", steps)
    with _database.cursor() as con:
        before = con.execute(bits).fetchone()
        with _steps.run_steps(con, "UTC", {}) as ran:
            found = {
                name: ran.execute(f"SELECT bits FROM {name}").fetchone() for name, _, _ in steps
            }
        after = con.execute(bits).fetchone()
    assert found == {"picks": (22,), "claims": (22,), "inferred": before}
    assert before == after == (12,)


def test_a_forked_child_opens_its_own_database(monkeypatch: pytest.MonkeyPatch) -> None:
    _database.cursor().close()
    parent = _database._database
    monkeypatch.setattr(os, "getpid", lambda: -1)
    _database.cursor().close()
    assert _database._database is not parent
