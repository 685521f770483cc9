"""The panels in a narrow notebook (a 1024 px window with Lab's file browser open leaves
a cell about 600 px wide): nothing is cut off at the right edge."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import ipywidgets as w
import pytest

from pixops.widgets import MedDefensePanel, ReconDashboard, RefundPanel, TransactionInspector
from tests.widgets.conftest import Desk

LEDGER = Path(__file__).resolve().parents[2] / "data" / "sample_ledger.csv"
PANELS: dict[str, Callable[[Desk], Any]] = {
    "refunds": lambda desk: RefundPanel(desk.client, now=desk.now),
    "med": lambda desk: MedDefensePanel(desk.client, now=desk.now),
    "inspector": lambda desk: TransactionInspector(desk.client, now=desk.now),
    "recon": lambda desk: ReconDashboard(desk.client, LEDGER, day="2026-01-15", now=desk.now),
}


def widgets_in(widget: Any) -> Iterator[Any]:
    yield widget
    for child in getattr(widget, "children", ()):
        yield from widgets_in(child)


@pytest.mark.parametrize("name", list(PANELS))
def test_wide_inputs_narrow_to_the_cell(desk: Desk, name: str) -> None:
    panel = PANELS[name](desk)
    fixed = [x for x in widgets_in(panel) if str(x.layout.width or "").endswith("px")]
    assert fixed, "the panel sets the width of its search box and lists"
    for widget in fixed:
        # at most the box less its own 2 px margin each side (at 100% it ran 2 px past)
        assert widget.layout.max_width == "calc(100% - 2 * var(--jp-widgets-margin, 2px))", (
            type(widget).__name__,
            widget.layout.width,
        )


@pytest.mark.parametrize("name", list(PANELS))
def test_rows_of_inputs_and_buttons_wrap(desk: Desk, name: str) -> None:
    panel = PANELS[name](desk)
    rows = [child for child in panel.children if isinstance(child, w.HBox)]
    assert rows
    for row in rows:
        assert row.layout.flex_flow == "row wrap"


def test_a_date_wraps_together_with_its_echo(desk: Desk) -> None:
    """From and its dd/mm/yyyy echo move to the next line as one (the echo never leaves
    its picker)."""
    for panel in (RefundPanel(desk.client, now=desk.now), PANELS["recon"](desk)):
        _date_pairs(panel)


def _date_pairs(panel: Any) -> None:
    start, end = getattr(panel, "date_from", None), getattr(panel, "date_to", None)
    start, end = start or panel.first_day, end or panel.last_day
    dates = next(c for c in panel.children if start in widgets_in(c))
    pairs = [list(pair.children) for pair in dates.children]
    assert [pair[0] for pair in pairs] == [start, end]
    assert all(len(pair) == 2 and isinstance(pair[1], w.HTML) for pair in pairs)
    # Narrower than a picker and its echo (an 800 px window beside the file browser),
    # the echo goes under its picker instead of being cut at the right edge.
    assert [pair.layout.flex_flow for pair in dates.children] == ["row wrap", "row wrap"]
