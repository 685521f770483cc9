"""The investigation notebook at 1024 and 800 px with JupyterLab's file browser open: every tab of
the inspector reads without a sideways scroll, long ids and JSON lines included."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser._lab import (
    NARROWEST,
    Server,
    narrow_with_file_browser,
    open_notebook,
    run_all_cells,
    screenshot_at,
    widget_button,
)
from tests.browser._notebooks import notebook_named

pytestmark = pytest.mark.timeout(600)

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


def test_investigation_tabs_read_without_a_sideways_scroll_at_1024_and_800(
    page: Page, lab: Server, workspace: Path
) -> None:
    name = notebook_named(workspace / "notebooks", "*investigation*.ipynb")
    open_notebook(page, lab, name)
    run_all_cells(page)
    narrow_with_file_browser(page)
    panel = page.locator(".widget-vbox").filter(has_text="Transaction inspector").first
    panel.get_by_placeholder(re.compile("transaction id, end-to-end id")).fill(DISPUTED)
    widget_button(panel, "Inspect").click()
    expect(panel).to_contain_text(f"Found: MED case {DISPUTED}")
    for tab in TABS:
        panel.get_by_role("tab", name=tab).click()
        page.wait_for_timeout(300)
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
        panel.get_by_role("tab", name=tab).click()
        page.wait_for_timeout(300)
        wide = panel.evaluate(_WIDER_THAN_THEIR_BOX_JS)
        assert wide == [], f"the {tab} tab scrolls sideways at 800 px: {wide}"
    panel.get_by_role("tab", name="Refunds").click()
    refunds = panel.locator("table:visible").filter(has_text="Requested").first
    screenshot_at(page, refunds, "investigation-800-refunds")
