"""Reconciliation on Spark: the one `pixops.recon.STEPS` text, the same answers.

    from pixops.recon.spark import reconcile, spark_session
    spark = spark_session(master="local[2]")      # or your cluster's / Databricks' session
    result = reconcile(spark, "s3a://bucket/statement/", "ledger.csv",
                       start="2026-01-15", end="2026-01-15")
    result.counts                 # {"matched": 292, "missing_in_statement": 1, ...}
    result.discrepancies          # a Spark DataFrame: nothing is collected unless asked
    result.write("s3a://bucket/recon/2026-01-15")   # each frame as Parquet
    result.to_result()            # the pixops.recon.ReconResult DuckDB gives, collected

Inputs may be Spark DataFrames, Parquet paths or folders (any URI Spark reads), or the
pandas/Arrow inputs `pixops.recon.reconcile` takes; a CSV ledger is read on the driver by
`pixops.recon.read_ledger` (strict integers, a bad cell named by line and column). The
host sets the session time zone and ANSI mode, numbers rows densely, runs `STEPS` as temp
views (the materialised ones through ``localCheckpoint``) and joins `LOOKUPS`. It works on
a classic session and on Spark Connect (``sc://``). How to run it on a cluster:
docs/spark.md. Needs ``pip install 'pixops[spark]'`` and Java 17.
"""

from __future__ import annotations

try:
    import pyspark  # noqa: F401 (the one place its absence is said in words)
except ImportError as error:  # pragma: no cover (the dev extra installs it)
    raise ImportError(
        "pixops.recon.spark needs pyspark: pip install 'pixops[spark]' (and Java 17, e.g."
        " Debian's openjdk-17-jre-headless)"
    ) from error

from pixops.recon.spark._host import reconcile
from pixops.recon.spark._result import SparkReconResult
from pixops.recon.spark._session import spark_session

__all__ = ["SparkReconResult", "reconcile", "spark_session"]
