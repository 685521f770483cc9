"""Every notebook in a real JupyterLab: Run All on a kernel with nothing defined (one kernel of
the module, cleared before each notebook: tests/browser/_lab.py `open_notebook`; nbval runs
each on a fresh kernel), then each panel's main action, then the same page at 800 px (and
1024 px) with the file browser open.

Each notebook with a panel runs once here: one test reads its page at 1280 px and at the
narrow widths (running a notebook in Lab is most of a test's time). The quickstart and
the statement analysis have no panel to click: they open as stored, trusted (`_shown`),
since nbval runs every notebook on a fresh kernel and checks it gives the stored outputs.
The assertions read what the page shows (pt-BR money, charts drawn, the panels' answers,
tables that fit), and each test leaves screenshots in tests/browser/screenshots/ to look at.

The harness itself (Run All, a widget click, a failing cell caught) and the ledger mapping
panel are tested here too, in the same JupyterLab, Chromium and tab: in modules of their
own each started a Lab server, launched Chromium and loaded Lab's scripts again.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import httpx
import nbformat
import pytest
from nbformat.sign import NotebookNotary
from nbformat.v4 import new_code_cell, new_notebook
from playwright.sync_api import Page, expect

from tests.browser._lab import (
    CURRENT,
    NARROWEST,
    SCREENSHOTS_VARIABLE,
    Server,
    amount_labels,
    broken_cells,
    clipped_chart_text,
    clipped_tables,
    connection_lines,
    cut_widgets,
    legend_over_title,
    narrow_with_file_browser,
    open_notebook,
    run_all_cells,
    screenshot,
    screenshot_at,
    screenshot_notebook,
    scrolling_tables,
    show_tab,
    small_amount_labels,
    split_connection_words,
    split_printed_values,
    widget_button,
)
from tests.browser._notebooks import (
    PAYMENT,
    PAYMENT_AMOUNT_TEXT,
    PAYMENT_LEFT_TEXT,
    PAYMENT_PAYER,
    notebook_named,
)
from tests.recon.ptbr_ledger import write_ptbr_ledger

# Generous: the machine is shared, and a changed engine rebuilds the demo month first.
pytestmark = pytest.mark.timeout(600)

_MONEY = re.compile(r"R\$\s?-?\d{1,3}(\.\d{3})*,\d{2}")
#: Base units shown raw: a money-named JSON key with a bare integer, or a run of five or
#: more digits standing alone (R$ text groups digits by three; ids, dates and masked
#: documents join theirs to letters or separators, JSON quotes its ids like an ISPB).
_RAW_BASE_UNITS = re.compile(
    r'"\w*(?:amount|balance|refunded|refundable)"\s*:\s*-?\d'
    r'|(?<![\w.,/:*"-])\d{5,}(?![\w.,/:*"-])',
    re.IGNORECASE,
)
#: A CPF or CNPJ field of an API shape holding a whole, unmasked CPF.
_WHOLE_CPF = re.compile(r'document"\s*:\s*"\d{11}"', re.IGNORECASE)


def _run(page: Page, lab: Server, workspace: Path, pattern: str) -> str:
    name = notebook_named(workspace / "notebooks", pattern)
    open_notebook(page, lab, name)
    run_all_cells(page)
    assert clipped_tables(page) == [], "a table runs off the notebook with no scrollbar"
    assert clipped_chart_text(page) == [], "a chart's text runs off its figure"
    if os.environ.get(SCREENSHOTS_VARIABLE) == "all":  # each screenful, for a person to look at
        screenshot_notebook(page, Path(name).stem)
    return name


def _shown(page: Page, lab: Server, workspace: Path, notary: NotebookNotary, pattern: str) -> str:
    """Open a notebook as stored, its outputs trusted, for a test that only reads them: nbval
    runs each notebook on a fresh kernel and checks it gives these outputs (running it in
    Lab again cost ~5 s of kernel CPU and Lab drawing every output as it came)."""
    name = notebook_named(workspace / "notebooks", pattern)
    path = workspace / "notebooks" / name
    stored = nbformat.read(path, as_version=4)
    assert any(cell.get("outputs") for cell in stored.cells), f"{name} stores no outputs"
    notary.sign(stored)
    open_notebook(page, lab, name, kernel=False)  # its outputs are read, no cell is run
    assert _trusted(lab, name), f"{name} opened untrusted (its HTML outputs sanitized)"
    screenshot_notebook(page, Path(name).stem)  # each cell drawn once, as a run draws it
    assert clipped_tables(page) == [], "a table runs off the notebook with no scrollbar"
    assert clipped_chart_text(page) == [], "a chart's text runs off its figure"
    return name


def _trusted(lab: Server, name: str) -> bool:
    """Whether the server hands `name` to Lab trusted (every code cell marked so)."""
    answer = httpx.get(
        f"{lab.base_url}/api/contents/{name}", headers={"Authorization": f"token {lab.token}"}
    ).raise_for_status()
    cells = [cell for cell in answer.json()["content"]["cells"] if cell["cell_type"] == "code"]
    return bool(cells) and all(cell["metadata"].get("trusted") for cell in cells)


#: How far a table's right edge runs past its output's (0 when it fits).
_OVERRUN_JS = """table => {
  const output = table.closest('.jp-OutputArea-output');
  return Math.max(0, table.getBoundingClientRect().right - output.getBoundingClientRect().right);
}"""


def _tables_at_1280(page: Page, tables: dict[str, str]) -> None:
    """A screenshot of each table (a name and its selector) as the page shows it now, at
    1280 px: taken before `_tables_fit` narrows the window, so the page is laid out (and
    its charts redrawn) once per width, not back again."""
    for name, selector in tables.items():
        screenshot_at(page, page.locator(f"{CURRENT} {selector}").first, f"{name}-1280")


def _tables_fit(page: Page, tables: dict[str, str]) -> None:
    """With the notebook run, narrow the window to 800 px beside the file browser (about
    450 px for the outputs) and check that each table (a name and its selector) fits its
    output; a screenshot of each at 800 px shows it."""
    narrow_with_file_browser(page, NARROWEST)
    overruns = {}
    for name, selector in tables.items():
        table = page.locator(f"{CURRENT} {selector}").first
        table.scroll_into_view_if_needed()
        overruns[name] = round(table.evaluate(_OVERRUN_JS))
        screenshot_at(page, table, f"{name}-800")
    assert {name: px for name, px in overruns.items() if px > 1} == {}, "px past the output"


def _outputs_text(page: Page) -> str:
    texts: list[str] = page.evaluate(
        "Array.from(document.querySelectorAll('.jp-OutputArea-output')).map(e => e.innerText)"
    )
    return "\n".join(texts)


def test_quickstart_shows_reais_and_its_movements_fit_at_800_px(
    page: Page, lab: Server, workspace: Path, notary: NotebookNotary
) -> None:
    _shown(page, lab, workspace, notary, "*quickstart*.ipynb")
    assert _MONEY.search(_outputs_text(page)), "no pt-BR money in the quickstart's outputs"
    # The first money shown, in view: left at the notebook's end, the window was blank.
    screenshot_at(page, page.locator(f"{CURRENT} .jp-OutputArea-output").first, "quickstart")
    # The latest movements' money and status showed only after a sideways scroll past
    # the names.
    tables = {"quickstart-movements": "table:has(th:has-text('Movement'))"}
    _tables_at_1280(page, tables)
    _tables_fit(page, tables)


def test_statement_analysis_draws_its_charts_and_reads_at_800_px(
    page: Page, lab: Server, workspace: Path, notary: NotebookNotary
) -> None:
    _shown(page, lab, workspace, notary, "*statement*.ipynb")
    charts = page.locator(".js-plotly-plot")
    expect(charts.first).to_be_visible()
    assert charts.count() >= 2
    expect(charts.first.locator(".main-svg").first).to_be_visible()
    assert _MONEY.search(_outputs_text(page))
    charts.first.scroll_into_view_if_needed()
    screenshot(page, "statement-analysis-chart", element=charts.first)
    screenshot(page, "statement-analysis")
    tables = {
        "statement-weekdays": "table:has(th:has-text('Received per day'))",
        "statement-largest": "table:has(th:has-text('Payer'))",
    }
    _tables_at_1280(page, tables)
    _tables_fit(page, tables)  # the window now 800 px wide, the file browser open
    # At 800 px a chart is about 360 px wide: the legends ran over the titles, the hours'
    # title ran off its figure, the banks' names left their bars 60 px, and the month's
    # printed figures broke inside their amounts ("R$ 7.922.4" over "68,58").
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


def test_daily_reconciliation_dashboard_reconciles_exports_and_fits_at_800_px(
    page: Page, lab: Server, workspace: Path
) -> None:
    _run(page, lab, workspace, "*daily*.ipynb")
    # The notebook's own `dashboard.run()` has reconciled the day: a click on Reconcile
    # here ran it again (~5 s of kernel and Chromium CPU redrawing the charts) while the
    # checks below already passed on the first run's page; the button's click is
    # tested on the plain class (tests/widgets/test_recon.py), Export's below.
    panel = page.locator(".widget-vbox").filter(has_text="Reconciliation").last
    expect(panel).to_contain_text(re.compile(r"\d{2}/\d{2}/\d{4} \(São Paulo time\): \d+ matched"))
    charts = panel.locator(".js-plotly-plot")
    expect(charts.first).to_be_visible()
    assert charts.count() >= 4
    expect(panel.locator("table").first).to_contain_text(_MONEY)
    assert clipped_tables(page) == [], "a dashboard table runs off the notebook"
    assert clipped_chart_text(page) == [], "a dashboard chart's text runs off its figure"
    widget_button(panel, "Export").click()
    expect(panel).to_contain_text(re.compile(r"Exported \d+ files"))
    assert not _RAW_BASE_UNITS.search(panel.locator("table").first.inner_text())
    screenshot_at(page, panel.get_by_text(re.compile("Exported")).first, "daily-dashboard")
    # Five columns (six in What to check) hid Statement and Difference, the ones finance
    # reads; the dashboard's summary too (checked at 800 px below).
    tables = {
        "daily-summary": ".pixops-summary",
        "daily-what-to-check": ".pixops-findings",
        "daily-dashboard-summary": ".widget-html .pixops-summary",
    }
    _tables_at_1280(page, tables)
    # A finance desk's 1024 px screen with the file browser open: nothing is cut off.
    narrow_with_file_browser(page)
    assert cut_widgets(page) == [], "a dashboard date, filter or button is cut off"
    assert clipped_tables(page) == [], "a dashboard table runs off the notebook"
    summary = panel.locator(".widget-html").filter(has_text="Category").first
    assert scrolling_tables(summary) == [], "the summary's amounts are hidden sideways"
    screenshot_at(page, panel.get_by_text("Time zone").first, "daily-dashboard-1024")
    # The narrowest window of the audit, 800 px beside the file browser (figures about
    # 360 px wide): the roll-forward's title lines ran past the figure, and amounts on
    # its bars were shrunk to their bars' width, a few pixels high (they are on the axis
    # now). Both the notebook's chart and the dashboard's are on the page.
    narrow_with_file_browser(page, NARROWEST)
    rollforward = page.locator(".js-plotly-plot").filter(has_text="Reported")
    expect(rollforward).to_have_count(2)
    assert amount_labels(page) >= 12  # six steps, in the notebook and on the dashboard
    assert small_amount_labels(page) == [], "a chart's amounts are too small to read"
    assert clipped_chart_text(page) == [], "a chart's text runs off its figure at 800 px"
    # A legend right of its title covered the title of a 360 px figure.
    assert legend_over_title(page) == [], "a chart's legend covers its title at 800 px"
    assert cut_widgets(page) == [], "a dashboard date, filter or button is cut off at 800 px"
    screenshot_at(page, rollforward.first, "daily-rollforward-800")
    screenshot_at(page, rollforward.last, "daily-dashboard-rollforward-800")
    _tables_fit(page, tables)
    # Each category's rows at 800 px: the Detail column ran past the output (and was read
    # only by scrolling sideways).
    show = panel.locator(".widget-dropdown").filter(has_text="Show").locator("select")
    rows = panel.locator(".pixops-rows")
    overruns = {}
    for label in show.locator("option").all_inner_texts():
        before = rows.inner_html()
        show.select_option(label=label)
        if "(0)" in label:  # "No rows.", maybe as the category before it said
            continue
        page.wait_for_function(
            "([e, b]) => e.innerHTML !== b", arg=[rows.element_handle(), before], timeout=10000
        )
        if rows.locator("table").count():
            overruns[label] = round(rows.locator("table").first.evaluate(_OVERRUN_JS))
            slug = re.sub(r"[^a-z0-9]+", "-", label.split("(")[0].lower()).strip("-")
            screenshot_at(page, rows, f"daily-dashboard-rows-{slug}-800")
    assert len(overruns) >= 8, overruns
    assert {label: px for label, px in overruns.items() if px > 1} == {}, "px past the output"


def test_refunds_panel_refunds_part_of_a_payment(page: Page, lab: Server, workspace: Path) -> None:
    _run(page, lab, workspace, "*refund*.ipynb")
    panel = page.locator(".widget-vbox").filter(has_text="Refund a received PIX").first
    # An en-US browser draws the date picker mm/dd/yyyy; the echo beside it says dd/mm/yyyy.
    panel.locator("input[type=date]").first.fill("2026-01-02")
    expect(panel.locator(".pixops-date-echo").first).to_contain_text("02/01/2026 (Fri, 2 Jan)")
    screenshot_at(page, panel.locator("input[type=date]").first, "refunds-date-echo")
    panel.get_by_placeholder(re.compile("transaction or end-to-end id")).fill(PAYMENT)
    widget_button(panel, "Find").click()
    expect(panel).to_contain_text(PAYMENT_AMOUNT_TEXT)
    expect(panel).to_contain_text(PAYMENT_LEFT_TEXT)  # what is left to refund
    panel.get_by_placeholder(re.compile("R\\$ 0,00")).fill("R$ 5,00")
    widget_button(panel, "Review refund").click()
    expect(panel).to_contain_text(f"Refund R$ 5,00 to {PAYMENT_PAYER}")
    # A hurried double click: the browser sends both clicks; one refund, and its answer stays.
    widget_button(panel, "Confirm refund").dblclick()
    expect(panel).to_contain_text("Processing (accepted by the service)")
    expect(panel).to_contain_text("Refund sent")
    page.wait_for_timeout(2000)  # the second click's turn
    expect(panel).not_to_contain_text("Review the refund first")
    expect(panel).to_contain_text(re.compile(r"Refund PIXRET\S+ of R\$ 5,00: Processing"))
    assert panel.inner_text().count("R$ 5,00") >= 1
    # A sent refund clears the amount: a second one starts from scratch.
    expect(panel.get_by_placeholder(re.compile("R\\$ 0,00"))).to_have_value("")
    widget_button(panel, "Follow up").click()
    expect(panel).to_contain_text(re.compile(r"Refund \S+: Settled"))
    card = panel.locator("table").filter(has_text="Of payment").first
    expect(card).to_contain_text("Settled")
    expect(card).not_to_contain_text("Accepted")
    assert "Event code" not in panel.inner_text()
    assert not _RAW_BASE_UNITS.search(panel.inner_text()), "raw base units shown to the reader"
    assert not _RAW_BASE_UNITS.search(_outputs_text(page)), "raw base units in the outputs"
    screenshot_at(page, panel.get_by_text("Refund sent").first, "refunds-panel")
    narrow_with_file_browser(page)
    assert scrolling_tables(panel) == [], "a refund table is wider than the panel at 1024 px"
    assert cut_widgets(page) == [], "a refund panel widget is cut off at 1024 px"
    screenshot_at(page, panel.get_by_text("Refund sent").first, "refunds-panel-1024")


#: How many lines each element's text takes: a Range's boxes by their tops, those a few
#: pixels apart (the word "Case" and the id's monospace) on one line.
_LINES_JS = """cells => cells.map(cell => {
  const range = document.createRange();
  range.selectNodeContents(cell);
  const tops = Array.from(range.getClientRects()).map(r => r.top).sort((a, b) => a - b);
  return tops.filter((top, i) => i === 0 || top - tops[i - 1] > 6).length;
})"""


def test_med_panel_submits_a_defense(page: Page, lab: Server, workspace: Path) -> None:
    _run(page, lab, workspace, "*med*.ipynb")
    panel = page.locator(".widget-vbox").filter(has_text="MED disputes").first
    expect(panel).to_contain_text(_MONEY)
    assert scrolling_tables(panel) == [], "a MED table is wider than the panel"
    defense = panel.get_by_placeholder(re.compile("Your defense"))
    defense.fill("Mercadoria entregue em 02/01 com comprovante de entrega assinado pelo pagador.")
    # Another case chosen while a defense is typed: its box is its own, empty; back on
    # the first case, the text typed for it is there again (never sent for the other).
    picker = panel.locator("select").first
    assert picker.locator("option").count() >= 2
    picker.select_option(index=1)
    expect(defense).to_have_value("")
    picker.select_option(index=0)
    expect(defense).to_have_value(re.compile("^Mercadoria entregue em 02/01"))
    widget_button(panel, "Submit defense").dblclick()  # a hurried double click: sent once
    expect(panel).to_contain_text(re.compile(r"Defense of \S+ received"))
    expect(panel).to_contain_text("Defense received")
    page.wait_for_timeout(2000)  # the second click's turn
    expect(panel).not_to_contain_text("Write the defense first")
    expect(panel).to_contain_text(re.compile(r"Defense of \S+ received"))
    assert not _RAW_BASE_UNITS.search(panel.inner_text()), "raw base units shown to the reader"
    assert not _RAW_BASE_UNITS.search(_outputs_text(page)), "raw base units in the outputs"
    assert scrolling_tables(panel) == [], "a MED table is wider than the panel"
    screenshot_at(page, panel.get_by_text(re.compile("Defense of")).first, "med-panel")
    # All cases: a closed case says how the central bank decided, and the table still fits.
    panel.locator(".widget-toggle-button").filter(has_text="All cases").click()
    expect(panel.get_by_text("Money kept", exact=True).first).to_be_visible()
    assert scrolling_tables(panel) == [], "a MED table is wider than the panel"
    screenshot_at(page, panel.get_by_text("Money kept", exact=True).first, "med-all-cases")
    # At 1024 px beside the file browser the amounts, reasons and statuses stay in view
    # (six columns with the case id in the middle hid them sideways).
    narrow_with_file_browser(page)
    assert scrolling_tables(panel) == [], "a MED table is wider than the panel at 1024 px"
    assert cut_widgets(page) == [], "a MED widget is cut off at 1024 px"
    screenshot_at(page, panel.locator("table").first, "med-all-cases-1024")
    # At 800 px (about 360 px for the panel) the 28-character case id broke a letter a
    # line, rows a dozen lines tall, and the table still scrolled sideways.
    narrow_with_file_browser(page, NARROWEST)
    cases = panel.locator("table").filter(has_text="Disputed").first
    assert scrolling_tables(panel) == [], "a MED table is wider than the panel at 800 px"
    assert cut_widgets(page) == [], "a MED widget is cut off at 800 px"
    disputed = cases.locator("th").all_inner_texts().index("Disputed")
    assert broken_cells(cases, disputed) == [], "an amount breaks over lines at 800 px"
    # The whole case id (people copy it), on one line under its case: "syn68…" was cut.
    ids = cases.locator("td.pixops-med-case")
    assert ids.count() >= 2
    lines = ids.evaluate_all(_LINES_JS)
    assert lines == [1] * ids.count(), "a case id breaks over lines at 800 px"
    first_case = ids.first
    assert first_case.inner_text() == f"Case {first_case.get_attribute('data-case')}"
    assert re.fullmatch(r"Case med_\w+", first_case.inner_text())
    screenshot_at(page, cases, "med-all-cases-800")


#: A payment disputed through MED and refunded by it: every tab has something long in it
#: (the refund's id, the 64-character authentication code, the API's JSON lines).
DISPUTED = "med_98kc7yqmuh9xp5npi9n9o4dq"
TABS = ("Summary", "Timeline", "Refunds", "MED", "Receipt", "API shapes")

#: Elements of the panel wider than their box that clip or scroll their content.
_WIDER_THAN_THEIR_BOX_JS = """panel => {
  const found = [];
  for (const e of panel.querySelectorAll('*')) {
    if (e.offsetParent === null || getComputedStyle(e).overflowX === 'visible') continue;
    if (e.scrollWidth > e.clientWidth + 1) {
      found.push(`${e.tagName}.${e.className} ${e.scrollWidth} > ${e.clientWidth}: `
        + (e.innerText || '').slice(0, 60));
    }
  }
  return found;
}"""
#: Tab labels drawn narrower than their text (ipywidgets shrinks the tabs to fit a row).
_CUT_TAB_LABELS_JS = """panel => [...panel.querySelectorAll('.lm-TabBar-tabLabel')]
  .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)"""


def test_investigation_inspects_a_payment_and_its_tabs_fit_at_1024_and_800_px(
    page: Page, lab: Server, workspace: Path
) -> None:
    _run(page, lab, workspace, "*investigation*.ipynb")
    panel = page.locator(".widget-vbox").filter(has_text="Transaction inspector").first
    panel.get_by_placeholder(re.compile("transaction id, end-to-end id")).fill(PAYMENT)
    widget_button(panel, "Inspect").click()
    expect(panel).to_contain_text("Found.")
    expect(panel).to_contain_text(PAYMENT_AMOUNT_TEXT)
    expect(panel).to_contain_text(PAYMENT_PAYER)
    screenshot_at(page, panel.get_by_text("Found.").first, "investigation-panel")
    panel.get_by_role("tab", name="Timeline").click()
    expect(panel).to_contain_text("Charge paid")
    assert "pix." not in panel.inner_text(), "a raw event code shown in the timeline"
    assert "webhook" not in panel.inner_text(), "a developer's word in the timeline"
    screenshot_at(page, panel.get_by_text("Charge paid").first, "investigation-timeline")
    # At 1024 px with the file browser open the steps wrap, long refund ids included:
    # nothing of the timeline or the refunds hides past the right edge.
    narrow_with_file_browser(page)
    assert scrolling_tables(panel) == [], "a timeline step runs past the notebook"
    panel.get_by_role("tab", name="Refunds").click()
    header = panel.locator("th:visible").filter(has_text="Amount").first
    expect(header).to_be_attached()
    amount, edge = header.bounding_box(), panel.bounding_box()
    assert amount is not None
    assert edge is not None
    assert amount["x"] + amount["width"] <= edge["x"] + edge["width"], "refund amounts hidden"
    page.set_viewport_size({"width": 1280, "height": 1000})
    panel.get_by_role("tab", name="API shapes").click()
    expect(panel).to_contain_text("payer_document")
    shapes = panel.inner_text()
    assert "***." in shapes, "the payer's CPF is not masked"
    assert not _WHOLE_CPF.search(shapes), "a whole CPF in the API shapes"
    assert not _RAW_BASE_UNITS.search(shapes), "raw base units or a whole CPF in the API shapes"
    screenshot_at(page, panel.get_by_text("payer_document").first, "investigation-shapes")
    # A payment disputed through MED and refunded by it, at 1024 px and then 800 px with
    # the file browser open: every tab of the inspector reads without a sideways scroll,
    # long ids and JSON lines included.
    narrow_with_file_browser(page)
    panel.get_by_placeholder(re.compile("transaction id, end-to-end id")).fill(DISPUTED)
    widget_button(panel, "Inspect").click()
    expect(panel).to_contain_text(f"Found: MED case {DISPUTED}")
    for tab in TABS:
        show_tab(page, panel, tab)
        wide: list[str] = panel.evaluate(_WIDER_THAN_THEIR_BOX_JS)
        assert wide == [], f"the {tab} tab scrolls sideways at 1024 px: {wide}"
    panel.get_by_role("tab", name="Receipt").click()
    code = panel.locator("td").filter(has_text=re.compile(r"^[0-9a-f]{64}$")).first
    expect(code).to_be_visible()
    box, edge = code.bounding_box(), panel.bounding_box()
    assert box is not None
    assert edge is not None
    assert box["x"] + box["width"] <= edge["x"] + edge["width"], "the code runs past the panel"
    # Wrapped on screen, the code is still one piece of text to copy.
    assert re.fullmatch(r"[0-9a-f]{64}", code.inner_text().replace("\n", ""))
    screenshot_at(page, code, "investigation-narrow-receipt")
    panel.get_by_role("tab", name="API shapes").click()
    screenshot_at(page, panel.get_by_text("payer_document").first, "investigation-narrow-shapes")
    # At 800 px (about 330 px for a tab) the tabs read "Summa", "Timelin", "Refunc" and the
    # refunds table ran 7 px past its box: the tabs wrap onto rows, and the table fits.
    narrow_with_file_browser(page, NARROWEST)
    assert panel.evaluate(_CUT_TAB_LABELS_JS) == [], "a tab's label is cut at 800 px"
    for tab in TABS:
        show_tab(page, panel, tab)
        wide = panel.evaluate(_WIDER_THAN_THEIR_BOX_JS)
        assert wide == [], f"the {tab} tab scrolls sideways at 800 px: {wide}"
    panel.get_by_role("tab", name="Refunds").click()
    refunds = panel.locator("table:visible").filter(has_text="Requested").first
    screenshot_at(page, refunds, "investigation-800-refunds")


# -- the harness itself: Run All in a real JupyterLab, a widget click, a failing cell caught --

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
    assert screenshot_notebook(page, "harness", capture=True)[0].is_file()


def test_the_file_browser_lists_the_notebooks_not_the_test_plumbing(lab: Server) -> None:
    listed = httpx.get(
        f"{lab.base_url}/api/contents/", headers={"Authorization": f"token {lab.token}"}
    )
    assert listed.status_code == 200
    names = {item["name"] for item in listed.json()["content"]}
    assert "01_quickstart.ipynb" in names
    assert "README.md" in names
    assert not names & {"conftest.py", "sanitize.cfg", "ruff.toml"}


# -- the ledger mapping panel: a pt-BR export's first rows, the dropdowns and the amounts
# previewed in R$, at 1280 px and at 800 px beside the file browser --

_LEDGER_PANEL_CODE = (
    'from pixops.widgets import LedgerMapPanel\n\nLedgerMapPanel("../data/razao.csv")'
)


def _panel_notebook(workspace: Path) -> str:
    """A notebook of one cell showing the panel on a pt-BR ledger kept in centavos."""
    write_ptbr_ledger(workspace / "data" / "razao.csv", centavos=True)
    name = "ledger_map_panel.ipynb"
    cell = {
        "cell_type": "code",
        "metadata": {},
        "source": _LEDGER_PANEL_CODE,
        "outputs": [],
        "execution_count": None,
    }
    notebook = {
        "cells": [cell],
        "metadata": {
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (workspace / "notebooks" / name).write_text(json.dumps(notebook), encoding="utf-8")
    return name


def test_the_mapping_panel_previews_reais_and_fits_beside_the_file_browser(
    page: Page, lab: Server, workspace: Path
) -> None:
    open_notebook(page, lab, _panel_notebook(workspace))
    run_all_cells(page)
    output = page.locator(f"{CURRENT} .jp-OutputArea-output").first
    expect(output).to_contain_text("Documento")  # the first rows, as written
    expect(output).to_contain_text("holds whole numbers: choose their Unit above")
    unit = output.locator("select").nth(7)  # after the seven fields: the unit
    unit.select_option(label="centavos")
    expect(output).to_contain_text("amounts in centavos (compared to the centavo)")
    expect(output).to_contain_text("R$ 5,70")
    screenshot(page, "ledger-map-panel-1280", element=output)
    narrow_with_file_browser(page, NARROWEST)
    output.scroll_into_view_if_needed()
    screenshot(page, "ledger-map-panel-800")
    assert cut_widgets(page) == []
    scrolled = output.evaluate(
        "out => [...out.querySelectorAll('div[style*=\"overflow-x:auto\"]')]"
        ".filter(box => box.scrollWidth > box.clientWidth + 1).length"
    )
    assert scrolled == 0, "a table of the panel scrolls sideways at 800 px"
    widget_button(page, "Save mapping").click()
    expect(output).to_contain_text("Saved razao.mapping.toml beside the ledger")
    assert (workspace / "data" / "razao.mapping.toml").is_file()
    screenshot(page, "ledger-map-panel-800-saved")
