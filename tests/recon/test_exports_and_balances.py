"""An analyst's calls on `reconcile`'s inputs and `ReconResult`'s exports: a balances file
given by its path, and exports aimed at a file or a folder by mistake."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from pixops.frames import load_statement
from pixops.recon import ReconResult, read_balances, reconcile

DATA = Path(__file__).resolve().parents[2] / "data"


@pytest.fixture(scope="module")
def statement() -> pd.DataFrame:
    from pixops.demo import demo_month

    month = demo_month()
    client: Any = month.sandbox.client(month.api_key)
    return load_statement(
        client, "2026-01-14", "2026-01-16", tz="America/Sao_Paulo", progress=False
    )


@pytest.fixture(scope="module")
def result(statement: pd.DataFrame) -> ReconResult:
    return reconcile(statement, DATA / "sample_ledger.csv", start="2026-01-15", end="2026-01-15")


@pytest.mark.filterwarnings("ignore:.*balance snapshots lie outside")  # a month of them
def test_balances_are_taken_by_path_like_the_ledger(statement: pd.DataFrame) -> None:
    path = DATA / "balances.csv"
    ledger = DATA / "sample_ledger.csv"
    by_path = reconcile(statement, ledger, balances=str(path), start="2026-01-15", end="2026-01-15")
    read = reconcile(
        statement, ledger, balances=read_balances(path),
        start="2026-01-15", end="2026-01-15",
    )  # fmt: skip
    assert by_path.rollforward.equals(read.rollforward)
    assert len(by_path.rollforward) > 0
    with pytest.raises(ValueError, match="no balance snapshots file"):
        reconcile(statement, DATA / "sample_ledger.csv", balances=DATA / "missing.csv")


@pytest.mark.parametrize("export", ["to_csv", "to_parquet", "write"])
def test_exports_to_a_file_say_it_is_not_a_folder(
    result: ReconResult, tmp_path: Path, export: str
) -> None:
    target = tmp_path / "results"
    target.write_text("keep me")
    with pytest.raises(NotADirectoryError, match=f"not a directory: {target}"):
        getattr(result, export)(target)
    assert target.read_text() == "keep me"


def test_the_excel_file_aimed_at_a_folder_says_what_to_give(
    result: ReconResult, tmp_path: Path
) -> None:
    with pytest.raises(IsADirectoryError, match="is a folder: give a file path"):
        result.to_excel_csv(tmp_path)


def test_writing_twice_into_one_folder_replaces_the_set(
    result: ReconResult, tmp_path: Path
) -> None:
    first = result.write(tmp_path / "out")
    again = result.write(tmp_path / "out")
    assert first == again
    assert sorted(path.name for path in (tmp_path / "out").iterdir()) == sorted(
        path.name for path in first
    )
