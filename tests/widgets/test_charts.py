"""Charts of a statement: bar heights are whole reais from integers, hover text is exact."""

from __future__ import annotations

from typing import Any

import ipywidgets as w
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pixops.frames import load_statement
from pixops.money import format_brl_base
from pixops.widgets import (
    fees_by_day_figure,
    payer_banks_figure,
    received_by_hour_figure,
    status_by_day_figure,
    volume_by_day_figure,
)
from pixops.widgets._charts import _shortened, _wrapped, append_figure, whole_reais
from tests.widgets.conftest import Desk


@pytest.fixture
def day(desk: Desk) -> pd.DataFrame:
    return load_statement(
        desk.client, "2026-01-20", "2026-01-20", tz="America/Sao_Paulo", progress=False
    )


@given(st.integers(min_value=-(2**62), max_value=2**62))
def test_whole_reais_is_the_nearest_real(amount_base: int) -> None:
    reais = whole_reais(amount_base)
    assert isinstance(reais, int)
    assert abs(reais * 10_000 - amount_base) <= 5_000


def test_whole_reais_rounds_half_away_from_zero() -> None:
    assert whole_reais(15_000) == 2
    assert whole_reais(14_999) == 1
    assert whole_reais(-15_000) == -2


def test_volumes_match_the_integer_sums(day: pd.DataFrame) -> None:
    figure = volume_by_day_figure(day)
    settled = day[day["payment_status"] == "settled"]
    for trace, direction in zip(figure.data, ("inbound", "outbound"), strict=True):
        total = int(settled[settled["direction"] == direction]["amount_base"].sum())
        word = {"inbound": "received", "outbound": "sent"}[direction]
        assert list(trace.x) == ["20/01"]
        assert list(trace.y) == [whole_reais(total)]
        assert list(trace.hovertext) == [f"20/01/2026: {word} {format_brl_base(total)}"]
    assert figure.layout.separators == ",."
    assert figure.layout.yaxis.tickprefix == "R$ "


def test_day_charts_name_their_days_and_leave_empty_series_out(day: pd.DataFrame) -> None:
    figures = [volume_by_day_figure(day), fees_by_day_figure(day), status_by_day_figure(day)]
    for figure in figures:
        assert figure.layout.xaxis.title.text == "day (São Paulo time)"
        assert figure.layout.legend.yanchor == "bottom"  # above the plot, clear of the axis
        for trace in figure.data:
            assert any(trace.y), f"{trace.name} is empty yet listed in the legend"
    # Each legend entry carries its total, so a series too small to see still reads.
    settled = day[day["payment_status"] == "settled"]
    sent_fees = int(settled[settled["direction"] == "outbound"]["fee_base"].sum())
    assert f"fees on sent ({format_brl_base(sent_fees)})" in [t.name for t in figures[1].data]
    statuses = {t.name.split(" (")[0]: t.name for t in figures[2].data}
    # Statuses read as words, not as the API's codes.
    assert statuses["Settled"] == f"Settled ({len(settled):,})".replace(",", ".")
    assert all(name[:1].isupper() for name in statuses)
    # Nothing sent that day: no "sent" series at all, and no empty fees on it.
    received_only = day[day["direction"] == "inbound"]
    names = [t.name for t in volume_by_day_figure(received_only).data]
    assert [name.split(" (")[0] for name in names] == ["received"]
    names = [t.name for t in fees_by_day_figure(received_only).data]
    assert [name.split(" (")[0] for name in names] == ["fees on received"]


def test_fees_and_statuses_add_up(day: pd.DataFrame) -> None:
    fees = fees_by_day_figure(day)
    settled = day[day["payment_status"] == "settled"]
    assert sum(trace.y[0] for trace in fees.data) == pytest.approx(
        whole_reais(int(settled[settled["direction"] == "inbound"]["fee_base"].sum()))
        + whole_reais(int(settled[settled["direction"] == "outbound"]["fee_base"].sum()))
    )
    statuses = status_by_day_figure(day)
    assert sum(trace.y[0] for trace in statuses.data) == len(day)


def test_banks_and_hours(day: pd.DataFrame) -> None:
    received = day[(day["direction"] == "inbound") & (day["payment_status"] == "settled")]
    hours = received_by_hour_figure(day)
    assert sum(hours.data[0].y) == len(received)
    assert len(hours.data[0].x) == 24
    banks = payer_banks_figure(day, top=3)
    heights = list(banks.data[0].x)
    assert len(heights) == 3
    assert heights == sorted(heights)  # the largest drawn at the top
    assert all(text.count("R$ ") == 1 for text in banks.data[0].hovertext)


def test_the_legends_read_received_then_sent(day: pd.DataFrame) -> None:
    """Stacked bars reverse plotly's legend: the fees chart listed "sent" first, the
    volume chart beside it "received" first."""
    for figure in (volume_by_day_figure(day), fees_by_day_figure(day)):
        assert figure.layout.legend.traceorder == "normal"
        names = [trace.name.split(" (")[0] for trace in figure.data]
        assert names in (["received", "sent"], ["fees on received", "fees on sent"])
    statuses = [trace.name.split(" (")[0] for trace in status_by_day_figure(day).data]
    assert statuses[0] == "Settled"


