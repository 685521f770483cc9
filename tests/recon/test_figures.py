"""The balance roll-forward reads in a figure about 360 px wide (800 px beside
JupyterLab's file browser): title lines short enough for it at their size, bar labels at
full size, upright, with room for them on the axis."""

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
    assert title.font.size == 12
    # The title starts at the figure's left edge under plotly's toolbar (about 30 px
    # high at the top right), and the plot below all of its lines.
    assert (title.x, title.xref, title.xanchor) == (0, "container", "left")
    assert title.pad.t >= 30
    assert figure.layout.margin.t >= title.pad.t + 16 * len(lines)


def test_a_line_breaks_between_words_never_inside_an_amount_or_a_time() -> None:
    line = (
        "Inside: the balance reported at 16/01/2026 00:00 is R$ 150,00 short of opening + movements"
    )
    assert _wrapped(line) == (
        "Inside: the balance reported at 16/01/2026 00:00 is"
        "<br>R$ 150,00 short of opening + movements"
    )
    short = "Reported closing is R$ 150,00 short of opening + movements"
    assert _wrapped(short) == short  # 58 characters: one line


def test_bar_labels_are_upright_at_full_size_with_room_on_the_axis() -> None:
    """Plotly shrank each "R$ 10.000,00" to its bar's width: about 30 px at 800 px."""
    figure = _figure(-1_500_000)
    trace = json.loads(figure.to_json())["data"][0]
    assert trace["text"] == [
        "R$ 10.000,00",
        "R$ 100,00",
        "R$ 0,00",
        "-R$ 0,99",
        "R$ 10.099,01",
        "R$ 9.949,01",
    ]
    assert trace["textangle"] == -90
    assert trace["constraintext"] == "none"  # never shrunk to the bar's width
    assert trace["textfont"]["size"] == 12
    assert trace["textposition"] == "outside"
    # Above the highest level and below the lowest, the axis leaves the room a label
    # takes: its characters at 12 px over the plot's height, in reais.
    low, high = figure.layout.yaxis.range
    levels = [10_000, 10_100, 10_100, 10_099, 10_099, 9_949]
    plot_px = figure.layout.height - figure.layout.margin.t - 90
    reais_per_px = (high - low) / plot_px
    label_px = max(len(text) for text in trace["text"]) * 12 * 0.6
    assert (high - max(levels)) / reais_per_px >= label_px
    assert (min(levels) - low) / reais_per_px >= label_px
    assert re.fullmatch(r"R\$ [\d.]+,\d{2}", trace["hovertext"][0].split(": ")[1])
