"""RefundPanel: what is confirmed is what was reviewed, the note included (the steps are
tested on `RefundFlow` in test_refund_flow.py; here, the note box and the card)."""

from __future__ import annotations

from pixops.widgets import RefundPanel
from tests.widgets.conftest import Desk
from tests.widgets.test_refund import PAYMENT, chosen


def test_a_note_changed_after_the_review_needs_a_new_review(desk: Desk) -> None:
    panel = chosen(desk)
    panel.amount.value = "R$ 1,00"
    panel.description.value = "Troca"
    panel.review_button.click()
    assert not panel.confirm_button.disabled
    panel.description.value = "x" * 141  # too long: the service would refuse it
    assert panel.confirm_button.disabled
    assert "press Review refund again" in panel.status.value
    panel.confirm()
    assert desk.posts() == []


def test_the_refund_sent_card_keeps_the_note_that_went_with_it(desk: Desk) -> None:
    """The review asked about the note, then the card of what was sent left it out (and
    the box is emptied for the next refund): nothing showed the note had gone."""
    panel = RefundPanel(desk.client, now=desk.now)
    panel.search.value = PAYMENT
    panel.find()
    panel.amount.value = "R$ 1,00"
    panel.description.value = "  Devolução combinada por telefone  "
    panel.review()
    panel.confirm()
    card = panel.output.outputs[0]["data"]["text/html"]
    assert ">Devolução combinada por telefone</td>" in card
    assert panel.description.value == ""
