"""Load benchmark: a mixed merchant workload against `pixops serve` for a fixed time.

    .venv/bin/python benchmarks/bench_load.py                 # 60 s, file store
    .venv/bin/python benchmarks/bench_load.py --seconds 10 --connections 8

The server is `pixops serve` in its own process on a file database seeded here (a
merchant with a large balance, received PIX to refund, the DICT quota and the rate limit
set out of reach so they run but never refuse). This process is the load generator:
keep-alive connections on loopback, each sending 70 % queries (balance, one
transaction, a statement page, a transactions page), 20 % cash-outs and 10 % refunds,
every POST signed and distinct. Before it, in the same run, a bare hello-world ASGI app
under the same uvicorn settings measures the ceiling of this machine.

Printed and written to `benchmarks/results/<label>.json`: sustained requests per second,
p50/p95/p99 latency, errors (any non-2xx or broken connection), the server's resident
memory sampled during the run and its growth, and the load average around the run.
Not a test: it asserts nothing, it reports against the targets of issue 13.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import secrets
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pixops import wire

RESULTS = Path(__file__).resolve().parent / "results"
SETTLING_KEY = "maria.silva@sandbox.pixops.dev"
OUT_OF_REACH = 1_000_000_000
TARGET_RPS = 1_500
TARGET_P99_MS = 50.0
_PORT = re.compile(r"listening on https?://\S+:(\d+)")
_CONTENT_LENGTH = re.compile(rb"\r\ncontent-length:\s*(\d+)", re.IGNORECASE)


@dataclass(frozen=True)
class Seed:
    client_id: str
    client_secret: str
    received_ids: list[str]


def seed_database(db: Path) -> Seed:
    """A merchant the load cannot exhaust, written through the engine before serving."""
    from pixops.sandbox import Sandbox

    sandbox = Sandbox(path=db, seed=secrets.randbits(32), start=datetime.now(UTC))
    try:
        merchant = sandbox.create_merchant("Loja Carga", balance_centavos=10**12)
        key = sandbox.issue_api_key(merchant.id, ip_whitelist=["127.0.0.1"])
        received = [sandbox.receive_pix(merchant.id, amount_centavos=5_000_000) for _ in range(50)]
    finally:
        sandbox.engine.store.close()
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:
        # A benchmark of the server, not of the simulated DICT quota (600 a minute).
        conn.execute("UPDATE merchants SET dict_lookups_per_minute = ?", (OUT_OF_REACH,))
    return Seed(key.client_id, key.client_secret, received)


class Server:
    """`pixops serve` (or the hello-world child) in a subprocess, always stopped."""

    def __init__(self, command: list[str]) -> None:
        self.process = subprocess.Popen(
            command, stdout=subprocess.PIPE, text=True, start_new_session=True
        )
        assert self.process.stdout is not None
        self.port = 0
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                break
            found = _PORT.search(line) or re.search(r'"port": (\d+)', line)
            if found:
                self.port = int(found.group(1))
            if line.startswith(("press Ctrl-C", "{")):
                break
        if not self.port:
            self.stop()
            raise RuntimeError(f"server did not start: {command}")

    def cpu_seconds(self) -> float:
        """CPU time (user + system, every thread) the server process has used so far."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss_kib(self) -> int:
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        found = re.search(r"VmRSS:\s+(\d+) kB", status)
        return int(found.group(1)) if found else 0

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)


# -- the workload ------------------------------------------------------------------


