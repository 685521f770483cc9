"""The three ways in answer byte for byte the same: the sync httpx transport, the async
transport and the ASGI app; plus the ASGI app's own duties (lifespan, streaming bodies,
the size limit before reading, the peer address)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from pixops import wire
from pixops.sandbox import ApiKey, Sandbox

BASE_URL = "http://sandbox/api/external"
CPF = b'{"cpf":"52998224725"}'
CHARGE = b'{"amount":1500,"description":"pedido 7"}'
ONE_MIB = 1_048_576

Headers = dict[str, str]
Case = tuple[str, str, bytes | None, Callable[[ApiKey], Headers]]


def auth(key: ApiKey) -> Headers:
    return {"authorization": f"ApiKey {key.client_id}:{key.client_secret}"}


def signed(body: bytes, **extra: str) -> Callable[[ApiKey], Headers]:
    def build(key: ApiKey) -> Headers:
        return {
            **auth(key),
            "content-type": "application/json",
            "hmac": wire.sign(body, key.client_secret),
            **extra,
        }

    return build


def plain(**extra: str) -> Callable[[ApiKey], Headers]:
    return lambda key: {**auth(key), **extra}


CASES: list[Case] = [
    ("GET", "/balance", None, plain()),
    ("GET", "/balance", None, plain(**{"x-key-case": "camelCase"})),
    ("POST", "/cpf/validate", CPF, signed(CPF, **{"idempotency-key": "k1"})),
    ("POST", "/cpf/validate", CPF, signed(CPF, **{"idempotency-key": "k1"})),
    ("POST", "/cpf/validate", b'{"cpf":"1"}', signed(b'{"cpf":"1"}', **{"idempotency-key": "k1"})),
    ("POST", "/cpf/validate", b"{}", signed(b"{}", **{"x-key-case": "camelCase"})),
    ("POST", "/cpf/validate", b'{"cpf":"\xc3\xa7"}', signed(b'{"cpf":"\xc3\xa7"}')),
    ("POST", "/cpf/validate", b"cpf=1", lambda key: {**auth(key), "content-type": "text/plain"}),
    (
        "POST",
        "/cpf/validate",
        CPF,
        plain(**{"content-type": "application/json", "hmac": "0" * 128}),
    ),
    ("POST", "/cpf/validate", b"x" * (ONE_MIB + 1), signed(b"")),
    ("GET", "/balance", None, lambda key: {}),
    ("GET", "/balance", None, lambda key: {"authorization": "Basic %%%"}),
    ("PUT", "/balance", b"{}", signed(b"{}")),
    ("GET", "/nowhere", None, plain()),
    ("GET", "/webhooks", None, plain()),
    ("POST", "/pix/cash-in", CHARGE, signed(CHARGE, **{"idempotency-key": "c1"})),
    ("POST", "/pix/cash-in", CHARGE, signed(CHARGE, **{"idempotency-key": "c1"})),
    ("POST", "/pix/cash-in", CHARGE, signed(CHARGE, **{"x-key-case": "camelCase"})),
    ("GET", "/transactions", None, plain()),
    ("GET", "/statement?page=2&per_page=5", None, plain()),
    ("GET", "/transactions/a%2Fb%20c", None, plain()),
    ("DELETE", "/webhooks/wh_1", None, plain()),
]


def world() -> tuple[Sandbox, ApiKey]:
    """The same world each time: same seed, same merchant, a key for 127.0.0.1."""
    sandbox = Sandbox(seed=7, rate_limit_per_minute=50)
    owner = sandbox.create_merchant("Loja", balance_centavos=12_345)
    return sandbox, sandbox.issue_api_key(owner.id)


Answer = tuple[int, list[tuple[str, str]], bytes]


def answer(response: httpx.Response) -> Answer:
    return response.status_code, response.headers.multi_items(), response.content


def via_sync() -> list[Answer]:
    sandbox, key = world()
    with httpx.Client(transport=sandbox.transport(), base_url=BASE_URL) as client:
        return [
            answer(client.request(method, path, content=body, headers=headers(key)))
            for method, path, body, headers in CASES
        ]


async def _via_async(transport_of: Callable[[Sandbox], httpx.AsyncBaseTransport]) -> list[Answer]:
    sandbox, key = world()
    async with httpx.AsyncClient(transport=transport_of(sandbox), base_url=BASE_URL) as client:
        return [
            answer(await client.request(method, path, content=body, headers=headers(key)))
            for method, path, body, headers in CASES
        ]


def via_async() -> list[Answer]:
    return asyncio.run(_via_async(lambda sandbox: sandbox.async_transport()))


def via_asgi() -> list[Answer]:
    return asyncio.run(
        _via_async(lambda sb: httpx.ASGITransport(app=sb.asgi_app, client=("127.0.0.1", 50_000)))
    )


def test_the_cases_cover_many_outcomes() -> None:
    statuses = [status for status, _, _ in via_sync()]
    assert {200, 400, 401, 404, 405, 413, 415, 422} <= set(statuses)


@pytest.mark.parametrize("other", [via_async, via_asgi], ids=["async", "asgi"])
def test_byte_for_byte_the_same(other: Callable[[], list[Answer]]) -> None:
    expected = via_sync()
    actual = other()
    for case, want, got in zip(CASES, expected, actual, strict=True):
        assert got == want, case[:2]


def test_every_answer_has_a_content_length_and_json_type() -> None:
    for status, headers, body in via_asgi():
        names = dict(headers)
        assert names["content-length"] == str(len(body)), status
        assert names["content-type"] == "application/json"
        json.loads(body)


# -- the ASGI app on its own ------------------------------------------------------------


async def call_asgi(
    app: Any, scope: dict[str, Any], messages: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []
    incoming = list(messages)

    async def receive() -> dict[str, Any]:
        return incoming.pop(0) if incoming else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(scope, receive, send)
    return sent


def http_scope(
    key: ApiKey | None, method: str = "GET", path: str = "/api/external/balance", **extra: Any
) -> dict[str, Any]:
    headers = (
        []
        if key is None
        else [(b"authorization", f"ApiKey {key.client_id}:{key.client_secret}".encode())]
    )
    return {
        "type": "http",
        "method": method,
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": headers + extra.pop("headers", []),
        "client": ("127.0.0.1", 40_000),
        **extra,
    }


NO_BODY = [{"type": "http.request", "body": b"", "more_body": False}]


def status_and_body(sent: list[dict[str, Any]]) -> tuple[int, Any]:
    assert [message["type"] for message in sent] == ["http.response.start", "http.response.body"]
    return sent[0]["status"], json.loads(sent[1]["body"])


def test_lifespan_is_acknowledged() -> None:
    sandbox, _ = world()
    sent = asyncio.run(
        call_asgi(
            sandbox.asgi_app,
            {"type": "lifespan"},
            [{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}],
        )
    )
    assert [message["type"] for message in sent] == [
        "lifespan.startup.complete",
        "lifespan.shutdown.complete",
    ]


def test_streamed_body_is_assembled() -> None:
    sandbox, key = world()
    headers = [
        (b"content-type", b"application/json"),
        (b"hmac", wire.sign(CPF, key.client_secret).encode()),
    ]
    chunks = [
        {"type": "http.request", "body": CPF[:5], "more_body": True},
        {"type": "http.request", "body": CPF[5:], "more_body": False},
    ]
    scope = http_scope(key, "POST", "/api/external/cpf/validate", headers=headers)
    status, body = status_and_body(asyncio.run(call_asgi(sandbox.asgi_app, scope, chunks)))
    assert (status, body["data"]["valid"]) == (200, True)


def test_declared_oversize_is_refused_before_reading() -> None:
    sandbox, key = world()
    scope = http_scope(
        key, "POST", "/api/external/cpf/validate", headers=[(b"content-length", b"2000000")]
    )
    status, body = status_and_body(asyncio.run(call_asgi(sandbox.asgi_app, scope, [])))
    assert (status, body["error"]["status"]) == (413, 413)


def test_streamed_oversize_is_refused_without_a_length() -> None:
    sandbox, key = world()
    chunk = b"x" * 300_000
    chunks = [{"type": "http.request", "body": chunk, "more_body": True} for _ in range(5)]
    scope = http_scope(key, "POST", "/api/external/cpf/validate")
    status, _ = status_and_body(asyncio.run(call_asgi(sandbox.asgi_app, scope, chunks)))
    assert status == 413


def test_disconnect_before_the_body_sends_nothing() -> None:
    sandbox, key = world()
    scope = http_scope(key, "POST", "/api/external/cpf/validate")
    assert asyncio.run(call_asgi(sandbox.asgi_app, scope, [])) == []


def test_query_string_is_kept_out_of_the_path() -> None:
    sandbox, key = world()
    scope = http_scope(key, path="/api/external/nowhere", query_string=b"a=1")
    status, body = status_and_body(asyncio.run(call_asgi(sandbox.asgi_app, scope, NO_BODY)))
    assert status == 404
    assert body["errors"]["not_found"] == "No route for GET /api/external/nowhere"


@pytest.mark.parametrize("client", [None, ("::ffff:127.0.0.1", 1), ("10.9.9.9", 1)])
def test_peer_address_comes_from_the_scope(client: tuple[str, int] | None) -> None:
    sandbox, key = world()
    scope = http_scope(key, client=client)
    status, _ = status_and_body(asyncio.run(call_asgi(sandbox.asgi_app, scope, NO_BODY)))
    assert status == (200 if client is not None and client[0].endswith("127.0.0.1") else 403)


def test_websocket_scope_is_not_served() -> None:
    sandbox, _ = world()
    assert asyncio.run(call_asgi(sandbox.asgi_app, {"type": "websocket"}, [])) == []
