"""RefundFlow, the refund panel's steps without ipywidgets: find, review, confirm, follow up,
read through its state and the requests its client sent."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from pathlib import Path

import httpx
import pytest

import pixops
from pixops.widgets import local_time
from pixops.widgets._base import clock_for, inbox_for
from pixops.widgets._refund_flow import RefundFlow
from pixops.widgets._refund_html import details_html, notices_block, sent_block
from pixops.widgets._refund_words import search_dates
from tests.widgets.conftest import Desk

# A received payment of the demo month: R$ 19,45 from José Freitas Marques on
# 2026-01-31 10:04 in São Paulo, of which R$ 4,61 was refunded on 2026-02-03.
PAYMENT = "PIXINE00360305202601311304fBxrSVuhd7C"
#: A value cell of a summary (`pairs`).
VALUE = '<td style="text-align:left;overflow-wrap:anywhere">'


def flow_on(desk: Desk, client: object = None) -> RefundFlow:
    return RefundFlow(client or desk.client, desk.now)  # type: ignore[arg-type]


def find(flow: RefundFlow, text: str, first: date | None = None, last: date | None = None) -> None:
    """Find as the panel does: its dates default to the last 90 days."""
    default_first, default_last = search_dates(flow.now())
    flow.find(text, first or default_first, last or default_last)


def chosen(desk: Desk, client: object = None) -> RefundFlow:
    flow = flow_on(desk, client)
    find(flow, PAYMENT)
    assert flow.selected is not None
    return flow


def send(flow: RefundFlow, amount: str, reason: str = "MD06", note: str = "") -> bool:
    flow.review(amount, reason, note)
    return flow.confirm()


def test_find_by_transaction_id_shows_what_is_left_in_reais(desk: Desk) -> None:
    flow = chosen(desk)
    assert flow.chosen == PAYMENT
    assert len(flow.options) == 1
    details = details_html(flow)
    assert "R$ 19,45" in details
    assert "R$ 4,61" in details  # already refunded
    assert "R$ 14,84" in details  # left to refund
    assert flow.remaining_base == 148_400
    assert "148400" not in details
    assert "194500" not in details
    assert "PIXRET" in details
    assert desk.posts() == []


def test_find_by_end_to_end_id(desk: Desk) -> None:
    flow = flow_on(desk)
    find(flow, PAYMENT.removeprefix("PIXIN"))
    assert flow.chosen == PAYMENT


def test_find_by_payer_name_searches_the_dates_given(desk: Desk) -> None:
    flow = flow_on(desk)
    find(flow, "josé freitas marques", date(2026, 1, 31), date(2026, 1, 31))
    assert PAYMENT in [value for _, value in flow.options]
    assert all("José Freitas Marques" in label for label, _ in flow.options)
    assert all("R$ " in label for label, _ in flow.options)


def test_find_by_amount_in_reais(desk: Desk) -> None:
    flow = flow_on(desk)
    find(flow, "R$ 19,45", date(2026, 1, 30), date(2026, 2, 1))
    assert PAYMENT in [value for _, value in flow.options]
    assert all("R$ 19,45" in label for label, _ in flow.options)


def test_nothing_found_says_so(desk: Desk) -> None:
    flow = flow_on(desk)
    find(flow, "Nobody With This Name", date(2026, 1, 31))
    assert flow.options == []
    assert flow.selected is None
    assert "No received payment from 31/01/2026 to 12/02/2026 matches" in flow.status.text


def test_empty_search_is_refused_without_calling_the_api(desk: Desk) -> None:
    flow = flow_on(desk)
    mark = desk.mark()
    find(flow, "   ")
    assert "Type an identifier first." in flow.status.text
    assert desk.calls_since(mark) == []


def test_each_reason_shows_its_meaning_and_deadline(desk: Desk) -> None:
    flow = chosen(desk)
    line = flow.reason_line("MD06").text
    assert "90 days" in line
    # 90 calendar days after 31/01 in São Paulo, to the end of that day
    assert "up to and including 01/05/2026" in line
    assert "(78 days left)" in line  # the sandbox clock: 2026-02-12
    line = flow.reason_line("AM09").text
    assert "30 days" in line
    assert "up to and including 02/03/2026" in line


def test_a_reason_past_its_deadline_is_flagged(desk: Desk) -> None:
    flow = RefundFlow(desk.client, lambda: datetime(2026, 4, 1, 12, tzinfo=UTC))
    find(flow, PAYMENT)
    assert "refuse it as too late (code DT05)" in flow.reason_line("AM09").text
    assert flow.reason_line("AM09").tone == "error"
    assert "(30 days left)" in flow.reason_line("MD06").text


def test_search_dates_must_make_sense(desk: Desk) -> None:
    flow = flow_on(desk)
    find(flow, "Felipe", date(2026, 2, 1), date(2026, 1, 1))
    assert "The first date is after the last one." in flow.status.text


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
    flow = chosen(desk)
    flow.review(typed, "MD06", "")
    assert complaint in flow.status.text
    assert flow.pending is None
    assert not flow.confirm()
    assert desk.posts() == []


def test_confirm_needs_a_review_first(desk: Desk) -> None:
    flow = chosen(desk)
    assert not flow.confirm()
    assert "Review the refund first" in flow.status.text
    assert desk.posts() == []


def test_review_then_confirm_sends_one_refund_in_centavos(desk: Desk) -> None:
    flow = chosen(desk)
    flow.review("R$ 10,00", "MD06", "Produto devolvido")
    assert flow.pending is not None
    assert "Refund R$ 10,00 to José Freitas Marques" in flow.status.text
    assert desk.posts() == []
    assert flow.confirm()
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
    assert flow.last_refund is not None
    assert "R$ 10,00" in flow.status.text
    assert "Processing (accepted by the service)" in flow.status.text
    assert flow.pending is None  # one confirmation, one refund
    assert flow.remaining_base == 48_400  # the accepted refund already counts
    assert "R$ 4,84" in details_html(flow)
    # The outcome reads as a summary in reais; the service's answer is folded away, and
    # even there no money field is a bare base-unit integer.
    assert flow.card is not None
    shown = sent_block(flow.card).markup
    assert "Refund sent" in shown
    assert "MD06: agreement between the parties" in shown
    assert local_time(desk.now()) in shown  # when it was asked for, not a dash
    assert "<details><summary>Technical details" in shown
    assert "100000" not in shown
    assert "&quot;amount&quot;: &quot;R$ 10,00&quot;" in shown


def test_a_change_after_review_needs_a_new_review(desk: Desk) -> None:
    flow = chosen(desk)
    flow.review("R$ 1,00", "MD06", "")
    assert "with reason MD06?" in flow.status.text
    flow.changed()
    assert flow.pending is None
    assert "press Review refund again" in flow.status.text
    assert not flow.confirm()
    assert desk.posts() == []


def test_empty_amount_refunds_everything_left(desk: Desk) -> None:
    flow = chosen(desk)
    assert send(flow, "")
    assert desk.posts()[0][1]["amount"] == 1484
    assert flow.remaining_base == 0
    flow.review("", "MD06", "")
    assert "refunded in full already" in flow.status.text
    assert len(desk.posts()) == 1


def test_follow_up_shows_the_outcome(desk: Desk) -> None:
    flow = chosen(desk)
    assert send(flow, "5")
    assert flow.can_follow
    flow.follow_up()
    assert "Settled" in flow.status.text
    assert flow.card is not None
    # The notebook speaks of the service's notices; "webhook" is a developer's word.
    notices = repr(notices_block(flow.card))
    assert "The service's notices about this refund" in notices
    assert "webhook" not in notices.lower()


def test_the_card_follows_the_refund_status(desk: Desk) -> None:
    flow = chosen(desk)
    assert send(flow, "R$ 1,50", note="Troca")
    assert flow.card is not None
    card = sent_block(flow.card).markup
    assert "Refund sent" in card
    # The same word as the payment's refunds table above it.
    assert f"{VALUE}Processing (accepted by the service)</td>" in card
    assert ">Processing<" in details_html(flow)
    flow.follow_up()
    assert "Settled" in flow.status.text
    card = sent_block(flow.card).markup
    assert f"{VALUE}Settled</td>" in card
    assert "Accepted" not in card
    assert "Completed" in card


def test_a_refused_refund_shows_the_service_message(desk: Desk) -> None:
    flow = chosen(desk)
    flow.review("R$ 1,00", "MD06", "")
    # Someone else refunds everything meanwhile: the service refuses ours.
    desk.client.pix.refund(PAYMENT, amount_centavos=1484)
    assert not flow.confirm()
    assert "refused" in flow.status.text
    assert flow.last_refund is None


def test_follow_up_lists_the_webhooks_of_the_refund_on_a_connected_client(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in ("PIXOPS_BASE_URL", "PIXOPS_CLIENT_ID", "PIXOPS_CLIENT_SECRET"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    client = pixops.connect(announce=False)
    # the clock and the inbox come from the connection
    flow = RefundFlow(client, clock_for(client, None), inbox_for(client, None))
    find(flow, PAYMENT)
    assert send(flow, "R$ 1,00")
    flow.follow_up()
    assert "Settled" in flow.status.text
    assert flow.card is not None
    shown = notices_block(flow.card).markup
    assert 'title="pix.refund.completed">Refund completed<' in shown  # code: tooltip only
    assert "Event code" not in shown
    assert ">Settled<" in shown  # the event's status `completed`: the same state, one word
    assert 'title="completed"' in shown
    assert "12/02/2026 01:09" in shown  # the sandbox's clock, in São Paulo time


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
    flow = chosen(desk)
    flow.review(typed, "MD06", "")
    assert words in flow.status.text
    for jargon in ("supported format", "ambiguous", "64-bit", "base units"):
        assert jargon not in flow.status.text


def test_a_note_of_spaces_is_no_note(desk: Desk) -> None:
    flow = chosen(desk)
    flow.review("R$ 1,00", "MD06", " " * 200)
    assert flow.pending is not None


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
    flow = flow_on(desk)
    find(flow, identifier)
    assert why in flow.status.text
    assert "No received payment" not in flow.status.text
    assert flow.selected is None
    assert flow.options == []


def test_an_id_in_lower_case_or_in_quotes_is_found(desk: Desk) -> None:
    flow = flow_on(desk)
    for typed in (PAYMENT.lower(), PAYMENT.removeprefix("PIXIN").lower(), f" '{PAYMENT}' "):
        find(flow, typed)
        assert flow.chosen == PAYMENT, typed


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


def _two_reais_through(desk: Desk, transport: httpx.BaseTransport) -> RefundFlow:
    """A flow whose client talks through `transport`, after confirming R$ 2,00 of PAYMENT."""
    client = desk.month.sandbox.client(
        desk.month.api_key, http_client=httpx.Client(transport=transport)
    )
    flow = chosen(desk, client)
    flow.review("R$ 2,00", "MD06", "")
    flow.confirm()
    return flow


def test_a_refund_without_an_answer_is_retried_at_most_once(desk: Desk) -> None:
    transport = _LosesAnswers(desk.month.sandbox.transport())
    flow = _two_reais_through(desk, transport)
    assert "could not be reached" in flow.status.text
    assert "may or may not have been made" in flow.status.text
    assert "ReadTimeout" not in flow.status.text
    assert flow.pending is not None  # Confirm again is the way to retry
    transport.lose = False
    assert flow.confirm()
    assert "Refund PIXRET" in flow.status.text
    assert len(set(transport.keys)) == 1  # every attempt, both clicks: one key
    made = [r for r in flow.refunds if r.amount == 20_000]
    assert len(made) == 1


def test_service_failures_read_as_words(desk: Desk) -> None:
    flow = chosen(desk)
    flow.review("R$ 1,00", "MD06", "")
    # The refund is bigger than what is left by the time it is confirmed.
    desk.client.pix.refund(PAYMENT, amount_centavos=1484)
    flow.confirm()
    assert "The service refused the refund." in flow.status.text
    assert "HTTP" not in flow.status.text
    assert "422" not in flow.status.text
    assert "R$ 0,00 of R$ 19,45 is still refundable" in flow.status.text
    assert "R$ 0,00" in details_html(flow)  # what is left was read again


def test_a_reason_past_its_deadline_cannot_be_reviewed(desk: Desk) -> None:
    flow = RefundFlow(desk.client, lambda: datetime(2026, 4, 1, 12, tzinfo=UTC))
    find(flow, PAYMENT)
    flow.review("R$ 1,00", "AM09", "")
    assert "Too late for reason AM09: its last day was 02/03/2026," in flow.status.text
    assert flow.pending is None
    flow.review("R$ 1,00", "MD06", "")
    assert flow.pending is not None


def test_a_payment_refunded_in_full_says_so_at_once(desk: Desk) -> None:
    desk.client.pix.refund(PAYMENT, amount_centavos=1484)  # everything left
    flow = chosen(desk)
    assert "has been refunded in full already" in flow.status.text
    flow.review("R$ 1,00", "MD06", "")
    assert "This payment has been refunded in full already." in flow.status.text
    assert "more than what is left" not in flow.status.text
    assert flow.pending is None


def test_a_common_name_says_the_list_is_cut(reading_desk: Desk) -> None:
    """Only reads: on the module's shared desk, whose month is read once for names."""
    flow = flow_on(reading_desk)
    find(flow, "silva", date(2026, 1, 1))
    assert len(flow.options) == 50
    # The whole count, not "50 or more": how much narrower the search must get.
    assert re.search(
        r"Found\. [\d.]+ received payments match; the list holds the newest 50\.",
        flow.status.text,
    )


