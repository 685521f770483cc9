"""Tests that start Spark (a JVM) carry the `spark` marker. With PIXOPS_SKIP_SPARK=1 (what
`.ci/dev.py test --no-spark` sets) they are deselected and the run says so; without it a
missing Java fails them, naming the way out. The no-Java check of the SQL text
(test_spark_sql.py) always runs."""

from __future__ import annotations

import os
from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests._schedule import SPARK_FILES

if TYPE_CHECKING:  # pyspark is imported by the Spark tests alone
    from pyspark.sql import SparkSession

SKIP_VARIABLE = "PIXOPS_SKIP_SPARK"
#: The modules that use the Spark session (tests/_schedule.py runs them together, in
#: order, on one xdist worker).
SPARK_MODULES = tuple(Path(name).name for name in SPARK_FILES)
_NOTICE = f"{SKIP_VARIABLE}=1: the Spark tests in tests/recon are DESELECTED in this run"


def _skipping() -> bool:
    return os.environ.get(SKIP_VARIABLE) == "1"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "spark: starts a local Spark session (needs Java 17)")


def pytest_report_header(config: pytest.Config) -> str | None:
    return f"*** {_NOTICE} ***" if _skipping() else None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    mine = [item for item in items if _uses_spark(item)]
    for item in mine:
        item.add_marker(pytest.mark.spark)
    if _skipping() and mine:
        config.hook.pytest_deselected(items=mine)
        items[:] = [item for item in items if item not in mine]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _skipping():
        terminalreporter.write_sep("!", _NOTICE, yellow=True, bold=True)


class _OneSession:
    """The run's one local Spark session: started by the first Spark test, stopped right
    after the last (`pytest_runtest_teardown`), not when the worker ends: an idle JVM kept
    to the end of the run held its 2 GB heap and burnt CPU (~2.5 s of JVM CPU over the
    next 4 s of other tests, measured) on that worker."""

    def __init__(self) -> None:
        self._running: Generator[SparkSession, None, None] | None = None
        self._session: SparkSession | None = None

    def get(self) -> SparkSession:
        if self._session is None:
            from tests.recon.spark_session import local_spark

            running = local_spark()
            self._session = next(running)
            self._running = running
        return self._session

    def stop(self) -> None:
        running, self._running, self._session = self._running, None, None
        if running is not None:
            running.close()  # local_spark's `finally`: spark.stop()


_ONE = _OneSession()


def _uses_spark(item: pytest.Item | None) -> bool:
    return item is not None and Path(str(item.path)).name in SPARK_MODULES


@pytest.fixture
def spark() -> SparkSession:
    """The run's one local Spark session (a `pixops recon --engine spark` run in the same
    process finds it through getOrCreate)."""
    return _ONE.get()


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """After the fixtures of the worker's last Spark test are torn down (a Connect
    session among them), the JVM stops."""
    if _uses_spark(item) and not _uses_spark(nextitem):
        _ONE.stop()


def pytest_sessionfinish(session: pytest.Session) -> None:
    _ONE.stop()
