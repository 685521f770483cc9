"""Server mode: the engine under uvicorn, on the wall clock with a worker for due timers.

One process, one asyncio loop, one listening socket that we bind ourselves (so port 0
works and the real port is known before serving). TLS, when configured, refuses
anything older than TLS 1.2, as the spec's transport rule requires.

By default the server runs as a sandbox: the test helpers under `/sandbox/v1` answer
to the admin token printed at start-up, and `manual_clock=True` freezes time until a
helper advances it. `sandbox=False` (`pixops serve --production`) serves the external
API alone: helpers refused, no demo merchant.

    options = ServeOptions(port=8000)
    PixopsServer(build_engine(options), options).run()   # blocking; Ctrl-C stops it
    with PixopsServer(engine, options) as server:         # or in a background thread
        httpx.get(server.base_url + "/api/external/openapi.json")
"""

from __future__ import annotations

import importlib.util
import logging
import shlex
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from types import TracebackType
from typing import Any

import uvicorn

from pixops import wire
from pixops._http_protocols import protocol_class
from pixops._serve_options import HTTP_IMPLEMENTATIONS, LOOP_IMPLEMENTATIONS, ServeOptions
from pixops.engine import scheduler
from pixops.engine.adapters import AsgiApp
from pixops.engine.admin import PREFIX as HELPERS_PREFIX
from pixops.engine.admin import TestHelpers, new_admin_token
from pixops.engine.clock import ManualClock, WallClock
from pixops.engine.config import EngineConfig
from pixops.engine.core import Engine
from pixops.engine.store import Store
from pixops.money import format_brl
from pixops.sandbox import Sandbox

__all__ = [
    "DEMO_BALANCE_CENTAVOS",
    "DEMO_MERCHANT_NAME",
    "DEMO_WHITELIST",
    "HTTP_IMPLEMENTATIONS",
    "LOOP_IMPLEMENTATIONS",
    "DemoCredentials",
    "PixopsServer",
    "ServeOptions",
    "TimerWorker",
    "banner",
    "bind_socket",
    "build_engine",
    "http_implementation",
    "loop_implementation",
    "mount_test_helpers",
    "require_tls12",
    "seed_demo_merchant",
    "signed_post_example",
    "uvicorn_config",
]

log = logging.getLogger("pixops.server")

DEMO_MERCHANT_NAME = "Loja Demo"
DEMO_BALANCE_CENTAVOS = 1_000_000
DEMO_WHITELIST = ("127.0.0.1", "::1")


def build_engine(options: ServeOptions) -> Engine:
    """An engine on real time, or on a manual clock that starts at the wall clock's second.

    Ids are random (not seeded) so restarts on one database never collide. A database
    file commits in groups (`Store(group_commit=True)`): the ASGI app sends each answer
    only once the fsync that covers it has finished, so a 2xx still means durable.
    """
    config = EngineConfig(
        rate_limit_per_minute=options.rate_limit_per_minute,
        trusted_proxies=frozenset(options.trusted_proxies),
    )
    clock = (
        ManualClock(datetime.now(UTC).replace(microsecond=0))
        if options.manual_clock
        else WallClock()
    )
    store = Store(options.db, group_commit=options.db is not None)
    return Engine(store=store, clock=clock, config=config, seed=None)


def mount_test_helpers(engine: Engine, options: ServeOptions) -> str | None:
    """Mount the test helpers on `engine`; returns their admin token (None: refused)."""
    token = new_admin_token() if options.sandbox else None
    TestHelpers(Sandbox.over(engine), token).mount(engine)
    return token


def http_implementation(preferred: str = "auto") -> str:
    """httptools when installed (measured faster, see benchmarks/README.md), else h11."""
    if preferred != "auto":
        return preferred
    return "httptools" if importlib.util.find_spec("httptools") is not None else "h11"


def loop_implementation(preferred: str = "auto") -> str:
    """uvloop when installed (uvicorn's own choice in its standard set; measured about 3 %
    less server CPU per request of the load mix, see benchmarks/README.md), else asyncio."""
    if preferred != "auto":
        return preferred
    return "uvloop" if importlib.util.find_spec("uvloop") is not None else "asyncio"


@dataclass(frozen=True)
class DemoCredentials:
    merchant_id: str
    client_id: str
    client_secret: str


def seed_demo_merchant(engine: Engine) -> DemoCredentials | None:
    """A demo merchant and key on an empty database; None when merchants already exist.

    Made through the sandbox's own `create_merchant` and `issue_api_key`, in one
    transaction with the emptiness check.
    """
    sandbox = Sandbox.over(engine)
    with engine.store.transaction() as conn:
        if conn.execute("SELECT COUNT(*) FROM merchants").fetchone()[0]:
            return None
        merchant = sandbox.create_merchant(
            DEMO_MERCHANT_NAME, balance_centavos=DEMO_BALANCE_CENTAVOS
        )
        key = sandbox.issue_api_key(merchant.id, ip_whitelist=DEMO_WHITELIST)
    # The key is printed next: it must exist after a crash that follows.
    engine.store.wait_all_durable()
    return DemoCredentials(merchant.id, key.client_id, key.client_secret)


