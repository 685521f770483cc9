"""`pixops report` from the command line: argument errors and failures with exit codes."""

from __future__ import annotations

from pathlib import Path

import pytest

from pixops.cli import main
from tests.report.conftest import write_notebook


@pytest.mark.parametrize(
    "argv",
    [
        ["report"],
        ["report", "daily", "--html", "x.html"],
        ["report", "daily", "--date", "2026-02-30", "--html", "x.html"],
        ["report", "run", "nb.ipynb", "--html", "x.html", "-p", "no-equals"],
        ["report", "run", "nb.ipynb", "--html", "x.html", "-p", "1bad=2"],
    ],
)
def test_bad_arguments_exit_2(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2


def test_an_undeclared_parameter_exits_2_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notebook = write_notebook(tmp_path / "n.ipynb", "print(day)", parameters="day = 1")
    status = main(["report", "run", str(notebook), "--html", str(tmp_path / "r.html"), "-p", "x=1"])
    assert status == 2
    assert "declares no parameter ['x']" in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()


def test_daily_without_a_daily_notebook_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["report", "daily", "--date", "2026-01-31", "--notebooks", str(tmp_path)]
    assert main([*argv, "--html", str(tmp_path / "r.html")]) == 2
    assert "expected one *daily*.ipynb" in capsys.readouterr().err


@pytest.mark.parametrize(
    "content",
    [b"\xff\xfe not a notebook", b"{}", b"[1, 2]", b'{"cells": 5, "nbformat": 4}', b""],
)
def test_a_file_that_is_no_notebook_exits_2_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes
) -> None:
    # papermill leaked UnicodeDecodeError, jsonschema's ValidationError... as tracebacks.
    notebook = tmp_path / "bad.ipynb"
    notebook.write_bytes(content)
    out = tmp_path / "r.html"
    assert main(["report", "run", str(notebook), "--html", str(out)]) == 2
    assert f"pixops report: {notebook} is not a readable notebook" in capsys.readouterr().err
    assert not out.exists()
