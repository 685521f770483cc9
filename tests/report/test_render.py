"""A notebook run headless becomes one page that needs no network and shows no code."""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path

import pytest

from pixops.report import ReportError, remote_references, render_report
from tests.report.conftest import REPORT_CELLS, REPORT_PARAMETERS, write_notebook


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The report notebook rendered once for the module's readers, into a folder that does
    not exist yet: the path asked for and the path returned (a run is a kernel's start)."""
    folder = tmp_path_factory.mktemp("rendered")
    notebook = write_notebook(
        folder / "daily_check.ipynb", *REPORT_CELLS, parameters=REPORT_PARAMETERS
    )
    out = folder / "reports" / "2026" / "report.html"
    assert not out.parent.exists()
    written = render_report(notebook, out, parameters={"business_date": "2026-01-31", "count": 7})
    return out, written


def test_the_report_carries_parameters_charts_widgets_and_no_code(
    rendered: tuple[Path, Path],
) -> None:
    out, written = rendered
    page = written.read_text(encoding="utf-8")
    assert written == out
    assert stat.S_IMODE(out.stat().st_mode) == 0o644
    assert remote_references(page) == []
    assert not re.search(r"<script[^>]*src=[\"']?https?://", page)
    # The injected parameters reached the chart, which plotly.js (inline) will draw.
    assert "Volumes 2026-01-31" in page
    assert "Plotly.newPlot" in page
    # The page's title names the values it ran with: a month's report and the next
    # one's read alike in a browser's tabs.
    assert "<title>daily check (business_date 2026-01-31, count 7)</title>" in page
    # Widgets: their state and a view, and the renderer inlined as a data: URL.
    assert '<script src="data:text/javascript;base64,' in page
    state = re.search(
        r'<script type="application/vnd.jupyter.widget-state\+json">(.*?)</script>', page, re.S
    )
    assert state is not None
    models = json.loads(state.group(1))["state"]
    assert any(model["model_name"] == "ButtonModel" for model in models.values())
    assert "R$ 1.234,56" in state.group(1)
    # No code: neither the source nor an input prompt.
    assert "SECRET_SOURCE_MARKER" not in page
    assert 'class="jp-InputPrompt' not in page
    assert 'class="jp-CodeMirrorEditor' not in page
    assert page.count("jp-mod-noInput") == 4
    assert list(out.parent.iterdir()) == [out]


def test_a_failing_cell_is_an_error_and_leaves_no_file(tmp_path: Path) -> None:
    notebook = write_notebook(tmp_path / "broken.ipynb", "1 / 0", parameters="day = 1")
    out = tmp_path / "report.html"

    with pytest.raises(ReportError, match="ZeroDivisionError"):
        render_report(notebook, out, parameters={"day": 2})

    assert not out.exists()
    assert [path.name for path in tmp_path.iterdir()] == ["broken.ipynb"]


@pytest.mark.parametrize(
    ("out", "message"),
    [("report.pdf", "give a .html path"), ("blocker/report.html", "is under a file")],
)
def test_a_bad_destination_is_refused_before_running(
    report_notebook: Path, tmp_path: Path, out: str, message: str
) -> None:
    (tmp_path / "blocker").write_text("a file where a folder should be")
    with pytest.raises(ReportError, match=message):
        render_report(report_notebook, tmp_path / out)


def test_a_missing_folder_for_the_report_is_made(rendered: tuple[Path, Path]) -> None:
    out, written = rendered  # reports/2026/ did not exist before the run
    assert written == out
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


@pytest.mark.parametrize("value", [None, "", "   ", 3])
def test_paths_must_be_paths(report_notebook: Path, value: object) -> None:
    with pytest.raises(ReportError, match="must be a path"):
        render_report(report_notebook, value)  # type: ignore[arg-type]


def test_a_file_that_is_not_a_notebook_is_refused_before_running(
    tmp_path: Path, recwarn: pytest.WarningsRecorder
) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("{}")
    with pytest.raises(ReportError, match=r"give a \.ipynb file, not notes\.txt"):
        render_report(text, tmp_path / "r.html")
    assert not recwarn.list  # papermill's own warning about the suffix never comes
    assert not (tmp_path / "r.html").exists()
