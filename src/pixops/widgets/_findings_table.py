"""A reconciliation's two tables for people: the summary (one row per category) and what
to check (each finding, in the summary's order, with the reference to look up), amounts
in reais.

Both fit a notebook at 800 px beside JupyterLab's file browser (about 450 px for an
output): the ledger's figure goes above the statement's in one cell, as the inspector
stacks a refund's completion under its status, and a category's items go under its name,
so the Statement and Difference figures finance reads never sit behind a sideways
scroll; wide, they read the same.
"""

from __future__ import annotations

import html
from typing import Any, Final

from pixops.recon import ATTENTION_CATEGORIES, CATEGORY_LABELS
from pixops.widgets._format import HtmlBlock, brl, plural
from pixops.widgets._recon_rows import finding_row

__all__ = ["findings_table", "summary_table"]

_CELL: Final = "padding:4px 6px;vertical-align:top;text-align:{}"
# The finding wraps (an id breaks anywhere if it must) and the amounts stay whole, so the
# table fits a notebook beside Lab's file browser at 800 px. At most a comfortable line
# wide, so in a full-width report the amounts stay near the finding they belong to.
_FINDING: Final = _CELL.format("left;min-width:8em;overflow-wrap:anywhere")
_CATEGORY: Final = _CELL.format("left;min-width:7em")
_MONEY: Final = _CELL.format("right;white-space:nowrap")
_UNDER: Final = "color:#555"
#: The stacked column's header: the ledger's figure above the statement's.
_STACKED: Final = f'Ledger<br><span style="{_UNDER}">Statement</span>'
_HEADERS: Final = (("Finding", "left"), (_STACKED, "right"), ("Difference", "right"))
_SUMMARY_HEADERS: Final = (("Category", "left"), (_STACKED, "right"), ("Difference", "right"))
# Two "R$" in one cell are not a formula: the classes keep math typesetting off them.
_TABLE: Final = (
    '<table class="{} tex2jax_ignore mathjax_ignore"'
    ' style="border-collapse:collapse;font-size:13px;line-height:1.45">'
    "<thead><tr>{}</tr></thead><tbody>{}</tbody></table>"
)


def summary_table(result: Any) -> HtmlBlock:
    """One row per category of `result` (a `pixops.recon.ReconResult`): its name with its
    items under it, the ledger's sum above the statement's, and the difference (statement
    minus ledger); the balance row of a run without balances says it was not checked; then
    the tolerances the run allowed (exact by default)."""
    if not hasattr(result, "summary"):
        raise TypeError(
            f"summary_table takes what pixops.recon.reconcile returns, got {type(result).__name__}"
        )
    rows = []
    for row in result.summary.to_dict(orient="records"):
        category = str(row["category"])
        name = f"<b>{html.escape(CATEGORY_LABELS.get(category, category))}</b>"
        instead = result.category_summary(category)
        if instead is not None:
            rows.append(
                f'<tr><td style="{_CATEGORY}">{name}</td>'
                f'<td colspan="2" style="{_CELL.format("left")};{_UNDER}">'
                f"<i>{html.escape(instead)}</i></td></tr>"
            )
            continue
        items = plural(int(row["items"]), "item")
        stacked = _stacked(row["ledger_amount_base"], row["statement_amount_base"])
        rows.append(
            f'<tr><td style="{_CATEGORY}">{name}<br><span style="{_UNDER}">{items}</span></td>'
            f'<td style="{_MONEY}">{stacked}</td>'
            f'<td style="{_MONEY}">{brl(row["difference_base"])}</td></tr>'
        )
    table = _TABLE.format("pixops-summary", _header(_SUMMARY_HEADERS), "".join(rows))
    tolerances = getattr(result, "tolerances", None)
    if tolerances is None:
        return HtmlBlock(table)
    # As datacompy's report states its tolerances: what "matched" allowed.
    said = html.escape(f"Tolerances: {tolerances.describe()}")
    return HtmlBlock(f'{table}<p style="{_UNDER};margin:4px 6px;font-size:13px">{said}</p>')


def findings_table(result: Any) -> HtmlBlock:
    """Every finding of `result` (a `pixops.recon.ReconResult`) in the summary's order of
    categories: what was found, the reference to look up in the books and the statement,
    the ledger's amount above the statement's, and the difference (statement minus
    ledger), in reais. A fee finding shows its fees (its amounts agree, as its summary row
    does); a balance that does not close shows what it should be as the ledger's figure
    and the reported balance as the statement's."""
    if not hasattr(result, "discrepancies"):
        raise TypeError(
            f"findings_table takes what pixops.recon.reconcile returns, got {type(result).__name__}"
        )
    order = {category: n for n, category in enumerate(ATTENTION_CATEGORIES)}
    records = sorted(
        (finding_row(record) for record in result.discrepancies.to_dict(orient="records")),
        key=lambda row: order.get(row["category"], len(order)),
    )
    rows = []
    for row in records:
        ledger, statement, difference = _amounts(row)
        rows.append(
            f'<tr><td style="{_FINDING}">{_finding_html(row)}</td>'
            f'<td style="{_MONEY}">{_stacked(ledger, statement)}</td>'
            f'<td style="{_MONEY}">{brl(difference)}</td></tr>'
        )
    if not rows:
        return HtmlBlock("<p><i>Nothing to check: every movement reconciled.</i></p>")
    return HtmlBlock(_TABLE.format("pixops-findings", _header(_HEADERS), "".join(rows)))


def _header(headers: tuple[tuple[str, str], ...]) -> str:
    return "".join(f'<th style="{_CELL.format(align)}">{name}</th>' for name, align in headers)


def _stacked(ledger_base: Any, statement_base: Any) -> str:
    """The ledger's amount above the statement's (a dash where there is none)."""
    return f'{brl(ledger_base)}<br><span style="{_UNDER}">{brl(statement_base)}</span>'


def _amounts(row: dict[str, Any]) -> tuple[int | None, int | None, int | None]:
    """Ledger, statement and their difference in base units: the fees of a fee finding."""
    if row["category"] == "fee_mismatch":
        return row["ledger_fee_base"], row["statement_fee_base"], row.get("fee_difference_base")
    return row["ledger_amount_base"], row["statement_amount_base"], row["difference_base"]


def _finding_html(row: dict[str, Any]) -> str:
    """The category in bold, the reference to look up, then what was found."""
    # A balance's "transaction" names its day ("At the close of 15/01/2026").
    reference = row["reference"] or row["transaction_id"] or "—"
    detail = row["detail"] or ""
    if row["category"] == "fee_mismatch":
        # A no-break space keeps the amount on one line.
        amount = brl(row["statement_amount_base"]).replace("R$ ", "R$\u00a0")
        detail = f"fees differ; the amount, {amount}, agrees"
    return (
        f'<div style="max-width:32em"><b>{html.escape(CATEGORY_LABELS[row["category"]])}</b>'
        f"<br>{html.escape(str(reference))}<br>"
        f'<span style="color:#555">{html.escape(str(detail))}</span></div>'
    )
