"""Retries at the transport level (httpx.MockTransport) and against the sandbox."""

from __future__ import annotations

import logging
from collections.abc import Callable

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pixops
from pixops import wire
from pixops.client import (
    NO_RETRY,
    RateLimitError,
    RetryPolicy,
    ServerError,
    TransportError,
)
from pixops.sandbox import Sandbox

SECRET = "sk_test_secret_never_shown"
BALANCE = {
    "worked": True,
    "data": {
        "balance": 10_000,
        "available_balance": 10_000,
        "safe_balance": 10_000,
        "currency": "BRL",
        "as_of": "2026-01-05T12:00:00.000Z",
    },
}
PAYOUT = {
    "worked": True,
    "final": False,
    "transaction_id": "PIXOUTE9999999920260105120000000000000000000",
    "end_to_end_id": "E99999999202601051200abcdefghijklmnop",
    "external_id": None,
    "amount": 100_000,
    "fee_amount": 5_000,
    "net_amount": 105_000,
    "status": "accepted",
    "detail": "ok",
}


class Script:
    """A MockTransport handler answering from a list, recording every request."""

    def __init__(self, *answers: httpx.Response | Exception) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        request.read()
        self.requests.append(request)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


def make_client(script: Script, sleeps: list[float], **options: object) -> pixops.Client:
    return pixops.Client(
        "https://pix.example",
        "cli_test",
        SECRET,
        transport=httpx.MockTransport(script),
        sleep=sleeps.append,
        **options,  # type: ignore[arg-type]
    )


def ok(body: object, status: int = 200) -> httpx.Response:
    return httpx.Response(status, json=body)


def test_get_is_retried_after_a_connection_error_and_a_5xx() -> None:
    script = Script(httpx.ConnectError("refused"), httpx.Response(503), ok(BALANCE))
    sleeps: list[float] = []
    balance = make_client(script, sleeps).balance()
    assert int(balance.balance) == 10_000
    assert len(script.requests) == 3
    assert len(sleeps) == 2
    assert sleeps[1] > sleeps[0] * 1.2  # exponential (jitter is at most 20 %)


def test_every_post_carries_an_idempotency_key_reused_on_retries() -> None:
    script = Script(httpx.ReadError("cut"), httpx.Response(502), ok(PAYOUT, 202))
    sleeps: list[float] = []
    client = make_client(script, sleeps)
    payout = client.pix.cash_out(pix_key="a@b.com", amount_centavos=1_000)
    assert payout.transaction_id == PAYOUT["transaction_id"]
    keys = {request.headers["idempotency-key"] for request in script.requests}
    assert len(keys) == 1
    assert len(next(iter(keys))) >= 32
    second = Script(ok(PAYOUT, 202))
    make_client(second, sleeps).pix.cash_out(pix_key="a@b.com", amount_centavos=1_000)
    assert second.requests[0].headers["idempotency-key"] not in keys


def test_the_callers_idempotency_key_is_used() -> None:
    script = Script(ok(PAYOUT, 202))
    make_client(script, []).pix.cash_out(
        pix_key="a@b.com", amount_centavos=1_000, idempotency_key="order-42"
    )
    assert script.requests[0].headers["idempotency-key"] == "order-42"
    with pytest.raises(pixops.client.ArgumentError):
        make_client(script, []).pix.cash_out(
            pix_key="a@b.com", amount_centavos=1, idempotency_key="x" * 257
        )


def test_hmac_is_over_exactly_the_bytes_sent() -> None:
    script = Script(ok(PAYOUT, 202))
    make_client(script, []).pix.cash_out(
        pix_key="a@b.com", amount_centavos=1_000, description="Pão de queijo"
    )
    request = script.requests[0]
    assert wire.verify(request.content, SECRET, request.headers["hmac"])
    assert request.content == wire.canonical_json(wire.parse_strict(request.content))
    assert "Pão".encode() in request.content
    camel = Script(ok(PAYOUT, 202))
    make_client(camel, [], key_case="camelCase").pix.cash_out(pix_key="a@b.com", amount_centavos=1)
    sent = camel.requests[0]
    assert b'"pixKey"' in sent.content
    assert sent.headers["x-key-case"] == "camelCase"
    assert wire.verify(sent.content, SECRET, sent.headers["hmac"])


