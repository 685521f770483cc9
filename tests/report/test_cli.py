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


def test_a_service_that_cannot_be_reached_exits_3_and_other_failures_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # As `pixops recon`: a scheduler tells an outage (3) from a broken report (2).
    unreachable = write_notebook(
        tmp_path / "unreachable.ipynb",
        "from pixops import Client\nfrom pixops.client import NO_RETRY\n"
        "Client('http://127.0.0.1:9', 'id', 'secret', retry=NO_RETRY).balance()",
    )
    out = tmp_path / "r.html"
    assert main(["report", "run", str(unreachable), "--html", str(out)]) == 3
    err = capsys.readouterr().err
    assert "pixops report: cannot read the service: unreachable.ipynb failed in cell" in err
    assert "TransportError" in err
    assert not out.exists()
    # The shipped notebooks stop at `check_service`, in one line: an outage all the same.
    checked = write_notebook(
        tmp_path / "checked.ipynb",
        "from pixops import Client\nfrom pixops.client import NO_RETRY\n"
        "from pixops.widgets import check_service\n"
        "check_service(Client('http://127.0.0.1:9', 'id', 'secret', retry=NO_RETRY))",
    )
    assert main(["report", "run", str(checked), "--html", str(out)]) == 3
    err = capsys.readouterr().err
    assert "pixops report: cannot read the service: checked.ipynb failed in cell" in err
    assert "ServiceStopped" in err
    assert not out.exists()
    broken = write_notebook(tmp_path / "broken.ipynb", "raise ValueError('a bug in the notebook')")
    assert main(["report", "run", str(broken), "--html", str(out)]) == 2
    err = capsys.readouterr().err
    assert "broken.ipynb failed in cell 1: ValueError: a bug in the notebook" in err
    assert "cannot read the service" not in err


def test_every_error_of_the_client_that_means_no_service_is_named() -> None:
    from pixops.client import AuthenticationError, RateLimitError, ServerError
    from pixops.report._execute import service_error_names

    names = service_error_names()
    for kind in (AuthenticationError, RateLimitError, ServerError):
        assert kind.__name__ in names
    assert {"TransportError", "ResponseValidationError", "ServiceStopped"} <= names
    assert "Stopped" not in names  # a notebook's own setting refused: a broken report
    assert "ValueError" not in names
    assert "ArgumentError" not in names
