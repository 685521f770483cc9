"""Plotly figures of a reconciliation, for people: reais in pt-BR, never raw base units.

Bar heights are whole reais (integers, display only); the exact amount is always the
pt-BR text in the hover label, computed from the integers.
"""

from __future__ import annotations

import re
import textwrap
from datetime import datetime, time, timedelta
from typing import TYPE_CHECKING, Final
from zoneinfo import ZoneInfo

import plotly.graph_objects as go

from pixops.money import format_brl_base
from pixops.recon._categories import CATEGORY_LABELS, money_or_dash

if TYPE_CHECKING:
    import pandas as pd

    from pixops.recon._result import ReconResult

__all__ = ["rollforward_figure", "summary_figure"]

_BASE_PER_REAL = 10_000
#: pt-BR number format in plotly: decimal comma, thousands dot.
_PT_BR_SEPARATORS = ",."
#: The roll-forward's title: a plotly title does not wrap, and at 800 px beside
#: JupyterLab's file browser a figure is about 360 px wide. At 14 px a line of 50
#: characters fits it; a longer one wraps at a word.
_TITLE_PX: Final = 14
_TITLE_CHARS: Final = 50
_LINE_PX: Final = 18
#: The title starts under plotly's toolbar, which shows at the top right on hover and in
#: a narrow figure would cover the end of the first line.
_TITLE_TOP: Final = 32
#: Each step's amount is written under its name on the axis, not on its bar: on a bar
#: plotly shrinks a label to the bar's width (about 30 px at 800 px, unreadably small),
#: while the axis's labels keep their size, level when there is room and turned when not.
_KEPT_TOGETHER: Final = re.compile(r"(R\$|\d{2}/\d{2}/\d{4}|opening|\+) ")
_ROLLFORWARD_HEIGHT: Final = 460


def _whole_reais(amount_base: int) -> int:
    """Rounded half away from zero, integers only."""
    sign = -1 if amount_base < 0 else 1
    reais, rest = divmod(abs(amount_base), _BASE_PER_REAL)
    return sign * (reais + (1 if rest * 2 >= _BASE_PER_REAL else 0))


def _count(number: int) -> str:
    """A count the pt-BR way (``9.483``)."""
    return f"{number:,}".replace(",", ".")


def summary_figure(result: ReconResult) -> go.Figure:
    """Items per category; hover: the ledger and statement amounts in reais."""
    summary = result.summary
    labels = [CATEGORY_LABELS.get(str(c), str(c)) for c in summary["category"]]
    # Counts pt-BR (1.160, not 1160) and the difference too: a balance row has no ledger
    # or statement sum, only how far it is off.
    notes = [result.category_summary(str(c)) for c in summary["category"]]
    hover = [
        f"{label}<br>{note}"
        if note
        else f"{label}<br>items: {_count(int(items))}"
        f"<br>ledger: {money_or_dash(ledger, format_brl_base)}"
        f"<br>statement: {money_or_dash(statement, format_brl_base)}"
        f"<br>difference: {format_brl_base(int(difference))}"
        for label, note, items, ledger, statement, difference in zip(
            labels,
            notes,
            summary["items"],
            summary["ledger_amount_base"],
            summary["statement_amount_base"],
            summary["difference_base"],
            strict=True,
        )
    ]
    colors = ["#2e7d32" if c == "matched" else "#c62828" for c in summary["category"]]
    figure = go.Figure(
        go.Bar(
            x=labels,
            y=[int(items) for items in summary["items"]],
            marker_color=colors,
            hovertext=hover,
            hoverinfo="text",
        )
    )
    figure.update_layout(
        title="Reconciliation: items per category",
        separators=_PT_BR_SEPARATORS,
        yaxis_title="items",
        template="plotly_white",
    )
    return figure