class TimerWorker:
    """Runs the engine's due timers on the wall clock, in a daemon thread, until stopped.

    It sleeps until the next timer is due (at most `max_sleep_timeout`), waking early
    when a request may have scheduled new work; `min_interval` bounds how often it
    polls under heavy request load, so a timer runs at most about 50 ms late and the
    worker costs the request path (which shares the GIL) well under 1% of its time.
    """

    def __init__(
        self,
        engine: Engine,
        *,
        max_sleep_timeout: float = 0.1,
        min_interval: float = 0.05,
    ) -> None:
        self.engine = engine
        self.max_sleep_timeout = max_sleep_timeout
        self.min_interval = min_interval
        self.ran = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="pixops-timers", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self.ran += self.engine.run_due()
                delay = self._delay_until_next_due()
            except Exception:
                log.exception("timer worker: running due work failed")
                delay = self.max_sleep_timeout
            if delay > 0:
                self.engine.wait_for_work(delay)
            self._stop.wait(self.min_interval)

    def _delay_until_next_due(self) -> float:
        with self.engine.store.lock:
            due = scheduler.next_due(self.engine.store.conn)
        if due is None:
            return self.max_sleep_timeout
        delay = (due - self.engine.now()).total_seconds()
        return min(max(delay, 0.0), self.max_sleep_timeout)


def bind_socket(host: str, port: int) -> socket.socket:
    """The listening socket, bound before uvicorn starts so port 0 resolves at once.

    Made with an explicit IPPROTO_TCP: asyncio disables Nagle's algorithm only on
    sockets that say so, and without it every response pays a 40 ms delayed ACK.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    (found_family, kind, proto, _, address), *_ = socket.getaddrinfo(
        host, port, family, socket.SOCK_STREAM, socket.IPPROTO_TCP, socket.AI_PASSIVE
    )
    sock = socket.socket(found_family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if found_family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        sock.bind(address)
        sock.listen(2048)
    except BaseException:
        sock.close()
        raise
    return sock


def require_tls12(context: ssl.SSLContext) -> None:
    """The spec's transport rule: TLS 1.2 or newer, whatever the system default is."""
    context.minimum_version = ssl.TLSVersion.TLSv1_2


def uvicorn_config(app: Callable[..., Any], options: ServeOptions, port: int) -> uvicorn.Config:
    """The uvicorn settings of server mode (also used for the benchmarks' ceiling app)."""
    return uvicorn.Config(
        app,
        host=options.host,
        port=port,
        loop=loop_implementation(options.loop),
        http=protocol_class(http_implementation(options.http)),
        ssl_certfile=None if options.tls_cert is None else str(options.tls_cert),
        ssl_keyfile=None if options.tls_key is None else str(options.tls_key),
        log_level=options.log_level,
        access_log=False,
        # The engine decides whom to trust for X-Forwarded-For (--trusted-proxy);
        # uvicorn must hand it the real TCP peer.
        proxy_headers=False,
        server_header=False,
        # The engine dates every answer on its own clock (a manual clock's virtual
        # time included); uvicorn's wall-clock Date would be a second, different one.
        date_header=False,
        lifespan="on",
        timeout_graceful_shutdown=5,
    )


