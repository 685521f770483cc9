"""MedDefensePanel: urgent cases first, a defense sent once, the outcome followed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest

from pixops.client import NO_RETRY
from pixops.schema import MedCase
from pixops.widgets import MAX_DEFENSE_CHARS, MedDefensePanel, urgency
from tests.widgets.conftest import Desk

# Two settled received payments of the demo month, neither disputed during it.
LATER = "PIXINE22896431202601011250UOUb8x4y0Dg"  # R$ 278,60, Bruno Gomes Freitas
SOONER = "PIXINE22896431202601010338c5WPLwFSeVb"  # R$ 5,70, Letícia Pereira Barbosa


def two_cases(desk: Desk) -> tuple[str, str]:
    """The central bank opens one case, then, two days later, another."""
    sandbox = desk.month.sandbox
    first = sandbox.open_med_case(SOONER, reason="FRAUD", details="payer says it was stolen")
    sandbox.advance(days=2)
    second = sandbox.open_med_case(LATER, reason="REFUND_REQUEST")
    return first.id, second.id


def test_no_case_needs_attention_at_the_end_of_the_month(desk: Desk) -> None:
    panel = MedDefensePanel(desk.client, now=desk.now)
    assert "No MED case needs attention" in panel.table.value
    assert panel.case is None
    assert panel.submit_button.disabled
    panel.show.value = "all"  # the month's 16 closed cases
    assert len(panel.cases) == 16
    assert {case.status for case in panel.cases} == {"CLOSED"}
    # Each closed case says how it was decided: in the table, the picker and the details.
    assert ">Payer refunded</div>" in panel.table.value
    assert ">Money kept</div>" in panel.table.value
    pickers = [text for text, _ in panel.case_picker.options]
    assert all("decided: payer refunded" in t or "decided: money kept" in t for t in pickers)
    assert "Closed: the central bank" in panel.details.value
    # The latest decided first: the one a customer is calling about.
    decided = [case.closed_at for case in panel.cases]
    assert decided == sorted(decided, reverse=True)
    assert panel.case is not None
    assert panel.case.id == panel.cases[0].id


def test_open_cases_are_sorted_by_deadline_with_urgency(desk: Desk) -> None:
    first, second = two_cases(desk)
    panel = MedDefensePanel(desk.client, now=desk.now)
    assert [case.id for case in panel.cases] == [first, second]
    assert panel.table.value.index(first) < panel.table.value.index(second)
    assert "R$ 5,70" in panel.table.value
    assert "R$ 275,99" in panel.table.value  # what is still refundable
    assert "57000" not in panel.table.value
    # Five days to go for the first (opened 2 days ago), seven for the second.
    assert "5 days left" in panel.table.value
    assert "7 days left" in panel.table.value
    assert panel.case_picker.value == first
    assert "Letícia Pereira Barbosa" in panel.details.value
    assert "payer says it was stolen" in panel.details.value
    assert not panel.submit_button.disabled


def test_urgency_in_hours_near_the_deadline() -> None:
    now = datetime(2026, 2, 13, 12, tzinfo=UTC)

    def case(hours: float, status: str = "OPEN") -> MedCase:
        deadline = now + timedelta(hours=hours)
        return MedCase.model_validate(
            {
                "id": "med_x",
                "transaction_id": SOONER,
                "amount": 57_000,
                "status": status,
                "defense_deadline": deadline.isoformat(),
            }
        )

    assert urgency(case(200), now) == ("8 days left", "ok")
    assert urgency(case(50), now) == ("50 h left", "warn")
    assert urgency(case(5), now) == ("5 h left", "error")
    assert urgency(case(-1), now) == ("deadline passed", "error")
    assert urgency(case(5, "ACKNOWLEDGED"), now) == ("awaiting decision", "info")
    assert urgency(case(5, "CLOSED"), now) == ("closed", "info")


def test_submitting_a_defense_sends_it_once(desk: Desk) -> None:
    first, _ = two_cases(desk)
    panel = MedDefensePanel(desk.client, now=desk.now)
    panel.defense.value = "  Produto entregue em 02/01; nota fiscal 123.  "
    assert "43 of 2.000 characters" in panel.counter.value
    panel.submit_button.click()
    assert desk.posts() == [
        (f"/med/{first}/defense", {"defense": "Produto entregue em 02/01; nota fiscal 123."})
    ]
    assert "case now Acknowledged" in panel.status.value
    assert panel.case is not None
    assert panel.case.status == "ACKNOWLEDGED"
    assert panel.submit_button.disabled
    assert "Defense submitted" in panel.details.value
    assert panel.defense.value == ""
    # The outcome reads as a summary in reais: no base units, even folded away.
    shown = panel.output.outputs[-1]["data"]["text/html"]
    assert "Defense received" in shown
    assert "R$ 5,70" in shown
    assert "57000" not in shown
    assert "Service response" not in shown
    # Short cells stay short: the cases table fits the panel after the answer too.
    assert "Awaiting decision" in panel.table.value
    assert "min-width:16em" not in panel.table.value
    panel.submit()
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
    panel = MedDefensePanel(desk.client, now=desk.now)
    panel.defense.value = text
    panel.submit_button.click()
    assert complaint in panel.status.value
    assert desk.posts() == []


def test_after_the_deadline_no_defense_is_taken(desk: Desk) -> None:
    first, _ = two_cases(desk)
    desk.month.sandbox.advance(days=5, seconds=1)  # the first case's deadline passes
    panel = MedDefensePanel(desk.client, now=desk.now)
    panel.case_picker.value = first
    assert panel.case is not None
    assert panel.case.status == "ACKNOWLEDGED"
    assert panel.submit_button.disabled
    panel.defense.value = "late"
    panel.submit()
    assert "no longer takes a defense" in panel.status.value
    assert desk.posts() == []


def test_following_the_outcome_of_a_case_the_payer_wins(desk: Desk) -> None:
    first, _ = two_cases(desk)
    panel = MedDefensePanel(desk.client, now=desk.now)
    panel.check_outcome()
    assert "no decision yet" in panel.status.value
    desk.month.sandbox.resolve_med_case(first, "AGREED", details="fraude confirmada")
    desk.month.sandbox.advance(60)
    panel.outcome_button.click()
    assert "closed: Agreed, the payer was refunded" in panel.status.value
    assert "agreed with the payer: fraude confirmada" in panel.details.value
    assert "Automatic refund PIXRET" in panel.details.value
    assert "R$ 5,70: Settled" in panel.details.value


def test_following_the_outcome_of_a_case_the_merchant_wins(desk: Desk) -> None:
    first, second = two_cases(desk)
    panel = MedDefensePanel(desk.client, now=desk.now)
    desk.month.sandbox.resolve_med_case(first, "DISAGREED")
    panel.check_outcome()
    assert "Disagreed, the money stays with you" in panel.status.value
    panel.refresh_button.click()  # a closed case no longer needs attention
    assert [case.id for case in panel.cases] == [second]
    assert panel.case_picker.value == second


def test_a_client_is_required() -> None:
    with pytest.raises(TypeError, match=r"pixops\.Client"):
        MedDefensePanel(None)


# -- what a hurried person does wrong ----------------------------------------------------


def test_a_double_click_on_submit_sends_once_and_keeps_the_answer(desk: Desk) -> None:
    two_cases(desk)
    panel = MedDefensePanel(desk.client, now=desk.now)
    panel.defense.value = "Produto entregue; nota fiscal 123."
    panel.submit_button.click()
    panel.submit_button.click()  # the second click of a double click, queued behind
    assert len(desk.posts()) == 1
    assert "received; case now Acknowledged" in panel.status.value


def test_a_second_click_handled_while_the_first_is_sent_changes_nothing(desk: Desk) -> None:
    """Under load the kernel handed the double click's second click to the panel halfway
    through the first (the text cleared, the list being read again): it said "Write the
    defense first" over the answer."""
    two_cases(desk)
    panel = MedDefensePanel(desk.client, now=desk.now)
    panel.defense.value = "Produto entregue; nota fiscal 123."
    clicks: list[object] = []

    def clicked_meanwhile(change: object) -> None:
        if not clicks:  # served while the first click's action is reading the list again
            clicks.append(change)
            panel.submit_button.click()

    panel.case_picker.observe(clicked_meanwhile, names="value")
    panel.submit_button.click()
    assert clicks
    assert len(desk.posts()) == 1
    assert "received; case now Acknowledged" in panel.status.value
    assert "Write the defense first" not in panel.status.value


