"""Scaffolding of the stress tests: `pixops serve` as a real subprocess, raw signed
requests, and the invariants every stress test checks afterwards.

Nothing here uses the pixops client: requests are written byte by byte (JSON body,
`Authorization`, `hmac`), so the tests check the served engine and not our own client.
Only loopback addresses are ever targeted; every process started is stopped by the
caller's `finally` (see `served`).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import secrets
import signal
import sqlite3
import ssl
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from pixops import wire
from pixops.engine import ledger
from pixops.sandbox import Sandbox

API = "/api/external"
#: A documented test key that accepts and then settles (docs/sandbox-test-keys.md).
SETTLING_KEY = "maria.silva@sandbox.pixops.dev"
START_TIMEOUT_S = 20.0
_PORT = re.compile(r"listening on https?://\S+:(\d+)")


@dataclass(frozen=True)
class Credentials:
    merchant_id: str
    client_id: str
    client_secret: str


@dataclass
class ServerProcess:
    """One `pixops serve --db PATH --port 0` subprocess on 127.0.0.1."""

    db: Path
    extra_args: tuple[str, ...] = ()
    preexec: Callable[[], None] | None = None
    process: subprocess.Popen[str] | None = None
    port: int = 0
    banner: list[str] = field(default_factory=list)
    stderr_path: Path | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}{API}"

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def start(self) -> ServerProcess:
        # Beside the database only if that directory is writable: a test may make it not.
        scratch = Path(tempfile.gettempdir())
        self.stderr_path = scratch / f"pixops-stress-{secrets.token_hex(4)}.stderr"
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        command = [sys.executable, "-m", "pixops", "serve", "--db", str(self.db), "--port", "0"]
        with self.stderr_path.open("w") as stderr:
            self.process = subprocess.Popen(
                [*command, *self.extra_args],
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
                env=env,
                preexec_fn=self.preexec,
            )
        deadline = time.monotonic() + START_TIMEOUT_S
        assert self.process.stdout is not None
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError(f"pixops serve exited at start: {self.stderr_text()}")
            self.banner.append(line.rstrip("\n"))
            found = _PORT.search(line)
            if found:
                self.port = int(found.group(1))
            if line.startswith("press Ctrl-C"):
                return self
        self.stop()
        raise TimeoutError("pixops serve printed no banner in time")

    def demo_credentials(self) -> Credentials | None:
        """The banner's demo credentials (only printed on an empty database)."""
        text = "\n".join(self.banner)
        merchant = re.search(r"demo merchant: (mer_\w+)", text)
        client_id = re.search(r"client_id:\s+(cli_\w+)", text)
        secret = re.search(r"client_secret:\s+(sk_\S+)", text)
        if merchant is None or client_id is None or secret is None:
            return None
        return Credentials(merchant.group(1), client_id.group(1), secret.group(1))

    def kill(self) -> None:
        """SIGKILL: no shutdown handler, no flush, no goodbye."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL if it lingers; safe to call twice. Removes its log."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
        if self.process is not None and self.process.stdout is not None:
            self.process.stdout.close()
        if self.stderr_path is not None:
            self.stderr_path.unlink(missing_ok=True)

    def stderr_text(self) -> str:
        if self.stderr_path is None or not self.stderr_path.exists():
            return ""
        return self.stderr_path.read_text(errors="replace")


@contextlib.contextmanager
def served(db: Path, *extra_args: str, count: int = 1) -> Iterator[list[ServerProcess]]:
    """`count` servers on one database file, all stopped on the way out."""
    servers: list[ServerProcess] = []
    try:
        for _ in range(count):
            servers.append(ServerProcess(db, extra_args).start())
        yield servers
    finally:
        for server in servers:
            server.stop()


# -- seeding a database file before (or while) a server uses it ----------------


@dataclass(frozen=True)
class Seeded:
    credentials: Credentials
    received_ids: list[str]


def seed_merchant(
    db: Path,
    *,
    balance_centavos: int,
    received_centavos: tuple[int, ...] = (),
    name: str = "Loja Estresse",
    start: datetime | None = None,
) -> Seeded:
    """A merchant, an every-permission key for 127.0.0.1 and received PIX, written to `db`.

    The sandbox writes through the engine's own code on the same file the server will
    open, with its clock set to `start` (default now) so deadlines are those of a real
    day; a sandbox opened on `db` later goes on from there, never before.
    """
    sandbox = Sandbox(path=db, seed=secrets.randbits(32), start=start or datetime.now(UTC))
    try:
        merchant = sandbox.create_merchant(name, balance_centavos=balance_centavos)
        key = sandbox.issue_api_key(merchant.id, ip_whitelist=["127.0.0.1"])
        received = [
            sandbox.receive_pix(merchant.id, amount_centavos=amount) for amount in received_centavos
        ]
    finally:
        sandbox.engine.store.close()
    return Seeded(Credentials(merchant.id, key.client_id, key.client_secret), received)


# -- raw requests ---------------------------------------------------------------


def auth_header(credentials: Credentials) -> str:
    return f"ApiKey {credentials.client_id}:{credentials.client_secret}"


def post(
    client: httpx.Client,
    path: str,
    payload: dict[str, Any],
    credentials: Credentials,
    *,
    idempotency_key: str | None = None,
    camel: bool = False,
) -> httpx.Response:
    """A signed POST with the exact bytes that were signed."""
    body = json.dumps(payload, separators=(",", ":")).encode("utf-8")
    headers = {
        "authorization": auth_header(credentials),
        "content-type": "application/json",
        "hmac": wire.sign(body, credentials.client_secret),
    }
    if idempotency_key is not None:
        headers["idempotency-key"] = idempotency_key
    if camel:
        headers["x-key-case"] = "camelCase"
    return client.post(path, content=body, headers=headers)


def get(
    client: httpx.Client, path: str, credentials: Credentials, **params: str | int
) -> httpx.Response:
    return client.get(path, params=params, headers={"authorization": auth_header(credentials)})


def http_client(base_url: str, *, timeout: float = 30.0) -> httpx.Client:
    """A client of a loopback server (one TLS context for all: httpx would load the CA
    bundle for each client, ~28 ms of CPU, and the concurrency tests make 180 clients)."""
    return httpx.Client(base_url=base_url, timeout=timeout, trust_env=False, verify=_tls())


@functools.cache
def _tls() -> ssl.SSLContext:
    return ssl.create_default_context()


# -- invariants --------------------------------------------------------------------


def invariant_violations(conn: sqlite3.Connection) -> list[str]:
    """Every broken ledger or refund invariant in the database, as readable lines.

    * the journal sums to each account's ledger balance and active holds to its held
      balance (`ledger.audit`);
    * no account's ledger or available balance is below zero;
    * no original's refunds that completed or may still complete exceed its amount.
    """
    problems: list[str] = []
    merchant_ids = [row[0] for row in conn.execute("SELECT merchant_id FROM accounts")]
    for merchant_id in merchant_ids:
        audit = ledger.audit(conn, merchant_id)
        if not audit.consistent:
            problems.append(f"{merchant_id}: audit inconsistent {audit}")
        if audit.balance.ledger_base < 0 or audit.balance.available_base < 0:
            problems.append(f"{merchant_id}: balance below zero {audit.balance}")
    over_refunded = conn.execute(
        "SELECT o.transaction_id, o.amount_base, SUM(r.amount_base)"
        " FROM transactions r JOIN transactions o ON o.transaction_id = r.original_transaction_id"
        " WHERE r.kind IN ('refund', 'med_refund') AND r.status NOT IN ('failed', 'rejected')"
        " GROUP BY o.transaction_id HAVING SUM(r.amount_base) > o.amount_base"
    ).fetchall()
    problems.extend(
        f"{original}: refunds {total} exceed original {amount}"
        for original, amount, total in over_refunded
    )
    return problems


def open_readonly(db: Path) -> sqlite3.Connection:
    """A second connection to a database file that a server may still be using."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, isolation_level=None)
    conn.execute("PRAGMA busy_timeout = 5000")
    return conn


def file_violations(db: Path) -> list[str]:
    conn = open_readonly(db)
    try:
        return invariant_violations(conn)
    finally:
        conn.close()


def integrity(db: Path) -> str:
    conn = open_readonly(db)
    try:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        conn.close()


def leaks(text: str, secrets_: tuple[str, ...] = ()) -> list[str]:
    """What must never reach a caller: tracebacks, file paths, SQL errors, secrets."""
    markers = ("Traceback", 'File "', "sqlite3", "OperationalError", "/src/pixops", '.py"')
    found = [marker for marker in markers if marker in text]
    found.extend("a secret" for secret in secrets_ if secret and secret in text)
    return found
