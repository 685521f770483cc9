"""What a merchant's developer gets wrong first: each refusal is a `PixopsError` in words.

A closed client, a retry policy that is no policy, a wait that cannot end, an
idempotency key HTTP cannot carry, a transport failure and a redirect: none may leak a
bare `RuntimeError`, `TypeError` or `ValueError`, and each says what to do next.
"""

from __future__ import annotations

import asyncio
import math
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

import pixops
from pixops.client import (
    NO_RETRY,
    ApiError,
    ArgumentError,
    ClientClosedError,
    ConfigurationError,
    ResponseValidationError,
    RetryPolicy,
    TransportError,
)
from pixops.sandbox import Sandbox

MARIA = "maria.silva@sandbox.pixops.dev"


@pytest.fixture(scope="module")
def sandbox() -> Sandbox:
    return Sandbox()


@pytest.fixture(scope="module")
def key(sandbox: Sandbox) -> Any:
    merchant = sandbox.create_merchant("Loja Recusas", balance_centavos=1_000_000)
    return sandbox.issue_api_key(merchant.id)


def test_a_closed_client_says_so_and_what_to_do(sandbox: Sandbox, key: Any) -> None:
    client = sandbox.client(key)
    twin = client.with_options(key_case="camelCase")
    client.close()
    for closed in (client, twin):
        with pytest.raises(ClientClosedError, match=r"closed.*make a new one"):
            closed.balance()
        with pytest.raises(ClientClosedError):
            closed.pix.cash_out(pix_key=MARIA, amount_centavos=100)


def test_a_closed_async_client_says_so(sandbox: Sandbox, key: Any) -> None:
    async def run() -> None:
        async with sandbox.async_client(key) as client:
            await client.balance()
        with pytest.raises(ClientClosedError, match="closed"):
            await client.balance()

    asyncio.run(run())


@pytest.mark.parametrize(
    "options",
    [
        {"max_attempts": 0},
        {"max_attempts": "3"},
        {"max_attempts": 2.0},
        {"initial_backoff": "1"},
        {"max_backoff": math.nan},
        {"max_backoff": math.inf},
        {"initial_backoff": 5.0, "max_backoff": 1.0},
        {"jitter": 1.0},
        {"jitter": None},
        {"retry_statuses": [500]},
        {"retry_statuses": frozenset({"503"})},
    ],
)
def test_a_retry_policy_is_checked_in_words_when_made(options: dict[str, Any]) -> None:
    with pytest.raises(ConfigurationError):
        RetryPolicy(**options)


def test_a_retry_policy_takes_a_plain_set_of_statuses() -> None:
    policy = RetryPolicy(retry_statuses={503})  # type: ignore[arg-type]
    assert policy.retry_statuses == frozenset({503})
    assert hash(policy) == hash(RetryPolicy(retry_statuses=frozenset({503})))


@pytest.mark.parametrize("retry", [3, None, "NO_RETRY", {"max_attempts": 1}])
def test_with_options_refuses_a_retry_that_is_no_policy(
    sandbox: Sandbox, key: Any, retry: object
) -> None:
    client = sandbox.client(key)
    if retry is None:
        assert client.with_options(retry=None)._retry is client._retry
        return
    with pytest.raises(ConfigurationError, match="RetryPolicy"):
        client.with_options(retry=retry)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="RetryPolicy"):
        sandbox.async_client(key).with_options(retry=retry)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="RetryPolicy"):
        pixops.Client("https://x", "cli", "sk", retry=retry)  # type: ignore[arg-type]
    assert client.with_options(retry=NO_RETRY)._retry is NO_RETRY


@pytest.mark.parametrize(
    ("timeout", "interval"),
    [(math.nan, 5.0), (-1, 5.0), ("60", 5.0), (True, 5.0), (60, math.nan), (60, 1), (60, "5")],
)
def test_wait_until_final_refuses_a_wait_that_cannot_be_measured(
    sandbox: Sandbox, key: Any, timeout: object, interval: object
) -> None:
    client = sandbox.client(key)
    with pytest.raises(ArgumentError, match=r"timeout|interval"):
        client.wait_until_final("tx", timeout=timeout, interval=interval)  # type: ignore[arg-type]

    async def run() -> None:
        with pytest.raises(ArgumentError, match=r"timeout|interval"):
            await sandbox.async_client(key).wait_until_final(
                "tx",
                timeout=timeout,  # type: ignore[arg-type]
                interval=interval,  # type: ignore[arg-type]
            )

    asyncio.run(run())


@given(
    st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1, max_size=20),
    st.sampled_from([" {}", "{} ", " {} "]),
)
def test_an_idempotency_key_with_a_space_at_an_end_is_refused(core: str, shape: str) -> None:
    # HTTP cannot carry a field value that starts or ends with a space (RFC 9110 §5.5).
    client = pixops.Client("https://x", "cli", "sk", transport=httpx.MockTransport(_never))
    with pytest.raises(ArgumentError, match="space"):
        client.pix.cash_in(amount_centavos=100, idempotency_key=shape.format(core))


def _never(request: httpx.Request) -> httpx.Response:
    raise AssertionError("nothing may be sent")


def _timing_out(request: httpx.Request) -> httpx.Response:
    raise httpx.ReadTimeout("timed out", request=request)


def _refusing(request: httpx.Request) -> httpx.Response:
    raise httpx.ConnectError("refused", request=request)