def rollforward_figure(result: ReconResult) -> go.Figure:
    """Waterfall of the balance over the reconciled days: opening, in, out, fees, the
    expected closing and the reported one, from the periods that close within the days
    (the others, such as the one up to the live balance, are in
    `ReconResult.rollforward`)."""
    figure = go.Figure()
    figure.update_layout(
        separators=_PT_BR_SEPARATORS,
        yaxis_tickprefix="R$ ",
        yaxis_tickformat=",d",
        template="plotly_white",
    )
    periods = _periods_shown(result)
    if periods.empty:
        figure.update_layout(title="Balance roll-forward")
        figure.add_annotation(text="no balance snapshots given", showarrow=False)
        return figure
    first, last = periods.iloc[0], periods.iloc[-1]
    opening_base = int(first["opening_base"])
    inflow_base = sum(int(v) for v in periods["inflow_base"])
    outflow_base = sum(int(v) for v in periods["outflow_base"])
    fees_base = sum(int(v) for v in periods["fees_base"])
    steps = [
        ("Opening", opening_base, "absolute"),
        ("In", inflow_base, "relative"),
        ("Out", -outflow_base, "relative"),
        ("Fees", -fees_base, "relative"),
        ("Expected", opening_base + inflow_base - outflow_base - fees_base, "total"),
        ("Reported", int(last["closing_base"]), "absolute"),
    ]
    title = _rollforward_title(periods, result.tz)
    top = _TITLE_TOP + _LINE_PX * (title.count("<br>") + 1) + 16
    names = [name for name, _, _ in steps]
    amounts = [format_brl_base(amount) for _, amount, _ in steps]
    named = list(zip(names, amounts, strict=True))
    figure.update_layout(
        # From the top of the figure down, with room for every line of it above the plot.
        title={
            "text": title,
            "font": {"size": _TITLE_PX},
            "x": 0,
            "xref": "container",
            "xanchor": "left",
            "yref": "container",
            "y": 1,
            "yanchor": "top",
            "pad": {"t": _TITLE_TOP, "l": 8},
        },
        height=_ROLLFORWARD_HEIGHT,
        margin={"t": top, "r": 16},
        # The day's movements are small beside the balance: the axis starts near the
        # lowest level reached, not at zero, so they are seen.
        yaxis_range=_axis_range([_whole_reais(level) for level in _levels(steps)]),
    )
    figure.update_xaxes(
        tickvals=names,
        ticktext=[f"<b>{name}</b><br>{amount}" for name, amount in named],
        automargin=True,
    )
    figure.add_trace(
        go.Waterfall(
            x=names,
            y=[_whole_reais(amount) for _, amount, _ in steps],
            measure=[measure for _, _, measure in steps],
            hovertext=[f"{name}: {amount}" for name, amount in named],
            hoverinfo="text",
        )
    )
    return figure


def _rollforward_title(periods: pd.DataFrame, tz: str) -> str:
    """What the waterfall shows, and whether it closes: the days, then the reported
    closing against opening + movements on a line of its own; each reported balance inside
    the days that is off (a break the last one makes up for) on a line below, so a finding
    is never hidden. A plotly title does not wrap: a line longer than fits the narrowest
    figure (`_TITLE_CHARS`) is broken at a word."""
    first, last = periods.iloc[0], periods.iloc[-1]
    days = f"Balance {_instant(first['opening_at'], tz)} to {_instant(last['closing_at'], tz)}"
    expected_base = int(first["opening_base"])
    offs: list[tuple[datetime, int]] = []
    for row in periods.to_dict(orient="records"):
        expected_base += int(row["inflow_base"]) - int(row["outflow_base"]) - int(row["fees_base"])
        offs.append((row["closing_at"], int(row["closing_base"]) - expected_base))
    verdict = _verdict("Reported closing is", offs[-1][1])
    inside = [
        f"Inside: {_verdict(f'the balance reported at {_instant(at, tz)} is', off)}"
        for at, off in offs[:-1]
        if off
    ]
    return "<br>".join(_wrapped(line) for line in [days, verdict, *inside])


def _wrapped(line: str) -> str:
    """`line` broken at words into lines of at most `_TITLE_CHARS` characters; an amount
    stays with its "R$", a time with its date, and "opening + movements" whole."""
    kept = _KEPT_TOGETHER.sub("\\1\u00a0", line)  # textwrap breaks at ASCII spaces only
    lines = textwrap.wrap(kept, _TITLE_CHARS, break_long_words=False, break_on_hyphens=False)
    return "<br>".join(part.replace("\u00a0", " ") for part in lines)


def _verdict(what: str, off_base: int) -> str:
    """`what` against opening + movements: equal, or how much short or over (reais)."""
    if off_base == 0:
        return "Opening + movements = closing"
    side = "over" if off_base > 0 else "short of"
    return f"{what} {format_brl_base(abs(off_base))} {side} opening + movements"


def _levels(steps: list[tuple[str, int, str]]) -> list[int]:
    """The balance after each step of the waterfall (base units)."""
    levels, level = [], 0
    for _, amount, measure in steps:
        if measure == "absolute":
            level = amount
        elif measure == "relative":
            level += amount
        levels.append(level)  # a "total" shows the level reached
    return levels


def _axis_range(levels: list[int]) -> list[int]:
    """From a little under the lowest level to a little over the highest (whole reais),
    never below zero when every level is positive."""
    low, high = min(levels), max(levels)
    margin = max((high - low) // 2, 1)
    bottom = low - margin
    if low >= 0:
        bottom = max(bottom, 0)
    return [bottom, high + margin]


def _periods_shown(result: ReconResult) -> pd.DataFrame:
    """The roll-forward periods that close within the reconciled days (all of them when
    the days are open-ended); when none does, the last period."""
    periods = result.rollforward
    if periods.empty or result.first_day is None or result.last_day is None:
        return periods
    zone = ZoneInfo(result.tz)
    start = datetime.combine(result.first_day, time(), zone)
    end = datetime.combine(result.last_day + timedelta(days=1), time(), zone)
    closing_inside = periods[[start < closing <= end for closing in periods["closing_at"]]]
    return closing_inside if not closing_inside.empty else periods.iloc[[-1]]


def _instant(at: datetime, tz: str) -> str:
    return f"{at.astimezone(ZoneInfo(tz)):%d/%m/%Y %H:%M}"
