"""What to check after a reconciliation, as one table a finance reader works down: each
finding, in the summary's order, with the reference to look up and the amounts in reais."""

from __future__ import annotations

import html
from typing import Any, Final

from pixops.recon import ATTENTION_CATEGORIES, CATEGORY_LABELS
from pixops.widgets._format import HtmlBlock, brl
from pixops.widgets._recon_rows import finding_row

__all__ = ["findings_table"]

_CELL: Final = "padding:4px 8px;vertical-align:top;text-align:{}"
# The finding wraps (an id breaks anywhere if it must) and the amounts stay whole, so the
# table fits a notebook beside Lab's file browser at 1024 px. At most a comfortable line
# wide, so in a full-width report the amounts stay near the finding they belong to.
_FINDING: Final = _CELL.format("left;min-width:14em;overflow-wrap:anywhere")
_MONEY: Final = _CELL.format("right;white-space:nowrap")
_HEADERS: Final = ("Finding", "Ledger", "Statement", "Difference")


def findings_table(result: Any) -> HtmlBlock:
    """Every finding of `result` (a `pixops.recon.ReconResult`) in the summary's order of
    categories: what was found, the reference to look up in the books and the statement,
    and Ledger, Statement and Difference (statement minus ledger) in reais. A fee finding
    shows its fees (its amounts agree, as its summary row does); a balance that does not
    close shows what it should be under Ledger and the reported balance under Statement."""
    if not hasattr(result, "discrepancies"):
        raise TypeError(
            f"findings_table takes what pixops.recon.reconcile returns, got {type(result).__name__}"
        )
    order = {category: n for n, category in enumerate(ATTENTION_CATEGORIES)}
    records = sorted(
        (finding_row(record) for record in result.discrepancies.to_dict(orient="records")),
        key=lambda row: order.get(row["category"], len(order)),
    )
    header = "".join(
        f'<th style="{_CELL.format("left" if name == "Finding" else "right")}">{name}</th>'
        for name in _HEADERS
    )
    rows = "".join(
        f'<tr><td style="{_FINDING}">{_finding_html(row)}</td>'
        + "".join(f'<td style="{_MONEY}">{brl(amount)}</td>' for amount in _amounts(row))
        + "</tr>"
        for row in records
    )
    if not rows:
        return HtmlBlock("<p><i>Nothing to check: every movement reconciled.</i></p>")
    # Two "R$" in one cell are not a formula: the classes keep math typesetting off them.
    return HtmlBlock(
        '<table class="pixops-findings tex2jax_ignore mathjax_ignore"'
        ' style="border-collapse:collapse;font-size:13px;line-height:1.45">'
        f"<thead><tr>{header}</tr></thead><tbody>{rows}</tbody></table>"
    )


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