class Workload:
    """Raw HTTP/1.1 requests of the mix; every POST has its own amount and signature."""

    def __init__(self, seed: Seed, port: int, only: str = "mix") -> None:
        self.only = only
        self.seed = seed
        self.port = port
        self.auth = f"ApiKey {seed.client_id}:{seed.client_secret}"
        self.number = 0
        self.payout_ids: list[str] = []

    def _raw(self, method: str, path: str, body: bytes = b"") -> bytes:
        lines = [
            f"{method} /api/external{path} HTTP/1.1",
            f"host: 127.0.0.1:{self.port}",
            f"authorization: {self.auth}",
        ]
        if method == "POST":
            lines += [
                "content-type: application/json",
                f"hmac: {wire.sign(body, self.seed.client_secret)}",
                f"content-length: {len(body)}",
            ]
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body

    def next(self) -> tuple[str, bytes]:
        self.number += 1
        slot = self.number % 10
        if self.only == "queries":
            slot %= 7
        elif self.only == "cash-out":
            slot = 7
        elif self.only == "refund":
            slot = 9
        if slot < 7:
            return "query", self._query(slot)
        if slot < 9:
            payload = {"amount": 100 + self.number, "pix_key": SETTLING_KEY}
            return "cash-out", self._raw("POST", "/pix/cash-out", wire.canonical_json(payload))
        original = self.seed.received_ids[self.number % len(self.seed.received_ids)]
        payload2 = {"original_transaction_id": original, "amount": 1}
        return "refund", self._raw("POST", "/pix/refund", wire.canonical_json(payload2))

    def _query(self, slot: int) -> bytes:
        if slot in (0, 1, 2):
            return self._raw("GET", "/balance")
        if slot in (3, 4):
            original = self.seed.received_ids[self.number % len(self.seed.received_ids)]
            return self._raw("GET", f"/transactions/{original}")
        if slot == 5:
            return self._raw("GET", "/statement?per_page=20")
        return self._raw("GET", "/transactions?per_page=20")


@dataclass
class Tally:
    latencies_ns: list[int] = field(default_factory=list)
    by_kind: dict[str, int] = field(default_factory=dict)
    statuses: dict[int, int] = field(default_factory=dict)
    broken: int = 0
    server_cpu_s: float = 0.0
    generator_cpu_s: float = 0.0
    load_averages: list[float] = field(default_factory=list)


async def _connection(port: int, make: Any, stop_ns: int, tally: Tally) -> None:
    clock = time.perf_counter_ns
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        tally.broken += 1
        return
    try:
        while clock() < stop_ns:
            kind, request = make()
            before = clock()
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            match = _CONTENT_LENGTH.search(head)
            if match is None:
                raise ConnectionError("response without content-length")
            await reader.readexactly(int(match.group(1)))
            tally.latencies_ns.append(clock() - before)
            status = int(head[9:12])
            tally.statuses[status] = tally.statuses.get(status, 0) + 1
            tally.by_kind[kind] = tally.by_kind.get(kind, 0) + 1
    except (OSError, ConnectionError, asyncio.IncompleteReadError):
        tally.broken += 1
    finally:
        writer.close()


async def _drive(
    servers: Sequence[Server], make: Any, connections: int, seconds: float, every_s: float
) -> tuple[Tally, float, list[tuple[float, int]]]:
    """`connections` keep-alive connections spread over `servers` in turn (as a load
    balancer would), for `seconds`; memory is the servers' resident sets added up."""
    tally = Tally()
    start = time.perf_counter_ns()
    stop = start + int(seconds * 1e9)

    def rss_kib() -> int:
        return sum(server.rss_kib() for server in servers)

    def cpu_seconds() -> float:
        return sum(server.cpu_seconds() for server in servers)

    memory: list[tuple[float, int]] = [(0.0, rss_kib())]
    server_cpu_before = cpu_seconds()
    generator_before = time.process_time()

    async def sample() -> None:
        while time.perf_counter_ns() < stop:
            await asyncio.sleep(min(every_s, max(0.0, (stop - time.perf_counter_ns()) / 1e9)))
            memory.append(((time.perf_counter_ns() - start) / 1e9, rss_kib()))
            tally.load_averages.append(os.getloadavg()[0])

    ports = [server.port for server in servers]
    await asyncio.gather(
        sample(),
        *(_connection(ports[n % len(ports)], make, stop, tally) for n in range(connections)),
    )
    tally.server_cpu_s = cpu_seconds() - server_cpu_before
    tally.generator_cpu_s = time.process_time() - generator_before
    return tally, (time.perf_counter_ns() - start) / 1e9, memory


