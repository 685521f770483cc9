"""Tests that start Spark (a JVM) carry the `spark` marker. With PIXOPS_SKIP_SPARK=1 (what
`.ci/dev.py test --no-spark` sets) they are deselected and the run says so; without it a
missing Java fails them, naming the way out. The no-Java check of the SQL text
(test_spark_sql.py) always runs."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:  # pyspark is imported by the Spark tests alone
    from pyspark.sql import SparkSession

SKIP_VARIABLE = "PIXOPS_SKIP_SPARK"
#: The modules that start a Spark session.
SPARK_MODULES = ("test_spark_parity.py",)
_NOTICE = f"{SKIP_VARIABLE}=1: the Spark tests in tests/recon are DESELECTED in this run"


def _skipping() -> bool:
    return os.environ.get(SKIP_VARIABLE) == "1"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "spark: starts a local Spark session (needs Java 17)")


def pytest_report_header(config: pytest.Config) -> str | None:
    return f"*** {_NOTICE} ***" if _skipping() else None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    mine = [item for item in items if Path(str(item.path)).name in SPARK_MODULES]
    for item in mine:
        item.add_marker(pytest.mark.spark)
    if _skipping() and mine:
        config.hook.pytest_deselected(items=mine)
        items[:] = [item for item in items if item not in mine]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _skipping():
        terminalreporter.write_sep("!", _NOTICE, yellow=True, bold=True)


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    """The run's one local Spark session, for the one module that starts Spark (a `pixops
    recon --engine spark` run in it finds the session through getOrCreate). Stopped when
    the module ends: an idle JVM kept to the end of the run held its 2 GB heap and burnt
    CPU (~2.5 s of JVM CPU over the next 4 s of other tests, measured) on that worker."""
    from tests.recon.spark_session import local_spark

    yield from local_spark()