def test_a_part_then_the_rest_as_copied_from_the_screen(desk: Desk) -> None:
    """What a support agent does: refund part, then paste the "Left to refund" shown
    (``R$ 9,84``, as displayed) to refund the rest; the payment then has nothing left."""
    flow = chosen(desk)
    assert send(flow, "R$ 5,00")
    assert flow.remaining_base == 98_400
    shown = re.search(r"Left to refund</th><td[^>]*>([^<]+)<", details_html(flow))
    assert shown is not None
    assert shown.group(1) == "R$ 9,84"
    assert send(flow, shown.group(1))
    assert [body["amount"] for _, body in desk.posts()] == [500, 984]  # centavos
    assert flow.remaining_base == 0
    assert f"Left to refund</th>{VALUE}R$ 0,00<" in details_html(flow)


def test_another_payment_drops_the_last_refund_card(desk: Desk) -> None:
    """The "Refund sent" card belongs to its payment: choosing another one drops it."""
    flow = chosen(desk)
    assert send(flow, "R$ 1,00")
    flow.follow_up()
    assert flow.card is not None  # the same payment: it stays
    find(flow, "E003603052026020101165qApH2pqP9J")
    assert flow.selected is not None
    assert flow.selected.transaction_id != PAYMENT
    assert flow.card is None
    assert not flow.can_follow


