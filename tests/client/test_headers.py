"""The headers a call sends are the same whether the client made its connection pool
(which then carries the headers every call sends) or was given one (left untouched)."""

from __future__ import annotations

import asyncio

import httpx

import pixops

ANSWERS = {
    "/api/external/balance": {
        "worked": True,
        "data": {
            "balance": 1,
            "available_balance": 1,
            "safe_balance": 1,
            "currency": "BRL",
            "as_of": "2026-01-15T12:00:00Z",
        },
    },
    "/api/external/cpf/validate": {"worked": True, "valid": True, "cpf": "52998224725"},
}


def _recorder(seen: list[httpx.Headers]) -> httpx.MockTransport:
    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers)
        return httpx.Response(200, json=ANSWERS[request.url.path])

    return httpx.MockTransport(handle)


def _calls(client: pixops.Client) -> None:
    client.balance()
    client.with_options(key_case="camelCase").request("GET", "/balance").close()
    client.request("POST", "/cpf/validate", {"cpf": "52998224725"}).close()


def _shown(headers: httpx.Headers) -> list[tuple[str, str]]:
    """Every header in order, the per-call random ones (idempotency key, its HMAC) named only."""
    return [
        (name, "<per call>" if name in ("idempotency-key", "hmac") else value)
        for name, value in headers.multi_items()
    ]


def test_own_pool_and_given_pool_send_the_same_headers() -> None:
    own: list[httpx.Headers] = []
    given: list[httpx.Headers] = []
    where = ("https://pix.example", "ci", "cs")
    _calls(pixops.Client(*where, transport=_recorder(own)))
    pool = httpx.Client(transport=_recorder(given))
    before = dict(pool.headers)
    _calls(pixops.Client(*where, http_client=pool))
    assert [_shown(h) for h in own] == [_shown(h) for h in given]
    assert dict(pool.headers) == before  # a pool passed in is not changed
    first = own[0]
    assert first["authorization"] == "ApiKey ci:cs"
    assert (first["accept"], first["user-agent"]) == (
        "application/json",
        f"pixops/{pixops.__version__}",
    )
    assert own[1]["x-key-case"] == "camelCase"
    assert "x-key-case" not in own[2]
    assert own[2]["content-type"] == "application/json"


def test_the_async_client_sends_the_same_headers_from_its_own_pool() -> None:
    synced: list[httpx.Headers] = []
    pixops.Client("https://pix.example", "ci", "cs", transport=_recorder(synced)).balance()
    seen: list[httpx.Headers] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers)
        return httpx.Response(200, json=ANSWERS[request.url.path])

    async def main() -> None:
        client = pixops.AsyncClient(
            "https://pix.example", "ci", "cs", transport=httpx.MockTransport(handle)
        )
        await client.balance()
        await client.aclose()

    asyncio.run(main())
    assert _shown(seen[0]) == _shown(synced[0])
