"""MedFlow, the MED panel's steps without ipywidgets: pick a case, write the defense,
submit it, check the outcome; read through its state and the requests its client sent."""

from __future__ import annotations

import httpx
import pytest

from pixops.widgets._format import text_of
from pixops.widgets._med_flow import MAX_DEFENSE_CHARS, MedFlow
from pixops.widgets._med_html import case_html, receipt_block
from pixops.widgets._med_table import cases_table
from tests.widgets.conftest import Desk
from tests.widgets.test_med import two_cases


def flow_on(desk: Desk, client: object = None) -> MedFlow:
    """A flow listing the cases that need attention, the first one picked (as the panel
    starts)."""
    flow = MedFlow(client or desk.client, desk.now)  # type: ignore[arg-type]
    flow.refresh()
    return flow


def details(flow: MedFlow) -> str:
    return text_of(case_html(flow))


def test_no_case_needs_attention_at_the_end_of_the_month(desk: Desk) -> None:
    flow = flow_on(desk)
    assert flow.cases == []
    assert "No MED case needs attention" in cases_table(
        flow.rows, empty="No MED case needs attention."
    )
    assert flow.case is None
    assert not flow.can_defend
    flow.show = "all"  # the month's 16 closed cases
    flow.reload()
    assert len(flow.cases) == 16
    assert {case.status for case in flow.cases} == {"CLOSED"}
    # Each closed case says how it was decided: in the table, the picker and the details.
    table = cases_table(flow.rows, empty="")
    assert ">Payer refunded</div>" in table
    assert ">Money kept</div>" in table
    pickers = [text for text, _ in flow.options]
    assert all("decided: payer refunded" in t or "decided: money kept" in t for t in pickers)
    assert "Closed: the central bank" in case_html(flow)
    # The latest decided first: the one a customer is calling about.
    decided = [case.closed_at for case in flow.cases]
    assert decided == sorted(decided, reverse=True)  # type: ignore[type-var]
    assert flow.case is not None
    assert flow.case.id == flow.cases[0].id


def test_open_cases_are_sorted_by_deadline_with_urgency(desk: Desk) -> None:
    first, second = two_cases(desk)
    flow = flow_on(desk)
    assert [case.id for case in flow.cases] == [first, second]
    table = cases_table(flow.rows, empty="")
    assert table.index(first) < table.index(second)
    assert "R$ 5,70" in table
    assert "R$ 275,99" in table  # what is still refundable
    assert "57000" not in table
    # Five days to go for the first (opened 2 days ago), seven for the second.
    assert "5 days left" in table
    assert "7 days left" in table
    assert flow.chosen == first
    assert "Letícia Pereira Barbosa" in case_html(flow)
    assert "payer says it was stolen" in case_html(flow)
    assert flow.can_defend


def test_submitting_a_defense_sends_it_once(desk: Desk) -> None:
    first, _ = two_cases(desk)
    flow = flow_on(desk)
    flow.defense = "  Produto entregue em 02/01; nota fiscal 123.  "
    flow.submit()
    assert desk.posts() == [
        (f"/med/{first}/defense", {"defense": "Produto entregue em 02/01; nota fiscal 123."})
    ]
    assert "case now Acknowledged" in flow.status.text
    assert flow.case is not None
    assert flow.case.status == "ACKNOWLEDGED"
    assert not flow.can_defend
    assert "Defense submitted" in case_html(flow)
    assert flow.defense == ""
    # The outcome reads as a summary in reais: no base units, even folded away.
    assert flow.receipt is not None
    shown = receipt_block(flow.receipt).markup
    assert "Defense received" in shown
    assert "R$ 5,70" in shown
    assert "57000" not in shown
    assert "Service response" not in shown
    # Short cells stay short: the cases table fits the panel after the answer too.
    table = cases_table(flow.rows, empty="")
    assert "Awaiting decision" in table
    assert "min-width:16em" not in table
    flow.submit()
    assert len(desk.posts()) == 1


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ("   ", "Write the defense first"),
        ("x" * (MAX_DEFENSE_CHARS + 1), "at most 2.000"),
        # A slip ("ok" and Enter) was sent, and a case takes one defense.
        ("  ok ", "A defense of 2 characters says nothing"),
        ("teste", "write what was sold, the delivery proof"),
    ],
)
def test_empty_or_long_defenses_are_not_sent(desk: Desk, text: str, complaint: str) -> None:
    two_cases(desk)
    flow = flow_on(desk)
    flow.defense = text
    flow.submit()
    assert complaint in flow.status.text
    assert desk.posts() == []


