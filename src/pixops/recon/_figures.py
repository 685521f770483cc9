"""Plotly figures of a reconciliation, for people: reais in pt-BR, never raw base units.

Bar heights are whole reais (integers, display only); the exact amount is always the
pt-BR text in the hover label, computed from the integers.
"""

from __future__ import annotations

import math
import re
import textwrap
from datetime import datetime, time, timedelta
from typing import TYPE_CHECKING, Final
from zoneinfo import ZoneInfo

import plotly.graph_objects as go

from pixops.money import format_brl_display
from pixops.recon._result import CATEGORY_LABELS, money_or_dash

if TYPE_CHECKING:
    import pandas as pd

    from pixops.recon._result import ReconResult

__all__ = ["rollforward_figure", "summary_figure"]

_BASE_PER_REAL = 10_000
#: pt-BR number format in plotly: decimal comma, thousands dot.
_PT_BR_SEPARATORS = ",."
#: The roll-forward's title and bar labels: a plotly title does not wrap, and at 800 px
#: beside JupyterLab's file browser a figure is about 360 px wide. At 12 px a line of 58
#: characters fits it (the demo month's verdict is one); a longer one wraps at a word.
_TITLE_PX: Final = 12
_TITLE_CHARS: Final = 58
_LINE_PX: Final = 16
#: The title starts under plotly's toolbar, which shows at the top right on hover and in
#: a narrow figure would cover the end of the first line.
_TITLE_TOP: Final = 32
#: The bar labels stand upright above (or below) their bars at full size: six bars
#: side by side left each about 30 px at 800 px, and plotly shrank "R$ 8.103.577,79" to
#: fit, unreadably small. Upright, a label needs room on the axis instead.
_LABEL_PX: Final = 12
_LABEL_EM: Final = 0.64  # the width of a digit, the widest character of an amount
_KEPT_TOGETHER: Final = re.compile(r"(R\$|\d{2}/\d{2}/\d{4}|opening|\+) ")
_ROLLFORWARD_HEIGHT: Final = 500
_X_LABELS_PX: Final = 90  # the step names under the axis, slanted when narrow


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
    hover = [
        f"{label}<br>items: {_count(int(items))}"
        f"<br>ledger: {money_or_dash(ledger, format_brl_display)}"
        f"<br>statement: {money_or_dash(statement, format_brl_display)}"
        f"<br>difference: {format_brl_display(int(difference))}"
        for label, items, ledger, statement, difference in zip(
            labels,
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
    labels = [format_brl_display(amount) for _, amount, _ in steps]
    label_px = max(len(text) for text in labels) * _LABEL_EM * _LABEL_PX + 8
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
        # lowest level reached, not at zero, so they are seen; with room above the
        # highest bar and below the lowest for an upright label.
        yaxis_range=_axis_range(
            [_whole_reais(level) for level in _levels(steps)],
            label_ratio=label_px / (_ROLLFORWARD_HEIGHT - top - _X_LABELS_PX),
        ),
    )
    figure.add_trace(
        go.Waterfall(
            x=[name for name, _, _ in steps],
            y=[_whole_reais(amount) for _, amount, _ in steps],
            measure=[measure for _, _, measure in steps],
            hovertext=[f"{name}: {format_brl_display(amount)}" for name, amount, _ in steps],
            hoverinfo="text",
            text=labels,
            textposition="outside",
            textangle=-90,
            textfont={"size": _LABEL_PX},
            constraintext="none",
            cliponaxis=False,
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
    return f"{what} {format_brl_display(abs(off_base))} {side} opening + movements"


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


def _axis_range(levels: list[int], label_ratio: float = 0.0) -> list[int]:
    """From a little under the lowest level to a little over the highest (whole reais),
    never below zero when every level is positive; `label_ratio` of the axis's height is
    left free above the highest level and below the lowest (for a bar's label)."""
    low, high = min(levels), max(levels)
    spread = max(high - low, 1)
    # The share of the axis two labels take leaves the rest to the spread of the levels
    # (at most 80 % of the axis to labels: a very tall label shrinks the bars, not nothing).
    share = min(max(label_ratio, 0.0), 0.4)
    margin = max(spread // 2, math.ceil(spread * share / (1 - 2 * share)), 1)
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
