"""`Client.service_time()`: the service's clock, read from the Date of its answers."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import httpx

import pixops
from pixops.client import AsyncClient, Client


def sandbox_and_client() -> tuple[pixops.Sandbox, Client]:
    sandbox = pixops.Sandbox(start=datetime(2026, 1, 15, 13, 30, 5, 400_000, tzinfo=UTC))
    merchant = sandbox.create_merchant("Loja", balance_centavos=10_000)
    return sandbox, sandbox.client(sandbox.issue_api_key(merchant.id))


def test_every_answer_carries_the_engine_clock_as_its_date() -> None:
    _, client = sandbox_and_client()
    answer = client.request("GET", "/balance")
    assert answer.headers["date"] == "Thu, 15 Jan 2026 13:30:05 GMT"
    refused = client.with_options().request("GET", "/nowhere")
    assert refused.status_code == 404
    assert refused.headers["date"] == "Thu, 15 Jan 2026 13:30:05 GMT"


def test_the_service_time_is_the_sandbox_s_not_this_machine_s() -> None:
    sandbox, client = sandbox_and_client()
    first = client.service_time()  # asks once: nothing was answered yet
    assert abs(first - sandbox.now()) < timedelta(seconds=2)
    sandbox.advance(days=30)
    client.balance()  # any answer moves it on
    assert abs(client.service_time() - sandbox.now()) < timedelta(seconds=2)
    assert client.service_time().tzinfo is not None
    # A twin of the client talks to the same service: it knows the time too.
    assert abs(client.with_options(key_case="camelCase").service_time() - sandbox.now()) < (
        timedelta(seconds=2)
    )


def test_a_refusal_dates_the_service_too() -> None:
    """A key that may read nothing still learns the service's time from its 403."""
    sandbox = pixops.Sandbox(start=datetime(2026, 1, 15, tzinfo=UTC))
    merchant = sandbox.create_merchant("Loja")
    key = sandbox.issue_api_key(merchant.id, permissions=["payment:read"])
    client = sandbox.client(key)
    assert abs(client.service_time() - sandbox.now()) < timedelta(seconds=2)


def test_a_service_without_a_date_leaves_the_machine_s_clock() -> None:
    def undated(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"worked": True}, request=request)

    client = Client("http://svc", "id", "secret", transport=httpx.MockTransport(undated))
    before = datetime.now(UTC)
    assert before <= client.service_time() <= datetime.now(UTC)


def test_a_date_that_cannot_be_read_changes_nothing() -> None:
    def garbled(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={}, headers={"date": "yesterday"}, request=request)

    client = Client("http://svc", "id", "secret", transport=httpx.MockTransport(garbled))
    before = datetime.now(UTC)
    assert before <= client.service_time() <= datetime.now(UTC)


def test_the_async_client_reads_it_the_same_way() -> None:
    sandbox = pixops.Sandbox(start=datetime(2026, 1, 15, tzinfo=UTC))
    merchant = sandbox.create_merchant("Loja")
    key = sandbox.issue_api_key(merchant.id)

    async def read() -> datetime:
        async with sandbox.async_client(key) as client:
            assert isinstance(client, AsyncClient)
            return await client.service_time()

    assert abs(asyncio.run(read()) - sandbox.now()) < timedelta(seconds=2)
