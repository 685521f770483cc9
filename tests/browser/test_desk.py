"""`pixops desk` in a real browser: the investigation page in Voilà, no code, one lookup."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from pixops.desk import desk_command, find_investigation_notebook, start, stop
from tests.browser._lab import (
    Server,
    connection_lines,
    controls_past_edge,
    sandbox_environment,
    screenshot,
    screenshot_at,
    scrolling_tables,
    show_tab,
    split_connection_words,
    widget_button,
)
from tests.browser._notebooks import PAYMENT, PAYMENT_AMOUNT_TEXT, PAYMENT_PAYER

# Generous: the machine is shared, and a changed engine rebuilds the demo month first.
pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def desk(workspace: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """Voilà on a private copy of the investigation notebook, started as `pixops desk` does."""
    folder = tmp_path_factory.mktemp("desk")
    notebook = find_investigation_notebook(workspace / "notebooks")
    copy = folder / "notebooks" / notebook.name
    shutil.copytree(workspace / "notebooks", copy.parent)
    shutil.copytree(workspace / "data", folder / "data")
    command = desk_command(copy, base_env=sandbox_environment())
    with (folder / "voila.log").open("wb") as log:
        process = start(command, log=log)
        try:
            yield Server(command.url.rstrip("/"))
        finally:
            stop(process)


def test_support_pastes_an_identifier_and_sees_the_payment(page: Page, desk: Server) -> None:
    # Voilà streams the page while the notebook runs: wait for the panel, not the load event.
    page.goto(desk.base_url + "/", wait_until="commit", timeout=180_000)
    search = page.get_by_placeholder(re.compile("transaction id, end-to-end id"))
    expect(search).to_be_visible(timeout=180_000)
    # The page is the panel for support: no notes on connecting, no demo case preselected.
    expect(search).to_have_value("")
    # Support staff see the page, never the code behind it.
    editors = page.locator(".jp-InputArea .cm-editor, .jp-InputArea .CodeMirror, .jp-InputArea pre")
    expect(editors).to_have_count(0)
    shown = page.inner_text("body")
    assert "import pixops" not in shown
    assert "TransactionInspector(client)" not in shown
    assert "PIXOPS_BASE_URL" not in shown
    assert re.search(r"med_\w", shown) is None  # no demo case id; "med_…" names the form

    search.fill(PAYMENT)
    widget_button(page, "Inspect").click()

    panel = page.locator(".widget-vbox").filter(has_text="Transaction inspector").first
    expect(panel).to_contain_text("Found.")
    expect(panel).to_contain_text(PAYMENT_AMOUNT_TEXT)
    expect(panel).to_contain_text(PAYMENT_PAYER)
    screenshot(page, "desk-voila")

    # A payer's name finds their received payments too. A name too short to search comes
    # first, so the wait below sees the name's answer, not the id's "Found." still shown.
    search.fill("jo")
    widget_button(page, "Inspect").click()
    expect(panel).to_contain_text("Type at least")
    search.fill(PAYMENT_PAYER)
    widget_button(page, "Inspect").click()
    expect(panel).to_contain_text("Found.")
    expect(panel).to_contain_text(PAYMENT_AMOUNT_TEXT)
    assert "Nothing found" not in panel.inner_text()
    screenshot(page, "desk-payer-name")


#: A payment disputed through MED and refunded by it: every tab has something in it.
_DISPUTED = "med_3nsx8tsxeqkjyripn85qsg57"
#: Tab labels drawn narrower than their text (ipywidgets shrinks six tabs to fit a row).
_CUT_TAB_LABELS_JS = """panel => [...panel.querySelectorAll('.lm-TabBar-tabLabel')]
  .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)"""


def test_support_reads_every_tab_on_a_phone(page: Page, desk: Server) -> None:
    """At 420 px the timeline was 500 px and the refunds table 536 px wide in a 350 px
    box (what happened, the amount and the status hidden sideways), and the tabs read
    "Summa", "Timelin", "Refunds", "API sha"."""
    page.set_viewport_size({"width": 420, "height": 900})
    search = page.get_by_placeholder(re.compile("transaction id, end-to-end id"))
    # The page the test above left (the module's tab), narrowed: each page load runs the
    # notebook in a new kernel. Alone, or after a failed test, the page loads at 420 px.
    if not page.url.startswith(desk.base_url) or search.count() != 1:
        page.goto(desk.base_url + "/", wait_until="commit", timeout=180_000)
    expect(search).to_be_visible(timeout=180_000)
    search.fill(_DISPUTED)
    widget_button(page, "Inspect").click()
    panel = page.locator(".widget-vbox").filter(has_text="Transaction inspector").first
    expect(panel).to_contain_text(f"Found: MED case {_DISPUTED}")
    assert panel.evaluate(_CUT_TAB_LABELS_JS) == [], "a tab's label is cut on a phone"
    # The "Matches" dropdown ran 5 px past the panel, its arrow cut off.
    assert controls_past_edge(panel) == [], "a control runs past the panel on a phone"
    # "No real mo" over "ney moves": the line saying which service wraps between words.
    assert connection_lines(page) == 1
    assert split_connection_words(page) == [], "a word of the connection line is split"
    for tab in ("Summary", "Timeline", "Refunds", "MED", "Receipt", "API shapes"):
        show_tab(page, panel, tab)
        assert scrolling_tables(panel) == [], f"the {tab} tab scrolls sideways on a phone"
    panel.get_by_role("tab", name="Refunds").click()
    refunds = panel.locator("table:visible").filter(has_text="Requested").first
    expect(refunds).to_contain_text("R$ 17.636,83")
    expect(refunds).to_contain_text("Settled")
    screenshot_at(page, refunds, "desk-phone-refunds")
    panel.get_by_role("tab", name="Timeline").click()
    timeline = panel.locator("table:visible").filter(has_text="Source").first
    screenshot_at(page, timeline, "desk-phone-timeline")
