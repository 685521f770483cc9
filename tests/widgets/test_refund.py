"""RefundPanel, driven as a user would: type, click, read the widgets and the API calls."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from pathlib import Path

import httpx
import pytest

import pixops
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
    assert "R$ 19,45" in panel.details.value
    assert "R$ 4,61" in panel.details.value  # already refunded
    assert "R$ 14,84" in panel.details.value  # left to refund
    assert panel.remaining_base == 148_400
    assert "148400" not in panel.details.value
    assert "194500" not in panel.details.value
    assert "PIXRET" in panel.details.value
    assert desk.posts() == []


def test_find_by_end_to_end_id(desk: Desk) -> None:
    panel = panel_on(desk)
    panel.search.value = PAYMENT.removeprefix("PIXIN")
    panel.find_button.click()
    assert panel.results.value == PAYMENT


def test_find_by_payer_name_searches_the_dates_given(desk: Desk) -> None:
    panel = panel_on(desk)
    panel.search.value = "josé freitas marques"
    panel.date_from.value = date(2026, 1, 31)
    panel.date_to.value = date(2026, 1, 31)
    panel.find_button.click()
    assert PAYMENT in [value for _, value in panel.results.options]
    assert all("José Freitas Marques" in label for label, _ in panel.results.options)
    assert all("R$ " in label for label, _ in panel.results.options)


def test_find_by_amount_in_reais(desk: Desk) -> None:
    panel = panel_on(desk)
    panel.search.value = "R$ 19,45"
    panel.date_from.value = date(2026, 1, 30)
    panel.date_to.value = date(2026, 2, 1)
    panel.find_button.click()
    assert PAYMENT in [value for _, value in panel.results.options]
    assert all("R$ 19,45" in label for label, _ in panel.results.options)


def test_nothing_found_says_so(desk: Desk) -> None:
    panel = panel_on(desk)
    panel.search.value = "Nobody With This Name"
    panel.date_from.value = date(2026, 1, 31)
    panel.find_button.click()
    assert panel.results.options == ()
    assert panel.selected is None
    assert "No received payment from 31/01/2026 to 12/02/2026 matches" in panel.status_text


def test_empty_search_is_refused_without_calling_the_api(desk: Desk) -> None:
    panel = panel_on(desk)
    mark = desk.mark()
    panel.search.value = "   "
    panel.find_button.click()
    assert "Type an identifier first." in panel.status.value
    assert desk.calls_since(mark) == []


def test_each_reason_shows_its_meaning_and_deadline(desk: Desk) -> None:
    panel = chosen(desk)
    assert [value for _, value in panel.reason.options] == [r.code for r in REFUND_REASONS]
    panel.reason.value = "MD06"
    assert "90 days" in panel.reason_help.value
    # 90 calendar days after 31/01 in São Paulo, to the end of that day
    assert "up to and including 01/05/2026" in panel.reason_help.value
    assert "(78 days left)" in panel.reason_help.value  # the sandbox clock: 2026-02-12
    panel.reason.value = "AM09"
    assert "30 days" in panel.reason_help.value
    assert "up to and including 02/03/2026" in panel.reason_help.value


def test_a_reason_past_its_deadline_is_flagged(desk: Desk) -> None:
    panel = RefundPanel(desk.client, now=lambda: datetime(2026, 4, 1, 12, tzinfo=UTC))
    panel.search.value = PAYMENT
    panel.find_button.click()
    panel.reason.value = "AM09"
    assert "refuse it as too late (code DT05)" in panel.reason_help.value
    panel.reason.value = "MD06"
    assert "(30 days left)" in panel.reason_help.value


def test_search_dates_must_make_sense(desk: Desk) -> None:
    panel = panel_on(desk)
    panel.search.value = "Felipe"
    panel.date_from.value = date(2026, 2, 1)
    panel.date_to.value = date(2026, 1, 1)
    panel.find_button.click()
    assert "The first date is after the last one." in panel.status.value


@pytest.mark.parametrize(
    ("typed", "complaint"),
    [
        ("abc", "Amount not understood"),
        ("R$ 0,00", "more than R$ 0,00"),
        ("R$ 14,85", "more than what is left"),
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
    assert "R$ 10,00" in panel.status.value
    assert "Processing (accepted by the service)" in panel.status.value
    assert panel.confirm_button.disabled  # one confirmation, one refund
    assert panel.remaining_base == 48_400  # the accepted refund already counts
    assert "R$ 4,84" in panel.details.value
    # The outcome reads as a summary in reais; the service's answer is folded away, and
    # even there no money field is a bare base-unit integer.
    shown = panel.output.outputs[-1]["data"]["text/html"]
    assert "Refund sent" in shown
    assert "MD06: agreement between the parties" in shown
    assert local_time(desk.now()) in shown  # when it was asked for, not a dash
    assert "<details><summary>Technical details" in shown
    assert "100000" not in shown
    assert "&quot;amount&quot;: &quot;R$ 10,00&quot;" in shown


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
    assert desk.posts()[0][1]["amount"] == 1484
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


def test_a_refused_refund_shows_the_service_message(desk: Desk) -> None:
    panel = chosen(desk)
    panel.amount.value = "R$ 1,00"
    panel.review_button.click()
    # Someone else refunds everything meanwhile: the service refuses ours.
    desk.client.pix.refund(PAYMENT, amount_centavos=1484)
    panel.confirm_button.click()
    assert "refused" in panel.status.value
    assert panel.last_refund is None


def test_a_client_is_required() -> None:
    with pytest.raises(TypeError, match=r"pixops\.Client"):
        RefundPanel(object())


def test_follow_up_lists_the_webhooks_of_the_refund_on_a_connected_client(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in ("PIXOPS_BASE_URL", "PIXOPS_CLIENT_ID", "PIXOPS_CLIENT_SECRET"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    client = pixops.connect(announce=False)
    panel = RefundPanel(client)  # the clock and the inbox come from the connection
    panel.search.value = PAYMENT
    panel.find_button.click()
    panel.amount.value = "R$ 1,00"
    panel.review_button.click()
    panel.confirm_button.click()
    panel.follow_button.click()
    assert "Settled" in panel.status.value
    shown = panel.output.outputs[-1]["data"]["text/html"]
    assert 'title="pix.refund.completed">Refund completed<' in shown  # code: tooltip only
    assert "Event code" not in shown
    assert ">Settled<" in shown  # the event's status `completed`: the same state, one word
    assert 'title="completed"' in shown
    assert "12/02/2026 01:09" in shown  # the sandbox's clock, in São Paulo time


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


@pytest.mark.parametrize(
    ("typed", "words"),
    [
        ("abc", "type reais and centavos like 10,50"),
        ("1e3", "type reais and centavos like 10,50"),
        ("1.000", "1.000 could be thousands or a decimal"),
        ("1.234,567", "at most two digits after the comma"),
        ("99999999999999999999", "far too large"),
    ],
)
def test_an_amount_not_understood_says_how_to_type_it(desk: Desk, typed: str, words: str) -> None:
    panel = chosen(desk)
    panel.amount.value = typed
    panel.review_button.click()
    assert words in panel.status.value
    for jargon in ("supported format", "ambiguous", "64-bit", "base units"):
        assert jargon not in panel.status.value
    assert panel.amount.value == typed  # what was typed stays, to be corrected


def test_a_note_of_spaces_is_no_note(desk: Desk) -> None:
    panel = chosen(desk)
    panel.amount.value = "R$ 1,00"
    panel.description.value = " " * 200
    panel.review_button.click()
    assert not panel.confirm_button.disabled


@pytest.mark.parametrize(
    ("identifier", "why"),
    [
        ("PIXRETD999999992026021201097c1rycSK8GO", "is a refund you sent"),
        ("PIXOUTE99999999202602010035vPSMqH4We2Z", "is a payment you sent"),
        ("PIXINE60701190202601022309AMDHCD697BK", "did not settle (Failed)"),
    ],
)
def test_a_transaction_that_cannot_be_refunded_says_why(
    desk: Desk, identifier: str, why: str
) -> None:
    panel = panel_on(desk)
    panel.search.value = identifier
    panel.find_button.click()
    assert why in panel.status.value
    assert "No received payment" not in panel.status.value
    assert panel.selected is None
    assert panel.results.options == ()


def test_an_id_in_lower_case_or_in_quotes_is_found(desk: Desk) -> None:
    panel = panel_on(desk)
    for typed in (PAYMENT.lower(), PAYMENT.removeprefix("PIXIN").lower(), f" '{PAYMENT}' "):
        panel.search.value = typed
        panel.find_button.click()
        assert panel.results.value == PAYMENT, typed


class _LosesAnswers(httpx.BaseTransport):
    """The service receives every refund but its answers are lost while `lose` is set;
    it records each refund's Idempotency-Key."""

    def __init__(self, inner: httpx.BaseTransport) -> None:
        self.inner, self.lose, self.keys = inner, True, []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        if request.url.path.endswith("/pix/refund"):
            self.keys.append(request.headers.get("Idempotency-Key"))
            if self.lose:
                raise httpx.ReadTimeout("no answer", request=request)
        return response