def test_a_decided_case_says_why_it_takes_no_defense(desk: Desk) -> None:
    _, second = two_cases(desk)
    desk.month.sandbox.resolve_med_case(second, "DISAGREED")
    panel = MedDefensePanel(desk.client, now=desk.now)
    panel.show.value = "all"
    panel.case_picker.value = second
    panel.defense.value = ""
    panel.submit()
    assert "no longer takes a defense: closed: the central bank sided with the merchant" in (
        panel.status.value
    )
    assert desk.posts() == []


def test_a_case_past_its_deadline_says_when_it_passed(desk: Desk) -> None:
    first, _ = two_cases(desk)
    desk.month.sandbox.advance(days=5, seconds=1)
    panel = MedDefensePanel(desk.client, now=desk.now)
    panel.case_picker.value = first
    panel.defense.value = "late"
    panel.submit()
    assert "its deadline passed on 19/02/2026" in panel.status.value
    assert panel.defense.value == "late"


def test_a_case_decided_while_the_panel_was_open_is_explained(desk: Desk) -> None:
    first, _ = two_cases(desk)
    panel = MedDefensePanel(desk.client, now=desk.now)
    assert panel.case is not None
    assert panel.case.id == first
    desk.month.sandbox.resolve_med_case(first, "AGREED")  # the panel still shows it open
    panel.defense.value = "Produto entregue."
    panel.submit_button.click()
    status = panel.status.value
    assert "The service refused the defense. This case no longer takes one" in status
    assert "agreed with the payer" in status
    for raw in ("HTTP", "422", "CLOSED", "errors."):
        assert raw not in status
    assert panel.defense.value == "Produto entregue."  # nothing typed is lost
    assert panel.submit_button.disabled


