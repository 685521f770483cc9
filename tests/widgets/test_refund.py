"""RefundPanel, driven as a user would: type, click, read the widgets and the API calls."""

from __future__ import annotations

from datetime import timedelta

import pytest
from tests.widgets.conftest import Desk

from pixops.widgets import REFUND_REASONS, RefundPanel

# A received payment of the demo month: R$ 26,12 from Juliana Lima Soares on
# 2026-01-01, of which R$ 2,33 was refunded during the month.
PAYMENT = "PIXINE085617012026010105031n5rFTOF5fL"


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
    assert "R$ 26,12" in panel.details.value
    assert "R$ 2,33" in panel.details.value  # already refunded
    assert "R$ 23,79" in panel.details.value  # left to refund
    assert panel.remaining_base == 237_900
    assert "237900" not in panel.details.value
    assert "261200" not in panel.details.value
    assert "PIXRET" in panel.details.value
    assert desk.posts() == []


def test_find_by_end_to_end_id(desk: Desk) -> None:
    panel = panel_on(desk)
    panel.search.value = PAYMENT.removeprefix("PIXIN")
    panel.find_button.click()
    assert panel.results.value == PAYMENT


def test_find_by_payer_name_searches_the_dates_given(desk: Desk) -> None:
    panel = panel_on(desk)
    panel.search.value = "juliana lima soares"
    panel.date_from.value = panel.date_to.value - timedelta(days=60)
    panel.find_button.click()
    assert PAYMENT in [value for _, value in panel.results.options]
    assert all("Juliana Lima Soares" in label for label, _ in panel.results.options)
    assert all("R$ " in label for label, _ in panel.results.options)


def test_find_by_amount_in_reais(desk: Desk) -> None:
    panel = panel_on(desk)
    panel.search.value = "R$ 26,12"
    panel.date_from.value = panel.date_to.value - timedelta(days=60)
    panel.find_button.click()
    assert PAYMENT in [value for _, value in panel.results.options]
    assert all("R$ 26,12" in label for label, _ in panel.results.options)


def test_nothing_found_says_so(desk: Desk) -> None:
    panel = panel_on(desk)
    panel.search.value = "Nobody With This Name"
    panel.find_button.click()
    assert panel.results.options == ()
    assert panel.selected is None
    assert "No received payment matches" in panel.status.value


def test_empty_search_is_refused_without_calling_the_api(desk: Desk) -> None:
    panel = panel_on(desk)
    mark = desk.mark()
    panel.search.value = "   "
    panel.find_button.click()
    assert "type an identifier first" in panel.status.value
    assert desk.calls_since(mark) == []


def test_each_reason_shows_its_meaning_and_deadline(desk: Desk) -> None:
    panel = chosen(desk)
    assert [value for _, value in panel.reason.options] == [r.code for r in REFUND_REASONS]
    panel.reason.value = "MD06"
    assert "90 days" in panel.reason_help.value
    assert "01/04/2026" in panel.reason_help.value  # 90 days after 01/01/2026 02:03 local
    assert "day(s) left" in panel.reason_help.value
    panel.reason.value = "AM09"  # 30 days: long gone on 2026-02-13
    assert "30 days" in panel.reason_help.value
    assert "refuse" in panel.reason_help.value


@pytest.mark.parametrize(
    ("typed", "complaint"),
    [
        ("abc", "Amount not understood"),
        ("R$ 0,00", "more than R$ 0,00"),
        ("R$ 23,80", "more than what is left"),
        ("1,234", "Amount not understood"),
    ],
)
def test_bad_amounts_are_refused_before_anything_is_sent(
    desk: Desk, typed: str, complaint: str
) -> None:
    panel = chosen(desk)
    panel.amount.value = typed
    panel.review_button.click()
    assert complaint in panel.status.value
    assert panel.confirm_button.disabled
    panel.confirm_button.click()
    assert desk.posts() == []


def test_confirm_needs_a_review_first(desk: Desk) -> None:
    panel = chosen(desk)
    panel.confirm()
    assert "Review the refund first" in panel.status.value
    assert desk.posts() == []


def test_review_then_confirm_sends_one_refund_in_centavos(desk: Desk) -> None:
    panel = chosen(desk)
    panel.amount.value = "R$ 10,00"
    panel.reason.value = "MD06"
    panel.description.value = "Produto devolvido"
    panel.review_button.click()
    assert not panel.confirm_button.disabled
    assert "Refund R$ 10,00 to Juliana Lima Soares" in panel.status.value
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
    assert "R$ 10,00" in panel.status.value
    assert "accepted" in panel.status.value
    assert panel.confirm_button.disabled  # one confirmation, one refund
    assert panel.remaining_base == 137_900  # the accepted refund already counts
    assert "R$ 13,79" in panel.details.value
    assert any("Service response" in o.get("text", "") for o in panel.output.outputs)


def test_changing_the_amount_after_review_needs_a_new_review(desk: Desk) -> None:
    panel = chosen(desk)
    panel.amount.value = "R$ 1,00"
    panel.review_button.click()
    panel.amount.value = "R$ 2,00"
    assert panel.confirm_button.disabled


def test_empty_amount_refunds_everything_left(desk: Desk) -> None:
    panel = chosen(desk)
    panel.review_button.click()
    panel.confirm_button.click()
    assert desk.posts()[0][1]["amount"] == 2379
    assert panel.remaining_base == 0
    panel.review_button.click()
    assert "refunded in full already" in panel.status.value
    assert len(desk.posts()) == 1


def test_follow_up_shows_the_outcome(desk: Desk) -> None:
    panel = chosen(desk)
    panel.amount.value = "5"
    panel.review_button.click()
    panel.confirm_button.click()
    assert not panel.follow_button.disabled
    panel.follow_button.click()
    assert "settled" in panel.status.value
    assert "Webhook events of this refund" in repr(panel.output.outputs[-1])


def test_a_refused_refund_shows_the_service_message(desk: Desk) -> None:
    panel = chosen(desk)
    panel.amount.value = "R$ 1,00"
    panel.review_button.click()
    # Someone else refunds everything meanwhile: the service refuses ours.
    desk.client.pix.refund(PAYMENT, amount_centavos=2379)
    panel.confirm_button.click()
    assert "refused" in panel.status.value
    assert panel.last_refund is None


def test_a_client_is_required() -> None:
    with pytest.raises(TypeError, match=r"pixops\.Client"):
        RefundPanel(object())