def _refund_two_reais_through(desk: Desk, transport: httpx.BaseTransport) -> RefundPanel:
    """A panel whose client talks through `transport`, after confirming R$ 2,00 of PAYMENT."""
    client = desk.month.sandbox.client(
        desk.month.api_key, http_client=httpx.Client(transport=transport)
    )
    panel = RefundPanel(client, now=desk.now)
    panel.search.value = PAYMENT
    panel.find_button.click()
    panel.amount.value = "R$ 2,00"
    panel.review_button.click()
    panel.confirm_button.click()
    return panel


def test_a_refund_without_an_answer_is_retried_at_most_once(desk: Desk) -> None:
    transport = _LosesAnswers(desk.month.sandbox.transport())
    panel = _refund_two_reais_through(desk, transport)
    assert "could not be reached" in panel.status.value
    assert "may or may not have been made" in panel.status.value
    assert "ReadTimeout" not in panel.status.value
    assert not panel.confirm_button.disabled  # Confirm again is the way to retry
    transport.lose = False
    panel.confirm_button.click()
    assert "Refund PIXRET" in panel.status.value
    assert len(set(transport.keys)) == 1  # every attempt, both clicks: one key
    made = [r for r in panel.refunds if r.get("amount") == 20_000]
    assert len(made) == 1


