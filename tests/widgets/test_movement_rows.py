"""`movement_text` and `findings_table` with what a notebook hands them."""

from __future__ import annotations

import pandas as pd
import pytest

from pixops.widgets import findings_table, movement_text


def test_a_statement_row_from_a_dataframe_reads_as_words() -> None:
    frame = pd.DataFrame(
        {
            "transaction_id": ["PIXINE1", "PIXRETE2"],
            "type": pd.Categorical(["pix", "pix"]),
            "direction": ["inbound", "outbound"],
            "counterparty_name": ["Ana <b>&</b>", None],
            "original_transaction_id": [None, "PIXINE1"],
        }
    )
    by_rows = [movement_text(row) for _, row in frame.iterrows()]
    by_tuples = [movement_text(row) for row in frame.itertuples(index=False)]
    assert by_rows == by_tuples == ["PIX from Ana <b>&</b>", "Refund"]


def test_findings_table_says_what_it_takes() -> None:
    with pytest.raises(TypeError, match=r"what pixops\.recon\.reconcile returns, got DataFrame"):
        findings_table(pd.DataFrame())
    with pytest.raises(TypeError, match="got NoneType"):
        findings_table(None)
