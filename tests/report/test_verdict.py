"""One verdict per run (issue 27 §4): `pixops report daily` exits as `pixops recon` does
(1 on findings), and `pixops recon --html` makes its report from the run's own inputs."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from pixops.cli import main
from pixops.report import (
    BALANCES_PARAMETER,
    HEADLINE_TAG,
    Verdict,
    _daily,
    headline_findings,
    recon_html_report,
)

_KERNEL = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
_PARAMETERS = """\
business_date = "2026-01-15"
timezone = "America/Sao_Paulo"
ledger_path = "ledger.csv"
balances_path = "balances.csv"
"""


def daily_notebook(folder: Path, findings: int) -> Path:
    """A daily notebook whose headline states `findings`, as notebook 03's does."""
    headline = (
        "from pixops.report import Verdict\n"
        f'Verdict(f"### Business day {{business_date}}: {findings} findings", {findings})'
    )
    cells = [
        new_markdown_cell("# Daily"),
        new_code_cell(_PARAMETERS, metadata={"tags": ["parameters"]}),
        new_code_cell(headline, metadata={"tags": [HEADLINE_TAG]}),
    ]
    path = folder / "03_daily.ipynb"
    nbformat.write(new_notebook(cells=cells, metadata=_KERNEL), path)
    return path


def test_a_verdict_reads_as_markdown_and_carries_its_findings() -> None:
    verdict = Verdict("### 3 findings to check", 3)
    text, metadata = verdict._repr_markdown_()
    assert text == "### 3 findings to check"
    executed = nbformat.from_dict(
        {
            "cells": [
                {
                    "metadata": {"tags": [HEADLINE_TAG]},
                    "outputs": [{"metadata": {"text/markdown": metadata}}],
                },
                {"metadata": {}, "outputs": [{"metadata": {"text/markdown": {"x": 1}}}]},
            ]
        }
    )
    assert headline_findings(executed) == 3
    assert headline_findings(nbformat.from_dict({"cells": []})) is None
    with pytest.raises(TypeError, match="a count"):
        Verdict("x", -1)


@pytest.mark.parametrize(("findings", "status"), [(0, 0), (4, 1)])
def test_report_daily_exits_like_recon(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], findings: int, status: int
) -> None:
    daily_notebook(tmp_path, findings)
    out = tmp_path / "day.html"
    argv = ["report", "daily", "--date", "2026-01-15", "--notebooks", str(tmp_path)]
    assert main([*argv, "--html", str(out)]) == status
    printed = capsys.readouterr().out
    assert f"Business day 2026-01-15: {findings} findings" in printed  # the headline
    assert out.is_file()


def test_recon_html_without_balances_reads_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The report of a run without --balances must not read the notebook's default
    balances file: it gets an empty balances_path, and says "not checked"."""
    seen: dict[str, Any] = {}

    def render(notebook: Path, out: Path, **given: Any) -> Path:
        seen.update(given["parameters"])
        return Path(out)

    monkeypatch.setattr(_daily, "render_report", render)
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    daily_notebook(notebooks, 0)
    ledger = tmp_path / "ledger.csv"
    ledger.write_text("x\n")
    day = date(2026, 1, 15)
    args = (tmp_path / "r.html", day, day, "America/Sao_Paulo", ledger)
    recon_html_report(*args, notebooks=notebooks)
    assert seen[BALANCES_PARAMETER] == ""
    balances = tmp_path / "balances.csv"
    balances.write_text("x\n")
    recon_html_report(*args, balances=balances, notebooks=notebooks)
    assert seen[BALANCES_PARAMETER] == str(balances.resolve())
