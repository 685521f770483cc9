"""The longest test files first, so pytest-xdist's two workers finish together.

With ``--dist=loadfile`` a worker takes whole files in the order they are collected; a
long file (a browser test, the Spark parity) collected last leaves the other worker
idle until it ends. ``tests/durations.json`` holds the seconds each file took (setup,
call and teardown summed) in a recorded run; collection puts the files in that order,
longest first (the longest-processing-time rule), and pyproject's
``--no-loadscope-reorder`` keeps xdist from re-sorting them by their number of tests.
A file not in the table counts as quick and keeps its place after the timed ones.

``PIXOPS_RECORD_DURATIONS=1`` writes the table anew at the end of a run (on the
controller, from every worker's reports): run it after adding or changing slow tests.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

import pytest

DURATIONS = Path(__file__).resolve().with_name("durations.json")
RECORD_VARIABLE = "PIXOPS_RECORD_DURATIONS"


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


def longest_files_first(items: list[pytest.Item], durations: dict[str, float]) -> list[pytest.Item]:
    """`items` with each file's tests kept together and in order, the files sorted by
    their recorded seconds, longest first (equal or unknown: as collected)."""
    by_file: dict[str, list[pytest.Item]] = {}
    for item in items:
        by_file.setdefault(file_of(item.nodeid), []).append(item)
    ordered = sorted(by_file, key=lambda name: -durations.get(name, 0.0))
    return [item for name in ordered for item in by_file[name]]


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
