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
    deduplicate_by_id,
    read_statement,
    to_frame,
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
