"""The scheduled report opened in a browser with the network off: charts and tables drawn,
no live controls (they need a kernel)."""

from __future__ import annotations

import os
import re
from datetime import date
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from pixops.money import format_brl_base
from pixops.report import daily_report, remote_references
from pixops.widgets._format import message
from tests.browser._lab import (
    SCREENSHOTS,
    SCREENSHOTS_VARIABLE,
    clipped_chart_text,
    drawn,
    screenshot,
    screenshot_at,
    split_printed_values,
)
from tests.browser._notebooks import notebook_named

# Generous: the machine is shared, and a changed engine rebuilds the demo month first.
pytestmark = pytest.mark.timeout(600)

REPORT_DAY = date(2026, 1, 15)  # the day the sample ledger's discrepancies are planted on

#: The summary table (the first table after the "Summary" heading): its width and the
#: width of the box around it, which scrolls sideways when the table is wider.
_SUMMARY_WIDTHS = """() => {
  let cell = document.getElementById("Summary").closest(".jp-Cell");
  let table = null;
  while (cell && !table) {
    cell = cell.nextElementSibling;
    table = cell && cell.querySelector("table");
  }
  return {table: table.scrollWidth, box: table.parentElement.clientWidth};
}"""

#: Writes `amount` (as the ledger's and the statement's sum) and `difference` into every
#: money cell of the summary table: the demo day's sums are hundreds of thousands of reais, a busy
#: merchant's are millions, and the table must still fit.
_MILLIONS_IN_SUMMARY = """([amount, difference]) => {
  let cell = document.getElementById("Summary").closest(".jp-Cell");
  let table = null;
  while (cell && !table) {
    cell = cell.nextElementSibling;
    table = cell && cell.querySelector("table");
  }
  for (const row of table.tBodies[0].rows) {
    // Column 1 stacks the ledger's sum over the statement's; column 2 is the difference.
    const [, stacked, difference_cell] = row.cells;
    if (!stacked || !stacked.textContent.includes("R$")) continue;
    stacked.firstChild.textContent = amount;
    stacked.querySelector("span").textContent = amount;
    difference_cell.textContent = difference;
  }
}"""
#: R$ 9.876.543,21 (base units: R$ 1,00 is 10.000): seven digits of reais, every
#: digit as wide as another, so no amount in the millions is wider.
_MILLIONS_BASE = 98_765_432_100


def test_the_daily_report_renders_offline(
    browser: Browser, workspace: Path, tmp_path: Path
) -> None:
    notebooks = workspace / "notebooks"
    notebook = notebooks / notebook_named(notebooks, "*daily*.ipynb")
    out = daily_report(
        REPORT_DAY,
        tmp_path / "recon.html",
        notebook=notebook,
        ledger=workspace / "data" / "sample_ledger.csv",
    )
    page_text = out.read_text(encoding="utf-8")
    assert remote_references(page_text) == []
    assert not re.search(r"<script[^>]*\bsrc=[\"']?(https?:)?//", page_text)

    context = browser.new_context(viewport={"width": 1280, "height": 1000}, offline=True)
    try:
        page = context.new_page()
        requested: list[str] = []
        page.on("request", lambda request: requested.append(request.url))
        page.goto(out.as_uri())
        charts = page.locator(".js-plotly-plot")
        expect(charts.first).to_be_visible(timeout=30_000)
        expect(charts.first.locator(".main-svg").first).to_be_visible()
        body = page.locator("body")
        expect(body).to_contain_text(re.compile(r"R\$\s?\d"))
        expect(body).to_contain_text("15/01/2026")
        expect(body).to_contain_text("What to check")
        expect(body).to_contain_text("Balance 15/01/2026 00:00 to 16/01/2026 00:00")
        # The dashboard's pickers and buttons need a kernel: the page leaves them out, and
        # the notes on how to connect and what to explore next with them.
        expect(page.locator("button:not(.modebar-btn), input, select")).to_have_count(0)
        expect(body).not_to_contain_text("Where this runs")
        expect(body).not_to_contain_text("papermill")
        assert [url for url in requested if not url.startswith(("file:", "data:"))] == []
        assert clipped_chart_text(page) == [], "a chart's text runs off its figure"
        screenshot(page, "report-top")
        if os.environ.get(SCREENSHOTS_VARIABLE) == "all":  # the whole page: a long PNG
            page.screenshot(path=str(SCREENSHOTS / "report-full.png"), full_page=True)

        # A 600 px window (a phone on its side, half a laptop screen): the summary fits.
        # The same page, narrowed (loading it again parsed its inline plotly.js anew).
        page.set_viewport_size({"width": 600, "height": 900})
        drawn(page)
        summary = page.locator("#Summary")
        expect(summary).to_be_visible(timeout=30_000)
        widths = page.evaluate(_SUMMARY_WIDTHS)
        assert widths["table"] <= widths["box"], f"the summary scrolls sideways at 600 px: {widths}"
        screenshot_at(page, summary, "report-summary-600")
        # The sandbox's line wrapped inside its clock's time ("01:" over "09").
        assert split_printed_values(page) == [], "a printed time or amount is split"
        # Millions of reais in all three money columns (the difference negative, its
        # widest): still no sideways scroll.
        millions = [format_brl_base(_MILLIONS_BASE), format_brl_base(-_MILLIONS_BASE)]
        page.evaluate(_MILLIONS_IN_SUMMARY, millions)
        expect(page.locator("table").get_by_text(millions[1]).first).to_be_visible()
        widths = page.evaluate(_SUMMARY_WIDTHS)
        assert widths["table"] <= widths["box"], f"a day of millions scrolls at 600 px: {widths}"
        screenshot_at(page, summary, "report-summary-600-millions")
    finally:
        context.close()


# A panel's status line, rendered: a long unbroken word stays inside the panel. It lives here,
# not in a module of its own, to share this module's Chromium (a launch costs ~3 s; the check
# itself ~0.3 s).
def test_a_note_without_spaces_quoted_back_wraps_inside_the_panel(page: Page) -> None:
    note = "x" * 140  # the longest description, typed without a space
    text = f"Refund R$ 1,00 to Mariana Souza with the note {note}?"
    page.set_content(f'<div id="panel" style="width:400px">{message(text, "warning")}</div>')
    widths = page.eval_on_selector(
        "#panel > div", "e => [e.scrollWidth, e.clientWidth, e.getBoundingClientRect().height]"
    )
    scroll_width, client_width, height = widths
    assert scroll_width <= client_width
    assert height > 40  # wrapped onto several lines, nothing cut off