def test_service_failures_read_as_words(desk: Desk) -> None:
    panel = chosen(desk)
    panel.amount.value = "R$ 1,00"
    panel.review_button.click()
    # The refund is bigger than what is left by the time it is confirmed.
    desk.client.pix.refund(PAYMENT, amount_centavos=1484)
    panel.confirm_button.click()
    assert "The service refused the refund." in panel.status.value
    assert "HTTP" not in panel.status.value
    assert "422" not in panel.status.value
    assert "R$ 0,00 of R$ 19,45 is still refundable" in panel.status.value
    assert "R$ 0,00" in panel.details.value  # what is left was read again


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


def test_a_reason_past_its_deadline_cannot_be_reviewed(desk: Desk) -> None:
    panel = RefundPanel(desk.client, now=lambda: datetime(2026, 4, 1, 12, tzinfo=UTC))
    panel.search.value = PAYMENT
    panel.find_button.click()
    panel.amount.value = "R$ 1,00"
    panel.reason.value = "AM09"
    panel.review_button.click()
    assert "Too late for reason AM09: its last day was 02/03/2026," in panel.status.value
    assert panel.confirm_button.disabled
    panel.reason.value = "MD06"
    panel.review_button.click()
    assert not panel.confirm_button.disabled


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


def test_a_payment_refunded_in_full_says_so_at_once(desk: Desk) -> None:
    desk.client.pix.refund(PAYMENT, amount_centavos=1484)  # everything left
    panel = chosen(desk)
    assert "has been refunded in full already" in panel.status.value
    panel.amount.value = "R$ 1,00"
    panel.review_button.click()
    assert "This payment has been refunded in full already." in panel.status.value
    assert "more than what is left" not in panel.status.value
    assert panel.confirm_button.disabled


def test_a_common_name_says_the_list_is_cut(desk: Desk) -> None:
    panel = panel_on(desk)
    panel.search.value = "silva"
    panel.date_from.value = date(2026, 1, 1)
    panel.find_button.click()
    assert len(panel.results.options) == 50
    # The whole count, not "50 or more": how much narrower the search must get.
    assert re.search(
        r"Found\. [\d.]+ received payments match; the list holds the newest 50\.",
        panel.status.value,
    )


