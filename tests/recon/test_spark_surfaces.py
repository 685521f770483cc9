"""The ways into a Spark reconciliation besides the Python call: `pixops recon --engine
spark` says what the DuckDB run says (summary, files, exit status), and Spark Connect
with the inputs on the cluster gives the same answers as DuckDB. They use the local
session test_spark_parity.py started (conftest.py's `spark`): the test schedule runs
this module right after that one, on the same worker, so the run starts one JVM."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from pyspark.sql import SparkSession

from pixops._cli_recon._run import EXIT_ATTENTION
from pixops.frames import conform_table
from pixops.recon import reconcile
from pixops.recon.spark import reconcile as spark_reconcile
from tests.cli_recon.cli_statement import day_args, recon, statement_folder
from tests.recon.builders import DAY
from tests.recon.spark_outputs import FRAMES, same_outputs
from tests.recon.spark_session import connect_to
from tests.recon.test_run import _planted

pytestmark = [
    pytest.mark.filterwarnings("ignore:.*repeat an id of another row:UserWarning"),
    pytest.mark.timeout(600),
]


@pytest.fixture
def remote(spark: SparkSession) -> Iterator[SparkSession]:
    """A Spark Connect session on a server in the run's one JVM, for the one test that
    asks (the process is a classic one again right after it: a later spark_session()
    works)."""
    yield from connect_to(spark)


def test_the_cli_on_spark_says_what_it_says_on_duckdb(
    spark: SparkSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`pixops recon --engine spark --statement PARQUET`: the same summary, files and exit
    status as the DuckDB run on the same files (in this process, so the command's
    spark_session() finds the run's one session through getOrCreate)."""
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
    for name in FRAMES:
        pd.testing.assert_frame_equal(
            pd.read_parquet(tmp_path / "spark" / f"{name}.parquet", dtype_backend="pyarrow"),
            pd.read_parquet(tmp_path / "duckdb" / f"{name}.parquet", dtype_backend="pyarrow"),
        )
    assert json.loads((tmp_path / "spark" / "summary.json").read_text())["counts"]["matched"]


# Last: a Connect server left in the JVM was measured to slow the classic runs after it.
def test_inputs_on_the_cluster_through_spark_connect_give_the_same_answers(
    remote: SparkSession, tmp_path: Path
) -> None:
    """Through Spark Connect (sc://), the statement as day-partitioned Parquet (as
    LocalStore.write_parquet writes it) and the ledger as a Spark DataFrame: numbered in
    the files' and the frame's order, the same outputs as DuckDB on the files read back."""
    assert type(remote).__module__.startswith("pyspark.sql.connect")
    statement, ledger, hooks, balances = _planted()
    folder = tmp_path / "statement"
    plain = pa.Table.from_arrays(
        [c.cast(c.type.value_type) if pa.types.is_dictionary(c.type) else c for c in statement],
        names=statement.column_names,
    )
    days = pa.array([(t - timedelta(hours=3)).date() for t in plain["created_at"].to_pylist()])
    ds.write_dataset(
        plain.append_column("business_date", days),
        folder,
        format="parquet",
        partitioning=ds.partitioning(pa.schema([("business_date", pa.date32())]), flavor="hive"),
    )
    read_back = conform_table(pq.read_table(folder).drop_columns(["business_date"]))
    kwargs = {"webhooks": hooks, "balances": balances, "start": DAY, "end": DAY}
    duck = reconcile(read_back, ledger, **kwargs)
    result = spark_reconcile(remote, str(folder), remote.createDataFrame(ledger), **kwargs)
    same_outputs(duck, result.to_result())
    written = result.write(tmp_path / "out")
    assert pq.read_table(written[0]).num_rows == len(duck.matched)
