"""ReconDashboard's filter finds what the table shows: reais, dd/mm/yyyy days, directions."""

from __future__ import annotations

import re

from pixops.widgets import ReconDashboard
from tests.widgets.conftest import Recorder
from tests.widgets.test_recon import ran  # noqa: F401  (the shared run of 15/01/2026)

SALE = "PIXINE60746948202601150318w030URi21n4"  # R$ 13,18 received on 15/01/2026


def test_the_filter_finds_an_amount_as_the_table_shows_it(
    ran: tuple[ReconDashboard, Recorder],  # noqa: F811
) -> None:
    board, _ = ran
    board.category.value = "matched"
    for typed in ("R$ 13,18", "13,18", " r$ 13,18 "):
        board.filter.value = typed
        assert SALE in [row["transaction_id"] for row in board.rows()], typed
        assert SALE in board.table.value
    board.filter.value = "131800"  # the base units are never shown, so never matched
    assert SALE not in [row["transaction_id"] for row in board.rows()]
    board.filter.value = "R$ 250,00"  # a finding's ledger amount, in another category
    board.category.value = "missing_in_statement"
    assert [row["reference"] for row in board.rows()] == ["pedido-20260115-9001"]
    board.filter.value = ""


def test_the_filter_finds_days_and_directions_as_shown(
    ran: tuple[ReconDashboard, Recorder],  # noqa: F811
) -> None:
    board, _ = ran
    board.category.value = "matched"
    board.filter.value = "15/01/2026"
    assert len(board.rows()) == 291
    board.filter.value = "2026-01-15"  # the ISO day, as exported, still works
    assert len(board.rows()) == 291
    board.filter.value = "sent"  # payouts and refunds: the money that went out
    assert 0 < len(board.rows()) < 291
    assert ">sent<" in board.table.value
    assert ">received<" not in board.table.value
    board.filter.value = "(*["  # regex characters are plain text
    assert board.rows() == []
    assert "No rows." in board.table.value
    board.filter.value = ""


def test_the_summary_wraps_its_categories_narrowly(
    ran: tuple[ReconDashboard, Recorder],  # noqa: F811
) -> None:
    """At 1024 px with the file browser open, the category names wrap so that the
    amounts beside them fit (a 16em category pushed the differences out of view)."""
    board, _ = ran
    # The category cell is at most 9em wide (the stacked summary gives it 7em at 800 px).
    widths = [int(em) for em in re.findall(r"min-width:(\d+)em", board.summary.value)]
    assert widths, board.summary.value
    assert max(widths) <= 9
    assert "min-width:16em" not in board.summary.value
