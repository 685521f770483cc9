"""What `ReconDashboard` draws from its flow: a category's table and the days' charts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pixops.widgets._charts import (
    fees_by_day_figure,
    findings_figure,
    status_by_day_figure,
    volume_by_day_figure,
)
from pixops.widgets._format import html_table, plural

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from pixops.widgets._recon_flow import ReconFlow, TablePage

__all__ = ["day_figures", "table_html"]


def table_html(page: TablePage) -> str:
    """A category's rows (money in reais), and how many more the filter or export shows."""
    note = (
        f"<p><i>{plural(page.more, 'more row')}: narrow the filter or export.</i></p>"
        if page.more > 0
        else ""
    )
    return (
        html_table(
            page.rows,
            page.columns,
            money_columns={k for k, _ in page.columns if k.endswith("_base")},
            # Ids wrap at 1024 px.
            id_columns={"transaction_id", "ledger_reference"} if page.ids_wrap else (),
            empty=page.empty,
        )
        + note
    )


def day_figures(flow: ReconFlow) -> list[go.Figure]:
    """The charts of a run: findings, volumes, fees and statuses by day, then the balance
    roll-forward when balances were given; none for days with nothing on them (four
    empty frames say nothing)."""
    result = flow.result
    if result is None:
        return []
    figures = []
    if not flow.nothing:
        window = flow.window()
        figures = [
            findings_figure(result),
            volume_by_day_figure(window, flow.tz),
            fees_by_day_figure(window, flow.tz),
            status_by_day_figure(window, flow.tz),
        ]
    if not result.rollforward.empty:
        figures.append(result.rollforward_figure())
    return figures
