"""A panel's status line, rendered: a long unbroken word stays inside the panel."""

from __future__ import annotations

from playwright.sync_api import Page

from pixops.widgets._format import message


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
