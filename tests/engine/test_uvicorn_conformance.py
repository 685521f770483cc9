"""The ASGI app under a real uvicorn on loopback answers as the in-process transport does.

(Every test of test_pipeline.py also runs through this server; here are the checks that
only a real socket can make.)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import httpx
import pytest

from pixops import wire
from pixops.engine.config import EngineConfig
from pixops.sandbox import ApiKey, Sandbox
from tests.conftest import loopback_tls

if TYPE_CHECKING:
    from tests.conftest import Api, Connect, LiveServer

CPF = b'{"cpf":"52998224725"}'
SERVER_HEADERS = {"date", "server"}


def world() -> tuple[Sandbox, ApiKey]:
    sandbox = Sandbox(seed=3, rate_limit_per_minute=40)
    owner = sandbox.create_merchant("Loja", balance_centavos=500)
    return sandbox, sandbox.issue_api_key(owner.id, ip_whitelist=["127.0.0.1"])


def script(api: Api) -> list[httpx.Response]:
    """A run of requests whose answers depend on order: counters, replays, 4xx, 413."""
    idem = {"idempotency-key": "order-9"}
    return [
        api("GET", "/balance"),
        api("GET", "/balance", headers={"x-key-case": "camelCase"}),
        api("POST", "/cpf/validate", CPF, headers=idem),
        api("POST", "/cpf/validate", CPF, headers=idem),
        api("POST", "/cpf/validate", b'{"cpf":"1"}', headers=idem),
        api("POST", "/cpf/validate", b'{"cpf":"S\xc3\xa3o"}'),
        api("POST", "/cpf/validate", b"{}", headers={"x-key-case": "camelCase"}),
        api(
            "POST",
            "/cpf/validate",
            b"a=1",
            headers={"content-type": "application/x-www-form-urlencoded"},
        ),
        api("POST", "/cpf/validate", CPF, sign=False),
        api("POST", "/cpf/validate", b"[1]"),
        api("POST", "/cpf/validate", b"x" * 1_048_577),
        api("GET", "/balance", key=None),
        api("GET", "/balance", key=None, headers={"authorization": "Basic ***"}),
        api("PATCH", "/webhooks", b"{}"),
        api("GET", "/nowhere?x=1"),
        api("GET", "/webhooks"),
        api("POST", "/pix/cash-in", {"amount": 1500, "description": "pedido 7"}, headers=idem),
        api("POST", "/pix/cash-in", {"amount": 1500, "description": "pedido 7"}, headers=idem),
        api("GET", "/transactions"),
        api("GET", "/statement?page=1&per_page=2"),
        api("GET", "/transactions/a%2Fb%20c/receipt"),
        api("DELETE", "/webhooks/wh_1"),
    ]


def comparable(response: httpx.Response) -> tuple[int, list[tuple[str, str]], bytes]:
    headers = [(k, v) for k, v in response.headers.multi_items() if k not in SERVER_HEADERS]
    return response.status_code, headers, response.content


def test_server_and_in_process_answer_byte_for_byte_the_same(
    connect: Connect, live_connect: Connect
) -> None:
    local_world = world()
    remote_world = world()
    local = [comparable(r) for r in script(connect(*local_world))]
    remote = [comparable(r) for r in script(live_connect(*remote_world))]
    assert len({status for status, _, _ in local}) >= 7
    for index, (want, got) in enumerate(zip(local, remote, strict=True)):
        assert got == want, index


def test_responses_carry_a_length_not_chunks(live_connect: Connect) -> None:
    sandbox, key = world()
    response = live_connect(sandbox, key)("GET", "/balance")
    assert response.headers["content-length"] == str(len(response.content))
    assert "transfer-encoding" not in response.headers


@pytest.fixture
def raw_client(live_server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(
        base_url=live_server.base_url, trust_env=False, timeout=10, verify=loopback_tls()
    ) as client:
        yield client


def test_declared_oversize_is_413_not_500(
    live_server: LiveServer, raw_client: httpx.Client
) -> None:
    sandbox, key = world()
    live_server.app = sandbox.asgi_app
    body = b"x" * 1_048_577
    response = raw_client.post(
        "/cpf/validate",
        content=body,
        headers={
            "authorization": f"ApiKey {key.client_id}:{key.client_secret}",
            "content-type": "application/json",
            "hmac": wire.sign(body, key.client_secret),
        },
    )
    assert response.status_code == 413
    assert response.json() == {
        "error": {"status": 413, "message": "Request body too large; the limit is 1048576 bytes"}
    }


def test_chunked_oversize_is_413_not_500(live_server: LiveServer, raw_client: httpx.Client) -> None:
    sandbox, key = world()
    live_server.app = sandbox.asgi_app
    chunks = iter([b"x" * 262_144] * 5)
    response = raw_client.post(
        "/cpf/validate",
        content=chunks,
        headers={
            "authorization": f"ApiKey {key.client_id}:{key.client_secret}",
            "content-type": "application/json",
        },
    )
    assert response.status_code == 413
    assert response.json()["error"]["status"] == 413


def test_chunked_body_within_the_limit_is_read(
    live_server: LiveServer, raw_client: httpx.Client
) -> None:
    sandbox, key = world()
    live_server.app = sandbox.asgi_app
    response = raw_client.post(
        "/cpf/validate",
        content=iter([CPF[:4], CPF[4:]]),
        headers={
            "authorization": f"ApiKey {key.client_id}:{key.client_secret}",
            "content-type": "application/json",
            "hmac": wire.sign(CPF, key.client_secret),
        },
    )
    assert (response.status_code, response.json()["data"]["valid"]) == (200, True)


def test_forwarded_for_from_loopback_is_ignored_unless_trusted(live_connect: Connect) -> None:
    client_ip = "203.0.113.7"
    untrusted = Sandbox()
    owner = untrusted.create_merchant("Loja")
    key = untrusted.issue_api_key(owner.id, ip_whitelist=[client_ip])
    spoofed = live_connect(untrusted, key)(
        "GET", "/balance", headers={"x-forwarded-for": client_ip}
    )
    assert spoofed.status_code == 403

    trusting = Sandbox(config=EngineConfig(trusted_proxies=frozenset({"127.0.0.1"})))
    owner = trusting.create_merchant("Loja")
    key = trusting.issue_api_key(owner.id, ip_whitelist=[client_ip])
    forwarded = live_connect(trusting, key)(
        "GET", "/balance", headers={"x-forwarded-for": client_ip}
    )
    assert forwarded.status_code == 200


def test_keep_alive_connection_serves_many_requests(live_connect: Connect) -> None:
    sandbox, key = world()
    api = live_connect(sandbox, key)
    statuses = [api("POST", "/cpf/validate", CPF).status_code for _ in range(30)]
    assert statuses == [200] * 30
    assert api("POST", "/cpf/validate", CPF).headers["x-ratelimit-remaining"] == "9"


def test_repeated_forwarded_for_lines_reach_the_engine_in_order(live_connect: Connect) -> None:
    trusting = Sandbox(config=EngineConfig(trusted_proxies=frozenset({"127.0.0.1"})))
    owner = trusting.create_merchant("Loja")
    key = trusting.issue_api_key(owner.id, ip_whitelist=["203.0.113.7"])
    api = live_connect(trusting, key)
    authorization = ("authorization", f"ApiKey {key.client_id}:{key.client_secret}")
    forged = [
        authorization,
        ("x-forwarded-for", "203.0.113.7"),
        ("x-forwarded-for", "198.51.100.66"),
    ]
    assert api.client.get("/balance", headers=forged).status_code == 403
    honest = [
        authorization,
        ("x-forwarded-for", "198.51.100.66"),
        ("x-forwarded-for", "203.0.113.7"),
    ]
    assert api.client.get("/balance", headers=honest).status_code == 200
