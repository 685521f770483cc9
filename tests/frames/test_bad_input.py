"""Bad input to the public frames functions ends in a clear error, never a crash inside."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from pixops.frames import (
    SchemaDriftError,
    as_table,
    check_table,
    conform_table,
    day_window,
    deduplicate_by_id,
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