def test_a_part_then_the_rest_as_copied_from_the_screen(desk: Desk) -> None:
    """What a support agent does: refund part, then paste the "Left to refund" shown
    (``R$ 9,84``, as displayed) to refund the rest; the payment then has nothing left."""
    panel = chosen(desk)
    panel.amount.value = "R$ 5,00"
    panel.review_button.click()
    panel.confirm_button.click()
    assert panel.remaining_base == 98_400
    shown = re.search(r"Left to refund</th><td[^>]*>([^<]+)<", panel.details.value)
    assert shown is not None
    assert shown.group(1) == "R$ 9,84"
    panel.amount.value = shown.group(1)
    panel.review_button.click()
    panel.confirm_button.click()
    assert [body["amount"] for _, body in desk.posts()] == [500, 984]  # centavos
    assert panel.remaining_base == 0
    assert f"Left to refund</th>{VALUE}R$ 0,00<" in panel.details.value


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
    assert panel.selected["transaction_id"] != PAYMENT
    assert panel.output.outputs == ()
    assert panel.follow_button.disabled


def test_a_payment_under_an_open_med_case_warns_before_refunding(desk: Desk) -> None:
    """The central bank may refund the payer itself from the blocked money: the panel
    names the open case before a support agent refunds the same payment by hand."""
    plain = chosen(desk)
    assert "MED case" not in plain.details.value
    case = desk.month.sandbox.open_med_case(PAYMENT, reason="REFUND_REQUEST")
    panel = chosen(desk)
    assert [c["id"] for c in panel.disputes] == [case.id]
    assert f"MED case open on this payment: {case.id} (R$ 14,84 blocked)" in panel.details.value
    panel.amount.value = "R$ 5,00"
    panel.review_button.click()
    assert "A MED case is open on it" in panel.status_text
    assert not panel.confirm_button.disabled  # a warning, not a refusal
    desk.month.sandbox.resolve_med_case(case.id, "DISAGREED")
    panel.find_button.click()
    assert panel.disputes == []
    assert "MED case open" not in panel.details.value


def test_find_again_reads_the_payment_afresh(desk: Desk) -> None:
    """A refund made elsewhere (another agent, the MED) shows when Find is pressed again
    on the same payment, and one Find reads the payment once."""
    mark = desk.mark()
    panel = chosen(desk)
    reads = [c for c in desk.calls_since(mark) if c[2].get("transaction_id") == PAYMENT]
    assert [path for _, path, _, _ in reads] == ["/med"]  # the payment's cases, read once
    desk.client.pix.refund(PAYMENT, amount_centavos=300, reason="MD06")
    assert "R$ 14,84" in panel.details.value  # not read yet
    panel.find_button.click()
    assert panel.remaining_base == 118_400
    assert "R$ 11,84" in panel.details.value


class _ActsThenFails:
    """The service makes the refund, then answers 500 (only 2xx answers are replayed)."""

    def __init__(self, inner: httpx.BaseTransport) -> None:
        self.inner, self.refund_posts = inner, 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        if request.url.path.endswith("/pix/refund"):
            self.refund_posts += 1
            response.read()
            body = {"error": {"status": 500, "message": "Internal server error"}}
            return httpx.Response(500, json=body, request=request)
        return response


def test_a_refund_answered_500_is_not_sent_again_and_the_payment_is_read_again(
    desk: Desk,
) -> None:
    transport = _ActsThenFails(desk.month.sandbox.transport())
    panel = _refund_two_reais_through(desk, transport)
    assert transport.refund_posts == 1  # the client did not resend it either
    assert "may have been made" in panel.status_text
    assert "cannot be made twice" not in panel.status_text
    assert "R$ 12,84" in panel.details.value  # read again: the refund was made
    assert "try again" not in panel.status_text
    assert panel.confirm_button.disabled  # the review is gone: a new one is needed
    panel.confirm()
    assert transport.refund_posts == 1
    assert "Review the refund first." in panel.status_text


def test_a_payment_refunded_in_full_has_no_days_left_to_count(desk: Desk) -> None:
    desk.client.pix.refund(PAYMENT, amount_centavos=1484)
    panel = chosen(desk)
    assert panel.remaining_base == 0
    assert "Nothing is left to refund on this payment." in panel.reason_help.value
    assert "left)" not in panel.reason_help.value


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