def percentile(values: Sequence[int], fraction: float) -> float:
    if not values:
        return float("nan")
    return values[min(len(values) - 1, int(fraction * len(values)))] / 1e6


@dataclass
class Figures:
    label: str
    seconds: float
    requests: int
    rps: float
    p50_ms: float
    p95_ms: float
    p99_ms: float
    errors: int
    statuses: dict[int, int]
    by_kind: dict[str, int]
    rss_start_kib: int
    rss_end_kib: int
    rss_max_kib: int
    rss_growth_after_warmup_kib: int
    memory_samples: list[tuple[float, int]]
    #: CPU time of the server process (every thread) and of this load generator: the
    #: figures a shared machine does not distort much (wall figures wait for the CPU).
    server_cpu_s: float
    server_cpu_ms_per_request: float
    requests_per_server_cpu_second: float
    generator_cpu_s: float
    load_average_max: float


def figures(label: str, tally: Tally, elapsed: float, memory: list[tuple[float, int]]) -> Figures:
    ordered = sorted(tally.latencies_ns)
    errors = tally.broken + sum(n for s, n in tally.statuses.items() if not 200 <= s < 300)
    warm = [kib for at, kib in memory if at >= min(10.0, elapsed / 6)] or [memory[-1][1]]
    return Figures(
        label=label,
        seconds=round(elapsed, 2),
        requests=len(ordered),
        rps=round(len(ordered) / elapsed, 1),
        p50_ms=round(percentile(ordered, 0.50), 2),
        p95_ms=round(percentile(ordered, 0.95), 2),
        p99_ms=round(percentile(ordered, 0.99), 2),
        errors=errors,
        statuses=dict(sorted(tally.statuses.items())),
        by_kind=tally.by_kind,
        rss_start_kib=memory[0][1],
        rss_end_kib=memory[-1][1],
        rss_max_kib=max(kib for _, kib in memory),
        rss_growth_after_warmup_kib=memory[-1][1] - warm[0],
        memory_samples=memory,
        server_cpu_s=round(tally.server_cpu_s, 2),
        server_cpu_ms_per_request=round(1e3 * tally.server_cpu_s / max(1, len(ordered)), 3),
        requests_per_server_cpu_second=round(len(ordered) / max(tally.server_cpu_s, 1e-9), 1),
        generator_cpu_s=round(tally.generator_cpu_s, 2),
        load_average_max=round(max(tally.load_averages, default=os.getloadavg()[0]), 2),
    )


def show(result: Figures) -> None:
    print(
        f"{result.label:<28} {result.rps:>9,.0f} req/s  p50 {result.p50_ms:6.2f} ms"
        f"  p95 {result.p95_ms:6.2f} ms  p99 {result.p99_ms:6.2f} ms  errors {result.errors}"
        f"  RSS {result.rss_start_kib // 1024}->{result.rss_end_kib // 1024} MiB"
        f" (growth after warm-up {result.rss_growth_after_warmup_kib / 1024:+.1f} MiB)\n"
        f"{'':<28} server CPU {result.server_cpu_s:.2f} s"
        f" = {result.server_cpu_ms_per_request:.3f} ms/request"
        f" ({result.requests_per_server_cpu_second:,.0f} requests per CPU-second),"
        f" generator CPU {result.generator_cpu_s:.2f} s, load average max"
        f" {result.load_average_max:.2f}",
        flush=True,
    )


