"""Shared fixtures: a sandbox with one merchant and key, and hand-built raw requests.

The request helper is deliberately tiny and independent of any pixops client: it
writes the `Authorization` header, the JSON bytes and the `hmac` header itself, so
the tests check the service against the spec and not against our own client.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import json
import logging
import socket
import ssl
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import settings
from hypothesis.configuration import set_hypothesis_home_dir

from pixops import wire
from tests import _schedule
from tests._cache import TEST_CACHE

# httpx, uvicorn, the sandbox (the whole engine) and the schema are imported where a
# fixture or helper uses them: the pytest-xdist controller loads this file too, before
# it starts the workers, and runs no test (~0.5 s of CPU and of the run's start).
if TYPE_CHECKING:
    import httpx
    from xdist.remote import Producer

    from pixops.sandbox import ApiKey, Merchant, Sandbox

BASE_URL = "http://sandbox/api/external"

# The spec's Endpoints table (method, path pattern, permission), copied from the spec,
# never from the code, so a route table mistake cannot hide in both.
SPEC_ENDPOINTS = [
    ("POST", "/pix/cash-in", "pix:write"),
    ("POST", "/pix/cash-out", "transfer:write"),
    ("POST", "/pix/refund", "payment:write"),
    ("POST", "/med/:id/defense", "payment:write"),
    ("POST", "/cpf/validate", "account:read"),
    ("POST", "/webhooks", "account:write"),
    ("GET", "/webhooks", "account:read"),
    ("DELETE", "/webhooks/:id", "account:write"),
    ("GET", "/balance", "account:read"),
    ("GET", "/transactions", "transfer:read"),
    ("GET", "/transactions/:id", "transfer:read"),
    ("GET", "/transactions/e2e/:e2e_id", "transfer:read"),
    ("GET", "/transactions/tag/:tag", "transfer:read"),
    ("GET", "/transactions/ref/:external_id", "transfer:read"),
    ("GET", "/transactions/:id/receipt", "transfer:read"),
    ("GET", "/pix/keys", "pix:read"),
    ("GET", "/med", "payment:read"),
    ("GET", "/med/:id", "payment:read"),
    ("GET", "/statement", "statement:read"),
]
JSONBody = dict[str, Any] | list[Any]


# The suite asserts no time (benchmarks/ measures it): on a shared two-core machine an
# example that once takes 275 ms against hypothesis's default 200 ms deadline failed a
# whole run as "DeadlineExceeded". The number of examples stays each test's own.
settings.register_profile("pixops", deadline=None)
settings.load_profile("pixops")

# Hypothesis keeps its example database, the Unicode tables its text strategies draw from
# and the constants it reads out of pixops's modules in the virtualenv's test cache, as
# mypy's cache is, not in the checkout's `.hypothesis/`: a fresh clone has none, and each
# pytest-xdist worker then built the tables again (~3 s of CPU at its first text strategy)
# and parsed every module of pixops for its constants (~1.3 s). Every entry is named by
# what made it (the Unicode version, a module's source hash); the files are written whole.
set_hypothesis_home_dir(TEST_CACHE / "hypothesis")


# -- no silent faults: an ERROR logged by the engine fails the test that caused it ---------


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "expect_engine_errors: the test expects ERROR logs from pixops.engine"
    )
    _schedule.configure(config)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The longest files first (tests/_schedule.py): both xdist workers end together."""
    items[:] = _schedule.longest_files_first(items, _schedule.load_durations())


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(
    config: pytest.Config, log: Producer
) -> _schedule.TogetherScheduling | None:
    """``--dist=loadfile`` keeps tests/_schedule.py's `TOGETHER` files on one worker;
    any other mode is pytest-xdist's own."""
    if config.getoption("dist", None) != "loadfile":
        return None
    return _schedule.TogetherScheduling(config, log)