def test_429_honours_retry_after_then_doubles_to_the_ceiling() -> None:
    limited = [
        httpx.Response(
            429,
            headers={"retry-after": "60"},
            json={
                "error": {"status": 429, "message": "Too many requests. Please try again later."}
            },
        )
        for _ in range(4)
    ]
    script = Script(*limited, ok(BALANCE))
    sleeps: list[float] = []
    policy = RetryPolicy(max_attempts=5, max_backoff=200.0)
    make_client(script, sleeps, retry=policy).balance()
    assert sleeps[0] >= 60
    assert 120 <= sleeps[1] <= 200
    assert sleeps[2] == sleeps[3] == 200  # the ceiling
    assert all(wait <= 200 for wait in sleeps)


def test_a_429_that_persists_raises_rate_limit_error_with_retry_after() -> None:
    body = {"error": {"status": 429, "message": "Too many requests. Please try again later."}}
    script = Script(*[httpx.Response(429, headers={"retry-after": "60"}, json=body)] * 2)
    with pytest.raises(RateLimitError) as caught:
        make_client(script, [], retry=RetryPolicy(max_attempts=2)).balance()
    assert caught.value.retry_after == 60
    assert caught.value.retryable
    assert "Too many requests" in str(caught.value)


def test_an_edge_429_without_retry_after_backs_off_exponentially() -> None:
    script = Script(httpx.Response(429, text="slow down"), ok(BALANCE))
    sleeps: list[float] = []
    make_client(script, sleeps).balance()
    assert 0 < sleeps[0] <= 0.5


def test_a_post_without_key_is_never_resent_after_a_5xx_or_a_drop() -> None:
    """Only possible through `send` with a hand-built call: the client always adds a key."""
    script = Script(httpx.ReadError("cut"))
    client = make_client(script, [])
    policy = RetryPolicy()
    assert not policy.can_resend("POST", None)
    assert policy.after_exception("POST", None, 1) is None
    assert policy.after_status("POST", None, 503, 1, None) is None
    with pytest.raises(TransportError):
        client.with_options(retry=NO_RETRY).balance()


def test_a_post_answered_500_is_not_resent_but_a_get_is() -> None:
    """Only 2xx answers are cached: a POST that acted and then failed with a 500 would act
    again on a resend, key or not. A GET is resent; a POST after a 503 is too."""
    body = {"error": {"status": 500, "message": "Internal server error"}}
    script = Script(httpx.Response(500, json=body))
    sleeps: list[float] = []
    with pytest.raises(ServerError) as caught:
        make_client(script, sleeps).pix.cash_out(pix_key="a@b.com", amount_centavos=1_000)
    assert caught.value.status == 500
    assert len(script.requests) == 1
    assert sleeps == []
    unavailable = Script(httpx.Response(503), ok(PAYOUT, 202))
    make_client(unavailable, sleeps).pix.cash_out(pix_key="a@b.com", amount_centavos=1_000)
    assert len(unavailable.requests) == 2
    read = Script(httpx.Response(500, json=body), ok(BALANCE))
    assert int(make_client(read, sleeps).balance().balance) == 10_000
    assert len(read.requests) == 2


def test_server_errors_surface_after_the_last_attempt() -> None:
    body = {"error": {"status": 500, "message": "Internal server error"}}
    script = Script(*[httpx.Response(500, json=body)] * 2)
    with pytest.raises(ServerError) as caught:
        make_client(script, [], retry=RetryPolicy(max_attempts=2)).balance()
    assert caught.value.status == 500
    assert caught.value.retryable


def test_attempts_are_logged_without_secrets(caplog: pytest.LogCaptureFixture) -> None:
    script = Script(httpx.ConnectError("refused"), ok(BALANCE))
    with caplog.at_level(logging.DEBUG, logger="pixops.client"):
        make_client(script, []).balance()
    text = caplog.text
    assert "attempt 1" in text
    assert "attempt 2" in text
    assert SECRET not in text
    assert "cli_test" not in text