def test_after_the_deadline_no_defense_is_taken(desk: Desk) -> None:
    first, _ = two_cases(desk)
    desk.month.sandbox.advance(days=5, seconds=1)  # the first case's deadline passes
    flow = flow_on(desk)
    flow.select(first)
    assert flow.case is not None
    assert flow.case.status == "ACKNOWLEDGED"
    assert not flow.can_defend
    flow.defense = "late"
    flow.submit()
    assert "no longer takes a defense" in flow.status.text
    assert "its deadline passed on 19/02/2026" in flow.status.text
    assert flow.defense == "late"
    assert desk.posts() == []


def test_following_the_outcome_of_a_case_the_payer_wins(desk: Desk) -> None:
    first, _ = two_cases(desk)
    flow = flow_on(desk)
    flow.check_outcome()
    assert "no decision yet" in flow.status.text
    desk.month.sandbox.resolve_med_case(first, "AGREED", details="fraude confirmada")
    desk.month.sandbox.advance(60)
    flow.check_outcome()
    assert "closed: Agreed, the payer was refunded" in flow.status.text
    shown = case_html(flow)
    assert "agreed with the payer: fraude confirmada" in shown
    assert "Automatic refund PIXRET" in shown
    assert "R$ 5,70: Settled" in shown


def test_following_the_outcome_of_a_case_the_merchant_wins(desk: Desk) -> None:
    first, second = two_cases(desk)
    flow = flow_on(desk)
    desk.month.sandbox.resolve_med_case(first, "DISAGREED")
    flow.check_outcome()
    assert "Disagreed, the money stays with you" in flow.status.text
    flow.reload()  # a closed case no longer needs attention
    assert [case.id for case in flow.cases] == [second]
    assert flow.chosen == second


def test_a_decided_case_says_why_it_takes_no_defense(desk: Desk) -> None:
    _, second = two_cases(desk)
    desk.month.sandbox.resolve_med_case(second, "DISAGREED")
    flow = MedFlow(desk.client, desk.now, show="all")
    flow.refresh()
    flow.select(second)
    flow.submit()
    assert "no longer takes a defense: closed: the central bank sided with the merchant" in (
        flow.status.text
    )
    assert desk.posts() == []


def test_a_case_decided_while_the_flow_was_open_is_explained(desk: Desk) -> None:
    first, _ = two_cases(desk)
    flow = flow_on(desk)
    assert flow.case is not None
    assert flow.case.id == first
    desk.month.sandbox.resolve_med_case(first, "AGREED")  # the flow still holds it open
    flow.defense = "Produto entregue."
    flow.submit()
    status = flow.status.text
    assert "The service refused the defense. This case no longer takes one" in status
    assert "agreed with the payer" in status
    for raw in ("HTTP", "422", "CLOSED", "errors."):
        assert raw not in status
    assert flow.defense == "Produto entregue."  # nothing typed is lost
    assert not flow.can_defend


def test_an_unreachable_service_reads_as_words(desk: Desk) -> None:
    from pixops.client import TransportError

    two_cases(desk)
    flow = flow_on(desk)

    def unreachable(*args: object, **kwargs: object) -> None:
        raise TransportError("GET /med: ConnectError after 4 attempt(s)")

    med = type("M", (), {"list": unreachable, "iter": unreachable})()
    flow.client = type("Down", (), {"med": med})()  # type: ignore[assignment]
    flow.reload()
    assert "Could not list the MED cases. The PIX service could not be reached" in (
        flow.status.text
    )
    assert "ConnectError" not in flow.status.text


