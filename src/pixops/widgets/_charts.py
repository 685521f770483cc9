"""Plotly charts of a statement frame (`pixops.frames` schema) for finance readers.

Bar heights are whole reais computed from the integer base units (display only); the
exact amount is the pt-BR text in the hover label. Days and hours are São Paulo's (or
the zone given), the way the merchant counts them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from datetime import date
from typing import TYPE_CHECKING, Any, Final

from pixops.money import format_brl_base
from pixops.widgets._format import count_text, label, plural, zone_text

if TYPE_CHECKING:
    import pandas as pd
    import plotly.graph_objects as go

    from pixops.recon import ReconResult

__all__ = [
    "append_figure",
    "fees_by_day_figure",
    "findings_figure",
    "payer_banks_figure",
    "received_by_hour_figure",
    "status_by_day_figure",
    "volume_by_day_figure",
    "whole_reais",
]

_BASE_PER_REAL: Final = 10_000
_PT_BR: Final = ",."
_COLOURS: Final = {"inbound": "#2e7d32", "outbound": "#1565c0"}
_DIRECTION_NAMES: Final = {"inbound": "received", "outbound": "sent"}
#: A day chart is at least this many days wide: one day alone drew a bar across the chart.
_MIN_DAY_SLOTS: Final = 7
_TITLE_PX: Final = 15
_TITLE_PAD_PX: Final = 30
#: Room above the plot: the title under the toolbar, then two rows of legend.
_TOP_PX: Final = 110
#: A label (a bank's name, a kind of finding) longer than this wraps onto two lines:
#: on one line it took half of a narrow figure from the bars.
_LABEL_LINE: Final = 19


def whole_reais(amount_base: int) -> int:
    """Base units rounded to whole reais (half away from zero), for bar heights only."""
    sign = -1 if amount_base < 0 else 1
    reais, rest = divmod(abs(amount_base), _BASE_PER_REAL)
    return sign * (reais + (1 if rest * 2 >= _BASE_PER_REAL else 0))


def _layout(figure: go.Figure, title: str, *, money: bool = True) -> go.Figure:
    figure.update_layout(
        # At the figure's left edge, under plotly's toolbar, at a size whose longest
        # title fits the 360 px a chart has at 800 px beside Lab's file browser.
        title={
            "text": title,
            "x": 0,
            "xref": "container",
            "xanchor": "left",
            "y": 1,
            "yref": "container",
            "yanchor": "top",
            "pad": {"t": _TITLE_PAD_PX, "l": 8},
            "font": {"size": _TITLE_PX},
        },
        separators=_PT_BR,
        template="plotly_white",
        height=400,
        # No legend (one series): the plot starts under the title.
        margin={"l": 70, "r": 20, "t": _TOP_PX if len(figure.data) > 1 else 70, "b": 50},
        # Above the plot and under the title, from the left: right of the title, it ran
        # over a title of a narrow figure; below, it would cover the day axis's title.
        # Its entries wrap to a second row when narrow (`_TOP_PX` leaves room for it).
        # In the order the series were added: plotly reverses the legend of stacked bars,
        # which put "sent" before "received" in the fees chart only.
        legend={
            "orientation": "h",
            "x": 0,
            "xanchor": "left",
            "y": 1.02,
            "yanchor": "bottom",
            "traceorder": "normal",
        },
    )
    if money:
        figure.update_yaxes(tickprefix="R$ ", tickformat=",d")
    return figure


def _note_in_the_middle(figure: go.Figure, text: str, *, color: str) -> None:
    """A sentence across the middle of the plot, for a chart with nothing to draw."""
    figure.add_annotation(
        text=text,
        showarrow=False,
        xref="paper",
        yref="paper",
        x=0.5,
        y=0.5,
        font={"size": 14, "color": color},
    )


def _say_when_empty(figure: go.Figure, what: str) -> go.Figure:
    """An empty chart says so in the figure: bare axes read as a chart that failed."""
    if not any(len(trace.x or ()) for trace in figure.data):
        _note_in_the_middle(figure, f"Nothing to show: {what}.", color="#555")
        figure.update_xaxes(visible=False)
        figure.update_yaxes(visible=False)
        figure.update_layout(margin_l=70)  # no bank names to leave room for
    return figure


def _days(statement: pd.DataFrame, tz: str) -> list[date]:
    local = statement["created_at"].dt.tz_convert(tz)
    return [moment.date() for moment in local]


def _sum_by(keys: Iterable[Any], amounts: Iterable[Any]) -> dict[Any, int]:
    totals: dict[Any, int] = defaultdict(int)
    for key, amount in zip(keys, amounts, strict=True):
        totals[key] += int(amount)
    return dict(totals)


def _money_bar(
    name: str, keys: list[Any], totals: dict[Any, int], colour: str, label: Callable[[Any], str]
) -> go.Bar:
    import plotly.graph_objects as go

    hover = _full_date if label is _day_label else label
    # The series' name in the hover label too: plotly shows only the text given, so a
    # blue bar read "20/01/2026: R$ 5,00" without saying it was the fees on sent.
    return go.Bar(
        # The total in the legend: a series too small to see still says what it holds.
        name=f"{name} ({format_brl_base(sum(totals.get(k, 0) for k in keys))})",
        x=[label(k) for k in keys],
        y=[whole_reais(totals.get(k, 0)) for k in keys],
        marker_color=colour,
        hovertext=[f"{hover(k)}: {name} {format_brl_base(totals.get(k, 0))}" for k in keys],
        hoverinfo="text",
    )


def _wrapped(text: str, width: int = _LABEL_LINE) -> str:
    """`text` on one line when at most `width` characters, else on two (plotly's `<br>`)
    broken at the space nearest its middle, so neither line is a lone word."""
    spaces = [at for at, char in enumerate(text) if char == " "]
    if len(text) <= width or not spaces:
        return text
    middle = min(spaces, key=lambda at: abs(len(text) - 2 * at))
    return f"{text[:middle]}<br>{text[middle + 1 :]}"


def _shortened(name: str, most: int = 2 * _LABEL_LINE - 3) -> str:
    """`name` cut after its last whole word within `most` characters, with "…" (the
    whole name is in the hover label)."""
    if len(name) <= most:
        return name
    cut = name[: most - 1].rsplit(" ", 1)[0].rstrip(" -,")
    return f"{cut}…"


def _day_label(day: date) -> str:
    return day.strftime("%d/%m")


def _full_date(day: date) -> str:
    return day.strftime("%d/%m/%Y")


def _day_slots(figure: go.Figure, days: int) -> None:
    """Leave room for `_MIN_DAY_SLOTS` days on the day axis when there are fewer, the
    days centred: a bar keeps a day's width instead of filling the chart."""
    if 0 < days < _MIN_DAY_SLOTS:
        pad = (_MIN_DAY_SLOTS - days) / 2
        figure.update_xaxes(range=[-0.5 - pad, days - 0.5 + pad])


def _day_axis(tz: str) -> str:
    """The day axis's title: calendar days (weekends too) in the zone they are counted in."""
    return f"day ({zone_text(tz)})"


def volume_by_day_figure(statement: pd.DataFrame, tz: str = "America/Sao_Paulo") -> go.Figure:
    """Money received and sent per business day (settled rows), in reais."""
    import plotly.graph_objects as go

    settled = statement[statement["payment_status"] == "settled"]
    days = _days(settled, tz)
    every_day = sorted(set(days))
    figure = go.Figure()
    for direction, colour in _COLOURS.items():
        mask = (settled["direction"] == direction).tolist()
        totals = _sum_by(
            [d for d, keep in zip(days, mask, strict=True) if keep],
            settled["amount_base"][mask],
        )
        name = _DIRECTION_NAMES[direction]
        if any(totals.values()):  # a series that is all zeros only clutters the legend
            figure.add_trace(_money_bar(name, every_day, totals, colour, _day_label))
    figure.update_layout(barmode="group", xaxis_title=_day_axis(tz))
    _day_slots(figure, len(every_day))
    _say_when_empty(figure, "no money received or sent in these days")
    return _layout(figure, "Money received and sent per day")


def fees_by_day_figure(statement: pd.DataFrame, tz: str = "America/Sao_Paulo") -> go.Figure:
    """Fees paid per business day (settled rows), received and sent stacked, in reais."""
    import plotly.graph_objects as go

    settled = statement[statement["payment_status"] == "settled"]
    days = _days(settled, tz)
    every_day = sorted(set(days))
    figure = go.Figure()
    for direction, colour in _COLOURS.items():
        mask = (settled["direction"] == direction).tolist()
        totals = _sum_by(
            [d for d, keep in zip(days, mask, strict=True) if keep], settled["fee_base"][mask]
        )
        name = f"fees on {_DIRECTION_NAMES[direction]}"
        if any(totals.values()):  # a series that is all zeros only clutters the legend
            figure.add_trace(_money_bar(name, every_day, totals, colour, _day_label))
    figure.update_layout(barmode="stack", xaxis_title=_day_axis(tz))
    _day_slots(figure, len(every_day))
    _say_when_empty(figure, "no fee in these days")
    return _layout(figure, "Fees per day")


def status_by_day_figure(statement: pd.DataFrame, tz: str = "America/Sao_Paulo") -> go.Figure:
    """How many movements per business day ended in each status (counts)."""
    import plotly.graph_objects as go

    days = _days(statement, tz)
    every_day = sorted(set(days))
    colours = {
        "settled": "#2e7d32",
        "processing": "#f9a825",
        "failed": "#ef6c00",
        "rejected": "#c62828",
    }
    # Settled first (the legend reads it first, the bars stand on it), then the others.
    order = list(colours)
    statuses = sorted(
        {str(s) for s in statement["payment_status"]},
        key=lambda s: (order.index(s) if s in order else len(order), s),
    )
    figure = go.Figure()
    for status in statuses:
        counts: dict[date, int] = defaultdict(int)
        for day, value in zip(days, statement["payment_status"], strict=True):
            if str(value) == status:
                counts[day] += 1
        if not any(counts.values()):
            continue
        figure.add_trace(
            go.Bar(
                name=f"{label(status)} ({count_text(sum(counts.values()))})",
                x=[_day_label(d) for d in every_day],
                y=[counts.get(d, 0) for d in every_day],
                marker_color=colours.get(status, "#6d4c41"),
                hovertext=[
                    f"{_full_date(d)}: {count_text(counts.get(d, 0))} {label(status).lower()}"
                    for d in every_day
                ],
                hoverinfo="text",
            )
        )
    figure.update_layout(barmode="stack", xaxis_title=_day_axis(tz), yaxis_title="movements")
    _day_slots(figure, len(every_day))
    _say_when_empty(figure, "no movement in these days")
    return _layout(figure, "Movements per day by status", money=False)


def payer_banks_figure(statement: pd.DataFrame, top: int = 10) -> go.Figure:
    """Money received per payer's bank (settled), the `top` banks, largest first."""
    import plotly.graph_objects as go

    received = statement[
        (statement["direction"] == "inbound") & (statement["payment_status"] == "settled")
    ]
    names = [str(n) if n is not None else "unknown" for n in received["payer_bank_name"]]
    totals = _sum_by(names, received["amount_base"])
    banks = sorted(totals, key=lambda name: (-totals[name], name))[:top]
    banks.reverse()  # the largest at the top of a horizontal bar chart
    figure = go.Figure(
        go.Bar(
            x=[whole_reais(totals[b]) for b in banks],
            y=[_wrapped(_shortened(b)) for b in banks],
            orientation="h",
            marker_color=_COLOURS["inbound"],
            hovertext=[f"{b}: {format_brl_base(totals[b])}" for b in banks],
            hoverinfo="text",
        )
    )
    _layout(figure, f"Money received by payer's bank (top {top})", money=False)
    figure.update_xaxes(tickprefix="R$ ", tickformat=",d", title="money received (settled)")
    # The names' room grows to fit them (automargin) instead of a fixed 280 px, which
    # left a narrow figure's bars 60 px.
    figure.update_yaxes(automargin=True)
    figure.update_layout(height=460, margin_l=10)
    return _say_when_empty(figure, "no payment received in these days")


def received_by_hour_figure(statement: pd.DataFrame, tz: str = "America/Sao_Paulo") -> go.Figure:
    """Payments received per hour of the day (settled), counts, in local time."""
    import plotly.graph_objects as go

    received = statement[
        (statement["direction"] == "inbound") & (statement["payment_status"] == "settled")
    ]
    hours = [moment.hour for moment in received["created_at"].dt.tz_convert(tz)]
    counts = [hours.count(hour) for hour in range(24)]
    figure = go.Figure(
        go.Bar(
            x=[f"{h:02d}h" for h in range(24)],
            y=counts,
            marker_color=_COLOURS["inbound"],
            hovertext=[
                f"{h:02d}:00 to {h:02d}:59: {plural(n, 'payment')} received"
                for h, n in enumerate(counts)
            ],
            hoverinfo="text",
        )
    )
    figure.update_layout(xaxis_title=f"hour of the day ({zone_text(tz)})", yaxis_title="payments")
    if not any(counts):  # 24 empty hours are no chart
        figure.data = ()
        _say_when_empty(figure, "no payment received in these days")
    return _layout(figure, "Payments received per hour", money=False)


def findings_figure(result: ReconResult) -> go.Figure:
    """What a reconciliation found, one bar per kind of finding (matched items left out,
    so a handful of findings is not dwarfed by hundreds of matches)."""
    import plotly.graph_objects as go

    from pixops.recon import ATTENTION_CATEGORIES, CATEGORY_LABELS

    rows = {str(r["category"]): r for r in result.summary.to_dict(orient="records")}
    # What a row says instead of its figures: a balance not checked (no balances given)
    # is named so, not drawn as a balance with nothing to check.
    notes = {c: result.category_summary(c) for c in ATTENTION_CATEGORIES}
    labels = [
        CATEGORY_LABELS.get(c, c) + (f": {notes[c]}" if notes[c] else "")
        for c in ATTENTION_CATEGORIES
    ]
    counts = [int(rows[c]["items"]) if c in rows else 0 for c in ATTENTION_CATEGORIES]
    differences = [
        int(rows[c]["difference_base"]) if c in rows else 0 for c in ATTENTION_CATEGORIES
    ]
    # Across, one kind a row in the summary's order, its name wrapped beside its bar:
    # ten names under upright bars were turned and ran into each other when narrow.
    figure = go.Figure(
        go.Bar(
            x=counts,
            y=[_wrapped(name) for name in labels],
            orientation="h",
            marker_color=["#c62828" if n else "#9e9e9e" for n in counts],
            hovertext=[
                name
                if notes[c]
                else f"{name}: {plural(n, 'item')}, difference {format_brl_base(d)}"
                for c, name, n, d in zip(
                    ATTENTION_CATEGORIES, labels, counts, differences, strict=True
                )
            ],
            hoverinfo="text",
        )
    )
    matched = int(rows["matched"]["items"]) if "matched" in rows else 0
    figure.update_xaxes(
        title="items", rangemode="tozero", dtick=1 if max(counts, default=0) <= 10 else None
    )
    figure.update_yaxes(autorange="reversed", automargin=True)
    title = f"Findings to check ({count_text(matched)} items matched)"
    if not any(counts):  # ten empty rows read as a chart that failed to draw
        _note_in_the_middle(figure, "Nothing to check: every item matched.", color="#2e7d32")
    _layout(figure, title, money=False)
    figure.update_layout(height=500, margin_l=10)
    return figure


def append_figure(output: Any, figure: go.Figure) -> None:
    """Show a figure in an `Output` widget, the same under every runner.

    Written as plotly's JSON mimetype, which JupyterLab, Voilà and nbval all handle,
    without going through plotly's renderers: in a kernel those publish plotly.js into
    the running cell (once per figure with the "notebook" renderer, ~5 MB each), and
    IPython's display formatter would publish the figure there too. A page without
    plotly's renderer shows the chart's title instead.
    """
    import json

    title = figure.layout.title.text or "chart"
    data = {
        "application/vnd.plotly.v1+json": json.loads(figure.to_json()),
        "text/plain": f"[chart: {title}; open the notebook in JupyterLab to see it]",
    }
    output.outputs += ({"output_type": "display_data", "data": data, "metadata": {}},)
