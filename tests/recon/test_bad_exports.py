"""Exports of a reconciliation aimed where they cannot go, and a balance the service
answered oddly: a clear error naming the folder, and nothing half written."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow.parquet as pq
import pytest

from pixops.money import MoneyError
from pixops.recon import ReconResult, _result, balance_snapshot, reconcile
from tests.recon.builders import statement_row, statement_table

SAMPLE = Path(__file__).parents[2] / "data" / "sample_ledger.csv"


@pytest.fixture(scope="module")
def small_result() -> ReconResult:
    statement = statement_table([statement_row(1), statement_row(2)])
    return reconcile(
        statement, pd.read_csv(SAMPLE, dtype=str, nrows=3), start="2026-01-15", end="2026-01-15"
    )


@pytest.mark.parametrize("export", ["to_csv", "to_parquet", "write", "to_excel_csv"])
def test_an_export_given_no_path_says_so(small_result: ReconResult, export: str) -> None:
    with pytest.raises(TypeError, match=r"must be a str or pathlib\.Path, not NoneType"):
        getattr(small_result, export)(None)


@pytest.mark.parametrize("export", ["to_csv", "to_parquet", "write", "to_excel_csv"])
def test_an_export_under_a_file_names_the_file(
    small_result: ReconResult, tmp_path: Path, export: str
) -> None:
    blocker = tmp_path / "results"
    blocker.write_text("keep me")
    with pytest.raises(NotADirectoryError, match=f"not a directory: {blocker}, which"):
        getattr(small_result, export)(blocker / "day" / "out.csv")
    assert blocker.read_text() == "keep me"


@pytest.mark.parametrize("export", ["to_csv", "to_parquet", "write"])
def test_an_export_to_a_folder_it_cannot_write_names_the_folder_not_the_staging_one(
    small_result: ReconResult, tmp_path: Path, export: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refused(**options: Any) -> str:
        raise PermissionError(13, "Permission denied", f"{tmp_path}/.out.x1y2.partial")

    monkeypatch.setattr(tempfile, "mkdtemp", refused)
    with pytest.raises(PermissionError) as raised:
        getattr(small_result, export)(tmp_path / "out")
    wanted = f"cannot write in {tmp_path / 'out'}: Permission denied;"
    assert str(raised.value) == wanted + " choose a folder you can write to"


@pytest.mark.parametrize("export", ["to_csv", "to_parquet", "to_excel_csv"])
def test_an_export_that_fails_midway_leaves_nothing_written(
    small_result: ReconResult, tmp_path: Path, export: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failure after the first file or cell (a disk full) leaves no partial set or file."""
    calls: list[int] = []

    def second_fails(real: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            if calls:
                raise OSError(28, "No space left on device")
            calls.append(1)
            return real(*args, **kwargs)

        return wrapped

    if export == "to_csv":
        monkeypatch.setattr(pd.DataFrame, "to_csv", second_fails(pd.DataFrame.to_csv))
    elif export == "to_parquet":
        monkeypatch.setattr(pq, "write_table", second_fails(pq.write_table))
    else:
        monkeypatch.setattr(_result, "_excel_cell", second_fails(_result._excel_cell))
    target = tmp_path / "out" / ("discrepancies.csv" if export == "to_excel_csv" else "")
    with pytest.raises(OSError, match="No space left"):
        getattr(small_result, export)(target)
    assert len(calls) == 1
    assert [path.name for path in tmp_path.rglob("*") if path.is_file()] == []


class _Balance:
    def __init__(self, as_of: object, balance: object) -> None:
        self.answer = {"data": {"as_of": as_of, "balance": balance}}

    def balance(self) -> dict[str, Any]:
        return self.answer


def test_balance_snapshot_words_an_as_of_that_is_no_instant() -> None:
    with pytest.raises(ValueError, match="balance as_of is not a time-zone-aware instant: 'soon'"):
        balance_snapshot(_Balance("soon", 5))


def test_balance_snapshot_refuses_a_balance_outside_int64() -> None:
    with pytest.raises(MoneyError, match=f"balance {2**70} is outside the signed 64-bit range"):
        balance_snapshot(_Balance("2026-01-15T03:00:00Z", 2**70))
