"""RefundPanel, driven as a user would: type, click, read the widgets and the API calls.

The steps themselves (what is found, reviewed, sent, followed up) are `RefundFlow`'s,
tested without widgets in test_refund_flow.py; here, what only the panel shows: its
buttons, lists, boxes and output."""

from __future__ import annotations

from datetime import date

import pytest

from pixops.widgets import REFUND_REASONS, RefundPanel, local_time
from tests.widgets.conftest import Desk

# A received payment of the demo month: R$ 19,45 from José Freitas Marques on
# 2026-01-31 10:04 in São Paulo, of which R$ 4,61 was refunded on 2026-02-03.
PAYMENT = "PIXINE00360305202601311304fBxrSVuhd7C"
#: A value cell of a summary (`pairs`).
VALUE = '<td style="text-align:left;overflow-wrap:anywhere">'


def panel_on(desk: Desk) -> RefundPanel:
    return RefundPanel(desk.client, now=desk.now)


def chosen(desk: Desk) -> RefundPanel:
    panel = panel_on(desk)
    panel.search.value = PAYMENT
    panel.find_button.click()
    assert panel.selected is not None
    return panel


def test_find_by_transaction_id_shows_what_is_left_in_reais(desk: Desk) -> None:
    panel = chosen(desk)
    assert panel.results.value == PAYMENT
    assert len(panel.results.options) == 1
    assert "R$ 14,84" in panel.details.value  # left to refund
    assert panel.remaining_base == 148_400
    assert panel.payment_id == PAYMENT  # the panel's state, as traitlets
    assert desk.posts() == []


def test_picking_another_payment_in_the_list_reads_it(desk: Desk) -> None:
    panel = panel_on(desk)
    panel.search.value = "Mariana"
    panel.find_button.click()
    assert len(panel.results.options) > 1
    other = panel.results.options[1][1]
    panel.results.value = other
    assert panel.selected is not None
    assert panel.selected.transaction_id == other
    assert other in panel.details.value


def test_each_reason_shows_its_meaning_and_deadline(desk: Desk) -> None:
    panel = chosen(desk)
    assert [value for _, value in panel.reason.options] == [r.code for r in REFUND_REASONS]
    panel.reason.value = "MD06"
    assert "(78 days left)" in panel.reason_help.value  # the sandbox clock: 2026-02-12
    panel.reason.value = "AM09"
    assert "up to and including 02/03/2026" in panel.reason_help.value


def test_bad_amounts_are_refused_before_anything_is_sent(desk: Desk) -> None:
    panel = chosen(desk)
    panel.amount.value = "R$ 14,85"
    panel.review_button.click()
    assert "more than what is left" in panel.status.value
    assert panel.confirm_button.disabled
    panel.confirm_button.click()
    assert desk.posts() == []


def test_review_then_confirm_sends_one_refund_in_centavos(desk: Desk) -> None:
    panel = chosen(desk)
    panel.amount.value = "R$ 10,00"
    panel.reason.value = "MD06"
    panel.description.value = "Produto devolvido"
    panel.review_button.click()
    assert not panel.confirm_button.disabled
    assert "Refund R$ 10,00 to José Freitas Marques" in panel.status.value
    assert desk.posts() == []
    panel.confirm_button.click()
    assert desk.posts() == [
        (
            "/pix/refund",
            {
                "original_transaction_id": PAYMENT,
                "amount": 1000,
                "reason": "MD06",
                "description": "Produto devolvido",
            },
        )
    ]
    assert panel.last_refund is not None
    assert "Processing (accepted by the service)" in panel.status.value
    assert panel.confirm_button.disabled  # one confirmation, one refund
    assert "R$ 4,84" in panel.details.value
    shown = panel.output.outputs[-1]["data"]["text/html"]
    assert "Refund sent" in shown
    assert local_time(desk.now()) in shown  # when it was asked for, not a dash


def test_changing_the_amount_after_review_needs_a_new_review(desk: Desk) -> None:
    panel = chosen(desk)
    panel.amount.value = "R$ 1,00"
    panel.review_button.click()
    panel.amount.value = "R$ 2,00"
    assert panel.confirm_button.disabled


def test_follow_up_shows_the_outcome(desk: Desk) -> None:
    panel = chosen(desk)
    panel.amount.value = "5"
    panel.review_button.click()
    panel.confirm_button.click()
    assert not panel.follow_button.disabled
    panel.follow_button.click()
    assert "Settled" in panel.status.value
    # The notebook speaks of the service's notices; "webhook" is a developer's word.
    assert "The service's notices about this refund" in repr(panel.output.outputs[-1])
    assert "webhook" not in repr(panel.output.outputs[-1]).lower()


