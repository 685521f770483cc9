"""MedDefensePanel: urgent cases first, a defense sent once, the outcome followed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest

from pixops.client import NO_RETRY
from pixops.schema import MedCase
from pixops.widgets import MedDefensePanel, urgency
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
    assert ">Money kept</div>" in panel.table.value
    pickers = [text for text, _ in panel.case_picker.options]
    assert all("decided: payer refunded" in t or "decided: money kept" in t for t in pickers)
    assert "Closed: the central bank" in panel.details.value
    assert panel.case is not None
    assert panel.case.id == panel.cases[0].id


def test_open_cases_are_sorted_by_deadline_with_urgency(desk: Desk) -> None:
    first, second = two_cases(desk)
    panel = MedDefensePanel(desk.client, now=desk.now)
    assert panel.table.value.index(first) < panel.table.value.index(second)
    assert "5 days left" in panel.table.value
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
    assert panel.case_id == first  # the panel's state, as traitlets
    assert not panel.can_defend
    assert panel.submit_button.disabled
    assert "Defense submitted" in panel.details.value
    assert panel.defense.value == ""
    shown = panel.output.outputs[-1]["data"]["text/html"]
    assert "Defense received" in shown
    assert "Awaiting decision" in panel.table.value
    panel.submit()
    assert len(desk.posts()) == 1


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
