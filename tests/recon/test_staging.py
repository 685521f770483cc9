"""`pixops.recon._staging`: a set of files lands whole, even when interrupted."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from pixops.recon._staging import staged_directory


def _write_set(out: Path, names: tuple[str, ...], *, fail: bool = False) -> None:
    with staged_directory(out) as stage:
        for name in names:
            (stage / name).write_text("failed" if fail else name)
        if fail:
            raise RuntimeError("the run failed")


def test_an_interrupt_during_the_moves_waits_until_the_set_is_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    replace = os.replace
    moved: list[str] = []

    def replace_then_interrupt(source: Path, target: Path) -> None:
        replace(source, target)
        moved.append(Path(target).name)
        if len(moved) == 1:  # Ctrl-C right after the first file of three
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(os, "replace", replace_then_interrupt)
    # Python's own Ctrl-C handler, whatever an earlier test in this worker left (the
    # held signal is raised again under the handler that was there before).
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            _write_set(out, ("a.csv", "b.csv", "c.csv"))
    finally:
        signal.signal(signal.SIGINT, before)
    assert moved == ["a.csv", "b.csv", "c.csv"]  # delivered once all three were in
    assert sorted(path.name for path in out.iterdir()) == ["a.csv", "b.csv", "c.csv"]
    assert [path.name for path in tmp_path.iterdir()] == ["out"]  # the stage is gone


def test_an_error_inside_the_block_leaves_the_last_set(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _write_set(out, ("a.csv",))
    with pytest.raises(RuntimeError, match="the run failed"):
        _write_set(out, ("a.csv",), fail=True)
    assert (out / "a.csv").read_text() == "a.csv"
    assert [path.name for path in tmp_path.iterdir()] == ["out"]
