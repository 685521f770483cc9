"""The longest test files first, so pytest-xdist's workers finish together.

With ``--dist=loadfile`` a worker takes whole files in the order they are collected; a
long file (a browser test, the Spark parity) collected last leaves the other worker
idle until it ends. ``tests/durations.json`` holds the seconds each file took (setup,
call and teardown summed) in a recorded run; collection puts the files in that order,
longest first (the longest-processing-time rule), and pyproject's
``--no-loadscope-reorder`` keeps xdist from re-sorting them by their number of tests.
A file not in the table counts as quick and keeps its place after the timed ones.

Files in `TOGETHER` are one unit of work: they run back to back, in that order, on one
worker (`TogetherScheduling`), so the Spark modules share the one JVM the first starts.

``PIXOPS_RECORD_DURATIONS=1`` writes the table anew at the end of a run (on the
controller, from every worker's reports): run it after adding or changing slow tests.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

import pytest
from xdist.scheduler import LoadFileScheduling  # type: ignore[import-untyped]

DURATIONS = Path(__file__).resolve().with_name("durations.json")
RECORD_VARIABLE = "PIXOPS_RECORD_DURATIONS"
#: The modules that use the one Spark session, in the order they run (the parity starts
#: the JVM, the command and Spark Connect use it after; tests/recon/conftest.py stops it
#: after the last).
SPARK_FILES: tuple[str, ...] = (
    "tests/recon/test_spark_parity.py",
    "tests/recon/test_spark_surfaces.py",
)
#: Files that run as one unit, in this order, on one worker.
TOGETHER: tuple[tuple[str, ...], ...] = (SPARK_FILES,)


def load_durations(path: Path = DURATIONS) -> dict[str, float]:
    """Seconds per test file (a path from the repository's root); empty when none kept."""
    try:
        table = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    return {str(name): float(seconds) for name, seconds in table.items()}


def file_of(nodeid: str) -> str:
    """The file part of a test's id (``tests/x.py`` of ``tests/x.py::test_y[1]``)."""
    return nodeid.split("::", 1)[0]


def unit_of(nodeid: str) -> str:
    """The unit of work a test belongs to: its file, or the first file of its
    `TOGETHER` group."""
    name = file_of(nodeid)
    for group in TOGETHER:
        if name in group:
            return group[0]
    return name


def _rank(name: str) -> int:
    """A file's place within its `TOGETHER` group (0 for a file on its own)."""
    return next((group.index(name) for group in TOGETHER if name in group), 0)


def longest_files_first(items: list[pytest.Item], durations: dict[str, float]) -> list[pytest.Item]:
    """`items` with each unit's tests kept together (a file's in order, a `TOGETHER`
    group's files in the group's order), the units sorted by their recorded seconds,
    longest first (equal or unknown: as collected)."""
    by_unit: dict[str, list[pytest.Item]] = {}
    for item in items:
        by_unit.setdefault(unit_of(item.nodeid), []).append(item)
    seconds: defaultdict[str, float] = defaultdict(float)
    for name, value in durations.items():
        seconds[unit_of(name)] += value
    ordered = sorted(by_unit, key=lambda unit: -seconds[unit])
    return [
        item
        for unit in ordered
        for item in sorted(by_unit[unit], key=lambda item: _rank(file_of(item.nodeid)))
    ]


class TogetherScheduling(LoadFileScheduling):  # type: ignore[misc]
    """pytest-xdist's ``--dist=loadfile`` with each `TOGETHER` group one unit of work."""

    def _split_scope(self, nodeid: str) -> str:
        return unit_of(nodeid)


class DurationRecorder:
    """Sums each file's test phases as the reports arrive; writes them at the end."""

    def __init__(self, path: Path = DURATIONS) -> None:
        self.path = path
        self.seconds: defaultdict[str, float] = defaultdict(float)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[file_of(report.nodeid)] += report.duration

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        table = {
            name: round(seconds, 1)
            for name, seconds in sorted(self.seconds.items(), key=lambda kv: (-kv[1], kv[0]))
            if seconds >= 1.0  # quicker files keep their collected place
        }
        self.path.write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")


def configure(config: pytest.Config) -> None:
    """Register the recorder when asked, on the controller (or a run without workers)."""
    if os.environ.get(RECORD_VARIABLE) == "1" and not hasattr(config, "workerinput"):
        config.pluginmanager.register(DurationRecorder(), "pixops-durations")