def test_an_unreachable_service_reads_as_words(desk: Desk) -> None:
    from pixops.client import TransportError

    two_cases(desk)
    panel = MedDefensePanel(desk.client, now=desk.now)

    def unreachable(*args: object, **kwargs: object) -> None:
        raise TransportError("GET /med: ConnectError after 4 attempt(s)")

    med = type("M", (), {"list": unreachable, "iter": unreachable})()
    panel.client = type("Down", (), {"med": med})()
    panel.refresh_button.click()
    assert "Could not list the MED cases. The PIX service could not be reached" in (
        panel.status.value
    )
    assert "ConnectError" not in panel.status.value
    assert not panel.refresh_button.disabled  # usable again afterwards


def test_a_defense_without_an_answer_says_it_may_have_arrived(desk: Desk) -> None:
    import httpx

    from pixops.widgets._med import MedDefensePanel as Panel

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
    panel = Panel(client, now=desk.now)
    panel.defense.value = "Produto entregue."
    panel.submit_button.click()
    assert "could not be reached" in panel.status.value
    assert "may or may not have arrived" in panel.status.value
    assert "refused" not in panel.status.value
    assert panel.defense.value == "Produto entregue."
    # It did arrive: sending it again says so in words, and records nothing twice.
    transport.lose = False
    panel.submit()
    assert "a defense was already submitted on" in panel.status.value
    case = desk.client.med.get(first)
    assert case.defense == "Produto entregue."


