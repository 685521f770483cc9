"""Bad input to the reconciliation's public functions ends in a clear error, never a
crash from deep inside pyarrow or pandas."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pixops.money import INT64_MAX, INT64_MIN
from pixops.recon import (
    LEDGER_SCHEMA,
    LedgerError,
    balances_table,
    read_balances,
    read_ledger,
    reconcile,
)
from tests.recon.builders import statement_row, statement_table

SAMPLE = Path(__file__).parents[2] / "data" / "sample_ledger.csv"
AT = pd.Timestamp("2026-01-15T03:00Z")


def _ledger(rows: int = 3) -> pd.DataFrame:
    return pd.read_csv(SAMPLE, dtype=str, nrows=rows)


def test_a_ledger_frame_with_a_column_twice_is_named() -> None:
    frame = _ledger()
    doubled = pd.concat([frame, frame[["memo"]]], axis=1)
    with pytest.raises(
        LedgerError, match=r"ledger frame has columns named more than once: \['memo'\]"
    ):
        read_ledger(doubled)


@pytest.mark.parametrize(
    ("frame", "said"),
    [
        (
            pd.DataFrame([[AT, 1, 2]], columns=["as_of", "balance_base", "balance_base"]),
            r"balances frame has columns named more than once: \['balance_base'\]",
        ),
        (
            pd.DataFrame(
                {
                    "as_of": [AT, AT + pd.Timedelta(hours=1)],
                    "balance_base": pd.Series([1, "x"], dtype=object),
                }
            ),
            r"balances frame: .*balance_base.* \(give each column one type of value",
        ),
    ],
)
def test_a_balances_frame_arrow_cannot_take_is_a_value_error(
    frame: pd.DataFrame, said: str
) -> None:
    with pytest.raises(ValueError, match=said):
        balances_table(frame)


def test_a_webhooks_frame_with_a_column_twice_is_named() -> None:
    webhooks = pd.DataFrame(
        [["transaction.completed", "PIXIN1", None, AT, "x"]],
        columns=["type", "transaction_id", "original_transaction_id", "created_at", "type"],
    )
    statement = statement_table([statement_row(1)])
    with pytest.raises(
        ValueError, match=r"webhooks frame has columns named more than once: \['type'\]"
    ):
        reconcile(statement, _ledger(), webhooks=webhooks)


def test_a_ledger_frame_column_of_none_reads_as_the_empty_cells_of_a_file(tmp_path: Path) -> None:
    """A column of None only (Arrow's null type) means what empty cells in a CSV mean."""
    frame = _ledger().assign(status=None, fee_base=None)
    path = tmp_path / "ledger.csv"
    frame.to_csv(path, index=False)
    from_frame = read_ledger(frame)
    assert from_frame.equals(read_ledger(path))
    assert from_frame.column("status").null_count == 3  # empty status: settled
    with pytest.raises(LedgerError, match="3 ledger rows without reference"):
        read_ledger(frame.assign(reference=None))
    with pytest.raises(LedgerError, match="3 ledger rows without amount_base"):
        read_ledger(frame.assign(amount_base=None))


def test_a_header_only_ledger_without_a_line_end_is_an_empty_ledger(tmp_path: Path) -> None:
    header = SAMPLE.read_text().splitlines()[0]
    for text in (header, header + "\n"):
        path = tmp_path / "ledger.csv"
        path.write_text(text)
        assert read_ledger(path).num_rows == 0


@pytest.mark.parametrize("path", [None, 5, pd.DataFrame()])
def test_read_balances_names_a_path_that_is_not_one(path: object) -> None:
    with pytest.raises(TypeError, match="path must be the snapshots CSV's path"):
        read_balances(path)  # type: ignore[arg-type]


def test_read_balances_says_a_folder_is_a_folder(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="is a folder, not a balance snapshots CSV file"):
        read_balances(tmp_path)


def test_read_balances_reads_a_semicolon_file_as_the_ledger_is_read(tmp_path: Path) -> None:
    path = tmp_path / "balances.csv"
    path.write_text("as_of;balance_base;memo\n2026-01-15T03:00:00Z;5000;abertura\n")
    assert read_balances(path) == [(AT.to_pydatetime(), 5000)]


def test_read_balances_refuses_a_header_naming_the_balance_twice(tmp_path: Path) -> None:
    path = tmp_path / "balances.csv"
    path.write_text("as_of,balance_base,balance_base\n2026-01-15T03:00:00Z,5000,memo\n")
    with pytest.raises(ValueError, match=r"names \['balance_base'\] more than once"):
        read_balances(path)


@settings(max_examples=60, deadline=None)
@given(
    separator=st.sampled_from([",", ";", "\t"]),
    balances=st.lists(st.integers(min_value=INT64_MIN, max_value=INT64_MAX), max_size=5),
)
def test_read_balances_reads_every_separator_exactly(separator: str, balances: list[int]) -> None:
    """Whatever the separator the header uses, each balance reads back as written."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "balances.csv"
        lines = [separator.join(["as_of", "balance_base", "memo"])]
        moments = [AT + pd.Timedelta(hours=n) for n in range(len(balances))]
        for moment, balance in zip(moments, balances, strict=True):
            lines.append(separator.join([moment.isoformat(), str(balance), "nota"]))
        path.write_text("\n".join(lines) + "\n")
        assert read_balances(path) == [
            (moment.to_pydatetime(), balance)
            for moment, balance in zip(moments, balances, strict=True)
        ]


@settings(max_examples=30, deadline=None)
@given(separator=st.sampled_from([",", ";", "\t"]), line_end=st.sampled_from(["", "\n", "\r\n"]))
def test_a_header_alone_is_an_empty_ledger_whatever_its_separator(
    separator: str, line_end: str
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "ledger.csv"
        path.write_text(separator.join(LEDGER_SCHEMA.names) + line_end, newline="")
        assert read_ledger(path).num_rows == 0
