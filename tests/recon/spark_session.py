"""One local Spark session for the run's Spark tests (test_spark_parity.py, then
test_spark_surfaces.py on the same worker: a JVM started, and its compilers warmed, once),
as they need it: two cores, one shuffle partition (a few thousand rows), ANSI on, a 2 GB
driver, and Java named when it is missing. The fixture `spark` in conftest.py hands it
out; `remote` in test_spark_surfaces.py connects to it."""

from __future__ import annotations

import os
import shutil
import socket
from collections.abc import Generator, Iterator

import pytest
from pyspark.sql import SparkSession

from pixops.recon.spark import spark_session


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


#: Where `connect_to` serves Spark Connect from the module's own JVM.
PORT = _free_port()
#: For a few thousand rows: the JVM's quick compiler only (a short run never repays the
#: optimising one), no adaptive re-planning of stages this small, no web UI, one task per
#: stage, the rows interpreted (compiling each step's Java costs more than it saves), and
#: sort-merge joins in the one task instead of broadcasts (each a job of its own), and the
#: plan each query posts to the (disabled) UI's listeners written in the short form, not
#: the formatted one (~10 % of the JVM's CPU on these few rows; results are unaffected).
TEST_SETTINGS = {
    "spark.connect.grpc.binding.port": str(PORT),
    "spark.driver.extraJavaOptions": (
        "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
        " -XX:+UnlockDiagnosticVMOptions -XX:-BytecodeVerificationRemote"
    ),
    "spark.sql.adaptive.enabled": "false",
    "spark.ui.enabled": "false",
    "spark.default.parallelism": "1",
    "spark.sql.codegen.wholeStage": "false",
    "spark.sql.codegen.factoryMode": "NO_CODEGEN",
    "spark.sql.autoBroadcastJoinThreshold": "-1",
    "spark.sql.ui.explainMode": "simple",
}


def local_spark() -> Generator[SparkSession, None, None]:
    if shutil.which("java") is None:
        pytest.fail(
            "the Spark tests need Java 17: as root `apt-get install openjdk-17-jre-headless`"
            " (python3 .ci/dev.py test does it), or set PIXOPS_SKIP_SPARK=1 to leave them out"
        )
    spark = spark_session("local[2]", shuffle_partitions=1, config=TEST_SETTINGS)
    try:
        yield spark
    finally:
        spark.stop()


def connect_to(spark: SparkSession) -> Iterator[SparkSession]:
    """A Spark Connect session (``sc://``) on a Connect server started inside the classic
    session's JVM (pyspark ships the server's jar): the remote path, tested without a
    second JVM. Built by `spark_session(remote=...)`, as `pixops recon --spark-remote` is.
    The server stops with the SparkContext."""
    service = spark._jvm.org.apache.spark.sql.connect.service.SparkConnectService  # type: ignore[union-attr]
    service.start(spark.sparkContext._jsc.sc())
    marks = {name: os.environ.get(name) for name in _CONNECT_MARKS}
    remote = spark_session(remote=f"sc://127.0.0.1:{PORT}")
    try:
        yield remote
    finally:
        remote.stop()
        # pyspark marks the process as Connect's, after which a classic session is refused
        # (the CLI test's spark_session()): the marks are put back as they were.
        for name, value in marks.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


_CONNECT_MARKS = ("SPARK_CONNECT_MODE_ENABLED", "SPARK_REMOTE")
