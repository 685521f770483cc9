"""How `ReconDashboard`'s tables show a reconciliation's rows: the columns of each
category's table and the summary, and a result row as its table shows it."""

from __future__ import annotations

from typing import Any, Final

__all__ = [
    "DIRECTION_WORDS",
    "OTHER_COLUMNS",
    "SAME_AS_TRANSACTION",
    "SUMMARY_COLUMNS",
    "TABLE_COLUMNS",
    "finding_row",
]

# A finding's table says what its category is about, and fits the notebook: the movement
# and the ledger's reference it was paired by, then that category's figures.
_IDS: Final = (
    ("transaction_id", "Transaction"),
    ("ledger_reference", "Ledger reference"),
    # Money in or out: the ids alone do not say, and matched amounts add up both ways.
    ("direction", "Direction"),
)
#: The ledger's reference when it is the transaction id (shown once, in its own column).
SAME_AS_TRANSACTION: Final = "the transaction id"
DIRECTION_WORDS: Final = {"inbound": "received", "outbound": "sent"}
_AMOUNTS: Final = (
    ("ledger_amount_base", "Ledger"),
    ("statement_amount_base", "Statement"),
    ("difference_base", "Difference"),
)
_DETAIL: Final = (("detail", "Detail"),)
TABLE_COLUMNS: Final[dict[str, tuple[tuple[str, str], ...]]] = {
    "fee_mismatch": (
        *_IDS,
        ("ledger_fee_base", "Ledger fee"),
        ("statement_fee_base", "Statement fee"),
        ("fee_difference_base", "Fee difference"),
    ),
    # The detail names both statuses, and whose: the ledger's or a webhook's.
    "status_mismatch": (*_IDS, ("statement_amount_base", "Amount"), *_DETAIL),
    "timing_difference": (
        *_IDS,
        ("statement_amount_base", "Amount"),
        ("booked_on", "Booked on"),
        ("business_date", "Statement day"),
    ),
    "balance_difference": (
        ("transaction_id", "Balance"),
        ("ledger_amount_base", "Opening + movements"),
        ("statement_amount_base", "Reported"),
        ("difference_base", "Difference"),
        *_DETAIL,
    ),
    "matched": (
        *_IDS,
        ("business_date", "Day"),
        ("amount_base", "Amount"),
        ("fee_base", "Fee"),
    ),
}
OTHER_COLUMNS: Final = (*_IDS, *_AMOUNTS, *_DETAIL)
SUMMARY_COLUMNS: Final = (
    ("label", "Category"),
    ("items", "Items"),
    ("ledger_amount_base", "Ledger"),
    ("statement_amount_base", "Statement"),
    ("difference_base", "Difference"),
)


def finding_row(record: dict[str, Any]) -> dict[str, Any]:
    """A row of the result as its table shows it: the ledger's reference it was paired
    by (`SAME_AS_TRANSACTION` when it is the transaction id, not the id twice: a dash
    there read as a reference missing), a balance named by its day, the fee difference."""
    row = _displayable(record)
    reference, transaction = row.get("reference"), row.get("transaction_id")
    same = reference is not None and reference == transaction
    row["ledger_reference"] = SAME_AS_TRANSACTION if same else reference
    if row.get("category") == "balance_difference" and row.get("business_date") is not None:
        row["transaction_id"] = f"At the close of {row['business_date']:%d/%m/%Y}"
    ledger_fee, statement_fee = row.get("ledger_fee_base"), row.get("statement_fee_base")
    if ledger_fee is not None and statement_fee is not None:
        row["fee_difference_base"] = statement_fee - ledger_fee
    return row


def _displayable(record: dict[str, Any]) -> dict[str, Any]:
    """Missing values as None, and money as integers (the table shows them in reais)."""
    shown: dict[str, Any] = {}
    for key, value in record.items():
        if value is None or (not isinstance(value, str) and _is_missing(value)):
            shown[key] = None
        elif key.endswith("_base"):
            shown[key] = int(value)
        else:
            shown[key] = value
    return shown


def _is_missing(value: Any) -> bool:
    import pandas as pd

    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False