def test_a_post_without_an_answer_names_its_key_to_resend_with() -> None:
    client = pixops.Client(
        "https://pix.example", "cli", "sk", transport=httpx.MockTransport(_timing_out)
    )
    client = client.with_options(retry=NO_RETRY)
    with pytest.raises(TransportError) as caught:
        client.pix.cash_in(amount_centavos=100, idempotency_key="order-17")
    assert caught.value.idempotency_key == "order-17"
    assert "timeout=" in str(caught.value)
    assert "idempotency_key='order-17'" in str(caught.value)


def test_an_unreachable_service_names_the_address_and_the_doctor() -> None:
    async def run() -> None:
        client = pixops.AsyncClient(
            "https://pix.example",
            "cli",
            "sk",
            transport=httpx.MockTransport(_refusing),
            retry=NO_RETRY,
        )
        with pytest.raises(TransportError) as caught:
            await client.balance()
        assert caught.value.idempotency_key is None
        assert "https://pix.example/api/external" in str(caught.value)
        assert "doctor" in str(caught.value)

    asyncio.run(run())


def test_a_redirect_says_to_fix_base_url() -> None:
    def moved(request: httpx.Request) -> httpx.Response:
        return httpx.Response(301, headers={"location": "https://pix.example/api/external"})

    client = pixops.Client("http://pix.example", "cli", "sk", transport=httpx.MockTransport(moved))
    with pytest.raises(ApiError) as caught:
        client.balance()
    assert caught.value.code == "redirect"
    assert "base_url" in str(caught.value)
    assert "https://pix.example/api/external" in str(caught.value)


def test_a_page_that_is_not_json_is_a_response_validation_error() -> None:
    def html(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=b"<html>captive portal</html>")

    client = pixops.Client("https://pix.example", "cli", "sk", transport=httpx.MockTransport(html))
    with pytest.raises(ResponseValidationError, match="not JSON"):
        list(client.statement.iter_raw())


@pytest.mark.parametrize(
    ("start", "end"), [(None, None), ("2026-01-01", None), (None, "2026-01-01")]
)
def test_fetch_range_wants_both_days(start: object, end: object) -> None:
    client = pixops.AsyncClient(
        "https://pix.example", "cli", "sk", transport=httpx.MockTransport(_never)
    )
    with pytest.raises(ArgumentError, match="date_from and date_to"):
        asyncio.run(client.statement.fetch_range(start, end))  # type: ignore[arg-type]


def test_fetch_range_of_years_runs_only_its_workers_and_stops_at_the_first_error() -> None:
    # A range of 3,000 years was one coroutine per day (a million) before a request left.
    asked: list[str] = []

    async def answer(request: httpx.Request) -> httpx.Response:
        asked.append(request.url.params["date_from"])
        if len(asked) == 7:
            return httpx.Response(403, json={"error": "forbidden", "message": "no"})
        return httpx.Response(200, json={"worked": True, "data": [], "page": 1, "per_page": 100})

    async def run() -> None:
        client = pixops.AsyncClient(
            "https://pix.example", "cli", "sk", transport=httpx.MockTransport(answer)
        )
        with pytest.raises(ApiError):
            await client.statement.fetch_range("0001-01-01", "3000-12-31", concurrency=3, rate=1e9)
        assert len(asyncio.all_tasks()) == 1

    asyncio.run(run())
    assert 7 <= len(asked) <= 9
    assert asked[0] == "0001-01-01"


@pytest.mark.parametrize(
    "base_url",
    [
        "https://user:secret-pw@pix.example",
        "https://pix.example?x=1",
        "https://pix.example#top",
        "https://pix example",
        "https://pix.example:99999",
        "https://pix.example:0",
        "https://pix.example/api/external/transactions",
        "https://",
    ],
)
def test_a_base_url_that_is_no_service_address_is_refused(base_url: str) -> None:
    with pytest.raises(ConfigurationError, match="base_url") as caught:
        pixops.Client(base_url, "cli", "sk")
    assert "secret-pw" not in str(caught.value)


@pytest.mark.parametrize(
    ("base_url", "root"),
    [
        ("https://pix.example/", "https://pix.example/api/external"),
        ("https://pix.example/api/external/", "https://pix.example/api/external"),
        ("https://proxy.example/pix", "https://proxy.example/pix/api/external"),
        ("http://[::1]:8000", "http://[::1]:8000/api/external"),
        ("https://pagé.example", "https://xn--pag-dma.example/api/external"),
    ],
)
def test_a_service_address_becomes_its_api_root(base_url: str, root: str) -> None:
    assert pixops.Client(base_url, "cli", "sk").base_url == root


@given(st.sampled_from(["OPEN", "ACKNOWLEDGED", "CLOSED", "CANCELLED"]), st.randoms())
def test_a_med_status_is_taken_in_any_case(status: str, rng: Any) -> None:
    # The service matches the case status whatever its case; the client refused "open".
    asked: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        asked.append(request.url.params["status"])
        return httpx.Response(200, json={"worked": True, "data": [], "page": 1, "per_page": 20})

    written = "".join(ch.lower() if rng.random() < 0.5 else ch for ch in status)
    client = pixops.Client("https://x", "cli", "sk", transport=httpx.MockTransport(answer))
    assert client.med.list(status=written).data == []
    assert list(client.med.iter(status=written)) == []
    assert asked == [status, status]
    with pytest.raises(ArgumentError, match="any case"):
        client.med.list(status=written + "x")


def test_the_doctor_reports_a_lost_answer_without_sending_the_reader_to_the_doctor() -> None:
    client = pixops.Client(
        "https://pix.example", "cli", "sk", transport=httpx.MockTransport(_refusing)
    )
    text = str(client.doctor())
    assert "ConnectError after 1 attempt(s); check the URL" in text
    assert "doctor()" not in text
