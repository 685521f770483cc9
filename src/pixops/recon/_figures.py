"""Plotly figures of a reconciliation, for people: reais in pt-BR, never raw base units.

Bar heights are whole reais (integers, display only); the exact amount is always the
pt-BR text in the hover label, computed from the integers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import plotly.graph_objects as go

from pixops.money import format_brl_display
from pixops.recon._result import CATEGORY_LABELS

if TYPE_CHECKING:
    from pixops.recon._result import ReconResult

__all__ = ["rollforward_figure", "summary_figure"]

_BASE_PER_REAL = 10_000
#: pt-BR number format in plotly: decimal comma, thousands dot.
_PT_BR_SEPARATORS = ",."


def _whole_reais(amount_base: int) -> int:
    """Rounded half away from zero, integers only."""
    sign = -1 if amount_base < 0 else 1
    reais, rest = divmod(abs(amount_base), _BASE_PER_REAL)
    return sign * (reais + (1 if rest * 2 >= _BASE_PER_REAL else 0))


def summary_figure(result: ReconResult) -> go.Figure:
    """Items per category; hover: the ledger and statement amounts in reais."""
    summary = result.summary
    labels = [CATEGORY_LABELS.get(str(c), str(c)) for c in summary["category"]]
    hover = [
        f"{label}<br>itens: {int(items)}<br>razão: {format_brl_display(int(ledger))}"
        f"<br>extrato: {format_brl_display(int(statement))}"
        for label, items, ledger, statement in zip(
            labels,
            summary["items"],
            summary["ledger_amount_base"],
            summary["statement_amount_base"],
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
        title="Conciliação: itens por categoria",
        separators=_PT_BR_SEPARATORS,
        yaxis_title="itens",
        template="plotly_white",
    )
    return figure


def rollforward_figure(result: ReconResult) -> go.Figure:
    """Waterfall of the last roll-forward period: opening, in, out, fees, closing."""
    figure = go.Figure()
    figure.update_layout(
        title="Saldo: abertura + movimentos = fechamento",
        separators=_PT_BR_SEPARATORS,
        yaxis_tickprefix="R$ ",
        yaxis_tickformat=",d",
        template="plotly_white",
    )
    if result.rollforward.empty:
        figure.add_annotation(text="sem saldos informados", showarrow=False)
        return figure
    row = result.rollforward.iloc[-1]
    steps = [
        ("Abertura", int(row["opening_base"]), "absolute"),
        ("Entradas", int(row["inflow_base"]), "relative"),
        ("Saídas", -int(row["outflow_base"]), "relative"),
        ("Tarifas", -int(row["fees_base"]), "relative"),
        ("Esperado", int(row["expected_closing_base"]), "total"),
        ("Informado", int(row["closing_base"]), "absolute"),
    ]
    figure.add_trace(
        go.Waterfall(
            x=[name for name, _, _ in steps],
            y=[_whole_reais(amount) for _, amount, _ in steps],
            measure=[measure for _, _, measure in steps],
            hovertext=[f"{name}: {format_brl_display(amount)}" for name, amount, _ in steps],
            hoverinfo="text",
            text=[format_brl_display(amount) for _, amount, _ in steps],
            textposition="outside",
        )
    )
    return figure
