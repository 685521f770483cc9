"""The balance roll-forward reads in a figure about 360 px wide (800 px beside
JupyterLab's file browser): title lines short enough for it at their size, and each
step's amount on the axis under its name, where plotly never shrinks it."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import plotly.graph_objects as go

from pixops.recon import reconcile
from pixops.recon._figures import _TITLE_CHARS, _wrapped
from tests.recon.builders import ledger_row, ledger_table, statement_row, statement_table
from tests.recon.test_result import DAY


def _figure(closing_off_base: int) -> go.Figure:
    stmt = statement_table([statement_row(0, amount_base=1_000_000, fee_base=9_900)])
    balances = [
        (datetime(2026, 1, 15, 3, tzinfo=UTC), 100_000_000),
        (datetime(2026, 1, 16, 3, tzinfo=UTC), 100_990_100 + closing_off_base),
    ]
    ledger = ledger_table([ledger_row("L0", "PIXIN000000")])
    return reconcile(stmt, ledger, balances=balances, start=DAY, end=DAY).rollforward_figure()


def test_every_title_line_fits_the_narrow_figure() -> None:
    """A treasury closing R$ 12.345.678,90 short made a 65-character verdict line."""
    figure = _figure(-123_456_789_000)
    title = figure.layout.title
    lines = title.text.split("<br>")
    assert lines == [
        "Balance 15/01/2026 00:00 to 16/01/2026 00:00",
        "Reported closing is R$ 12.345.678,90 short of",
        "opening + movements",
    ]
    assert all(len(line) <= _TITLE_CHARS for line in lines)
    assert "<sup>" not in title.text  # every line at the title's size, none smaller
    assert title.font.size == 14
    # The title starts at the figure's left edge under plotly's toolbar (about 30 px
    # high at the top right), and the plot below all of its lines.
    assert (title.x, title.xref, title.xanchor) == (0, "container", "left")
    assert title.pad.t >= 30
    assert figure.layout.margin.t >= title.pad.t + 18 * len(lines)


def test_a_line_breaks_between_words_never_inside_an_amount_or_a_time() -> None:
    line = (
        "Inside: the balance reported at 16/01/2026 00:00 is R$ 150,00 short of opening + movements"
    )
    assert _wrapped(line) == (
        "Inside: the balance reported at 16/01/2026 00:00"
        "<br>is R$ 150,00 short of opening + movements"
    )
    assert _wrapped("Reported closing is R$ 150,00 short of opening + movements") == (
        "Reported closing is R$ 150,00 short of<br>opening + movements"
    )
    short = "Opening + movements = closing"
    assert _wrapped(short) == short


def test_each_amount_is_on_the_axis_under_its_step_never_on_a_bar() -> None:
    """On its bar plotly shrank "R$ 10.000,00" to the bar's width: about 30 px at 800 px."""
    figure = _figure(-1_500_000)
    trace = json.loads(figure.to_json())["data"][0]
    assert "text" not in trace
    steps = ["Opening", "In", "Out", "Fees", "Expected", "Reported"]
    assert list(figure.layout.xaxis.tickvals) == trace["x"] == steps
    assert list(figure.layout.xaxis.ticktext) == [
        "<b>Opening</b><br>R$ 10.000,00",
        "<b>In</b><br>R$ 100,00",
        "<b>Out</b><br>R$ 0,00",
        "<b>Fees</b><br>-R$ 0,99",
        "<b>Expected</b><br>R$ 10.099,01",
        "<b>Reported</b><br>R$ 9.949,01",
    ]
    assert figure.layout.xaxis.automargin is True  # two lines, turned when narrow
    assert re.fullmatch(r"Opening: R\$ [\d.]+,\d{2}", trace["hovertext"][0])
    # The axis starts near the lowest level, with room above the highest and below it.
    low, high = figure.layout.yaxis.range
    assert 9_000 < low < 9_949 < 10_099 < high < 11_000
