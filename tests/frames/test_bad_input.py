"""Bad input to the public frames functions ends in a clear error, never a crash inside."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from pixops.frames import (
    MONEY_DTYPE,
    LocalStore,
    SchemaDriftError,
    as_table,
    brl_text,
    check_table,
    conform_table,
    day_window,
    deduplicate_by_id,
    load_statement,
    money_column,
    parse_pages,
    read_statement,
    to_frame,
    zone_meant,
)
from tests.recon.builders import statement_row, statement_table


def _with_copy_of(table: pa.Table, name: str) -> pa.Table:
    return pa.Table.from_arrays(
        [*table.columns, table.column(name)], names=[*table.column_names, name]
    )


@pytest.mark.parametrize("name", ["id", "amount_base"])
@pytest.mark.parametrize("check", [check_table, conform_table, as_table])
def test_a_table_with_a_column_twice_is_drift_not_a_key_error(check: object, name: str) -> None:
    table = _with_copy_of(statement_table([statement_row(1)]), name)
    with pytest.raises(SchemaDriftError, match=rf"columns \['{name}'\] appear more than once"):
        check(table)  # type: ignore[operator]


def test_deduplicate_by_id_names_a_second_id_column() -> None:
    table = _with_copy_of(statement_table([statement_row(1)]), "id")
    with pytest.raises(SchemaDriftError, match="2 columns named 'id'; keep one"):
        deduplicate_by_id(table)


def test_a_csv_with_a_second_id_column_is_drift(tmp_path: Path) -> None:
    frame = to_frame(statement_table([statement_row(1)]))
    frame.insert(len(frame.columns), "copy", frame["id"])
    path = tmp_path / "statement.csv"
    path.write_text(frame.to_csv(index=False).replace(",copy\n", ",id\n", 1))
    with pytest.raises(SchemaDriftError, match=r"columns \['id'\] appear more than once"):
        read_statement(path)


@pytest.mark.parametrize(
    ("start", "end", "tz"),
    [("9999-12-31", "9999-12-31", None), ("0001-01-01", "0001-01-01", "Asia/Tokyo")],
)
def test_a_day_at_the_calendars_end_is_a_value_error(start: str, end: str, tz: str | None) -> None:
    with pytest.raises(ValueError, match="reach past the calendar's ends"):
        day_window(start, end, tz)


@pytest.mark.parametrize("typed", [None, 5, ["America/Sao_Paulo"]])
def test_zone_meant_refuses_what_is_not_text(typed: object) -> None:
    with pytest.raises(TypeError, match="zone_meant takes the name typed"):
        zone_meant(typed)  # type: ignore[arg-type]


class _NoPages:
    """A client whose pages are never reached: the arguments are refused first."""

    class statement:  # noqa: N801 (the client's attribute name)
        @staticmethod
        def iter_raw(**filters: object) -> Iterator[bytes]:
            raise AssertionError(f"nothing should be fetched ({filters})")

    transactions = statement


@pytest.mark.parametrize("name", ["status", "type"])
@pytest.mark.parametrize("value", [pd.Series(["settled"]), np.array(["pix"]), ["pix"]])
def test_a_filter_given_several_values_says_it_takes_one(name: str, value: object) -> None:
    with pytest.raises(ValueError, match=r"must be one of .* \(the filter takes one value") as got:
        load_statement(_NoPages(), "2026-01-15", "2026-01-15", progress=False, **{name: value})
    assert "truth value" not in str(got.value)


def test_link_refunds_must_be_a_bool() -> None:
    with pytest.raises(TypeError, match="link_refunds must be True or False, not 'no'"):
        load_statement(_NoPages(), "2026-01-15", "2026-01-15", progress=False, link_refunds="no")


def test_per_page_from_numpy_is_an_integer(demo_client: Any) -> None:
    frame = load_statement(
        demo_client, "2026-01-15", "2026-01-15", progress=False, per_page=np.int64(100)
    )
    assert len(frame) > 0
    with pytest.raises(ValueError, match=r"per_page must be an integer from 1 to 100, not 0"):
        load_statement(_NoPages(), "2026-01-15", "2026-01-15", progress=False, per_page=0)


@pytest.mark.parametrize(("first", "last"), [("2026-01-01", "2026-01-02"), (None, None)])
def test_unsynced_days_checks_its_days_as_days_to_fetch_does(first: object, last: object) -> None:
    with LocalStore() as store, pytest.raises(TypeError, match="first must be a date, not"):
        store.unsynced_days(first, last)  # type: ignore[arg-type]


def test_unsynced_days_refuses_a_reversed_range() -> None:
    with LocalStore() as store, pytest.raises(ValueError, match=r"last \(2026-01-01\) is before"):
        store.unsynced_days(date(2026, 1, 2), date(2026, 1, 1))


def test_sync_refuses_a_wrong_client_or_progress_when_nothing_is_due(demo_client: Any) -> None:
    with LocalStore() as store:
        store.sync(demo_client, "2026-01-15", "2026-01-15", progress=False)
        # Every day is now final: nothing would be fetched, so nothing used to be checked.
        with pytest.raises(TypeError, match=r"client must be a pixops.Client"):
            store.sync(None, "2026-01-15", "2026-01-15", progress=False)
        with pytest.raises(TypeError, match="progress must be True or False, not 'x'"):
            store.sync(demo_client, "2026-01-15", "2026-01-15", progress="x")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("values", "said"),
    [
        (None, "not NoneType"),
        (5, "not int"),
        ("12345", "not str"),
        (pd.DataFrame({"amount_base": [1]}), r"takes one column \(frame\['amount_base'\]\)"),
    ],
)
def test_money_column_names_what_is_not_a_column_of_money(values: object, said: str) -> None:
    with pytest.raises(TypeError, match=said):
        money_column(values)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=said):
        brl_text(values)  # type: ignore[arg-type]


def test_money_column_takes_numpy_integers_and_refuses_numpy_floats() -> None:
    for values in (np.array([1, 2]), [np.int64(1), np.int32(2)]):
        column = money_column(values)
        assert column.dtype == MONEY_DTYPE
        assert column.tolist() == [1, 2]
    with pytest.raises(TypeError, match="not float64"):
        money_column(np.array([1.0, 2.0]))
    with pytest.raises(TypeError, match="money must be integers in base units"):
        money_column([np.float64(1.0)])


@pytest.mark.parametrize("path", [None, 5, pd.DataFrame()])
def test_read_statement_names_a_path_that_is_not_one(path: object) -> None:
    with pytest.raises(TypeError, match="path must be a file path"):
        read_statement(path)  # type: ignore[arg-type]


@pytest.mark.parametrize("pages", [None, 5])
def test_parse_pages_names_what_is_not_pages(pages: object) -> None:
    with pytest.raises(TypeError, match="pages must be an iterable of page bodies"):
        parse_pages(pages)  # type: ignore[arg-type]