class _ErrorRecords(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture(autouse=True)
def _engine_errors_fail_the_test(request: pytest.FixtureRequest) -> Iterator[None]:
    """Any ERROR from `pixops.engine` (a timer given up, an unexpected 500, a delivery job
    that raised) fails the test, unless it is marked `expect_engine_errors`."""
    handler = _ErrorRecords()
    engine_log = logging.getLogger("pixops.engine")
    engine_log.addHandler(handler)
    try:
        yield
    finally:
        engine_log.removeHandler(handler)
    if handler.records and request.node.get_closest_marker("expect_engine_errors") is None:
        messages = "; ".join(record.getMessage() for record in handler.records)
        pytest.fail(f"unexpected ERROR logged by pixops.engine: {messages}", pytrace=False)


def authorization(client_id: str, client_secret: str, scheme: str = "ApiKey") -> str:
    """`ApiKey id:secret` or `Basic base64(id:secret)`, written out by hand."""
    if scheme == "Basic":
        token = base64.b64encode(f"{client_id}:{client_secret}".encode()).decode("ascii")
        return f"Basic {token}"
    return f"{scheme} {client_id}:{client_secret}"


def send(
    client: httpx.Client,
    method: str,
    path: str,
    *,
    key: ApiKey | None = None,
    body: JSONBody | bytes | None = None,
    scheme: str = "ApiKey",
    sign: bool = True,
    headers: dict[str, str | None] | None = None,
) -> httpx.Response:
    """One raw request. A dict/list body goes as `json.dumps` bytes with content-type and,
    when a key is given and `sign` is true, its `hmac`; `headers` override or (None) drop."""
    written: dict[str, str] = {}
    if key is not None:
        written["authorization"] = authorization(key.client_id, key.client_secret, scheme)
    content: bytes | None = None
    if body is not None:
        content = body if isinstance(body, bytes) else json.dumps(body).encode("utf-8")
        written["content-type"] = "application/json"
        if key is not None and sign:
            written["hmac"] = wire.sign(content, key.client_secret)
    for name, value in (headers or {}).items():
        written.pop(name.lower(), None)
        if value is not None:
            written[name.lower()] = value
    return client.request(method, path, content=content, headers=written)


class Api:
    """`send` bound to one client and a default key: `api("GET", "/balance")`."""

    def __init__(self, client: httpx.Client, key: ApiKey | None) -> None:
        self.client = client
        self.key = key

    def __call__(
        self,
        method: str,
        path: str,
        body: JSONBody | bytes | None = None,
        *,
        key: ApiKey | str | None = "default",
        **options: Any,
    ) -> httpx.Response:
        from pixops.sandbox import ApiKey

        chosen = self.key if key == "default" else key
        assert chosen is None or isinstance(chosen, ApiKey)
        return send(self.client, method, path, key=chosen, body=body, **options)


@pytest.fixture
def sandbox() -> Sandbox:
    from pixops.sandbox import Sandbox

    return Sandbox()


@pytest.fixture
def merchant(sandbox: Sandbox) -> Merchant:
    return sandbox.create_merchant("Loja Exemplo", balance_centavos=1_000_000)


@pytest.fixture
def key(sandbox: Sandbox, merchant: Merchant) -> ApiKey:
    """Every permission, HMAC on, whitelisted for 127.0.0.1 (in-process and loopback)."""
    return sandbox.issue_api_key(merchant.id, ip_whitelist=["127.0.0.1"])


Connect = Callable[..., Api]


def check_against_schema(response: httpx.Response) -> None:
    """Response hook of the shared clients: every answer the engine tests see must fit
    the wire schema (`pixops.schema`), so the schema cannot drift from the engine."""
    from pixops.schema import check_answer

    response.read()
    problem = check_answer(response.request.method, response.url.path, response.status_code,
                           response.content)  # fmt: skip
    assert problem is None, f"answer outside the wire schema: {problem}"


@pytest.fixture
def connect() -> Iterator[Connect]:
    """`connect(sandbox, key, client_ip="127.0.0.1")`: an `Api` over the in-process transport."""
    import httpx

    clients: list[httpx.Client] = []

    def make(sb: Sandbox, key: ApiKey | None, client_ip: str = "127.0.0.1") -> Api:
        client = httpx.Client(
            transport=sb.transport(client_ip=client_ip),
            base_url=BASE_URL,
            event_hooks={"response": [check_against_schema]},
        )
        clients.append(client)
        return Api(client, key)

    yield make
    for client in clients:
        client.close()


@pytest.fixture
def api(connect: Connect, sandbox: Sandbox, key: ApiKey) -> Api:
    """Requests from 127.0.0.1 with the all-permission key; override with `key=`."""
    return connect(sandbox, key)


# -- a real HTTP server on loopback --------------------------------------------

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
AsgiApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class LiveServer:
    """One uvicorn for the whole session; each test points it at its own sandbox's app."""

    def __init__(self) -> None:
        import uvicorn

        self.app: AsgiApp | None = None
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = int(probe.getsockname()[1])
        # proxy_headers off: the engine reads X-Forwarded-For itself, only from trusted
        # proxies; uvicorn's own rewriting would let any loopback caller spoof its IP.
        config = uvicorn.Config(
            self._dispatch,
            host="127.0.0.1",
            port=self.port,
            interface="asgi3",
            lifespan="off",
            log_level="warning",
            proxy_headers=False,
            access_log=False,
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self._run, name="uvicorn-live", daemon=True)

    def _run(self) -> None:
        asyncio.run(self.server.serve())

    async def _dispatch(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert self.app is not None, "live_client attaches a sandbox before any request"
        await self.app(scope, receive, send)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/external"

    def start(self) -> None:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


@pytest.fixture(scope="session")
def live_server() -> Iterator[LiveServer]:
    server = LiveServer()
    server.start()
    yield server
    server.stop()


@functools.cache
def loopback_tls() -> ssl.SSLContext:
    """One default TLS context for the clients of loopback servers: httpx builds one per
    client otherwise, loading the CA bundle each time (~28 ms of CPU a client)."""
    return ssl.create_default_context()


@pytest.fixture
def live_connect(live_server: LiveServer) -> Iterator[Connect]:
    """Like `connect`, but through the real uvicorn on loopback (the peer is 127.0.0.1)."""
    import httpx

    clients: list[httpx.Client] = []

    def make(sb: Sandbox, key: ApiKey | None, client_ip: str = "127.0.0.1") -> Api:
        assert client_ip == "127.0.0.1", "a loopback server only ever sees 127.0.0.1"
        live_server.app = sb.asgi_app
        client = httpx.Client(
            base_url=live_server.base_url,
            trust_env=False,
            timeout=10,
            verify=loopback_tls(),
            event_hooks={"response": [check_against_schema]},
        )
        clients.append(client)
        return Api(client, key)

    yield make
    for client in clients:
        client.close()
    live_server.app = None