def hello_child() -> None:
    """Subprocess: the bare ASGI app under `pixops serve`'s uvicorn settings."""
    import uvicorn

    from pixops.server import ServeOptions, bind_socket, uvicorn_config

    body = b'{"worked":true}'
    start = {
        "type": "http.response.start",
        "status": 200,
        "headers": [(b"content-type", b"application/json"), (b"content-length", b"15")],
    }

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        while (await receive()).get("more_body", False):
            pass
        await send(start)
        await send({"type": "http.response.body", "body": body})

    options = ServeOptions(port=0, log_level="error")
    sock = bind_socket(options.host, 0)
    print(json.dumps({"port": sock.getsockname()[1]}), flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        uvicorn.Server(uvicorn_config(app, options, sock.getsockname()[1])).run(sockets=[sock])


def run(args: argparse.Namespace) -> dict[str, Any]:
    load_before = os.getloadavg()
    hello_raw = b"GET / HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n"
    hello = Server([sys.executable, __file__, "--hello-child"])
    try:
        tally, elapsed, memory = asyncio.run(
            _drive(
                [hello],
                lambda: ("hello", hello_raw),
                args.connections,
                args.ceiling_seconds,
                args.sample_every,
            )
        )
        ceiling = figures("hello-world ceiling", tally, elapsed, memory)
    finally:
        hello.stop()
    show(ceiling)

    with tempfile.TemporaryDirectory(prefix="pixops-load-", dir=args.db_dir) as scratch:
        db = Path(scratch) / "load.db"
        seed = seed_database(db)
        command = [sys.executable, "-m", "pixops", "serve", "--port", "0", "--db", str(db)]
        command += ["--rate-limit", str(OUT_OF_REACH)]
        servers: list[Server] = []
        try:
            for _ in range(args.servers):
                servers.append(Server(command))
            workload = Workload(seed, servers[0].port, args.only)
            tally, elapsed, memory = asyncio.run(
                _drive(servers, workload.next, args.connections, args.seconds, args.sample_every)
            )
            name = "mixed 70/20/10" if args.only == "mix" else f"only {args.only}"
            where = f"{db.parent.parent}, {args.servers} server{'s' * (args.servers > 1)}"
            mixed = figures(f"{name} ({where})", tally, elapsed, memory)
        finally:
            for server in servers:
                server.stop()
    show(mixed)
    load_after = os.getloadavg()
    met = mixed.rps >= TARGET_RPS and mixed.p99_ms < TARGET_P99_MS and mixed.errors == 0
    verdict = "MET" if met else "NOT MET"
    print(
        f"target >= {TARGET_RPS} req/s, p99 < {TARGET_P99_MS} ms, zero errors: {verdict}"
        f"  (load average {load_before[0]:.2f} -> {load_after[0]:.2f}, {os.cpu_count()} CPUs)"
    )
    return {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
        "connections": args.connections,
        "servers": args.servers,
        "load_average_before": load_before,
        "load_average_after": load_after,
        "target": {"rps": TARGET_RPS, "p99_ms": TARGET_P99_MS, "errors": 0, "verdict": verdict},
        "ceiling": asdict(ceiling),
        "mixed": asdict(mixed),
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--ceiling-seconds", type=float, default=10.0)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument(
        "--servers",
        type=int,
        default=1,
        help="`pixops serve` processes on the one database file, connections spread over them",
    )
    parser.add_argument("--sample-every", type=float, default=5.0, help="RSS sampling, seconds")
    parser.add_argument("--label", default="load", help="results file name")
    parser.add_argument(
        "--only",
        choices=("mix", "queries", "cash-out", "refund"),
        default="mix",
        help="one part of the mix alone, to see where the time goes",
    )
    parser.add_argument(
        "--db-dir",
        default=None,
        help="directory of the database file (default: the system's temporary directory);"
        " /dev/shm shows the figures without the disk's fsync cost",
    )
    parser.add_argument("--hello-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    # A SIGTERM ends the run through the `finally` blocks that stop the servers.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if args.hello_child:
        hello_child()
        return
    results = run(args)
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"{args.label}.json"
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"results written to {out}")


if __name__ == "__main__":
    main()
