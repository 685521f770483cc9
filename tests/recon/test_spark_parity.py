"""DuckDB and Spark run the one SQL text on the same planted data (every category, copies
of an id, webhooks and a balance roll-forward) and give the same five outputs, row for
row and type for type, money int64 on both; an overflow raises on both; `pixops recon
--engine spark` says what the DuckDB run says; Spark Connect with inputs on the cluster
gives the same answers. Every Spark test of the run is here, on one local session
(conftest.py's `spark`, see spark_session.py): one JVM started and warmed once."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlparse

import duckdb
import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from pyspark.sql import SparkSession

from pixops._cli_recon._run import EXIT_ATTENTION
from pixops.frames import conform_table
from pixops.money import MoneyError
from pixops.recon import ATTENTION_CATEGORIES, ReconResult, Tolerances, reconcile
from pixops.recon.spark import SparkReconResult
from pixops.recon.spark import reconcile as spark_reconcile
from pixops.recon.spark._session import warehouse_dir
from tests.cli_recon.cli_statement import day_args, recon, statement_folder
from tests.recon.builders import (
    DAY,
    NOON,
    ledger_row,
    ledger_table,
    statement_row,
    statement_table,
)
from tests.recon.spark_session import connect_to
from tests.recon.test_rules import INFER, MAPPING, books, entry, row
from tests.recon.test_run import _planted

pytestmark = [
    pytest.mark.filterwarnings("ignore:.*repeat an id of another row:UserWarning"),
    # A Spark run is ~0.3 s a step on a quiet machine, several times that on a busy one.
    pytest.mark.timeout(600),
]

FRAMES = ("matched", "discrepancies", "refunds", "rollforward", "summary")


@pytest.fixture
def remote(spark: SparkSession) -> Iterator[SparkSession]:
    """A Spark Connect session on a server in the run's one JVM, for the one test that
    asks (the process is a classic one again right after it: a later spark_session()
    works)."""
    yield from connect_to(spark)


def _same(duck: ReconResult, on_spark: ReconResult) -> None:
    for name in FRAMES:
        left, right = getattr(duck, name), getattr(on_spark, name)
        assert list(right.dtypes) == list(left.dtypes), name
        pd.testing.assert_frame_equal(right, left, check_exact=True, obj=name)
        for column in left.columns:
            if str(column).endswith("_base"):
                assert str(left[column].dtype) == "int64[pyarrow]", (name, column)


def _planted_with_rules() -> tuple[pa.Table, pa.Table, dict[str, object]]:
    """test_run's planted day (every identifier category, copies, webhooks, a balance
    off) with test_rules' books beside it: a payment inferred by amount, CPF and time,
    two equally good candidates for review, a settlement line matching a group, and a
    row and an entry nothing pairs (the planted ones now pair by amount and day)."""
    statement, ledger, hooks, balances = _planted()
    at = NOON + timedelta(seconds=31 + 180)
    extra_rows = [
        row(31, payer_document="52998224725", amount_base=777_000),
        row(32, amount_base=888_000),
        row(33, amount_base=888_000),
        *(row(n, external_id="LOTE-7", amount_base=100_000 * (n - 33)) for n in (34, 35, 36)),
        row(37, amount_base=123_457),  # missing in the ledger, even by amount
    ]
    extra_entries = [
        entry("L-inf", None, booked_at=at, document="529.982.247-25", amount_base=777_000),
        entry("L-rev", None, booked_at=NOON + timedelta(seconds=32), amount_base=888_000),
        entry("LED-9", "repasse", settlement="LOTE-7", amount_base=600_000, fee_base=None),
        entry("L-none", "pedido-999", amount_base=654_321),  # missing in the statement
    ]
    planted_rows = ledger.to_pylist()
    for planted in planted_rows:
        planted.update(dict.fromkeys(("booked_at", "document", "name", "settlement", "kind")))
    both = pa.concat_tables([statement, statement_table(extra_rows)])
    options = {
        "webhooks": hooks,
        "balances": balances,
        "start": DAY,
        "end": DAY,
        "mapping": MAPPING,
        "tolerances": INFER,
    }
    return both, books([*planted_rows, *extra_entries]), options


def test_every_output_is_the_same_row_for_row(spark: SparkSession) -> None:
    statement, ledger, options = _planted_with_rules()
    duck = reconcile(statement, ledger, **options)  # type: ignore[arg-type]
    zone_before = spark.conf.get("spark.sql.session.timeZone")
    result = spark_reconcile(spark, statement, ledger, **options)  # type: ignore[arg-type]
    assert isinstance(result, SparkReconResult)
    assert spark.conf.get("spark.sql.session.timeZone") == zone_before  # put back
    assert result.counts == duck.counts
    assert all(result.counts[category] for category in ATTENTION_CATEGORIES)
    rules = set(duck.matched["rule"])
    assert {"inferred: amount + CPF + 3 min", "group of 3 rows = settlement LOTE-7"} <= rules
    assert result.needs_attention
    _same(duck, result.to_result())
    assert result.summary_text() == duck.summary_text()
    views = {row["viewName"] for row in spark.sql("SHOW VIEWS").collect()}
    assert not views & {"statement_in", "copies", "matched", "summary"}  # all dropped
    # spark_session() keeps the warehouse out of the working folder (no ./spark-warehouse)
    assert Path(urlparse(str(spark.conf.get("spark.sql.warehouse.dir"))).path) == warehouse_dir()


def _huge_group() -> tuple[pa.Table, pa.Table]:
    """Two payments of 2^62 base units each, one settlement LOTE-1 that one entry books
    (reference groups on): the group's sum is 2^63, one past int64. It overflows in
    ``ref_groups``, half way through `STEPS`, so Spark stops there instead of running
    every step to overflow in the summary (4 s of JVM CPU, not 14.5; the ledger is small:
    its reader refuses amounts that add up past the range before any SQL runs)."""
    huge = 2**62
    rows = [statement_row(n, amount_base=huge, fee_base=0, external_id="LOTE-1") for n in (0, 1)]
    return statement_table(rows), ledger_table([ledger_row("L0", "LOTE-1")])


def test_an_overflowing_sum_raises_on_both(spark: SparkSession) -> None:
    statement, ledger = _huge_group()
    options: dict[str, object] = {"start": DAY, "end": DAY, "tolerances": Tolerances(groups=True)}
    with pytest.raises(duckdb.ConversionException, match="out of range"):
        reconcile(statement, ledger, **options)  # type: ignore[arg-type]
    with pytest.raises(MoneyError, match="overflows 64 bits"):
        spark_reconcile(spark, statement, ledger, **options)  # type: ignore[arg-type]
    assert {row["viewName"] for row in spark.sql("SHOW VIEWS").collect()}.isdisjoint({"copies"})


def test_the_cli_on_spark_says_what_it_says_on_duckdb(
    spark: SparkSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`pixops recon --engine spark --statement PARQUET`: the same summary, files and exit
    status as the DuckDB run on the same files (in this process, so the command's
    spark_session() finds the run's one session: here, not in a module of its own that
    pytest-xdist may give another worker, which then starts and warms a second JVM)."""
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
    _same(duck, result.to_result())
    written = result.write(tmp_path / "out")
    assert pq.read_table(written[0]).num_rows == len(duck.matched)
