"""`Retry-After` in both of its forms (RFC 9110): seconds, and an HTTP-date.

An HTTP-date (what a proxy or an edge firewall in front of the service may send) was
read as no header at all: the client resent a 429 after half a second instead of
waiting until the date, and `RateLimitError.retry_after` was None.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

import pixops
from pixops.client import RateLimitError, RetryPolicy
from pixops.client._retry import retry_after_seconds
from tests.client.test_retry import BALANCE

SENT = "Mon, 05 Jan 2026 12:00:00 GMT"
LATER = "Mon, 05 Jan 2026 12:01:30 GMT"  # 90 s after SENT


def _limited(headers: dict[str, str]) -> httpx.Response:
    return httpx.Response(429, headers=headers, json={"error": {"status": 429, "message": "x"}})


def _answers(*responses: httpx.Response) -> httpx.MockTransport:
    queue = list(responses)
    return httpx.MockTransport(lambda request: queue.pop(0))


def test_an_http_date_is_waited_for_counted_from_the_answers_own_date() -> None:
    sleeps: list[float] = []
    transport = _answers(
        _limited({"retry-after": LATER, "date": SENT}), httpx.Response(200, json=BALANCE)
    )
    client = pixops.Client(
        "https://pix.example", "cli_x", "sk_x", transport=transport, sleep=sleeps.append
    )
    client.balance()
    assert 90 <= sleeps[0] <= 90 * 1.2 + 1e-9


def test_the_async_client_waits_the_same() -> None:
    sleeps: list[float] = []

    async def run() -> None:
        transport = _answers(
            _limited({"retry-after": LATER, "date": SENT}), httpx.Response(200, json=BALANCE)
        )
        async with pixops.AsyncClient(
            "https://pix.example", "cli_x", "sk_x", transport=transport, sleep=sleeps.append
        ) as client:
            await client.balance()

    asyncio.run(run())
    assert 90 <= sleeps[0] <= 90 * 1.2 + 1e-9


def test_a_persisting_429_names_the_wait_of_an_http_date() -> None:
    transport = _answers(_limited({"retry-after": LATER, "date": SENT}))
    client = pixops.Client(
        "https://pix.example",
        "cli_x",
        "sk_x",
        transport=transport,
        retry=RetryPolicy(max_attempts=1),
    )
    with pytest.raises(RateLimitError) as caught:
        client.balance()
    assert caught.value.retry_after == 90


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"retry-after": "60"}, 60.0),
        ({"retry-after": " 60 "}, 60.0),
        ({"retry-after": LATER, "date": SENT}, 90.0),
        ({"retry-after": SENT, "date": LATER}, 0.0),  # already past: no wait
        ({"retry-after": "soon"}, None),
        ({"retry-after": "-1"}, None),
        ({"retry-after": "inf"}, None),
        ({"retry-after": "nan"}, None),
        ({}, None),
    ],
)
def test_retry_after_seconds(headers: dict[str, str], seconds: float | None) -> None:
    assert retry_after_seconds(httpx.Headers(headers)) == seconds


def test_without_a_date_header_the_http_date_counts_from_now() -> None:
    now = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
    assert retry_after_seconds(httpx.Headers({"retry-after": LATER}), now=now) == 90.0


@given(st.integers(min_value=0, max_value=86_400))
def test_any_http_date_gives_its_distance_from_the_date_header(seconds: int) -> None:
    sent = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
    until = sent.timestamp() + seconds
    headers = {
        "date": SENT,
        "retry-after": datetime.fromtimestamp(until, UTC).strftime("%a, %d %b %Y %H:%M:%S GMT"),
    }
    assert retry_after_seconds(httpx.Headers(headers)) == float(seconds)