def test_a_payment_under_an_open_med_case_warns_before_refunding(desk: Desk) -> None:
    """The central bank may refund the payer itself from the blocked money: the flow
    names the open case before a support agent refunds the same payment by hand."""
    assert "MED case" not in details_html(chosen(desk))
    case = desk.month.sandbox.open_med_case(PAYMENT, reason="REFUND_REQUEST")
    flow = chosen(desk)
    assert [c.id for c in flow.disputes] == [case.id]
    assert f"MED case open on this payment: {case.id} (R$ 14,84 blocked)" in details_html(flow)
    flow.review("R$ 5,00", "MD06", "")
    assert "A MED case is open on it" in flow.status.text
    assert flow.pending is not None  # a warning, not a refusal
    desk.month.sandbox.resolve_med_case(case.id, "DISAGREED")
    find(flow, PAYMENT)
    assert flow.disputes == []
    assert "MED case open" not in details_html(flow)


def test_find_again_reads_the_payment_afresh(desk: Desk) -> None:
    """A refund made elsewhere (another agent, the MED) shows when Find is pressed again
    on the same payment, and one Find reads the payment once."""
    mark = desk.mark()
    flow = chosen(desk)
    reads = [c for c in desk.calls_since(mark) if c[2].get("transaction_id") == PAYMENT]
    assert [path for _, path, _, _ in reads] == ["/med"]  # the payment's cases, read once
    desk.client.pix.refund(PAYMENT, amount_centavos=300, reason="MD06")
    assert "R$ 14,84" in details_html(flow)  # not read yet
    find(flow, PAYMENT)
    assert flow.remaining_base == 118_400
    assert "R$ 11,84" in details_html(flow)


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
    flow = _two_reais_through(desk, transport)  # type: ignore[arg-type]
    assert transport.refund_posts == 1  # the client did not resend it either
    assert "may have been made" in flow.status.text
    assert "cannot be made twice" not in flow.status.text
    assert "R$ 12,84" in details_html(flow)  # read again: the refund was made
    assert "try again" not in flow.status.text
    assert flow.pending is None  # the review is gone: a new one is needed
    assert not flow.confirm()
    assert transport.refund_posts == 1
    assert "Review the refund first." in flow.status.text


