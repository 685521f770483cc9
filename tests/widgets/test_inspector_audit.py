"""TransactionInspector: a search that finds nothing leaves no earlier match in view."""

from __future__ import annotations

import re

from pixops.widgets import TransactionInspector
from tests.widgets.conftest import Desk

PAYMENT = "PIXINE00360305202601311304fBxrSVuhd7C"


def test_an_empty_or_unknown_search_after_a_match_leaves_no_old_match(desk: Desk) -> None:
    inspector = TransactionInspector(desk.client, now=desk.now)
    for typed in ("   ", "nothing-like-this"):
        inspector.inspect(PAYMENT)
        assert inspector.matches.value == PAYMENT
        inspector.inspect(typed)
        # The tabs are empty, so the list of matches must not name the earlier payment.
        assert inspector.matches.options == ()
        assert inspector.matches.value is None
        assert inspector.record is None
        assert PAYMENT not in inspector.summary.value
    inspector.inspect(PAYMENT)  # and the same payment is found and shown again
    assert inspector.matches.value == PAYMENT
    assert PAYMENT in inspector.summary.value


def test_the_refunds_tab_puts_the_amount_before_the_long_id(desk: Desk) -> None:
    """At 1024 px with Lab's file browser open the table's right end scrolls out of view:
    when, how much and the status come first, the 38-character refund id last."""
    inspector = TransactionInspector(desk.client, now=desk.now)
    inspector.inspect(PAYMENT)
    headers = re.findall(r"<th [^>]*>([^<]*)</th>", inspector.refunds_view.value)
    assert headers == ["Requested (São Paulo)", "Amount", "Status", "Refund"]
    assert "R$ 4,61" in inspector.refunds_view.value
