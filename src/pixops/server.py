"""Server mode: the engine on the wall clock, under uvicorn, with a worker for due timers.

One process, one asyncio loop, one listening socket that we bind ourselves (so port 0
works and the real port is known before serving). TLS, when configured, refuses
anything older than TLS 1.2, as the spec's transport rule requires.

    options = ServeOptions(port=8000)
    PixopsServer(build_engine(options), options).run()   # blocking; Ctrl-C stops it
    with PixopsServer(engine, options) as server:         # or in a background thread
        httpx.get(server.base_url + "/api/external/openapi.json")
"""

from __future__ import annotations

import importlib.util
import ipaddress
import logging
import os
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import Any

import uvicorn

from pixops.engine import merchants, scheduler
from pixops.engine.adapters import AsgiApp
from pixops.engine.clock import WallClock
from pixops.engine.config import EngineConfig
from pixops.engine.core import Engine
from pixops.engine.permissions import PERMISSIONS
from pixops.engine.store import Store
from pixops.money import format_brl

log = logging.getLogger("pixops.server")

DEMO_MERCHANT_NAME = "Loja Demo"
DEMO_BALANCE_CENTAVOS = 1_000_000
DEMO_WHITELIST = ("127.0.0.1", "::1")
HTTP_IMPLEMENTATIONS = ("auto", "h11", "httptools")


@dataclass(frozen=True)
class ServeOptions:
    """Everything `pixops serve` can be told."""

    host: str = "127.0.0.1"
    port: int = 8000
    db: Path | None = None
    tls_cert: Path | None = None
    tls_key: Path | None = None
    rate_limit_per_minute: int = 90_000
    trusted_proxies: tuple[str, ...] = field(default_factory=tuple)
    http: str = "auto"
    log_level: str = "warning"

    def __post_init__(self) -> None:
        if (self.tls_cert is None) != (self.tls_key is None):
            raise ValueError("TLS needs both a certificate and a key")
        if not 0 <= self.port <= 65535:
            raise ValueError("port must be between 0 and 65535")
        if self.rate_limit_per_minute < 1:
            raise ValueError("rate limit must be at least 1 request per minute")
        if self.http not in HTTP_IMPLEMENTATIONS:
            raise ValueError(f"http must be one of {', '.join(HTTP_IMPLEMENTATIONS)}")
        for proxy in self.trusted_proxies:
            ipaddress.ip_address(proxy)

    @property
    def tls(self) -> bool:
        return self.tls_cert is not None


def build_engine(options: ServeOptions) -> Engine:
    """An engine on real time; ids are random (not seeded) so restarts never collide."""
    config = EngineConfig(
        rate_limit_per_minute=options.rate_limit_per_minute,
        trusted_proxies=frozenset(options.trusted_proxies),
    )
    return Engine(store=Store(options.db), clock=WallClock(), config=config, seed=None)


def http_implementation(preferred: str = "auto") -> str:
    """httptools when installed (measured faster, see benchmarks/README.md), else h11."""
    if preferred != "auto":
        return preferred
    return "httptools" if importlib.util.find_spec("httptools") is not None else "h11"


@dataclass(frozen=True)
class DemoCredentials:
    merchant_id: str
    client_id: str
    client_secret: str


def seed_demo_merchant(engine: Engine) -> DemoCredentials | None:
    """A demo merchant and key on an empty database; None when merchants already exist."""
    with engine.store.transaction() as conn:
        if conn.execute("SELECT COUNT(*) FROM merchants").fetchone()[0]:
            return None
        now = engine.now()
        merchant = merchants.create_merchant(
            engine, conn, DEMO_MERCHANT_NAME, balance_centavos=DEMO_BALANCE_CENTAVOS, now=now
        )
        key = merchants.issue_api_key(
            conn,
            merchant.id,
            permissions=sorted(PERMISSIONS),
            ip_whitelist=DEMO_WHITELIST,
            hmac=True,
            expires_at=None,
            now=now,
        )
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
        loop="asyncio",
        http=http_implementation(options.http),
        ssl_certfile=None if options.tls_cert is None else str(options.tls_cert),
        ssl_keyfile=None if options.tls_key is None else str(options.tls_key),
        log_level=options.log_level,
        access_log=False,
        # The engine decides whom to trust for X-Forwarded-For (--trusted-proxy);
        # uvicorn must hand it the real TCP peer.
        proxy_headers=False,
        server_header=False,
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
        """Serve until interrupted (Ctrl-C / SIGTERM); the worker stops with the server."""
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
    """What `pixops serve` prints at start: where it listens and how to call it."""
    api = f"{server.base_url}/api/external"
    options = server.options
    lines = [f"pixops engine listening on {server.base_url}", f"API base URL: {api}"]
    if options.db is None:
        lines.append("database: in memory (use --db PATH to keep data)")
    else:
        lines.append(f"database: {options.db}")
    cacert = f"--cacert {options.tls_cert} " if options.tls else ""
    if credentials is None:
        lines.append("existing database: its merchants' keys apply (secrets are never stored)")
        authorization = "ApiKey <client_id>:<client_secret>"
    else:
        lines += [
            f"demo merchant: {credentials.merchant_id} (balance "
            f"{format_brl(DEMO_BALANCE_CENTAVOS)}, every permission, whitelist 127.0.0.1 and ::1,"
            " HMAC on)",
            f"client_id:     {credentials.client_id}",
            f"client_secret: {credentials.client_secret}",
        ]
        authorization = f"ApiKey {credentials.client_id}:{credentials.client_secret}"
    lines += [
        f'example: curl {cacert}-H "Authorization: {authorization}" {api}/balance',
        f"OpenAPI document: {api}/openapi.json",
        "press Ctrl-C to stop",
    ]
    return "\n".join(lines)


@dataclass(frozen=True)
class DevCertificate:
    cert: Path
    key: Path


def write_dev_certificate(
    out_dir: Path, *, hosts: tuple[str, ...] = (), days: int = 30
) -> DevCertificate:
    """A self-signed EC P-256 certificate for local TLS, valid for loopback and `hosts`.

    Files: `cert.pem` and `key.pem` (mode 0600) in `out_dir`, created if needed.
    """
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    names: list[x509.GeneralName] = []
    for host in ("localhost", "127.0.0.1", "::1", *hosts):
        try:
            entry: x509.GeneralName = x509.IPAddress(ipaddress.ip_address(host))
        except ValueError:
            entry = x509.DNSName(host)
        if entry not in names:
            names.append(entry)
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, (*hosts, "localhost")[0])])
    now = datetime.now(UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=days))
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=False,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(key.public_key()), critical=False
        )
        .sign(key, hashes.SHA256())
    )
    out_dir.mkdir(parents=True, exist_ok=True)
    cert_path = out_dir / "cert.pem"
    key_path = out_dir / "key.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_bytes = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    descriptor = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(key_bytes)
    os.chmod(key_path, 0o600)
    return DevCertificate(cert_path, key_path)