def test_a_payment_refunded_in_full_has_no_days_left_to_count(desk: Desk) -> None:
    desk.client.pix.refund(PAYMENT, amount_centavos=1484)
    flow = chosen(desk)
    assert flow.remaining_base == 0
    line = flow.reason_line("MD06").text
    assert "Nothing is left to refund on this payment." in line
    assert "left)" not in line


def test_a_search_too_short_clears_the_last_payment(desk: Desk) -> None:
    """Under "type at least 3 letters" the payment found before stayed on screen, as if it
    were the answer to the new search."""
    flow = chosen(desk)
    find(flow, "jo")
    assert "Type at least 3 letters" in flow.status.text
    assert flow.selected is None
    assert flow.options == []
    assert details_html(flow) == ""


# -- what is confirmed is what was reviewed, the note included ---------------------------


def test_a_note_too_long_is_refused_and_the_one_reviewed_is_sent(desk: Desk) -> None:
    flow = chosen(desk)
    flow.review("R$ 1,00", "MD06", "Troca")
    assert "note “Troca”" in flow.status.text  # the review shows the note it will send
    flow.review("R$ 1,00", "MD06", "x" * 141)  # too long: the service would refuse it
    assert "at most 140 characters" in flow.status.text
    assert not flow.confirm()
    assert send(flow, "R$ 1,00", note="Troca de tamanho")
    assert not flow.confirm()  # a double click
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
    flow = chosen(desk)
    flow.review("R$ 1,00", "MD06", "")
    assert "Too late for reason MD06" in flow.status.text
    assert "no reason is valid any longer" in flow.status.text
    assert "Choose a reason still valid" not in flow.status.text
    assert flow.pending is None


