"""Server mode over real sockets: uvicorn on a free loopback port, TLS, the timer worker."""

from __future__ import annotations

import importlib.util
import json
import socket
import ssl
import threading
import time
import warnings
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from pixops import wire
from pixops.devcert import DevCertificate, write_dev_certificate
from pixops.engine import scheduler
from pixops.engine.core import Engine
from pixops.server import (
    DemoCredentials,
    PixopsServer,
    ServeOptions,
    TimerWorker,
    banner,
    build_engine,
    loop_implementation,
    seed_demo_merchant,
    uvicorn_config,
)

pytestmark = pytest.mark.timeout(60)

TICKS: list[tuple[str, float]] = []


@scheduler.timer("test.server_tick")
def _tick(engine: Engine, conn: Any, ref: str, payload: dict[str, Any]) -> None:
    TICKS.append((ref, time.monotonic()))


def auth(credentials: DemoCredentials) -> dict[str, str]:
    return {"Authorization": f"ApiKey {credentials.client_id}:{credentials.client_secret}"}


def signed(credentials: DemoCredentials, payload: dict[str, Any]) -> tuple[bytes, dict[str, str]]:
    body = wire.canonical_json(payload)
    headers = {
        **auth(credentials),
        "content-type": "application/json",
        "hmac": wire.sign(body, credentials.client_secret),
    }
    return body, headers


def serve(options: ServeOptions) -> tuple[PixopsServer, DemoCredentials]:
    engine = build_engine(options)
    credentials = seed_demo_merchant(engine)
    assert credentials is not None
    return PixopsServer(engine, options), credentials


@pytest.fixture
def running() -> Iterator[tuple[PixopsServer, DemoCredentials]]:
    server, credentials = serve(ServeOptions(port=0))
    with server:
        yield server, credentials


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> DevCertificate:
    return write_dev_certificate(tmp_path_factory.mktemp("tls"))


def test_seeded_credentials_work_over_http(running: tuple[PixopsServer, DemoCredentials]) -> None:
    server, credentials = running
    with httpx.Client(base_url=server.base_url + "/api/external") as client:
        balance = client.get("/balance", headers=auth(credentials))
        body, headers = signed(credentials, {"cpf": "529.982.247-25"})
        validation = client.post("/cpf/validate", content=body, headers=headers)
        anonymous = client.get("/balance")
    assert balance.status_code == 200
    assert balance.json()["data"]["balance"] == 10_000_00 * 100
    assert validation.status_code == 200
    assert validation.json()["data"]["valid"] is True
    assert int(validation.headers["x-ratelimit-remaining"]) == 90_000 - 1
    assert anonymous.status_code == 401


def test_http_answers_byte_for_byte_as_in_process(
    running: tuple[PixopsServer, DemoCredentials],
) -> None:
    server, credentials = running
    body, headers = signed(credentials, {"cpf": "111.444.777-35"})
    over_http = httpx.post(
        server.base_url + "/api/external/cpf/validate", content=body, headers=headers
    )
    from pixops.engine.adapters import EngineTransport

    with httpx.Client(
        transport=EngineTransport(server.engine), base_url="http://in-process/api/external"
    ) as client:
        in_process = client.post("/cpf/validate", content=body, headers=headers)
    assert over_http.status_code == in_process.status_code == 200
    assert over_http.content == in_process.content
    assert over_http.headers["content-length"] == str(len(over_http.content))
    assert "server" not in over_http.headers


def test_seed_only_on_an_empty_database(tmp_path: Path) -> None:
    options = ServeOptions(port=0, db=tmp_path / "pix.db")
    first = build_engine(options)
    credentials = seed_demo_merchant(first)
    assert credentials is not None
    assert seed_demo_merchant(first) is None
    first.store.close()
    reopened = build_engine(options)
    assert seed_demo_merchant(reopened) is None
    with PixopsServer(reopened, options) as server:
        response = httpx.get(server.base_url + "/api/external/balance", headers=auth(credentials))
        text = banner(server, None)
    assert response.status_code == 200
    assert "existing database" in text
    assert credentials.client_secret not in text


def test_banner_shows_credentials_and_a_curl_example(
    running: tuple[PixopsServer, DemoCredentials],
) -> None:
    server, credentials = running
    text = banner(server, credentials)
    assert f"http://127.0.0.1:{server.port}/api/external" in text
    assert credentials.client_id in text
    assert credentials.client_secret in text
    assert "R$ 10.000,00" in text
    expected = (
        f'curl -H "Authorization: ApiKey {credentials.client_id}:{credentials.client_secret}" '
        f"http://127.0.0.1:{server.port}/api/external/balance"
    )
    assert expected in text


