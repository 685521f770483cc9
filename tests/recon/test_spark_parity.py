"""DuckDB and Spark run the one SQL text on the same planted data (every category, copies
of an id, webhooks and a balance roll-forward) and give the same five outputs, row for
row and type for type, money int64 on both; an overflow raises on both. One local
session (conftest.py's `spark`, see spark_session.py): one JVM started and warmed once,
then handed on to test_spark_surfaces.py (the command and Spark Connect), which the
test schedule runs right after this module on the same worker."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from urllib.parse import urlparse

import duckdb
import pyarrow as pa
import pytest
from pyspark.sql import SparkSession

from pixops.money import MoneyError
from pixops.recon import ATTENTION_CATEGORIES, Tolerances, reconcile
from pixops.recon.spark import SparkReconResult
from pixops.recon.spark import reconcile as spark_reconcile
from pixops.recon.spark._session import warehouse_dir
from tests.recon.builders import (
    DAY,
    NOON,
    ledger_row,
    ledger_table,
    statement_row,
    statement_table,
)
from tests.recon.spark_outputs import same_outputs
from tests.recon.test_rules import INFER, MAPPING, books, entry, row
from tests.recon.test_run import _planted

pytestmark = [
    pytest.mark.filterwarnings("ignore:.*repeat an id of another row:UserWarning"),
    # A Spark run is ~0.3 s a step on a quiet machine, several times that on a busy one.
    pytest.mark.timeout(600),
]


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
    same_outputs(duck, result.to_result())
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
