"""The retry rules a careful payment client follows beyond 5xx and 429: a 409 while the
same idempotency key is in flight, `Retry-After` on a 503, a wait longer than the
policy allows, and what a POST's 5xx says about its outcome."""

from __future__ import annotations

import asyncio

import httpx
import pytest

import pixops
from pixops.client import ApiError, RateLimitError, RetryPolicy, ServerError
from tests.client.test_retry import BALANCE, PAYOUT, Script, make_client, ok

IN_FLIGHT = {"error": {"status": 409, "message": "A request with this key is in flight"}}


def cash_out(client: pixops.Client) -> object:
    return client.pix.cash_out(pix_key="a@b.com", amount_centavos=1_000)


def test_a_409_in_flight_is_resent_with_the_same_key() -> None:
    script = Script(httpx.Response(409, json=IN_FLIGHT), ok(PAYOUT, 202))
    sleeps: list[float] = []
    cash_out(make_client(script, sleeps))
    keys = {request.headers["idempotency-key"] for request in script.requests}
    assert len(script.requests) == 2
    assert len(keys) == 1
    assert len(sleeps) == 1


def test_a_409_that_persists_is_a_conflict_error_saying_to_resend_later() -> None:
    script = Script(*[httpx.Response(409, json=IN_FLIGHT)] * 2)
    with pytest.raises(pixops.client.ConflictError) as caught:
        cash_out(make_client(script, [], retry=RetryPolicy(max_attempts=2)))
    error = caught.value
    assert isinstance(error, ApiError)
    assert (error.status, error.code, error.retryable) == (409, "conflict", True)
    assert len(script.requests) == 2


def test_a_409_to_a_get_is_not_resent() -> None:
    script = Script(httpx.Response(409, json=IN_FLIGHT), ok(BALANCE))
    with pytest.raises(pixops.client.ConflictError):
        make_client(script, []).balance()
    assert len(script.requests) == 1


def test_a_503_waits_at_least_its_retry_after() -> None:
    script = Script(httpx.Response(503, headers={"retry-after": "30"}), ok(BALANCE))
    sleeps: list[float] = []
    make_client(script, sleeps).balance()
    assert 30 <= sleeps[0] <= 36


@pytest.mark.parametrize("status", [429, 503])
def test_a_retry_after_beyond_the_longest_wait_is_raised_at_once(status: int) -> None:
    """A `Retry-After: 86400` does not freeze a notebook for a day: the error says when."""
    script = Script(httpx.Response(status, headers={"retry-after": "86400"}), ok(BALANCE))
    sleeps: list[float] = []
    with pytest.raises((RateLimitError, ServerError)) as caught:
        make_client(script, sleeps).balance()
    assert caught.value.retry_after == 86_400
    assert sleeps == []
    assert len(script.requests) == 1


def test_the_async_client_waits_the_same_way() -> None:
    async def run() -> list[float]:
        sleeps: list[float] = []
        script = Script(httpx.Response(429, headers={"retry-after": "86400"}), ok(BALANCE))
        async with pixops.AsyncClient(
            "https://pix.example",
            "cli_x",
            "sk_x",
            transport=httpx.MockTransport(script),
            sleep=sleeps.append,
        ) as client:
            with pytest.raises(RateLimitError):
                await client.balance()
        return sleeps

    assert asyncio.run(run()) == []


def test_a_post_answered_500_says_its_outcome_is_unknown() -> None:
    body = {"error": {"status": 500, "message": "Internal server error"}}
    script = Script(httpx.Response(500, json=body))
    with pytest.raises(ServerError) as caught:
        cash_out(make_client(script, []))
    error = caught.value
    key = script.requests[0].headers["idempotency-key"]
    assert not error.retryable
    assert error.idempotency_key == key
    assert "outcome is unknown" in str(error)
    assert "client.transactions" in str(error)


def test_a_post_answered_503_after_the_last_attempt_gives_the_key_to_resend_with() -> None:
    script = Script(*[httpx.Response(503)] * 2)
    with pytest.raises(ServerError) as caught:
        cash_out(make_client(script, [], retry=RetryPolicy(max_attempts=2)))
    key = script.requests[0].headers["idempotency-key"]
    assert caught.value.retryable
    assert caught.value.idempotency_key == key
    assert f"idempotency_key={key!r}" in str(caught.value)
