"""RefundPanel: what is confirmed is what was reviewed, the note included."""

from __future__ import annotations

import re

import pytest

from pixops.widgets import RefundPanel
from tests.widgets.conftest import Desk
from tests.widgets.test_refund import PAYMENT, chosen


def test_a_note_changed_after_the_review_needs_a_new_review(desk: Desk) -> None:
    panel = chosen(desk)
    panel.amount.value = "R$ 1,00"
    panel.description.value = "Troca"
    panel.review_button.click()
    assert not panel.confirm_button.disabled
    assert "note “Troca”" in panel.status.value  # the review shows the note it will send
    panel.description.value = "x" * 141  # too long: the service would refuse it
    assert panel.confirm_button.disabled
    assert "press Review refund again" in panel.status.value
    panel.confirm()
    assert desk.posts() == []
    panel.review_button.click()
    assert "at most 140 characters" in panel.status.value
    panel.description.value = "Troca de tamanho"
    panel.review_button.click()
    panel.confirm_button.click()
    panel.confirm_button.click()  # a double click
    assert desk.posts() == [
        (
            "/pix/refund",
            {
                "original_transaction_id": PAYMENT,
                "amount": 100,
                "reason": "MD06",
                "description": "Troca de tamanho",
            },
        )
    ]


def test_too_late_for_every_reason_says_none_is_left(desk: Desk) -> None:
    desk.month.sandbox.advance(days=100)  # past even MD06's 90 days
    panel = chosen(desk)
    panel.amount.value = "R$ 1,00"
    panel.review_button.click()
    assert "Too late for reason MD06" in panel.status.value
    assert "no reason is valid any longer" in panel.status.value
    assert "Choose a reason still valid" not in panel.status.value
    assert panel.confirm_button.disabled


def test_too_late_for_one_reason_names_those_still_valid(desk: Desk) -> None:
    desk.month.sandbox.advance(days=40)  # AM09, SL02, RR04 (30 days) have passed
    panel = chosen(desk)
    panel.amount.value = "R$ 1,00"
    panel.reason.value = "AM09"
    panel.review_button.click()
    assert "Too late for reason AM09" in panel.status.value
    assert "Still valid: MD06, BE08, FR01." in panel.status.value
    assert panel.confirm_button.disabled


def test_the_refunds_table_puts_amount_and_status_before_the_long_id(desk: Desk) -> None:
    """In a narrow notebook the table's right end scrolls out of view: the amount and the
    status are read first, the 38-character refund id last (it is copied, not read)."""
    panel = chosen(desk)
    table = panel.details.value.split("<h4", 1)[1]
    headers = re.findall(r"<th [^>]*>([^<]*)</th>", table)
    assert headers == ["Requested (São Paulo)", "Amount", "Status", "Refund"]
    # The hour may go under the date: at 800 px the id had 50 px, a 7-line cell.
    assert re.search(r'<span style="white-space:nowrap">\d\d:\d\d</span>', table)


@pytest.mark.parametrize("typed", ["   ", "Nobody With This Name", PAYMENT])
def test_a_new_search_withdraws_the_refund_under_review(desk: Desk, typed: str) -> None:
    """Find replaces the status line that asked "Refund R$ 1,00 to ...?": Confirm must not
    stay enabled for a question no longer on screen."""
    panel = chosen(desk)
    panel.amount.value = "R$ 1,00"
    panel.review_button.click()
    assert not panel.confirm_button.disabled
    panel.search.value = typed
    panel.find_button.click()
    assert panel.confirm_button.disabled
    panel.confirm_button.click()
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
    assert "<th" in card
    assert ">Note</th>" in card
    assert ">Devolução combinada por telefone</td>" in card
    assert panel.description.value == ""
