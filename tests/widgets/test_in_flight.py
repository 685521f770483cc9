"""A request the service is still working on (409: its Idempotency-Key in flight) is not a
refusal: the refund or the defense may yet be made, and the same key gets its answer."""

from __future__ import annotations

from typing import Any

import httpx

from pixops.client import NO_RETRY, WaitTimeoutError
from pixops.schema import OutboundInFlight
from pixops.widgets import MedDefensePanel, RefundPanel
from pixops.widgets._format import message
from tests.widgets.conftest import Desk

PAYMENT = "PIXINE00360305202601311304fBxrSVuhd7C"


class _InFlight(httpx.BaseTransport):
    """Answers 409 to POSTs whose path ends with `path` while `busy`; records their keys."""

    def __init__(self, inner: httpx.BaseTransport, path: str) -> None:
        self.inner, self.path, self.busy = inner, path, True
        self.keys: list[str | None] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST" and request.url.path.endswith(self.path):
            self.keys.append(request.headers.get("Idempotency-Key"))
            if self.busy:
                body = {
                    "error": {
                        "code": "idempotency_in_flight",
                        "message": "A request with this Idempotency-Key is being processed",
                    }
                }
                return httpx.Response(409, json=body, request=request)
        return self.inner.handle_request(request)


def _send_two_reais(panel: RefundPanel) -> None:
    """Find the payment, review a R$ 2,00 refund of it and confirm it."""
    panel.search.value = PAYMENT
    panel.find_button.click()
    panel.amount.value = "R$ 2,00"
    panel.review_button.click()
    panel.confirm_button.click()


def _client(desk: Desk, transport: httpx.BaseTransport) -> object:
    return desk.month.sandbox.client(
        desk.month.api_key, http_client=httpx.Client(transport=transport), retry=NO_RETRY
    )


def test_a_refund_still_in_flight_is_confirmed_again_with_its_key(desk: Desk) -> None:
    transport = _InFlight(desk.month.sandbox.transport(), "/pix/refund")
    panel = RefundPanel(_client(desk, transport), now=desk.now)
    _send_two_reais(panel)
    assert "refused" not in panel.status_text
    assert "still working on" in panel.status_text
    assert "press Confirm refund again" in panel.status_text
    assert "it cannot be made twice" in panel.status_text
    assert "idempotency" not in panel.status_text.lower()
    assert not panel.confirm_button.disabled
    transport.busy = False
    panel.confirm_button.click()
    assert panel.status_text.startswith("Refund PIXRET")
    assert len(transport.keys) == 2
    assert len(set(transport.keys)) == 1  # the answer of the first request, not a second refund
    assert [r.amount for r in panel.refunds].count(20_000) == 1


def test_a_defense_still_in_flight_is_not_called_refused(desk: Desk) -> None:
    desk.month.sandbox.open_med_case(PAYMENT, reason="REFUND_REQUEST")
    transport = _InFlight(desk.month.sandbox.transport(), "/defense")
    panel = MedDefensePanel(_client(desk, transport), now=desk.now)
    panel.defense.value = "Mercadoria entregue, comprovante assinado."
    panel.submit_button.click()
    status = panel.status.value
    assert "refused" not in status
    assert "still working on" in status
    assert "Check outcome" in status
    assert panel.defense.value == "Mercadoria entregue, comprovante assinado."


