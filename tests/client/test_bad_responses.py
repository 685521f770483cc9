"""What a broken server or a proxy in the way answers, read by the sync and async clients
alike: every case is a `PixopsError` in words, never an httpx, pydantic or Python one."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx
import pytest

import pixops
from pixops.client import (
    NO_RETRY,
    ApiError,
    ResponseValidationError,
    ServerError,
)
from pixops.client._receive import MAX_RESPONSE_BYTES

Handler = Callable[[httpx.Request], httpx.Response]
NGINX_502 = (
    b"<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body>"
    b"<center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>"
)
DEEP = b"[" * 100_000 + b"]" * 100_000
# An accepted cash-out whose fee drifted to text: the payment went through, the answer
# cannot be read.
ACCEPTED_WITH_TEXT_FEE = {
    "worked": True,
    "final": False,
    "status": "accepted",
    "transaction_id": "PIXOUTE1234567820260101000012345678901",
    "end_to_end_id": "E12345678202601010000123456789AB",
    "amount": 10_000,
    "fee_amount": "0.50",
    "net_amount": 15_000,
    "detail": "accepted",
}


def answer(status: int, **options: Any) -> Handler:
    """A handler making a fresh `httpx.Response(status, **options)` for every request."""

    def handle(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, **options)

    return handle


def both(handler: Handler, call: Callable[[Any], Any], **options: Any) -> list[BaseException]:
    """What `call(client)` raises on a sync and on an async client over `handler`."""
    raised: list[BaseException] = []
    sync = pixops.Client(
        "https://pix.example",
        "cli_x",
        "sk_x",
        transport=httpx.MockTransport(handler),
        retry=NO_RETRY,
        **options,
    )
    try:
        call(sync)
    except BaseException as exc:
        raised.append(exc)

    async def run() -> None:
        async with pixops.AsyncClient(
            "https://pix.example",
            "cli_x",
            "sk_x",
            transport=httpx.MockTransport(handler),
            retry=NO_RETRY,
            **options,
        ) as client:
            try:
                await call(client)
            except BaseException as exc:
                raised.append(exc)

    asyncio.run(run())
    assert len(raised) == 2, raised
    return raised


def balance(client: Any) -> Any:
    return client.balance()


def test_a_body_that_does_not_decompress_is_a_response_validation_error() -> None:
    handler = answer(
        200,
        headers={"content-encoding": "gzip"},
        stream=httpx.ByteStream(b"not gzip at all"),
    )
    for error in both(handler, balance):
        assert isinstance(error, ResponseValidationError)
        assert "gzip" in str(error)
        assert "GET /balance" in str(error)


@pytest.mark.parametrize("status", [200, 400, 502])
@pytest.mark.parametrize("key_case", ["snake_case", "camelCase"])
def test_a_body_nested_beyond_reason_is_refused_in_words(status: int, key_case: str) -> None:
    for error in both(answer(status, content=DEEP), balance, key_case=key_case):
        assert isinstance(error, pixops.PixopsError), repr(error)
        assert not isinstance(error, RecursionError)


def test_an_html_error_page_is_named_by_its_title() -> None:
    page = answer(502, headers={"content-type": "text/html"}, content=NGINX_502)
    for error in both(page, balance):
        assert isinstance(error, ServerError)
        assert error.message == (
            "the service (or a proxy in front of it) answered an HTML page, not JSON:"
            " 502 Bad Gateway"
        )
        assert "<" not in str(error)


def test_an_html_page_answered_200_says_it_is_not_json() -> None:
    login = b"<html><head><title>Wi-Fi login</title></head><body>sign in</body></html>"
    page = answer(200, headers={"content-type": "text/html"}, content=login)
    for error in both(page, balance):
        assert isinstance(error, ResponseValidationError)
        assert "text/html" in str(error)
        assert "not JSON" in str(error)
        assert "GET /balance" in str(error)


@pytest.mark.parametrize(
    "call",
    [
        balance,  # a model that refuses worked: false itself: the body is read after it
        lambda client: client.statement.list(per_page=100),
        lambda client: client.pix.cash_out(pix_key="a@b.com", amount_centavos=100),  # a union
    ],
    ids=["balance", "statement-page", "cash-out"],
)
def test_a_2xx_body_with_worked_false_is_the_api_error_it_carries(call: Any) -> None:
    body = {"worked": False, "errors": {"not_found": "no such account"}}
    for error in both(answer(200, json=body), call):
        assert isinstance(error, ApiError)
        assert error.code == "not_found"
        assert error.message == "no such account"


def test_only_a_model_whose_worked_is_true_skips_the_search() -> None:
    from pixops.client import _operations as ops
    from pixops.client._core import Call
    from pixops.schema import BusinessError, PayoutQueued, StatementPage

    assert ops.worked_is_true(StatementPage)
    assert ops.worked_is_true(PayoutQueued)  # Literal[True] | None: absent or true
    assert not ops.worked_is_true(BusinessError)  # Literal[False] | None
    assert not ops.worked_is_true(int)
    assert ops.page_of("/statement", {}).refuses_worked_false
    assert not ops.Op(Call("GET", "/x"), bytes).refuses_worked_false


def test_a_list_of_messages_reads_as_sentences() -> None:
    body = {"errors": {"bad_request": ["amount is required", "pix_key is invalid"]}}
    for error in both(answer(400, json=body), balance):
        assert isinstance(error, ApiError)
        assert error.message == "amount is required; pix_key is invalid"


def test_a_body_over_the_cap_is_refused_unread() -> None:
    def stream() -> Any:
        chunk = b" " * 1_048_576
        for _ in range(MAX_RESPONSE_BYTES // len(chunk) + 2):
            yield chunk

    class Endless(httpx.SyncByteStream, httpx.AsyncByteStream):
        def __iter__(self) -> Any:
            return stream()

        async def __aiter__(self) -> Any:
            for chunk in stream():
                yield chunk

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, stream=Endless())

    for error in both(handler, balance):
        assert isinstance(error, ResponseValidationError)
        assert "MiB" in str(error)


def test_an_accepted_cash_out_whose_answer_cannot_be_read_says_not_to_pay_again() -> None:
    call = lambda client: client.pix.cash_out(  # noqa: E731
        pix_key="a@b.com", amount_centavos=100, idempotency_key="order-42"
    )
    for error in both(answer(202, json=ACCEPTED_WITH_TEXT_FEE), call):
        assert isinstance(error, ResponseValidationError)
        assert error.status == 202
        assert error.idempotency_key == "order-42"
        text = str(error)
        assert text.startswith("POST /pix/cash-out: HTTP 202")
        assert "accepted" in text
        assert "idempotency_key='order-42'" in text
        assert "PIXOUTE1234567820260101000012345678901" in text


def test_an_accepted_cash_out_whose_body_does_not_decompress_says_not_to_pay_again() -> None:
    call = lambda client: client.pix.cash_out(  # noqa: E731
        pix_key="a@b.com", amount_centavos=100, idempotency_key="order-43"
    )
    handler = answer(
        202, headers={"content-encoding": "gzip"}, stream=httpx.ByteStream(b"not gzip at all")
    )
    for error in both(handler, call):
        assert isinstance(error, ResponseValidationError)
        assert error.idempotency_key == "order-43"
        text = str(error)
        assert text.startswith("POST /pix/cash-out: HTTP 202 with a body that cannot be decoded")
        assert "The service accepted the request (HTTP 202): do not send it again" in text
        assert "idempotency_key='order-43'" in text


def test_a_read_whose_body_does_not_decompress_has_no_payment_note() -> None:
    handler = answer(
        200, headers={"content-encoding": "gzip"}, stream=httpx.ByteStream(b"not gzip at all")
    )
    for error in both(handler, balance):
        assert "accepted" not in str(error)
        assert error.idempotency_key is None  # type: ignore[attr-defined]
