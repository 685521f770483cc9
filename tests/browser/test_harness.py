"""The harness itself: Run All in a real JupyterLab, a widget click, a failing cell caught."""

from __future__ import annotations

from pathlib import Path

import httpx
import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook
from playwright.sync_api import Page, expect

from tests.browser._lab import (
    Server,
    open_notebook,
    run_all_cells,
    screenshot_notebook,
    widget_button,
)

pytestmark = pytest.mark.timeout(600)

_WIDGET_CELL = """\
import ipywidgets as w
from pixops.money import format_brl_base
label = w.HTML("nothing yet")
button = w.Button(description="Show total")
button.on_click(lambda _: setattr(label, "value", f"<b>Total {format_brl_base(12_345_600)}</b>"))
w.VBox([button, label])"""


def test_run_all_clicks_a_widget_and_reports_a_failing_cell(
    page: Page, lab: Server, workspace: Path
) -> None:
    notebook = new_notebook(
        cells=[new_code_cell(_WIDGET_CELL), new_code_cell("1 / 0")],
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}},
    )
    nbformat.write(notebook, workspace / "notebooks" / "zz_harness_check.ipynb")
    open_notebook(page, lab, "zz_harness_check.ipynb")

    with pytest.raises(AssertionError, match="ZeroDivisionError"):
        run_all_cells(page, timeout_seconds=60)

    widget_button(page, "Show total").click()
    expect(page.locator(".widget-html-content").first).to_have_text("Total R$ 1.234,56")
    assert screenshot_notebook(page, "harness")[0].is_file()


def test_the_file_browser_lists_the_notebooks_not_the_test_plumbing(lab: Server) -> None:
    listed = httpx.get(
        f"{lab.base_url}/api/contents/", headers={"Authorization": f"token {lab.token}"}
    )
    assert listed.status_code == 200
    names = {item["name"] for item in listed.json()["content"]}
    assert "01_quickstart.ipynb" in names
    assert "README.md" in names
    assert not names & {"conftest.py", "sanitize.cfg", "ruff.toml"}
