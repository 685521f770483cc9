"""One local Spark session per test module, as the parity tests need it: two cores, two
shuffle partitions (a few thousand rows), ANSI on, a 2 GB driver, and Java named when it
is missing."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest
from pyspark.sql import SparkSession

from pixops.recon.spark import spark_session

#: For a few thousand rows: the JVM's quick compiler only (a short run never repays the
#: optimising one), no adaptive re-planning of stages this small, no web UI.
TEST_SETTINGS = {
    "spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC",
    "spark.sql.adaptive.enabled": "false",
    "spark.ui.enabled": "false",
}


def local_spark() -> Iterator[SparkSession]:
    if shutil.which("java") is None:
        pytest.fail(
            "the Spark tests need Java 17: as root `apt-get install openjdk-17-jre-headless`"
            " (python3 .ci/dev.py test does it), or set PIXOPS_SKIP_SPARK=1 to leave them out"
        )
    spark = spark_session("local[2]", shuffle_partitions=2, config=TEST_SETTINGS)
    try:
        yield spark
    finally:
        spark.stop()