def test_hours_say_their_zone_and_hover_in_words(day: pd.DataFrame) -> None:
    hours = received_by_hour_figure(day)
    assert hours.layout.xaxis.title.text == "hour of the day (São Paulo time)"
    fourteen = hours.data[0].y[14]
    assert hours.data[0].hovertext[14] == (
        f"14:00 to 14:59: {fourteen} payment{'' if fourteen == 1 else 's'} received"
    )
    # Counted in another zone, the axis says so (it said "São Paulo" whatever the zone).
    utc = received_by_hour_figure(day, tz="UTC")
    assert utc.layout.xaxis.title.text == "hour of the day (UTC time)"
    assert list(utc.data[0].y) == list(hours.data[0].y[21:]) + list(hours.data[0].y[:21])  # UTC-3


def test_the_banks_money_axis_is_named(day: pd.DataFrame) -> None:
    banks = payer_banks_figure(day)
    assert banks.layout.xaxis.title.text == "money received (settled)"
    assert banks.layout.xaxis.tickprefix == "R$ "


def test_a_figure_goes_into_an_output_as_plotly_json(day: pd.DataFrame) -> None:
    out = w.Output()
    append_figure(out, volume_by_day_figure(day))
    (shown,) = out.outputs
    assert shown["output_type"] == "display_data"
    assert shown["data"]["application/vnd.plotly.v1+json"]["layout"]["title"]["text"] == (
        "Money received and sent per day"
    )
    assert "Money received and sent per day" in shown["data"]["text/plain"]


def test_a_hover_label_names_its_series(day: pd.DataFrame) -> None:
    """Plotly shows only the hover text given: the fees chart's blue bar read
    "20/01/2026: R$ 5,00", not saying it was the fees on sent."""
    settled = day[day["payment_status"] == "settled"]
    sent_fees = int(settled[settled["direction"] == "outbound"]["fee_base"].sum())
    (_, sent) = fees_by_day_figure(day).data
    assert list(sent.hovertext) == [f"20/01/2026: fees on sent {format_brl_base(sent_fees)}"]


def test_a_single_day_keeps_a_days_width(day: pd.DataFrame) -> None:
    """One day (the reconciliation dashboard's usual view) drew one bar across the whole
    chart: the day axis leaves room for a week, the day in the middle."""
    for figure in (volume_by_day_figure(day), fees_by_day_figure(day), status_by_day_figure(day)):
        assert tuple(figure.layout.xaxis.range) == (-3.5, 3.5)


def test_a_week_of_days_fills_the_axis(desk: Desk) -> None:
    week = load_statement(
        desk.client, "2026-01-12", "2026-01-18", tz="America/Sao_Paulo", progress=False
    )
    for figure in (volume_by_day_figure(week), fees_by_day_figure(week)):
        assert len(figure.data[0].x) == 7
        assert figure.layout.xaxis.range is None


@pytest.mark.parametrize(
    "make",
    [
        volume_by_day_figure,
        fees_by_day_figure,
        status_by_day_figure,
        payer_banks_figure,
        received_by_hour_figure,
    ],
)
def test_a_chart_of_nothing_says_so(make: Any, day: pd.DataFrame) -> None:
    """A filter that leaves no row drew bare axes, which read as a chart that failed."""
    empty = make(day.iloc[0:0])
    notes = [note.text for note in empty.layout.annotations]
    assert len(notes) == 1
    assert notes[0].startswith("Nothing to show: no ")
    assert empty.layout.title.text  # the title still says what the chart is of
    full = make(day)
    assert not full.layout.annotations
    assert full.data


def test_a_chart_reads_in_a_360_px_figure(day: pd.DataFrame) -> None:
    """At 800 px beside Lab's file browser a chart is about 360 px wide: a legend right
    of the title ran over it, the hours' 47-character title ran off the figure, and the
    banks' names kept 280 px of it, leaving their bars 60 px."""
    figures = [
        volume_by_day_figure(day),
        fees_by_day_figure(day),
        status_by_day_figure(day),
        payer_banks_figure(day),
        received_by_hour_figure(day),
    ]
    for figure in figures:
        title, legend = figure.layout.title, figure.layout.legend
        assert (title.x, title.xref, title.xanchor) == (0, "container", "left")
        assert len(title.text) <= 40  # at 15 px, about 330 px
        assert title.font.size == 15
        assert (legend.x, legend.xanchor, legend.yanchor) == (0, "left", "bottom")
        # Under the title: the title's top padding, its line and the legend's rows.
        assert figure.layout.margin.t >= title.pad.t + 20
    banks = figures[3]
    assert banks.layout.yaxis.automargin is True
    assert banks.layout.margin.l < 70
    assert all(len(line) <= 22 for name in banks.data[0].y for line in name.split("<br>"))


def test_a_long_label_wraps_at_the_space_nearest_its_middle() -> None:
    assert _wrapped("PICPAY") == "PICPAY"
    assert _wrapped("ITAÚ UNIBANCO S.A.") == "ITAÚ UNIBANCO S.A."  # 18: one line
    assert _wrapped("CAIXA ECONOMICA FEDERAL") == "CAIXA ECONOMICA<br>FEDERAL"
    assert _wrapped("Booked on another day") == "Booked on<br>another day"
    assert _wrapped("A" * 30) == "A" * 30  # no space: one line
    # A bank's name of 60 characters: its first whole words, then "…".
    name = "SICOOB CRESSEM - CECM SERV MUN REG METR VALE PARAIBA E LITOR"
    assert _shortened(name) == "SICOOB CRESSEM - CECM SERV MUN…"
    assert _shortened("BCO C6 S.A.") == "BCO C6 S.A."