def test_too_late_for_one_reason_names_those_still_valid(desk: Desk) -> None:
    desk.month.sandbox.advance(days=40)  # AM09, SL02, RR04 (30 days) have passed
    flow = chosen(desk)
    flow.review("R$ 1,00", "AM09", "")
    assert "Too late for reason AM09" in flow.status.text
    assert "Still valid: MD06, BE08, FR01." in flow.status.text
    assert flow.pending is None


def test_the_refunds_table_puts_amount_and_status_before_the_long_id(desk: Desk) -> None:
    """In a narrow notebook the table's right end scrolls out of view: the amount and the
    status are read first, the 38-character refund id last (it is copied, not read)."""
    table = details_html(chosen(desk)).split("<h4", 1)[1]
    headers = re.findall(r"<th [^>]*>([^<]*)</th>", table)
    assert headers == ["Requested (São Paulo)", "Amount", "Status", "Refund"]
    # The hour may go under the date: at 800 px the id had 50 px, a 7-line cell.
    assert re.search(r'<span style="white-space:nowrap">\d\d:\d\d</span>', table)


@pytest.mark.parametrize("typed", ["   ", "Nobody With This Name", PAYMENT])
def test_a_new_search_withdraws_the_refund_under_review(reading_desk: Desk, typed: str) -> None:
    """Find replaces the status line that asked "Refund R$ 1,00 to ...?": Confirm must not
    stay possible for a question no longer on screen. (It sends nothing: the module's
    shared desk.)"""
    desk = reading_desk
    flow = chosen(desk)
    flow.review("R$ 1,00", "MD06", "")
    assert flow.pending is not None
    find(flow, typed)
    assert flow.pending is None
    assert not flow.confirm()
    assert desk.posts() == []


def test_the_refund_sent_card_keeps_the_note_that_went_with_it(desk: Desk) -> None:
    """The review asked about the note, then the card of what was sent left it out: nothing
    showed the note had gone."""
    flow = chosen(desk)
    assert send(flow, "R$ 1,00", note="  Devolução combinada por telefone  ")
    assert flow.card is not None
    card = sent_block(flow.card).markup
    assert "<th" in card
    assert ">Note</th>" in card
    assert ">Devolução combinada por telefone</td>" in card
