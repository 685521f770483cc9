"""The analyst's notebooks at 800 px with JupyterLab's file browser open (its default;
about 450 px for the outputs): the summary and "What to check" tables of the daily
notebook and its dashboard, the quickstart's latest movements and the statement's weekday
and largest-payment tables show every figure without a sideways scroll."""

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


def _tables_fit(page: Page, lab: Server, notebook: Path, tables: dict[str, str]) -> None:
    """Run `notebook` in Lab, narrow the window to 800 px beside the file browser, and
    check that each table (a name and its selector) fits its output; screenshots of each
    at 800 px, then at 1280 px, show them."""
    open_notebook(page, lab, notebook)
    run_all_cells(page)
    narrow_with_file_browser(page, NARROWEST)
    overruns = {}
    for name, selector in tables.items():
        table = page.locator(f"{CURRENT} {selector}").first
        table.scroll_into_view_if_needed()
        overruns[name] = round(table.evaluate(_OVERRUN_JS))
        screenshot_at(page, table, f"{name}-800")
    page.set_viewport_size({"width": 1280, "height": 1000})
    page.wait_for_timeout(500)
    for name, selector in tables.items():
        screenshot_at(page, page.locator(f"{CURRENT} {selector}").first, f"{name}-1280")
    assert {name: px for name, px in overruns.items() if px > 1} == {}, "px past the output"


def test_the_daily_tables_fit_at_800_px(page: Page, lab: Server, workspace: Path) -> None:
    """Five columns (six in What to check) hid Statement and Difference, the ones finance
    reads; the dashboard's summary too."""
    daily = notebook_named(workspace / "notebooks", "*daily*.ipynb")
    tables = {
        "daily-summary": ".pixops-summary",
        "daily-what-to-check": ".pixops-findings",
        "daily-dashboard-summary": ".widget-html .pixops-summary",
    }
    _tables_fit(page, lab, daily, tables)


def test_the_statement_tables_fit_at_800_px(page: Page, lab: Server, workspace: Path) -> None:
    statement = notebook_named(workspace / "notebooks", "*statement*.ipynb")
    tables = {
        "statement-weekdays": "table:has(th:has-text('Received per day'))",
        "statement-largest": "table:has(th:has-text('Payer'))",
    }
    _tables_fit(page, lab, statement, tables)


def test_the_latest_movements_fit_at_800_px(page: Page, lab: Server, workspace: Path) -> None:
    """The money and the status showed only after a sideways scroll past the names."""
    quickstart = notebook_named(workspace / "notebooks", "*quickstart*.ipynb")
    tables = {"quickstart-movements": "table:has(th:has-text('Movement'))"}
    _tables_fit(page, lab, quickstart, tables)


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
