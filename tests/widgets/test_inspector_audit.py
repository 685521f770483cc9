"""TransactionInspector: a search that finds nothing leaves no earlier match in view."""

from __future__ import annotations

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