class PixopsServer:
    """The engine's ASGI app under uvicorn, plus the timer worker."""

    def __init__(self, engine: Engine, options: ServeOptions) -> None:
        self.engine = engine
        self.options = options
        self.socket = bind_socket(options.host, options.port)
        self.config = uvicorn_config(AsgiApp(engine), options, self.port)
        try:
            self.config.load()
        except BaseException:
            self.socket.close()
            raise
        if self.config.ssl is not None:
            require_tls12(self.config.ssl)
        self.uvicorn = uvicorn.Server(self.config)
        self.worker = TimerWorker(engine)
        self.admin_token = mount_test_helpers(engine, options)
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self.socket.getsockname()[1])

    @property
    def base_url(self) -> str:
        """`scheme://host:port`, with a wildcard bind address shown as loopback."""
        wildcard = {"0.0.0.0": "127.0.0.1", "::": "::1"}  # noqa: S104 (display only)
        host = wildcard.get(self.options.host, self.options.host)
        if ":" in host:
            host = f"[{host}]"
        scheme = "https" if self.options.tls else "http"
        return f"{scheme}://{host}:{self.port}"

    def run(self) -> None:
        """Serve until interrupted (Ctrl-C / SIGTERM); the worker stops with the server.

        On a manual clock there is no worker: timers run when a helper advances time.
        """
        if not self.options.manual_clock:
            self.worker.start()
        try:
            self.uvicorn.run(sockets=[self.socket])
        finally:
            self.worker.stop()
            self.socket.close()

    def start(self, timeout: float = 10.0) -> None:
        """Serve from a background thread; returns once the socket accepts requests."""
        if self._thread is not None:
            raise RuntimeError("server already started")
        self._thread = threading.Thread(target=self.run, name="pixops-server", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self.uvicorn.started:
            if not self._thread.is_alive():
                raise RuntimeError("server failed to start")
            if time.monotonic() > deadline:
                self.stop()
                raise TimeoutError("server did not start in time")
            time.sleep(0.01)

    def stop(self, timeout: float = 10.0) -> None:
        """Ask uvicorn to finish gracefully and wait for it; safe to call twice."""
        self.uvicorn.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():
                self.uvicorn.force_exit = True
                self._thread.join(timeout)
        self.worker.stop()
        self.socket.close()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def __enter__(self) -> PixopsServer:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


def banner(server: PixopsServer, credentials: DemoCredentials | None) -> str:
    """What `pixops serve` prints at start: where it listens and how to call it.

    Every command in it works when pasted into bash (curl and openssl on the PATH).
    """
    api = f"{server.base_url}/api/external"
    options = server.options
    mode = "a sandbox" if options.sandbox else "production mode: no test helpers"
    clock = "manual clock" if options.manual_clock else "wall clock"
    lines = [
        f"pixops engine listening on {server.base_url} ({mode}, {clock})",
        f"API base URL: {api}",
    ]
    if options.db is None:
        lines.append("database: in memory (use --db PATH to keep data)")
    else:
        lines.append(f"database: {options.db}")
    cacert = f"--cacert {shlex.quote(str(options.tls_cert))} " if options.tls else ""
    if credentials is None:
        issue = f"pixops keys issue --db {options.db or 'PATH'}"
        if options.sandbox:
            lines.append(
                "existing database: its merchants' keys apply (secrets are never stored);"
                f" a new key: {issue}"
            )
        else:
            lines.append(
                "no demo merchant in production mode; the database's keys apply;"
                f" new merchant and key: {issue} --new-merchant NAME"
            )
        authorization = "ApiKey <client_id>:<client_secret>"
    else:
        lines += [
            f"demo merchant: {credentials.merchant_id} (balance "
            f"{format_brl(DEMO_BALANCE_CENTAVOS)}, every permission, whitelist 127.0.0.1 and ::1,"
            " HMAC on)",
            f"client_id:     {credentials.client_id}",
            f"client_secret: {credentials.client_secret}",
            "for pixops.connect() and the commands below:",
            f"  export PIXOPS_BASE_URL={server.base_url}"
            f" PIXOPS_CLIENT_ID={credentials.client_id}"
            f" PIXOPS_CLIENT_SECRET={credentials.client_secret}",
        ]
        authorization = f"ApiKey {credentials.client_id}:{credentials.client_secret}"
    lines.append(f'example: curl {cacert}-H "Authorization: {authorization}" {api}/balance')
    if credentials is not None:
        lines += [
            "signed POST, a R$ 25,00 charge (bash, curl, openssl):",
            *signed_post_example(api, cacert, credentials),
        ]
    if server.admin_token is not None:
        helpers = f"{server.base_url}{HELPERS_PREFIX}"
        lines += [
            f"sandbox test helpers: {helpers} (pay charges, receive PIX, MED, clock; docs/api.md)",
            f"admin token: {server.admin_token}",
        ]
        if credentials is not None:
            payload = wire.canonical_json({"amount": 5_000, "payer_name": "Maria Silva"})
            lines += [
                "a R$ 50,00 PIX arrives:",
                f"  curl -sS {cacert}-X POST {helpers}/merchants/{credentials.merchant_id}"
                f"/received-pix -H 'Authorization: Bearer {server.admin_token}'"
                f" -H 'Content-Type: application/json'"
                f" --data {shlex.quote(payload.decode())}",
            ]
    lines += [f"OpenAPI document: {api}/openapi.json", "press Ctrl-C to stop"]
    return "\n".join(lines)


def signed_post_example(api: str, cacert: str, credentials: DemoCredentials) -> list[str]:
    """Three bash lines: a body, its HMAC-SHA512 by openssl, and the curl that sends both."""
    body = wire.canonical_json({"amount": 2_500, "description": "Pedido 1"}).decode()
    secret = shlex.quote(credentials.client_secret)
    authorization = shlex.quote(
        f"Authorization: ApiKey {credentials.client_id}:{credentials.client_secret}"
    )
    return [
        f"  BODY={shlex.quote(body)}",
        f"  SIG=$(printf '%s' \"$BODY\" | openssl dgst -sha512 -hmac {secret}"
        " | awk '{print $NF}')",
        f"  curl -sS {cacert}-X POST {api}/pix/cash-in -H {authorization}"
        ' -H \'Content-Type: application/json\' -H "hmac: $SIG" --data "$BODY"',
    ]
