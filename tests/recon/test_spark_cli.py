"""`pixops recon --engine spark --statement PARQUET`: the same summary, files and exit
status as the DuckDB run on the same files (run in this process, so the command's
spark_session() finds the run's one local session, conftest.py's `spark`)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from pyspark.sql import SparkSession

from pixops._cli_recon._run import EXIT_ATTENTION
from tests.cli_recon.cli_statement import day_args, recon, statement_folder

# A Spark run is ~0.3 s a step on a quiet machine, several times that on a busy one.
pytestmark = pytest.mark.timeout(600)


def test_spark_and_duckdb_runs_say_the_same(
    spark: SparkSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PIXOPS_BASE_URL", raising=False)
    folder = statement_folder(tmp_path / "statement")
    duck = recon(*day_args(folder, tmp_path / "duckdb"))
    on_spark = recon(
        *day_args(folder, tmp_path / "spark", "--engine", "spark", "--spark-master", "local[2]")
    )
    assert duck[0] == on_spark[0] == EXIT_ATTENTION
    assert on_spark[2] == duck[2]
    assert on_spark[1].replace(" on Spark", "") == duck[1].replace("/duckdb", "/spark")
    for name in ("summary.json", "summary.txt"):
        assert (tmp_path / "spark" / name).read_text() == (tmp_path / "duckdb" / name).read_text()
    for name in ("matched", "discrepancies", "refunds", "rollforward", "summary"):
        pd.testing.assert_frame_equal(
            pd.read_parquet(tmp_path / "spark" / f"{name}.parquet", dtype_backend="pyarrow"),
            pd.read_parquet(tmp_path / "duckdb" / f"{name}.parquet", dtype_backend="pyarrow"),
        )
    assert json.loads((tmp_path / "spark" / "summary.json").read_text())["counts"]["matched"]
