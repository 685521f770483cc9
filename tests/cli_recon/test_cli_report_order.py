"""`pixops recon --html`: the day's results reach the log before the report is made, so
a report that fails (or is slow) never hides them; the last line says how many findings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import pixops.report
from pixops._cli_recon._run import EXIT_ATTENTION, EXIT_BAD_INPUT
from pixops.report import ReportError
from tests.cli_recon.test_cli import DATA, recon


def _planted_day(tmp_path: Path) -> tuple[int, str, str]:
    return recon(
        "--date", "2026-01-15", "--ledger", str(DATA / "sample_ledger.csv"),
        "--balances", str(DATA / "balances.csv"), "--out", str(tmp_path / "out"),
        "--html", str(tmp_path / "day.html"), "--quiet",
    )  # fmt: skip


def test_the_results_come_first_and_the_report_last(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page's path was the log's first line, above the run it belonged to."""
    monkeypatch.delenv("PIXOPS_BASE_URL", raising=False)
    made: list[Path] = []

    def writing(html: Path, *_: Any, **__: Any) -> None:
        made.append(html)

    monkeypatch.setattr(pixops.report, "recon_html_report", writing)
    status, out, err = _planted_day(tmp_path)
    lines = out.splitlines()
    assert (status, err, made) == (EXIT_ATTENTION, "", [tmp_path / "day.html"])
    assert lines[0].startswith("pixops recon 2026-01-15 (America/Sao_Paulo) against ")
    assert lines[-2] == f"needs attention (13 findings to check); results in {tmp_path / 'out'}"
    assert lines[-1] == f"report: {tmp_path / 'day.html'}"


def test_a_report_that_fails_leaves_the_results_in_the_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The summary was printed only after the report: a failed report left exit 2 and a
    log with no word of the day's findings, though their files were written."""
    monkeypatch.delenv("PIXOPS_BASE_URL", raising=False)

    def failing(*_: Any, **__: Any) -> None:
        raise ReportError("the notebook stopped")

    monkeypatch.setattr(pixops.report, "recon_html_report", failing)
    status, out, err = _planted_day(tmp_path)
    assert status == EXIT_BAD_INPUT
    assert "Unit error (100x or 10000x)" in out
    assert "needs attention (13 findings to check)" in out
    assert "report:" not in out
    assert err == "pixops recon: cannot write the HTML report: the notebook stopped\n"
    assert (tmp_path / "out" / "summary.json").is_file()
