"""Scheduled reports: a notebook run headless and written as one offline HTML page.

    from pixops.report import render_report
    render_report("notebooks/03_daily_reconciliation.ipynb", "recon-2026-01-31.html",
                  parameters={"business_date": "2026-01-31"})

The notebook runs on a fresh kernel with papermill (values go into its cell tagged
`parameters`), then nbconvert writes the outputs without code. Charts carry plotly.js
inline and widgets are drawn by the `@jupyter-widgets/html-manager` renderer shipped in
this package, so the page renders with no network; a page that would still fetch a
script from the web is refused with `ReportError`. Cells tagged `NOTEBOOK_ONLY_TAG`
(live controls, how to connect) are left out of the page; the output of cells tagged
`HEADLINE_TAG` (the daily notebook's verdict) is printed by `pixops report` as well.
"""

from pixops._cells import NOTEBOOK_ONLY_TAG, shared_cells
from pixops.report._assets import WIDGET_RENDERER_PATH, WIDGET_RENDERER_VERSION
from pixops.report._cli import register
from pixops.report._daily import (
    BALANCES_PARAMETER,
    DATE_PARAMETER,
    DEFAULT_TIMEZONE,
    LEDGER_PARAMETER,
    TIMEZONE_PARAMETER,
    daily_report,
    find_daily_notebook,
    recon_html_report,
)
from pixops.report._errors import ReportError, ServiceUnreachableError
from pixops.report._execute import PLOTLY_RENDERER, declared_parameters, execute_notebook
from pixops.report._export import export_html
from pixops.report._headline import HEADLINE_TAG, Verdict, headline_findings, headline_lines
from pixops.report._offline import remote_references, strip_remote_scripts
from pixops.report._render import render_report

__all__ = [
    "BALANCES_PARAMETER",
    "DATE_PARAMETER",
    "DEFAULT_TIMEZONE",
    "HEADLINE_TAG",
    "LEDGER_PARAMETER",
    "NOTEBOOK_ONLY_TAG",
    "PLOTLY_RENDERER",
    "TIMEZONE_PARAMETER",
    "WIDGET_RENDERER_PATH",
    "WIDGET_RENDERER_VERSION",
    "ReportError",
    "ServiceUnreachableError",
    "Verdict",
    "daily_report",
    "declared_parameters",
    "execute_notebook",
    "export_html",
    "find_daily_notebook",
    "headline_findings",
    "headline_lines",
    "recon_html_report",
    "register",
    "remote_references",
    "render_report",
    "shared_cells",
    "strip_remote_scripts",
]
