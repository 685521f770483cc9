"""One local Spark session for the run's Spark tests (test_spark_parity.py, then
test_spark_surfaces.py on the same worker: a JVM started, and its compilers warmed, once),
as they need it: two cores, one shuffle partition (a few thousand rows), ANSI on, a 2 GB
driver, and Java named when it is missing. The fixture `spark` in conftest.py hands it
out; `remote` in test_spark_surfaces.py connects to it.

The JVM maps the classes it loaded in an earlier run from a class-data archive kept in the
virtualenv (`class_archive`), as mypy's cache is kept there: ~6 s less JVM CPU per run of
the Spark modules (42 -> 36 s for the parity alone, measured). A run without one writes it
as its JVM exits, ~25 s of CPU once, to a file of its own renamed into place only after
the JVM ended well: a half-written archive crashes the JVM that maps it (SIGBUS,
measured), so none is ever read."""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import time
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from pixops.recon.spark import spark_session
from tests._cache import TEST_CACHE


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


def class_archive(java: str) -> Path:
    """Where this Java and this pyspark keep their class-data archive: in the virtualenv,
    named by the Java binary (its real path, size and time) and pyspark's jars (names and
    sizes), so another Java or pyspark gets an archive of its own (the JVM also refuses,
    with a warning, an archive whose jars changed)."""
    import pyspark

    binary = Path(java).resolve()
    jars = sorted(Path(pyspark.__file__).parent.joinpath("jars").glob("*.jar"))
    facts = [str(binary), str(binary.stat().st_size), str(binary.stat().st_mtime_ns)]
    facts += [f"{jar.name}:{jar.stat().st_size}" for jar in jars]
    key = hashlib.sha256("\n".join(facts).encode()).hexdigest()[:16]
    return TEST_CACHE / f"spark-classes-{key}.jsa"


def _archive_option(archive: Path) -> tuple[str, Path | None]:
    """The JVM option that maps `archive`, or that writes it (to a file of this process,
    returned second) when there is none yet. Parts left by runs killed over an hour ago
    are removed."""
    if archive.is_file():
        return f"-XX:SharedArchiveFile={archive}", None
    archive.parent.mkdir(parents=True, exist_ok=True)
    for stale in archive.parent.glob("*.part"):
        if stale.stat().st_mtime < time.time() - 3600:
            stale.unlink(missing_ok=True)
    part = archive.with_name(f"{archive.name}.{os.getpid()}.part")
    return f"-XX:ArchiveClassesAtExit={part}", part


def _end_jvm() -> int | None:
    """End the stopped session's JVM and wait for it: `spark.stop()` leaves it running
    until this process exits (holding its heap, and writing a class archive only then).
    Closing its standard input ends it (pyspark's gateway exits on EOF); pyspark then
    starts a new one if a later session asks. Its exit status, or None if unknown."""
    from pyspark import SparkContext

    gateway = SparkContext._gateway
    if gateway is None:
        return None
    process = getattr(gateway, "proc", None)
    gateway.shutdown()
    SparkContext._gateway = None
    SparkContext._jvm = None
    if process is None or process.stdin is None:
        return None
    process.stdin.close()
    return int(process.wait(timeout=600))


def local_spark() -> Generator[SparkSession, None, None]:
    java = shutil.which("java")
    if java is None:
        pytest.fail(
            "the Spark tests need Java 17: as root `apt-get install openjdk-17-jre-headless`"
            " (python3 .ci/dev.py test does it), or set PIXOPS_SKIP_SPARK=1 to leave them out"
        )
    home = os.environ.get("JAVA_HOME")  # what spark-submit runs when it is set
    archive = class_archive(os.path.join(home, "bin", "java") if home else java)
    option, part = _archive_option(archive)
    options = f"{TEST_SETTINGS['spark.driver.extraJavaOptions']} {option}"
    settings = {**TEST_SETTINGS, "spark.driver.extraJavaOptions": options}
    spark = spark_session("local[2]", shuffle_partitions=1, config=settings)
    try:
        yield spark
    finally:
        spark.stop()
        status = _end_jvm()
        if part is not None:
            if status == 0 and part.is_file():
                os.replace(part, archive)  # whole, so readable: atomic on one file system
            else:
                part.unlink(missing_ok=True)


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