def test_a_retry_is_info_so_a_notebook_shows_no_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Python prints WARNING and above to stderr when nothing configured logging: every
    retry would show in a notebook as a red line, though the call goes on and succeeds."""
    script = Script(httpx.ConnectError("refused"), ok(BALANCE))
    with caplog.at_level(logging.DEBUG, logger="pixops.client"):
        make_client(script, []).balance()
    retries = [record for record in caplog.records if "retrying in" in record.getMessage()]
    assert [record.levelno for record in retries] == [logging.INFO]


def test_a_transport_error_never_carries_the_secret() -> None:
    script = Script(*[httpx.ConnectError(f"refused {SECRET}")] * 4)
    with pytest.raises(TransportError) as caught:
        make_client(script, []).balance()
    assert SECRET not in str(caught.value)
    assert caught.value.__cause__ is None


class DropAfterCommit(httpx.BaseTransport):
    """Forwards to the sandbox, then loses the first answer of each chosen POST: the server
    committed, the caller saw a connection drop."""

    def __init__(self, inner: httpx.BaseTransport, should_drop: Callable[[httpx.Request], bool]):
        self.inner = inner
        self.should_drop = should_drop
        self.dropped = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        if self.should_drop(request) and self.dropped == 0:
            self.dropped += 1
            response.close()
            raise httpx.ReadError("connection reset after the server answered")
        return response


def test_a_drop_after_the_server_committed_never_makes_a_second_transaction() -> None:
    sandbox = Sandbox()
    merchant = sandbox.create_merchant("Loja", balance_centavos=100_000)
    key = sandbox.issue_api_key(merchant.id)
    transport = DropAfterCommit(sandbox.transport(), lambda r: r.url.path.endswith("cash-out"))
    sleeps: list[float] = []
    client = pixops.Client(
        "http://sandbox", key.client_id, key.client_secret, transport=transport,
        sleep=sleeps.append,
    )  # fmt: skip
    payout = client.pix.cash_out(pix_key="maria.silva@sandbox.pixops.dev", amount_centavos=1_000)
    assert transport.dropped == 1
    assert len(sleeps) == 1
    rows = list(sandbox.client(key).statement.iter())
    assert [row.transaction_id for row in rows] == [payout.transaction_id]
    assert sandbox.balance(merchant.id).held_base == 1_000 * 100 + 50 * 100


def test_a_redirect_is_not_followed_and_is_an_error() -> None:
    script = Script(httpx.Response(302, headers={"location": "https://elsewhere.example/"}))
    with pytest.raises(pixops.client.ApiError) as caught:
        make_client(script, []).balance()
    assert caught.value.status == 302
    assert len(script.requests) == 1


def test_a_2xx_outside_the_schema_is_a_response_validation_error() -> None:
    script = Script(ok({"worked": True, "data": {"balance": 1.5}}))
    with pytest.raises(pixops.client.ResponseValidationError) as caught:
        make_client(script, []).balance()
    assert "data.balance" in str(caught.value)
    assert isinstance(caught.value, pixops.PixopsError)


@given(
    description=st.text(max_size=140),
    amount_centavos=st.integers(min_value=1, max_value=10**12),
    key_case=st.sampled_from(["snake_case", "camelCase"]),
)
@settings(max_examples=60, deadline=None)
def test_any_body_is_signed_over_the_bytes_sent(
    description: str, amount_centavos: int, key_case: str
) -> None:
    script = Script(ok(PAYOUT, 202))
    make_client(script, [], key_case=key_case).pix.cash_out(
        pix_key="a@b.com", amount_centavos=amount_centavos, description=description
    )
    sent = script.requests[0]
    assert wire.verify(sent.content, SECRET, sent.headers["hmac"])
    body = wire.parse_strict(sent.content)
    assert sent.content == wire.canonical_json(body)
    assert isinstance(body, dict)
    assert wire.snakify_keys(body)["amount"] == amount_centavos  # type: ignore[index]
