"""The order test files run in: the longest first, each file's tests together and in order."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from tests._schedule import (
    DURATIONS,
    TOGETHER,
    DurationRecorder,
    TogetherScheduling,
    load_durations,
    longest_files_first,
    unit_of,
)

ROOT = Path(__file__).resolve().parents[1]


def _items(*nodeids: str) -> list[pytest.Item]:
    return [cast(pytest.Item, SimpleNamespace(nodeid=nodeid)) for nodeid in nodeids]


def test_the_longest_files_come_first_each_whole_and_in_its_order() -> None:
    items = _items(
        "tests/test_a.py::test_1",
        "tests/browser/test_b.py::test_1",
        "tests/test_a.py::test_2",
        "notebooks/01.ipynb::Cell 0",
        "tests/browser/test_b.py::test_2",
        "tests/test_c.py::T::test_1[x]",
    )
    durations = {"tests/browser/test_b.py": 90.0, "notebooks/01.ipynb": 20.0}
    ordered = [item.nodeid for item in longest_files_first(items, durations)]
    assert ordered == [
        "tests/browser/test_b.py::test_1",
        "tests/browser/test_b.py::test_2",
        "notebooks/01.ipynb::Cell 0",
        "tests/test_a.py::test_1",  # not timed: quick, in collected order
        "tests/test_a.py::test_2",
        "tests/test_c.py::T::test_1[x]",
    ]


def test_files_run_together_are_one_unit_in_their_order_timed_as_their_sum() -> None:
    first, second = TOGETHER[0]
    items = _items(
        f"{second}::test_cli",
        "tests/test_a.py::test_1",
        f"{first}::test_parity",
        "tests/browser/test_b.py::test_1",
        f"{second}::test_connect",
    )
    # 50 + 50 s together outrank the 90 s file, and the group's first file leads.
    durations = {first: 50.0, second: 50.0, "tests/browser/test_b.py": 90.0}
    ordered = [item.nodeid for item in longest_files_first(items, durations)]
    assert ordered == [
        f"{first}::test_parity",
        f"{second}::test_cli",
        f"{second}::test_connect",
        "tests/browser/test_b.py::test_1",
        "tests/test_a.py::test_1",
    ]
    assert unit_of(f"{second}::test_cli") == unit_of(f"{first}::test_parity") == first
    assert unit_of("tests/test_a.py::test_1") == "tests/test_a.py"


def test_xdist_gives_a_group_to_one_worker_as_one_unit() -> None:
    """pytest-xdist's loadfile scheduler splits work by `_split_scope`: the group is one."""
    first, second = TOGETHER[0]
    split = TogetherScheduling._split_scope
    assert split(cast(TogetherScheduling, None), f"{second}::test_cli") == first
    assert split(cast(TogetherScheduling, None), "tests/test_a.py::test_1") == "tests/test_a.py"
    assert all((ROOT / name).is_file() for group in TOGETHER for name in group)


def test_the_recorder_sums_each_files_phases_and_leaves_quick_files_out(tmp_path: Path) -> None:
    recorder = DurationRecorder(tmp_path / "durations.json")
    for nodeid, seconds in [
        ("tests/test_a.py::test_1", 0.5),
        ("tests/test_a.py::test_1", 2.25),  # its call after its setup
        ("tests/test_b.py::test_1", 30.0),
        ("tests/test_c.py::test_1", 0.2),
    ]:
        recorder.pytest_runtest_logreport(
            cast(pytest.TestReport, SimpleNamespace(nodeid=nodeid, duration=seconds))
        )
    recorder.pytest_sessionfinish(cast(pytest.Session, None))
    written = (tmp_path / "durations.json").read_text(encoding="utf-8")
    assert list(json.loads(written).items()) == [
        ("tests/test_b.py", 30.0),
        ("tests/test_a.py", 2.8),
    ]
    assert load_durations(tmp_path / "durations.json") == {
        "tests/test_b.py": 30.0,
        "tests/test_a.py": 2.8,
    }
    assert load_durations(tmp_path / "none.json") == {}


def test_the_kept_table_still_describes_this_suite() -> None:
    """Most of the recorded time is in files that exist: when tests are moved or renamed
    the table is recorded anew (PIXOPS_RECORD_DURATIONS=1), or the moved files lose their
    place at the front. A few stale names do no harm: they match nothing."""
    table = load_durations(DURATIONS)
    assert table, "tests/durations.json is missing or empty"
    assert all(seconds > 0 for seconds in table.values())
    existing = sum(seconds for name, seconds in table.items() if (ROOT / name).is_file())
    assert existing >= 0.8 * sum(table.values()), "record tests/durations.json anew"
