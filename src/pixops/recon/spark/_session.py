"""A Spark session with the settings the reconciliation needs, for the CLI and notebooks."""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path
from typing import Final

from pyspark.sql import SparkSession

__all__ = ["DRIVER_MEMORY", "spark_session", "warehouse_dir"]

#: The driver's heap: 1 GB ran out of memory broadcasting the steps' joins at 100k rows.
DRIVER_MEMORY: Final = "2g"


def warehouse_dir() -> Path:
    """Where a local session keeps tables it is asked to save (the reconciliation saves
    none): Spark's default, ./spark-warehouse, would leave an empty folder wherever it was
    started. Found when a session starts, not at import (the temp folder is probed)."""
    return Path(tempfile.gettempdir()) / "pixops-spark-warehouse"


def spark_session(
    master: str | None = None,
    remote: str | None = None,
    *,
    driver_memory: str = DRIVER_MEMORY,
    shuffle_partitions: int | None = None,
    app_name: str = "pixops recon",
    config: dict[str, str] | None = None,
) -> SparkSession:
    """A classic session on ``master`` (default ``local[*]``) or a Spark Connect session on
    ``remote`` (``sc://host:15002``), ANSI on (an overflow raises, never wraps), quiet logs;
    a classic one lowercases without ICU (see below).
    ``driver_memory``, ``shuffle_partitions`` and ``config`` (more settings) apply to a
    session this call starts (a running local session keeps its own; a Connect server
    sets its driver's memory). A classic session keeps its warehouse in `warehouse_dir()`
    unless ``config`` names ``spark.sql.warehouse.dir``, so the working folder stays clean."""
    if master is not None and remote is not None:
        raise ValueError("give a Spark master or a Spark Connect remote, not both")
    if remote is not None and not remote.startswith("sc://"):
        raise ValueError(f"a Spark Connect remote is sc://HOST[:PORT], not {remote!r}")
    builder = SparkSession.builder.appName(app_name)
    if remote is not None:
        builder = builder.remote(remote)
    else:
        builder = (
            builder.master(master or "local[*]")
            .config("spark.driver.memory", driver_memory)
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.warehouse.dir", warehouse_dir().as_uri())
            # LOWER (the names the rules compare) by the JVM's Unicode case mapping, not
            # ICU's: the same letters, and ICU's tables took ~4 s of CPU to build in each
            # new JVM on its first LOWER (every `pixops recon --engine spark` starts one).
            .config("spark.sql.icu.caseMappings.enabled", "false")
        )
        if shuffle_partitions is not None:
            builder = builder.config("spark.sql.shuffle.partitions", str(shuffle_partitions))
    for key, value in (config or {}).items():
        builder = builder.config(key, value)
    builder = builder.config("spark.sql.ansi.enabled", "true")
    # A Connect session of its own (getOrCreate refuses one beside a classic session in
    # this process); a classic one is the process's, as Spark allows no second.
    session = builder.create() if remote is not None else builder.getOrCreate()
    quiet_logs(session)
    return session


def quiet_logs(session: SparkSession) -> None:
    """Spark's own log of a failed query (a stack trace) is kept off stderr: the caller
    gets the error as an exception and says it in one line."""
    logging.getLogger("SQLQueryContextLogger").setLevel(logging.CRITICAL)
    context = getattr(session, "sparkContext", None) if _is_classic(session) else None
    if context is not None:
        context.setLogLevel("OFF")


def _is_classic(session: SparkSession) -> bool:
    return type(session).__module__.startswith("pyspark.sql.session")