def test_a_sent_refund_clears_the_amount_and_its_card_follows_the_status(desk: Desk) -> None:
    panel = chosen(desk)
    panel.amount.value = "R$ 1,50"
    panel.description.value = "Troca"
    panel.review_button.click()
    panel.confirm_button.click()
    # A second refund needs a new amount and a new review.
    assert panel.amount.value == ""
    assert panel.description.value == ""
    assert panel.confirm_button.disabled
    card = panel.output.outputs[0]["data"]["text/html"]
    assert "Refund sent" in card
    # The same word as the payment's refunds table above it.
    assert f"{VALUE}Processing (accepted by the service)</td>" in card
    assert ">Processing<" in panel.details.value
    panel.follow_button.click()
    assert "Settled" in panel.status.value
    card = panel.output.outputs[0]["data"]["text/html"]
    assert f"{VALUE}Settled</td>" in card
    assert "Accepted" not in card
    assert "Completed" in card
    assert sum("Refund sent" in repr(o) for o in panel.output.outputs) == 1


def test_a_client_is_required() -> None:
    with pytest.raises(TypeError, match=r"pixops\.Client"):
        RefundPanel(object())


# -- what a hurried person does wrong ----------------------------------------------------


def test_a_double_click_on_confirm_sends_once_and_keeps_the_answer(desk: Desk) -> None:
    panel = chosen(desk)
    panel.amount.value = "R$ 1,00"
    panel.review_button.click()
    # The browser sends both clicks; the second arrives after the first has sent.
    panel.confirm_button.click()
    panel.confirm_button.click()
    assert [path for path, _ in desk.posts()] == ["/pix/refund"]
    assert "Refund PIXRET" in panel.status.value
    assert "Review the refund first" not in panel.status.value


def test_an_amount_not_understood_stays_to_be_corrected(desk: Desk) -> None:
    panel = chosen(desk)
    panel.amount.value = "1.000"
    panel.review_button.click()
    assert "1.000 could be thousands or a decimal" in panel.status.value
    assert panel.amount.value == "1.000"  # what was typed stays, to be corrected


def test_each_date_picker_says_its_date_the_brazilian_way(desk: Desk) -> None:
    # The browser draws the picker in its own language (mm/dd/yyyy in en-US): an echo
    # beside it says the date as dd/mm/yyyy with the month named.
    panel = panel_on(desk)
    panel.date_from.value = date(2026, 1, 2)
    panel.date_to.value = None
    echoes = [
        child.value
        for row in panel.children
        for pair in getattr(row, "children", ())
        for child in getattr(pair, "children", ())
        if "pixops-date-echo" in getattr(child, "_dom_classes", ())
    ]
    assert len(echoes) == 2
    assert "02/01/2026 (Fri, 2 Jan)" in echoes[0]
    assert "no date chosen" in echoes[1]


def test_the_status_line_reads_as_text(desk: Desk) -> None:
    panel = panel_on(desk)
    panel.search.value = "PIXOUTE99999999202602010035vPSMqH4We2Z"
    panel.find()
    assert panel.status_text.endswith("only received payments can be refunded.")
    assert "<" not in panel.status_text


def test_changing_the_reason_after_review_needs_a_new_review(desk: Desk) -> None:
    panel = chosen(desk)
    panel.amount.value = "R$ 1,00"
    panel.review_button.click()
    assert "with reason MD06?" in panel.status.value
    panel.reason.value = "AM09"
    assert panel.confirm_button.disabled
    assert "press Review refund again" in panel.status.value
    panel.confirm_button.click()  # greyed in the browser: nothing happens
    panel.confirm()
    assert desk.posts() == []


def test_another_payment_does_not_keep_the_last_refund_card(desk: Desk) -> None:
    """The "Refund sent" card belongs to its payment: choosing another one clears it, so
    nobody reads it as that payment's refund."""
    panel = chosen(desk)
    panel.amount.value = "R$ 1,00"
    panel.review_button.click()
    panel.confirm_button.click()
    assert "Refund sent" in repr(panel.output.outputs)
    panel.follow_button.click()
    assert "Refund sent" in repr(panel.output.outputs)  # the same payment: it stays
    panel.search.value = "E003603052026020101165qApH2pqP9J"
    panel.find_button.click()
    assert panel.selected is not None
    assert panel.selected.transaction_id != PAYMENT
    assert panel.output.outputs == ()
    assert panel.follow_button.disabled


def test_a_search_too_short_clears_the_last_payment(desk: Desk) -> None:
    """Under "type at least 3 letters" the payment found before stayed on screen, as if it
    were the answer to the new search."""
    panel = chosen(desk)
    panel.search.value = "jo"
    panel.find_button.click()
    assert "Type at least 3 letters" in panel.status.value
    assert panel.selected is None
    assert panel.results.options == ()
    assert panel.details.value == ""
