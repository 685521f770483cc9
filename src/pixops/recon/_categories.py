"""The categories a reconciliation reports, in order, and how people read them: the
labels and the money cells every report, table and figure of a result shows (one home,
so `pixops.recon._result` and its figures, `pixops.recon._figures`, read the same)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import pandas as pd

__all__ = ["ATTENTION_CATEGORIES", "CATEGORIES", "CATEGORY_LABELS", "money_or_dash"]

#: Every finding, in the order reports list them.
ATTENTION_CATEGORIES: Final = (
    "missing_in_statement",
    "missing_in_ledger",
    "amount_mismatch",
    "fee_mismatch",
    "status_mismatch",
    "duplicate",
    "timing_difference",
    "unbooked_refund",
    "unit_error",
    "balance_difference",
    "needs_review",
)
#: ``rounding``: pairs that agree at the ledger's precision only (a fee of R$ 0,1305 kept
#: as R$ 0,13 in a ledger in centavos): counted apart, never a finding; in the summary
#: only of a ledger coarser than the statement.
CATEGORIES: Final = ("matched", *ATTENTION_CATEGORIES, "rounding")

#: What each category means, for people (reports, the dashboard, the CLI).
CATEGORY_LABELS: Final[dict[str, str]] = {
    "matched": "Matched",
    "rounding": "Rounding (ledger's precision)",
    "missing_in_statement": "In the ledger, not in the statement",
    "missing_in_ledger": "In the statement, not in the ledger",
    "amount_mismatch": "Amount differs",
    "fee_mismatch": "Fee differs",
    "status_mismatch": "Status differs",
    "duplicate": "Duplicate",
    "timing_difference": "Booked on another day",
    "unbooked_refund": "Refund not booked",
    "unit_error": "Unit error (100x or 10000x)",
    "balance_difference": "Balance does not close",
    "needs_review": "Needs review (two equal candidates)",
}


def money_or_dash(amount_base: object, formatted: Callable[[int], str]) -> str:
    """Money as pt-BR text, or a dash where there is none (a balance row of the summary)."""
    if amount_base is None or amount_base is pd.NA:
        return "—"
    return formatted(int(amount_base))  # type: ignore[call-overload]
