"""A reconciliation row as the dashboard shows it: the ledger's reference it was paired by,
also when that is the transaction id (issue 27 §6: it read "Ledger reference —")."""

from __future__ import annotations

from pixops.recon import reconcile
from pixops.widgets._recon_rows import SAME_AS_TRANSACTION, finding_row
from tests.recon.builders import DAY, clean_pair


def test_a_match_by_transaction_id_shows_that_reference() -> None:
    result = reconcile(*clean_pair(2), start=DAY, end=DAY)
    rows = [finding_row(record) for record in result.matched.to_dict(orient="records")]
    # Said in words, not a dash (read as missing) nor the 37-character id a second time.
    assert [row["ledger_reference"] for row in rows] == [SAME_AS_TRANSACTION] * 2


def test_a_match_by_another_identifier_shows_it() -> None:
    row = finding_row({"reference": "pedido-7", "transaction_id": "PIXIN000007"})
    assert row["ledger_reference"] == "pedido-7"
    assert finding_row({"reference": None, "transaction_id": "PIXIN1"})["ledger_reference"] is None
