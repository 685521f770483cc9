"""Text that is not valid text (a lone surrogate, half of a character) in any free-text box
of the panels: one line saying so, nothing sent, and nothing a notebook cannot show.

Outside a kernel nothing is sent to a browser, so the test checks what a kernel would
fail on: every text of every widget must encode as UTF-8 (a lone surrogate cannot).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from typing import Any

import ipywidgets as w
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pixops.widgets import MedDefensePanel, ReconDashboard, RefundPanel, TransactionInspector
from pixops.widgets._base import InvalidTextError, valid_text
from tests.widgets.conftest import Desk
from tests.widgets.test_med import two_cases
from tests.widgets.test_recon import LEDGER
from tests.widgets.test_refund import PAYMENT

BROKEN = ("\ud800", "Jo\udcffão", "med_\udfff", "R$ 1\ud83d,00")


def widgets_in(widget: Any) -> Iterator[Any]:
    yield widget
    for child in getattr(widget, "children", ()):
        yield from widgets_in(child)


def assert_sendable(panel: Any, *, typed: w.Widget | None = None) -> None:
    """What the kernel would send: every widget's state as UTF-8 JSON (the box the
    broken text was typed in holds it already: the browser put it there)."""
    for widget in widgets_in(panel):
        if widget is typed:
            continue
        state = widget.get_state()
        outputs = getattr(widget, "outputs", ())
        json.dumps([state, list(outputs)], ensure_ascii=False, default=str).encode("utf-8")


@given(st.text(st.characters(exclude_categories=())))
def test_valid_text_passes_unchanged_and_names_the_broken_character(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        with pytest.raises(InvalidTextError, match=r"^The search is not valid text: character"):
            valid_text(text, "search")
    else:
        assert valid_text(text, "search") is text


@pytest.mark.parametrize("text", BROKEN)
def test_the_inspector_says_the_text_is_not_valid(desk: Desk, text: str) -> None:
    panel = TransactionInspector(desk.client, now=desk.now)
    mark = desk.mark()
    panel.inspect(text)  # a UnicodeEncodeError traceback in a real kernel
    assert "is not valid text" in panel.status.value
    assert desk.calls_since(mark) == []
    assert_sendable(panel)
    panel.identifier.value = text  # typed in the box instead
    panel.inspect_button.click()
    assert "The text to inspect is not valid text" in panel.status.value
    assert_sendable(panel, typed=panel.identifier)


def test_the_refund_panel_refuses_broken_search_amount_and_note(desk: Desk) -> None:
    panel = RefundPanel(desk.client, now=desk.now)
    panel.search.value = "Jo\udcffão"
    panel.find_button.click()
    assert "The search is not valid text" in panel.status.value
    assert_sendable(panel, typed=panel.search)
    panel.search.value = PAYMENT
    panel.find_button.click()
    assert panel.selected is not None
    panel.amount.value = "R$ 1\ud83d,00"
    panel.review_button.click()
    assert "The amount is not valid text" in panel.status.value
    assert_sendable(panel, typed=panel.amount)
    panel.amount.value = "R$ 1,00"
    panel.description.value = "devolvido \ud800"
    panel.review_button.click()
    assert "The note is not valid text" in panel.status.value
    assert panel.confirm_button.disabled
    assert_sendable(panel, typed=panel.description)
    assert desk.posts() == []


def test_the_med_panel_refuses_a_broken_defense(desk: Desk) -> None:
    two_cases(desk)
    panel = MedDefensePanel(desk.client, now=desk.now)
    panel.defense.value = "Produto entregue \ud800 nota fiscal 123"
    panel.submit_button.click()
    assert "The defense is not valid text: character 18" in panel.status.value
    assert desk.posts() == []
    assert_sendable(panel, typed=panel.defense)


def test_the_dashboard_refuses_a_broken_time_zone_and_filter(desk: Desk) -> None:
    board = ReconDashboard(desk.client, LEDGER, day="2026-01-15", now=desk.now)
    mark = desk.mark()
    board.last_day.value = date(2026, 1, 15)
    board.tz.value = "America/Sao_\ud800"
    board.run()
    assert "The time zone is not valid text" in board.status.value
    assert desk.calls_since(mark) == []
    assert_sendable(board, typed=board.tz)


def test_the_ledger_map_panel_refuses_a_broken_path() -> None:
    from pixops.widgets import LedgerMapPanel

    panel = LedgerMapPanel("data/sample\ud800.csv")
    assert "The ledger path is not valid text: character 12" in panel.status.value
    assert_sendable(panel, typed=panel.path)