class _Slow:
    """The demo month's client, but a refund never becomes final while Follow up waits:
    the real service's refund the payer's bank has not answered yet."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.timeouts: list[float | None] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def wait_until_final(self, transaction_id: str, **options: Any) -> Any:
        self.timeouts.append(options.get("timeout"))
        last = self.inner.transactions.get(transaction_id).model_copy(
            update={"status": "processing", "completed_at": None}
        )
        raise WaitTimeoutError(f"{transaction_id} is still processing", last=last)


def test_follow_up_waits_briefly_then_says_the_refund_is_still_processing(desk: Desk) -> None:
    """Follow up waited up to the client's default of two hours: on the real service the
    notebook froze, every other button with it, until the kernel was interrupted."""
    client = _Slow(desk.client)
    panel = RefundPanel(client, now=desk.now)
    _send_two_reais(panel)
    panel.follow_button.click()
    assert client.timeouts
    assert all(t is not None and t <= 120 for t in client.timeouts)
    assert "still Processing" in panel.status_text
    assert "Press Follow up again" in panel.status_text
    assert "Could not follow" not in panel.status_text
    assert not panel.follow_button.disabled
    card = panel.output.outputs[0]["data"]["text/html"]
    assert "Processing" in card


class _Garbles(httpx.BaseTransport):
    """Acts on POSTs to `path`, then answers them with a body that is not JSON (a proxy's
    page) while `garble`; records their keys."""

    def __init__(self, inner: httpx.BaseTransport, path: str = "/pix/refund") -> None:
        self.inner, self.path, self.garble = inner, path, True
        self.keys: list[str | None] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        if request.method == "POST" and request.url.path.endswith(self.path):
            self.keys.append(request.headers.get("Idempotency-Key"))
            if self.garble:
                page = b"<html><body>Gateway says hello</body></html>"
                return httpx.Response(200, content=page, request=request)
        return response


def test_a_refund_accepted_with_an_unreadable_answer_is_not_called_refused(desk: Desk) -> None:
    """The service made the refund (200) but its answer could not be read: the panel said
    "The service refused the refund" and dropped the key, so the same refund reviewed and
    confirmed again would have been a second one."""
    transport = _Garbles(desk.month.sandbox.transport())
    panel = RefundPanel(_client(desk, transport), now=desk.now)
    _send_two_reais(panel)
    assert "refused" not in panel.status_text
    assert "accepted the refund" in panel.status_text
    assert [r.amount for r in panel.refunds].count(20_000) == 1  # read again: it was made
    transport.garble = False
    panel.amount.value = "R$ 2,00"  # the same refund, reviewed and confirmed again
    panel.review_button.click()
    panel.confirm_button.click()
    assert panel.status_text.startswith("Refund PIXRET")
    assert len(set(transport.keys)) == 1  # the first refund's answer, not a second refund
    assert [r.amount for r in panel.refunds].count(20_000) == 1


def test_a_defense_accepted_with_an_unreadable_answer_is_not_called_refused(desk: Desk) -> None:
    desk.month.sandbox.open_med_case(PAYMENT, reason="REFUND_REQUEST")
    transport = _Garbles(desk.month.sandbox.transport(), "/defense")
    panel = MedDefensePanel(_client(desk, transport), now=desk.now)
    panel.defense.value = "Mercadoria entregue, comprovante assinado."
    panel.submit_button.click()
    assert "refused" not in panel.status.value
    assert "accepted the defense" in panel.status.value
    assert "Check outcome" in panel.status.value
    assert panel.case is not None
    assert panel.case.status == "ACKNOWLEDGED"  # read again: the defense arrived


class _Refused(_Slow):
    """The demo month's client, but the payer's bank refuses the refund (a closed account)."""

    def wait_until_final(self, transaction_id: str, **options: Any) -> Any:
        record = self.inner.transactions.get(transaction_id).model_dump()
        # The shape the service answers for a refund that failed: the outbound one.
        return OutboundInFlight.model_validate(
            {
                **record,
                "status": "failed",
                "payment_status": "failed",
                "completed_at": None,
                "reason_code": "AC06",
                "reason_description": "account blocked or closed at the payer's bank",
            }
        )


def test_a_refused_refund_says_why_in_words_and_what_now(desk: Desk) -> None:
    """Follow up said "Refund PIXRET…: Failed (AC06)." and nothing more: support could
    not tell the payer why, nor whether any money had gone back."""
    panel = RefundPanel(_Refused(desk.client), now=desk.now)
    _send_two_reais(panel)
    panel.follow_button.click()
    status = panel.status_text
    assert "Failed. Account blocked or closed at the payer's bank (code AC06)." in status
    assert "Nothing went back to the payer" in status
    assert "left to refund again" in status
    assert panel.status.value == message(status, "error")
