"""Arguments the service would refuse, drop silently or route elsewhere: each is an
`ArgumentError` (or `ConfigurationError`) naming the argument, and nothing is sent."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx
import pytest

import pixops
from pixops import limits
from pixops.client import ArgumentError, ConfigurationError

KEY = "maria.silva@sandbox.pixops.dev"


class Recorder:
    def __init__(self) -> None:
        self.sent: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(request)
        return httpx.Response(500)


def refused(call: Callable[[pixops.Client], Any], match: str, **options: Any) -> None:
    recorder = Recorder()
    client = pixops.Client(
        "https://pix.example", "cli_x", "sk_x", transport=httpx.MockTransport(recorder), **options
    )
    with pytest.raises(ArgumentError, match=match):
        call(client)
    assert recorder.sent == []


@pytest.mark.parametrize("ident", [".", "..", " .. "])
def test_an_id_of_dots_would_leave_its_endpoint_and_is_refused(ident: str) -> None:
    calls: list[tuple[str, Callable[[pixops.Client], Any]]] = [
        ("transaction_id", lambda c: c.transactions.get(ident)),
        ("transaction_id", lambda c: c.transactions.receipt(ident)),
        ("end_to_end_id", lambda c: c.transactions.by_e2e(ident)),
        ("tag", lambda c: c.transactions.by_tag(ident)),
        ("webhook_id", lambda c: c.webhooks.delete(ident)),
        ("case_id", lambda c: c.med.get(ident)),
        ("case_id", lambda c: c.med.defend(ident, "the payer received the goods")),
    ]
    for name, call in calls:
        refused(call, name)


@pytest.mark.parametrize("path", ["/balance\x00", "/a\nb", "/a\x7fb"])
def test_a_raw_path_with_control_characters_is_refused(path: str) -> None:
    refused(lambda c: c.request("GET", path), "path")


@pytest.mark.parametrize("key_case", ["snake_case", "camelCase"])
def test_a_raw_body_with_a_key_that_is_not_text_is_refused(key_case: str) -> None:
    body = {"outer": {1: "one"}}
    refused(
        lambda c: c.request("POST", "/cpf/validate", body), r"body\['outer'\]", key_case=key_case
    )


@pytest.mark.parametrize(
    "external_id",
    [
        "pedido 42",
        "pedido-ção",
        "a/b",
        "x" * (limits.EXTERNAL_ID_MAX_CHARS + 1),
        "   ",
        "",
    ],
)
def test_a_cash_out_external_id_the_service_would_drop_is_refused(external_id: str) -> None:
    refused(
        lambda c: c.pix.cash_out(pix_key=KEY, amount_centavos=100, external_id=external_id),
        "external_id",
    )


def test_a_cash_out_external_id_within_the_rules_is_sent_as_given() -> None:
    sent: list[bytes] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request.read())
        return httpx.Response(400, json={"errors": {"bad_request": "stop"}})

    client = pixops.Client(
        "https://pix.example", "cli_x", "sk_x", transport=httpx.MockTransport(handler)
    )
    with pytest.raises(pixops.client.BadRequestError):
        client.pix.cash_out(pix_key=KEY, amount_centavos=100, external_id=" order:2026.01_a-1 ")
    assert b'"external_id":" order:2026.01_a-1 "' in sent[0]


@pytest.mark.parametrize("ispb", ["1234567", "123456789", "abcdefgh", "1234 678", 12345678])
def test_a_recipient_ispb_must_be_eight_digits(ispb: object) -> None:
    refused(
        lambda c: c.pix.cash_out(pix_key=KEY, amount_centavos=100, recipient_ispb=ispb),
        "recipient_ispb",
    )


@pytest.mark.parametrize(
    "e2e", ["E123", "D12345678202601011200abcdefghijk", "E12345678202613011200abcdefghijk"]
)
def test_an_end_to_end_id_must_have_the_central_banks_form(e2e: str) -> None:
    refused(
        lambda c: c.pix.cash_out(pix_key=KEY, amount_centavos=100, end_to_end_id=e2e),
        "end_to_end_id",
    )


@pytest.mark.parametrize("seconds", [0, -5, limits.CASH_IN_EXPIRES_IN_MAX_SECONDS + 1, True, 60.0])
def test_a_cash_in_lifetime_out_of_range_is_refused(seconds: object) -> None:
    refused(lambda c: c.pix.cash_in(amount_centavos=100, expires_in=seconds), "expires_in")


@pytest.mark.parametrize("name", ["external_id", "tag"])
def test_a_cash_in_reference_outside_the_alphabet_is_refused(name: str) -> None:
    refused(lambda c: c.pix.cash_in(amount_centavos=100, **{name: "pedido 42"}), name)


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("transport", "https://pix.example"),
        ("http_client", "not a client"),
        ("sleep", 5),
        ("advance_clock", "tomorrow"),
        ("transport", httpx.AsyncHTTPTransport()),
        ("http_client", httpx.AsyncClient()),
    ],
)
def test_a_client_option_of_the_wrong_kind_is_refused_when_made(option: str, value: object) -> None:
    with pytest.raises(ConfigurationError, match=option):
        pixops.Client("https://pix.example", "cli_x", "sk_x", **{option: value})


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("transport", httpx.HTTPTransport()),
        ("http_client", httpx.Client()),
        ("sleep", 5),
        ("advance_clock", "tomorrow"),
    ],
)
def test_an_async_client_option_of_the_wrong_kind_is_refused_when_made(
    option: str, value: object
) -> None:
    async def make() -> None:
        pixops.AsyncClient("https://pix.example", "cli_x", "sk_x", **{option: value})

    with pytest.raises(ConfigurationError, match=option):
        asyncio.run(make())