def test_https_with_the_dev_certificate(certificate: DevCertificate) -> None:
    server, credentials = serve(
        ServeOptions(port=0, tls_cert=certificate.cert, tls_key=certificate.key)
    )
    trust = ssl.create_default_context(cafile=str(certificate.cert))
    with server:
        assert server.base_url == f"https://127.0.0.1:{server.port}"
        for host in ("127.0.0.1", "localhost"):
            url = f"https://{host}:{server.port}/api/external/balance"
            response = httpx.get(url, headers=auth(credentials), verify=trust)
            assert response.status_code == 200
        with pytest.raises(httpx.ConnectError):
            httpx.get(server.base_url + "/api/external/balance", verify=True)
        with (
            socket.create_connection(("127.0.0.1", server.port), timeout=5) as raw,
            trust.wrap_socket(raw, server_hostname="localhost") as tls,
        ):
            assert tls.version() in ("TLSv1.2", "TLSv1.3")
        tls12 = ssl.create_default_context(cafile=str(certificate.cert))
        tls12.maximum_version = ssl.TLSVersion.TLSv1_2
        with (
            socket.create_connection(("127.0.0.1", server.port), timeout=5) as raw,
            tls12.wrap_socket(raw, server_hostname="localhost") as tls,
        ):
            assert tls.version() == "TLSv1.2"


