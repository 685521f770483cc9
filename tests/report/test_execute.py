"""Parameters are checked against the notebook's `parameters` cell before any kernel starts."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pixops.report import ReportError, declared_parameters, execute_notebook
from tests.report.conftest import write_notebook


def test_the_parameters_cell_is_read(report_notebook: Path) -> None:
    assert declared_parameters(report_notebook) == {"business_date", "count"}


def test_a_misspelt_parameter_is_refused(report_notebook: Path) -> None:
    with pytest.raises(ReportError, match=r"declares no parameter \['bussiness_date'\]"):
        execute_notebook(report_notebook, {"bussiness_date": "2026-01-31"})


@pytest.mark.parametrize("value", [1.5, None, ["2026-01-31"]])
def test_parameter_values_are_plain_scalars(report_notebook: Path, value: object) -> None:
    with pytest.raises(ReportError, match="must be str, int or bool"):
        execute_notebook(report_notebook, {"count": value})  # type: ignore[dict-item]


def test_a_missing_notebook_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="no such notebook"):
        execute_notebook(tmp_path / "nope.ipynb", {})


@pytest.mark.parametrize("timeout", [0, -1, 2.5])
def test_the_timeout_is_a_positive_integer(report_notebook: Path, timeout: object) -> None:
    with pytest.raises(ReportError, match="timeout_seconds"):
        execute_notebook(report_notebook, {}, timeout_seconds=timeout)  # type: ignore[arg-type]


def test_the_kernel_gets_the_dotenv_settings_talks_over_ipc_and_prints_no_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """`pixops recon` in the same folder reads this .env: the report's kernel, which runs
    in the notebook's own folder, must reach the same service. A scheduled run prints
    nothing but its result: the kernel uses IPC sockets, so it has no unencrypted-TCP
    warning to write to the scheduler's log. (One kernel run checks both.)"""
    monkeypatch.delenv("PIXOPS_BASE_URL", raising=False)
    job = tmp_path / "job"
    job.mkdir()
    (job / ".env").write_text("PIXOPS_BASE_URL=http://127.0.0.1:9\n")
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    notebook = write_notebook(
        notebooks / "which.ipynb",
        "import os\nprint(os.environ.get('PIXOPS_BASE_URL'))",
        parameters="count = 1",
    )
    monkeypatch.chdir(job)
    executed = execute_notebook(notebook, {"count": 2})
    assert executed.cells  # it ran
    assert executed.cells[-1].outputs[0]["text"] == "http://127.0.0.1:9\n"
    assert "PIXOPS_BASE_URL" not in os.environ  # set for the kernel only
    captured = capfd.readouterr()
    assert "without encryption" not in captured.err
    assert "WARNING" not in captured.err


def test_an_unreadable_dotenv_stops_the_report_in_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, report_notebook: Path
) -> None:
    (tmp_path / ".env").write_bytes(b"PIXOPS_BASE_URL=http://caf\xe9.example\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ReportError, match="not UTF-8"):
        execute_notebook(report_notebook, {"count": 2})