def test_a_defense_without_an_answer_says_it_may_have_arrived(desk: Desk) -> None:
    class LosesAnswers(httpx.BaseTransport):
        def __init__(self, inner: httpx.BaseTransport) -> None:
            self.inner, self.lose = inner, True

        def handle_request(self, request: httpx.Request) -> httpx.Response:
            response = self.inner.handle_request(request)
            if self.lose and request.url.path.endswith("/defense"):
                raise httpx.ReadTimeout("no answer", request=request)
            return response

    first, _ = two_cases(desk)
    transport = LosesAnswers(desk.month.sandbox.transport())
    client = desk.month.sandbox.client(
        desk.month.api_key, http_client=httpx.Client(transport=transport)
    )
    flow = flow_on(desk, client)
    flow.defense = "Produto entregue."
    flow.submit()
    assert "could not be reached" in flow.status.text
    assert "may or may not have arrived" in flow.status.text
    assert "refused" not in flow.status.text
    assert flow.defense == "Produto entregue."
    # It did arrive: sending it again says so in words, and records nothing twice.
    transport.lose = False
    flow.submit()
    assert "a defense was already submitted on" in flow.status.text
    assert desk.client.med.get(first).defense == "Produto entregue."


def test_the_history_shows_the_defense_sent_and_the_status_says_what_comes_next(
    desk: Desk,
) -> None:
    """The text box empties once the defense is sent: the history keeps what was argued
    (one line), and the status line says who acts next and how to see it."""
    first, _ = two_cases(desk)
    flow = flow_on(desk)
    flow.defense = "Pedido 48213 entregue em 02/01,\n rastreio BR123456789BR."
    flow.submit()
    assert flow.defense == ""
    assert "Defense submitted: Pedido 48213 entregue em 02/01, rastreio BR123456789BR." in (
        case_html(flow)
    )
    assert "Check outcome" in flow.status.text
    flow.check_outcome()
    assert "no decision yet" in flow.status.text
    assert "again later" in flow.status.text
    assert first in flow.status.text


def test_a_defense_typed_stays_with_its_case_when_another_is_chosen(desk: Desk) -> None:
    first, second = two_cases(desk)
    flow = flow_on(desk)
    assert flow.chosen == first
    flow.defense = "Entregue ao pagador do primeiro caso."
    flow.select(second)
    # The other case starts blank: the first case's defense is never sent for it.
    assert flow.defense == ""
    flow.submit()
    assert desk.posts() == []
    assert "Write the defense first" in flow.status.text
    flow.defense = "Reembolso negado: produto entregue."
    flow.select(first)  # back: each case's draft is where it was left
    assert flow.defense == "Entregue ao pagador do primeiro caso."
    flow.select(second)
    assert flow.defense == "Reembolso negado: produto entregue."
    flow.submit()
    assert desk.posts() == [
        (f"/med/{second}/defense", {"defense": "Reembolso negado: produto entregue."})
    ]
    # After the answer the sent case's box is empty; the first case's draft is kept.
    assert flow.defense == ""
    flow.select(first)
    assert flow.defense == "Entregue ao pagador do primeiro caso."


def test_a_receipt_stays_with_its_case_and_an_undefended_case_reads_true(desk: Desk) -> None:
    defended, undefended = two_cases(desk)
    flow = flow_on(desk)
    flow.select(defended)
    flow.defense = "Produto entregue em 02/01; nota fiscal 123."
    flow.submit()
    assert flow.receipt is not None
    assert f"Defense of {defended} received" in flow.status.text
    desk.month.sandbox.advance(days=10)
    flow.select(undefended)
    assert flow.receipt is None  # the other case's receipt went with it
    assert flow.status.text == ""
    assert "No defense was sent: the deadline passed on" in details(flow)
    assert "Deadline passed without a defense" in details(flow)
    assert not flow.can_defend
    flow.check_outcome()
    assert "has your defense" not in flow.status.text
    assert f"Case {undefended}: no defense was sent, and the deadline passed on" in (
        flow.status.text
    )
    flow.select(defended)  # back: its own state, read again, no old receipt
    assert flow.receipt is None
    flow.check_outcome()
    assert f"Case {defended} has your defense, sent on" in flow.status.text