def tls11_client() -> ssl.SSLContext:
    """A client that speaks only TLS 1.1 (security level 0 lets OpenSSL 3 offer it)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        context.set_ciphers("DEFAULT:@SECLEVEL=0")
        context.minimum_version = ssl.TLSVersion.TLSv1_1
        context.maximum_version = ssl.TLSVersion.TLSv1_1
    return context


def handshake(port: int, context: ssl.SSLContext) -> str | None:
    with (
        socket.create_connection(("127.0.0.1", port), timeout=5) as raw,
        context.wrap_socket(raw) as tls,
    ):
        return tls.version()


def test_tls_below_1_2_is_refused(certificate: DevCertificate) -> None:
    # Control: this client really does complete TLS 1.1 with a server that allows it,
    # so the refusal below comes from the server's minimum, not from the client.
    permissive = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    permissive.load_cert_chain(certificate.cert, certificate.key)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        permissive.set_ciphers("DEFAULT:@SECLEVEL=0")
        permissive.minimum_version = ssl.TLSVersion.TLSv1_1
    listener = socket.create_server(("127.0.0.1", 0))
    accepted: list[str | None] = []

    def accept_one() -> None:
        connection, _ = listener.accept()
        with permissive.wrap_socket(connection, server_side=True) as tls:
            accepted.append(tls.version())

    thread = threading.Thread(target=accept_one)
    thread.start()
    assert handshake(listener.getsockname()[1], tls11_client()) == "TLSv1.1"
    thread.join(5)
    listener.close()
    assert accepted == ["TLSv1.1"]

    server, _ = serve(ServeOptions(port=0, tls_cert=certificate.cert, tls_key=certificate.key))
    with server:
        assert server.config.ssl is not None
        assert server.config.ssl.minimum_version == ssl.TLSVersion.TLSv1_2
        with pytest.raises((ssl.SSLError, ConnectionResetError)):
            handshake(server.port, tls11_client())


def test_worker_runs_due_timers_on_the_wall_clock(
    running: tuple[PixopsServer, DemoCredentials],
) -> None:
    server, _ = running
    engine = server.engine
    scheduled_at = time.monotonic()
    with engine.store.transaction() as conn:
        scheduler.schedule(
            conn, engine.now() + timedelta(milliseconds=300), "test.server_tick", "a"
        )
    deadline = scheduled_at + 5
    while not any(ref == "a" for ref, _ in TICKS) and time.monotonic() < deadline:
        time.sleep(0.02)
    ran_at = next(moment for ref, moment in TICKS if ref == "a")
    assert 0.29 <= ran_at - scheduled_at < 2.0
    assert server.worker.ran >= 1
    with engine.store.lock:
        assert scheduler.next_due(engine.store.conn) is None


def test_timer_worker_stops_promptly() -> None:
    engine = build_engine(ServeOptions(port=0))
    worker = TimerWorker(engine)
    worker.start()
    with engine.store.transaction() as conn:
        scheduler.schedule(conn, engine.now(), "test.server_tick", "b")
    deadline = time.monotonic() + 5
    while not any(ref == "b" for ref, _ in TICKS) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert any(ref == "b" for ref, _ in TICKS)
    started = time.monotonic()
    worker.stop()
    assert not worker.alive
    assert time.monotonic() - started < 1.0


def test_clean_shutdown_closes_the_port() -> None:
    server, credentials = serve(ServeOptions(port=0))
    server.start()
    port = server.port
    assert httpx.get(
        server.base_url + "/api/external/balance", headers=auth(credentials)
    ).is_success
    server.stop()
    assert not server.running
    assert not server.worker.alive
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    server.stop()


def test_rate_limit_and_trusted_proxy_options_reach_the_engine() -> None:
    options = ServeOptions(port=0, rate_limit_per_minute=2, trusted_proxies=("127.0.0.1",))
    server, credentials = serve(options)
    url = server.base_url + "/api/external"
    with server, httpx.Client(base_url=url) as client:
        statuses = []
        for _ in range(3):
            body, headers = signed(credentials, {"cpf": "52998224725"})
            statuses.append(client.post("/cpf/validate", content=body, headers=headers).status_code)
        assert statuses == [200, 200, 429]
        # GET /balance skips the limiter; the trusted proxy's X-Forwarded-For is honoured.
        forwarded = client.get(
            "/balance", headers={**auth(credentials), "x-forwarded-for": "203.0.113.9"}
        )
        direct = client.get("/balance", headers=auth(credentials))
    assert forwarded.status_code == 403
    assert forwarded.json()["error"]["message"] == "Request IP not in API key whitelist"
    assert direct.status_code == 200


def test_forwarded_for_is_ignored_from_an_untrusted_peer(
    running: tuple[PixopsServer, DemoCredentials],
) -> None:
    server, credentials = running
    response = httpx.get(
        server.base_url + "/api/external/balance",
        headers={**auth(credentials), "x-forwarded-for": "203.0.113.9"},
    )
    assert response.status_code == 200


def test_options_are_validated() -> None:
    with pytest.raises(ValueError, match="both"):
        ServeOptions(tls_cert=Path("cert.pem"))
    with pytest.raises(ValueError, match="port"):
        ServeOptions(port=70_000)
    with pytest.raises(ValueError, match="rate limit"):
        ServeOptions(rate_limit_per_minute=0)
    with pytest.raises(ValueError, match="does not appear to be an IPv4 or IPv6 address"):
        ServeOptions(trusted_proxies=("not-an-ip",))
    with pytest.raises(ValueError, match="loop must be one of auto, asyncio, uvloop"):
        ServeOptions(loop="trio")


def test_the_event_loop_is_uvloop_when_installed_and_asyncio_when_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert loop_implementation("asyncio") == "asyncio"
    assert loop_implementation("uvloop") == "uvloop"
    installed = importlib.util.find_spec("uvloop") is not None
    assert loop_implementation() == ("uvloop" if installed else "asyncio")
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    assert loop_implementation() == "asyncio"
    config = uvicorn_config(lambda: None, ServeOptions(port=0, loop="asyncio"), 0)
    assert config.loop == "asyncio"


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_a_server_answers_on_either_event_loop(loop: str) -> None:
    if loop == "uvloop":
        pytest.importorskip("uvloop")
    server, credentials = serve(ServeOptions(port=0, loop=loop))
    with server:
        response = httpx.get(server.base_url + "/api/external/balance", headers=auth(credentials))
    assert response.status_code == 200


def test_responses_are_not_held_back_by_nagle(
    running: tuple[PixopsServer, DemoCredentials],
) -> None:
    # With Nagle's algorithm on, a response written in two parts (head, body) waits
    # for the client's delayed ACK: about 40 ms per request on Linux.
    server, credentials = running
    assert server.socket.proto == socket.IPPROTO_TCP
    with httpx.Client(base_url=server.base_url + "/api/external") as client:
        client.get("/balance", headers=auth(credentials))
        started = time.monotonic()
        for _ in range(20):
            assert client.get("/balance", headers=auth(credentials)).status_code == 200
        elapsed = time.monotonic() - started
    assert elapsed < 0.6


@pytest.mark.parametrize("http", ["h11", "httptools"])
@pytest.mark.parametrize(
    "request_bytes",
    [
        b"GARBAGE\r\n\r\n",
        b"GET /a b c HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /api/external/balance HTTP/1.1\r\nBad Header\r\n\r\n",
    ],
)
def test_a_malformed_request_gets_the_json_error_shape(http: str, request_bytes: bytes) -> None:
    server, _ = serve(ServeOptions(port=0, http=http))
    with server:
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as conn:
            conn.sendall(request_bytes)
            answer = b""
            while chunk := conn.recv(65536):
                answer += chunk
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 400"), answer
        assert b"content-type: application/json" in head.lower()
        assert json.loads(body) == {
            "error": {"status": 400, "message": "Invalid HTTP request received."}
        }
        assert httpx.get(server.base_url + "/api/external/openapi.json").status_code == 200
