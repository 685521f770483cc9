"""What `ReconDashboard` draws from its flow: a category's table and the days' charts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

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


#: Cells shown under another's when both columns are in a table (`html_table`'s ``under``):
#: the ledger's reference and the direction under the statement's id, the statement's
#: figure and the difference under the ledger's, as the summary stacks them.
_STACKED: Final = {
    "ledger_reference": "transaction_id",
    "direction": "transaction_id",
    "statement_amount_base": "ledger_amount_base",
    "difference_base": "ledger_amount_base",
    "statement_fee_base": "ledger_fee_base",
    "fee_difference_base": "ledger_fee_base",
    "business_date": "booked_on",
    "fee_base": "amount_base",
}


def table_html(page: TablePage) -> str:
    """A category's rows (money in reais), and how many more the filter or export shows.
    Pairs of cells stacked and the detail on a line of its own under its row: seven
    columns side by side were ~810 px wide, and 800 px beside JupyterLab's file browser
    leaves ~360 px for a notebook's output."""
    note = (
        f"<p><i>{plural(page.more, 'more row')}: narrow the filter or export.</i></p>"
        if page.more > 0
        else ""
    )
    keys = {key for key, _ in page.columns}
    return (
        html_table(
            page.rows,
            page.columns,
            money_columns={k for k, _ in page.columns if k.endswith("_base")},
            # Ids wrap at 1024 px.
            id_columns={"transaction_id", "ledger_reference"} if page.ids_wrap else (),
            under={k: v for k, v in _STACKED.items() if k in keys and v in keys},
            detail="detail" if "detail" in keys else None,
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
