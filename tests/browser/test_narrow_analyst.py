"""The analyst's notebooks at 1024 px with JupyterLab's file browser open (about 590 px
for the outputs): the tables of findings and of weekdays show every figure without a
sideways scroll."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page

from tests.browser._lab import (
    CURRENT,
    NARROWEST,
    Server,
    clipped_chart_text,
    connection_lines,
    legend_over_title,
    narrow_with_file_browser,
    open_notebook,
    run_all_cells,
    screenshot_at,
    screenshot_notebook,
    split_connection_words,
    split_printed_values,
)
from tests.browser._notebooks import notebook_named

# Generous: the machine is shared, and a changed engine rebuilds the demo month first.
pytestmark = pytest.mark.timeout(600)

#: How far a table's right edge runs past its output's (0 when it fits).
_OVERRUN_JS = """table => {
  const output = table.closest('.jp-OutputArea-output');
  return Math.max(0, table.getBoundingClientRect().right - output.getBoundingClientRect().right);
}"""


def _table_fits(page: Page, lab: Server, notebook: Path, table_selector: str, name: str) -> None:
    """Run `notebook` in Lab, narrow the window beside the file browser, and check that the
    table fits its output (a screenshot `name` shows it)."""
    open_notebook(page, lab, notebook)
    run_all_cells(page)
    narrow_with_file_browser(page)
    table = page.locator(f"{CURRENT} {table_selector}").first
    table.scroll_into_view_if_needed()
    overrun: float = table.evaluate(_OVERRUN_JS)
    screenshot_at(page, table, name)
    assert overrun <= 1, f"{table_selector} runs {overrun:.0f} px past its output"


def test_what_to_check_fits_beside_the_file_browser(
    page: Page, lab: Server, workspace: Path
) -> None:
    """Six columns made the detail a letter a line and put the difference out of sight."""
    daily = notebook_named(workspace / "notebooks", "*daily*.ipynb")
    _table_fits(page, lab, daily, ".pixops-findings", "daily-what-to-check-1024")


def test_the_weekdays_fit_beside_the_file_browser(page: Page, lab: Server, workspace: Path) -> None:
    statement = notebook_named(workspace / "notebooks", "*statement*.ipynb")
    weekdays = "table:has(th:text-is('Received per day'))"
    _table_fits(page, lab, statement, weekdays, "statement-weekdays-1024")


def test_the_latest_movements_fit_beside_the_file_browser(
    page: Page, lab: Server, workspace: Path
) -> None:
    """The money and the status showed only after a sideways scroll past the names."""
    quickstart = notebook_named(workspace / "notebooks", "*quickstart*.ipynb")
    movements = "table:has(th:text-is('Movement'))"
    _table_fits(page, lab, quickstart, movements, "quickstart-movements-1024")


def test_the_month_reads_at_800_px_beside_the_file_browser(
    page: Page, lab: Server, workspace: Path
) -> None:
    """At 800 px a chart is about 360 px wide: the legends ran over the titles, the hours'
    title ran off its figure, the banks' names left their bars 60 px, and the month's
    printed figures broke inside their amounts ("R$ 7.922.4" over "68,58")."""
    statement = notebook_named(workspace / "notebooks", "*statement*.ipynb")
    open_notebook(page, lab, statement)
    run_all_cells(page)
    narrow_with_file_browser(page, NARROWEST)
    screenshot_notebook(page, "statement-800", max_parts=12)
    charts = page.locator(f"{CURRENT} .js-plotly-plot")
    assert charts.count() == 4
    for at in range(charts.count()):  # Lab draws a chart once it is scrolled into view
        charts.nth(at).scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    assert clipped_chart_text(page) == [], "a chart's text runs off its figure"
    assert legend_over_title(page) == [], "a chart's legend covers its title"
    assert split_printed_values(page) == [], "a printed amount breaks over two lines"
    assert connection_lines(page) == 1
    assert split_connection_words(page) == [], "a word of the connection line is split"
    # The plot area (plotly's drag rectangle) of the banks' chart, against the figure.
    plot = charts.nth(2).locator("rect.nsewdrag").first.bounding_box()
    figure = charts.nth(2).bounding_box()
    assert plot is not None
    assert figure is not None
    assert plot["width"] >= 0.4 * figure["width"], "the banks' names crowd out their bars"