def test_the_history_shows_the_defense_sent_and_the_status_says_what_comes_next(
    desk: Desk,
) -> None:
    """The text box empties once the defense is sent: the history keeps what was argued
    (one line), and the status line says who acts next and how to see it."""
    first, _ = two_cases(desk)
    panel = MedDefensePanel(desk.client, now=desk.now)
    panel.defense.value = "Pedido 48213 entregue em 02/01,\n rastreio BR123456789BR."
    panel.submit_button.click()
    assert panel.defense.value == ""
    assert "Defense submitted: Pedido 48213 entregue em 02/01, rastreio BR123456789BR." in (
        panel.details.value
    )
    assert "Check outcome" in panel.status.value
    panel.check_outcome()
    assert "no decision yet" in panel.status.value
    assert "again later" in panel.status.value
    assert first in panel.status.value


class _Watching(httpx.BaseTransport):
    """Notes, at each defense POST, whether Submit defense was greyed; drops the first
    one when `drop` (no answer: the person may press again)."""

    def __init__(self, inner: httpx.BaseTransport, drop: bool) -> None:
        self.inner, self.drop = inner, drop
        self.panel: MedDefensePanel | None = None
        self.greyed: list[bool] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST" and request.url.path.endswith("/defense"):
            assert self.panel is not None
            self.greyed.append(self.panel.submit_button.disabled)
            if self.drop:
                self.drop = False
                raise httpx.ConnectError("connection reset", request=request)
        return self.inner.handle_request(request)


@pytest.mark.parametrize("drop", [False, True])
def test_submit_is_greyed_while_the_defense_is_sent(desk: Desk, drop: bool) -> None:
    """The button stayed clickable during the request (seconds on the real service): a
    person saw no sign the click was taken. Greyed while it is sent; after no answer it
    may be pressed again, after a defense taken it stays greyed."""
    two_cases(desk)
    transport = _Watching(desk.month.sandbox.transport(), drop)
    client = desk.month.sandbox.client(
        desk.month.api_key, http_client=httpx.Client(transport=transport), retry=NO_RETRY
    )
    panel = MedDefensePanel(client, now=desk.now)
    transport.panel = panel
    panel.defense.value = "Produto entregue em 02/01; nota fiscal 123."
    panel.submit_button.click()
    assert transport.greyed == [True]
    assert panel.submit_button.disabled is not drop
    if drop:
        assert "may or may not have arrived" in panel.status.value
        panel.submit_button.click()
        assert transport.greyed == [True, True]
        assert panel.submit_button.disabled
    assert "case now Acknowledged" in panel.status.value


class _WatchingReads(httpx.BaseTransport):
    """Notes, at each read of a case, whether Check outcome was greyed."""

    def __init__(self, inner: httpx.BaseTransport) -> None:
        self.inner = inner
        self.panel: MedDefensePanel | None = None
        self.greyed: list[bool] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if self.panel is not None and request.method == "GET" and "/med/med_" in request.url.path:
            self.greyed.append(self.panel.outcome_button.disabled)
        return self.inner.handle_request(request)


def test_check_outcome_is_greyed_while_the_case_is_read(desk: Desk) -> None:
    """Check outcome reads the case, its payment and history again (seconds on the real
    service) and stayed clickable meanwhile: a person clicked again, unsure it was taken."""
    two_cases(desk)
    transport = _WatchingReads(desk.month.sandbox.transport())
    client = desk.month.sandbox.client(
        desk.month.api_key, http_client=httpx.Client(transport=transport), retry=NO_RETRY
    )
    panel = MedDefensePanel(client, now=desk.now)
    transport.panel = panel
    panel.outcome_button.click()
    assert transport.greyed
    assert all(transport.greyed)
    assert not panel.outcome_button.disabled  # the case can be checked again
    assert "is open: no decision yet" in panel.status.value
