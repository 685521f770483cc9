"""`pixops report` paths that cannot be used: refused with exit 2 (as `pixops recon`)
and the reason before the notebook runs, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from pixops.cli import main


def test_an_html_path_that_is_a_folder_is_refused_before_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Was: the notebook ran, then "[Errno 21] Is a directory: '/tmp/tmpXXXX.html.tmp'".
    html = tmp_path / "day.html"
    html.mkdir()
    assert main(["report", "daily", "--date", "2026-01-15", "--html", str(html)]) == 2
    assert capsys.readouterr().err == (
        f"pixops report: --html {html}: is a folder, not a file:"
        f" give a file name, such as {html / 'report.html'}\n"
    )
    assert list(html.iterdir()) == []


@pytest.mark.parametrize("flag", ["--ledger", "--balances"])
def test_an_input_that_is_a_folder_is_named_a_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str
) -> None:
    argv = ["report", "daily", "--date", "2026-01-15", flag, str(tmp_path)]
    assert main([*argv, "--html", str(tmp_path / "r.html")]) == 2
    assert capsys.readouterr().err == (
        f"pixops report: {flag} {tmp_path}: is a folder, not a file: give the file in it\n"
    )
    assert not (tmp_path / "r.html").exists()
