"""Engine throughput and latency, in-process and over loopback HTTP under uvicorn.

    python benchmarks/bench_engine.py                  # about a minute on 2 cores
    python benchmarks/bench_engine.py --seconds 1      # quicker, noisier
    python benchmarks/bench_engine.py --generator python

Measures requests per second with p50/p99 latency for an authenticated `GET /balance`,
a signed `POST /cpf/validate` and a signed `POST /pix/cash-out` (skipped with a note
while that route answers 501):

* in-process: `Engine.handle` called directly, and an `httpx.Client` on the sandbox
  transport (one request at a time, so latency is the cost of one request);
* over HTTP: `pixops serve` machinery (`PixopsServer`) under uvicorn in a subprocess,
  for each installed HTTP parser (h11, httptools), with N concurrent keep-alive
  connections, next to a bare ASGI hello-world under the same uvicorn settings
  (the ceiling uvicorn itself allows on this machine).

The load generator is `wrk` when installed (C, one thread), else an asyncio raw-socket
generator in this process. Nothing here asserts on time; the figures are printed with
the targets beside them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import itertools
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import httpx

from pixops import wire
from pixops.engine import merchants
from pixops.engine.clock import WallClock
from pixops.engine.config import EngineConfig
from pixops.engine.core import Engine
from pixops.engine.permissions import PERMISSIONS
from pixops.engine.store import Store
from pixops.sandbox import Sandbox
from pixops.server import PixopsServer, ServeOptions, bind_socket, uvicorn_config

API = "/api/external"
BALANCE_CENTAVOS = 10_000_000_000
UNLIMITED = 10**9
#: A documented sandbox test key that settles normally (docs/sandbox-test-keys.md).
RECIPIENT_KEY = "maria.silva@sandbox.pixops.dev"
CPF = "529.982.247-25"
TARGET_HTTP_RPS = 3000
TARGET_HTTP_P99_MS = 20.0
TARGET_IN_PROCESS_RPS = 5000


# -- what is measured -----------------------------------------------------------


@dataclass(frozen=True)
class Credentials:
    client_id: str
    client_secret: str


@dataclass(frozen=True)
class Call:
    """One request as bytes-level parts, ready for any way in."""

    method: str
    path: str
    headers: list[tuple[str, str]]
    body: bytes


@dataclass(frozen=True)
class Scenario:
    name: str
    expected: frozenset[int]
    make: Callable[[Credentials, int], Call]


def _auth(credentials: Credentials) -> list[tuple[str, str]]:
    return [("authorization", f"ApiKey {credentials.client_id}:{credentials.client_secret}")]


def _signed(credentials: Credentials, path: str, payload: dict[str, Any]) -> Call:
    body = wire.canonical_json(payload)
    headers = [
        *_auth(credentials),
        ("content-type", "application/json"),
        ("hmac", wire.sign(body, credentials.client_secret)),
    ]
    return Call("POST", API + path, headers, body)


def balance_call(credentials: Credentials, _: int) -> Call:
    return Call("GET", API + "/balance", _auth(credentials), b"")


def cpf_call(credentials: Credentials, _: int) -> Call:
    return _signed(credentials, "/cpf/validate", {"cpf": CPF})


def cash_out_call(credentials: Credentials, index: int) -> Call:
    """Distinct amounts and external ids, so every request is a new transfer."""
    payload = {
        "amount": 1 + index,
        "pix_key": RECIPIENT_KEY,
        "pix_key_type": "email",
        "external_id": f"bench-{index}",
        "description": "benchmark",
    }
    return _signed(credentials, "/pix/cash-out", payload)


SCENARIOS = (
    Scenario("GET /balance", frozenset({200}), balance_call),
    Scenario("POST /cpf/validate", frozenset({200}), cpf_call),
    Scenario("POST /pix/cash-out", frozenset({200, 202}), cash_out_call),
)


def bench_config() -> EngineConfig:
    """Limits out of the way: the rate limiter and DICT quota still run, never refuse."""
    return EngineConfig(rate_limit_per_minute=UNLIMITED, dict_lookups_per_minute=UNLIMITED)


def seed(engine: Engine) -> Credentials:
    with engine.store.transaction() as conn:
        now = engine.now()
        merchant = merchants.create_merchant(
            engine, conn, "Benchmark Ltda", balance_centavos=BALANCE_CENTAVOS, now=now
        )
        key = merchants.issue_api_key(
            conn,
            merchant.id,
            permissions=sorted(PERMISSIONS),
            ip_whitelist=("127.0.0.1",),
            hmac=True,
            expires_at=None,
            now=now,
        )
    return Credentials(key.client_id, key.client_secret)


# -- results ----------------------------------------------------------------------


@dataclass(frozen=True)
class Result:
    label: str
    rps: float
    p50_ms: float
    p99_ms: float
    requests: int
    note: str = ""
    #: Requests per CPU-second of the serving thread/process: what one free core would do.
    cpu_rps: float | None = None


def percentile(sorted_values: Sequence[int], fraction: float) -> float:
    index = min(len(sorted_values) - 1, max(0, round(fraction * len(sorted_values)) - 1))
    return sorted_values[index] / 1e6


def summarize(
    label: str, latencies_ns: list[int], elapsed_s: float, cpu_s: float | None = None
) -> Result:
    ordered = sorted(latencies_ns)
    return Result(
        label,
        len(ordered) / elapsed_s,
        percentile(ordered, 0.50),
        percentile(ordered, 0.99),
        len(ordered),
        cpu_rps=None if not cpu_s else len(ordered) / cpu_s,
    )


def verdict(result: Result, rps_target: int, p99_target_ms: float | None) -> str:
    misses = []
    if result.rps < rps_target:
        misses.append(f"< {rps_target} req/s")
    if p99_target_ms is not None and result.p99_ms >= p99_target_ms:
        misses.append(f"p99 >= {p99_target_ms:g} ms")
    target = f">= {rps_target} req/s" + (
        f", p99 < {p99_target_ms:g} ms" if p99_target_ms is not None else ""
    )
    return f"target {target}: " + ("met" if not misses else "MISSED (" + "; ".join(misses) + ")")


def show(result: Result, target: str = "") -> None:
    line = (
        f"  {result.label:<52} {result.rps:>9,.0f} req/s  p50 {result.p50_ms:6.2f} ms"
        f"  p99 {result.p99_ms:6.2f} ms"
    )
    if result.cpu_rps is not None:
        line += f"  ({result.cpu_rps:>7,.0f} per CPU-s)"
    if target:
        line += f"  {target}"
    if result.note:
        line += f"  [{result.note}]"
    print(line, flush=True)


# -- in-process -----------------------------------------------------------------


def timed_loop(
    prepare: Callable[[int], Call],
    send: Callable[[Call], int],
    expected: frozenset[int],
    seconds: float,
) -> tuple[list[int], float, float]:
    """Send one request at a time for `seconds`, timing only `send` (not the signing).

    Returns the latencies (ns), the wall seconds and the CPU seconds spent in `send`.
    """
    latencies: list[int] = []
    clock = time.perf_counter_ns
    cpu_clock = time.thread_time_ns
    spent = 0
    cpu = 0
    stop = int(seconds * 1e9)
    index = 0
    while spent < stop:
        call = prepare(index)
        cpu_before = cpu_clock()
        before = clock()
        status = send(call)
        took = clock() - before
        cpu += cpu_clock() - cpu_before
        if status not in expected:
            raise RuntimeError(f"unexpected status {status} on request {index}")
        latencies.append(took)
        spent += took
        index += 1
    return latencies, spent / 1e9, cpu / 1e9


def engine_sender(sandbox: Sandbox) -> Callable[[Call], int]:
    engine = sandbox.engine

    def send(call: Call) -> int:
        return engine.handle(call.method, call.path, call.headers, call.body, "127.0.0.1").status

    return send


def httpx_sender(client: httpx.Client) -> Callable[[Call], int]:
    def send(call: Call) -> int:
        response = client.request(call.method, call.path, headers=call.headers, content=call.body)
        return response.status_code

    return send


def measure_in_process(scenario: Scenario, way: str, seconds: float) -> Result | None:
    """One scenario through one way in, on a fresh sandbox; None while the route is 501."""
    sandbox = Sandbox(config=bench_config())
    credentials = seed(sandbox.engine)
    with httpx.Client(transport=sandbox.transport(), base_url="http://sandbox") as client:
        send = engine_sender(sandbox) if way == "Engine.handle" else httpx_sender(client)
        if send(scenario.make(credentials, 10**8)) == 501:
            return None
        latencies, elapsed, cpu = timed_loop(
            lambda index: scenario.make(credentials, index), send, scenario.expected, seconds
        )
    return summarize(f"{way:<20} {scenario.name}", latencies, elapsed, cpu)


def httpx_ceiling(seconds: float) -> Result:
    """httpx's own cost per request: a transport that answers at once, without an engine."""
    canned = b'{"worked":true}'

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "application/json"}, content=canned)

    credentials = Credentials("cli_x", "sk_x")
    with httpx.Client(transport=httpx.MockTransport(answer), base_url="http://sandbox") as client:
        latencies, elapsed, cpu = timed_loop(
            lambda index: balance_call(credentials, index),
            httpx_sender(client),
            frozenset({200}),
            seconds,
        )
    return summarize("ceiling: httpx + MockTransport GET /balance", latencies, elapsed, cpu)


def run_in_process(seconds: float) -> list[tuple[Scenario, bool]]:
    """Both in-process ways in for every scenario; which scenarios the engine serves."""
    print("\nin-process (one request at a time, sandbox engine, in-memory store)", flush=True)
    show(httpx_ceiling(seconds))
    served: list[tuple[Scenario, bool]] = []
    for scenario in SCENARIOS:
        available = True
        for way in ("Engine.handle", "httpx + transport"):
            result = measure_in_process(scenario, way, seconds)
            if result is None:
                print(f"  {scenario.name}: skipped, the route still answers 501 (not built yet)")
                available = False
                break
            show(result, verdict(result, TARGET_IN_PROCESS_RPS, None))
        served.append((scenario, available))
    return served


# -- the server subprocess --------------------------------------------------------


def hello_app() -> Callable[..., Any]:
    """The smallest ASGI app that answers like the engine does (JSON, content-length)."""
    body = b'{"worked":true}'
    start = {
        "type": "http.response.start",
        "status": 200,
        "headers": [(b"content-type", b"application/json"), (b"content-length", b"15")],
    }

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                else:
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        more = True
        while more:
            message = await receive()
            more = message.get("more_body", False)
        await send(start)
        await send({"type": "http.response.body", "body": body})

    return app


def child(app: str, http: str) -> None:
    """Run in the subprocess: serve on a free port, print where and with which key.

    Ends quietly on SIGTERM or SIGINT, whenever it comes (even during start-up): uvicorn
    re-raises the signal after its graceful shutdown, which must not print a traceback.
    """
    with contextlib.suppress(KeyboardInterrupt):
        _serve_child(app, http)


def _serve_child(app: str, http: str) -> None:
    options = ServeOptions(port=0, http=http, log_level="error", rate_limit_per_minute=UNLIMITED)
    if app == "hello":
        sock = bind_socket(options.host, 0)
        config = uvicorn_config(hello_app(), options, sock.getsockname()[1])
        import uvicorn

        server = uvicorn.Server(config)
        print(json.dumps({"port": sock.getsockname()[1]}), flush=True)
        server.run(sockets=[sock])
        return
    engine = Engine(store=Store(), clock=WallClock(), config=bench_config(), seed=None)
    credentials = seed(engine)
    pixops_server = PixopsServer(engine, options)
    print(
        json.dumps(
            {
                "port": pixops_server.port,
                "client_id": credentials.client_id,
                "client_secret": credentials.client_secret,
            }
        ),
        flush=True,
    )
    pixops_server.run()


class ServerProcess:
    """A benchmark server in a subprocess, always stopped (SIGTERM, then kill)."""

    def __init__(self, app: str, http: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--child", app, "--http", http],
            stdout=subprocess.PIPE,
            text=True,
            # Its own session: a Ctrl-C in the terminal reaches only this script, which
            # then stops the child with SIGTERM (no KeyboardInterrupt mid-import there).
            start_new_session=True,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            self.stop()
            raise RuntimeError(f"benchmark server ({app}, {http}) did not start")
        self.info = json.loads(line)
        self.port = int(self.info["port"])

    def cpu_seconds(self) -> float | None:
        """User + system CPU time of the server process so far (Linux /proc), else None."""
        try:
            fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    @property
    def credentials(self) -> Credentials:
        return Credentials(self.info["client_id"], self.info["client_secret"])

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)

    def __enter__(self) -> ServerProcess:
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()


# -- HTTP load generators ----------------------------------------------------------


def raw_request(call: Call, port: int) -> bytes:
    lines = [f"{call.method} {call.path} HTTP/1.1", f"host: 127.0.0.1:{port}"]
    lines += [f"{name}: {value}" for name, value in call.headers]
    if call.method != "GET":
        lines.append(f"content-length: {len(call.body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + call.body


_CONTENT_LENGTH = re.compile(rb"\r\ncontent-length:\s*(\d+)", re.IGNORECASE)


async def _connection(
    port: int,
    requests: Sequence[bytes],
    counter: itertools.count[int],
    stop_ns: int,
    latencies: list[int],
    statuses: dict[int, int],
) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    clock = time.perf_counter_ns
    try:
        while clock() < stop_ns:
            request = requests[next(counter) % len(requests)]
            before = clock()
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            match = _CONTENT_LENGTH.search(head)
            if match is None:
                raise RuntimeError("response without content-length")
            await reader.readexactly(int(match.group(1)))
            latencies.append(clock() - before)
            status = int(head[9:12])
            statuses[status] = statuses.get(status, 0) + 1
    finally:
        writer.close()


async def _python_load(
    port: int, requests: Sequence[bytes], connections: int, seconds: float
) -> tuple[list[int], float, dict[int, int]]:
    latencies: list[int] = []
    statuses: dict[int, int] = {}
    start = time.perf_counter_ns()
    stop = start + int(seconds * 1e9)
    counter = itertools.count()
    await asyncio.gather(
        *(
            _connection(port, requests, counter, stop, latencies, statuses)
            for _ in range(connections)
        )
    )
    return latencies, (time.perf_counter_ns() - start) / 1e9, statuses


def python_load(
    label: str, port: int, requests: Sequence[bytes], connections: int, seconds: float
) -> tuple[Result, dict[int, int]]:
    latencies, elapsed, statuses = asyncio.run(_python_load(port, requests, connections, seconds))
    return summarize(label, latencies, elapsed), statuses


_WRK_LATENCY = re.compile(r"^\s+(50|99)(?:\.000)?%\s+([\d.]+)(us|ms|s)\s*$", re.MULTILINE)
_WRK_UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3}


def lua_string(data: bytes) -> str:
    """A quoted Lua string of exactly these bytes (long brackets would turn CRLF into LF)."""
    out = []
    for byte in data:
        char = chr(byte)
        if char in '\\"':
            out.append("\\" + char)
        elif 32 <= byte < 127:
            out.append(char)
        else:
            out.append(f"\\{byte:03d}")
    return '"' + "".join(out) + '"'


def wrk_load(
    label: str, port: int, requests: Sequence[bytes], connections: int, seconds: float
) -> tuple[Result, dict[int, int]]:
    """wrk with a Lua script cycling through the prepared raw requests."""
    entries = [lua_string(request) for request in requests]
    script = (
        "local raw = {\n"
        + ",\n".join(entries)
        + "\n}\nlocal i = 0\nrequest = function()\n"
        + "  i = i + 1\n  if i > #raw then i = 1 end\n  return raw[i]\nend\n"
    )
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as handle:
        handle.write(script)
    try:
        output = subprocess.run(
            [
                "wrk",
                "-t1",
                f"-c{connections}",
                f"-d{max(1, round(seconds))}s",
                "--latency",
                "-s",
                handle.name,
                f"http://127.0.0.1:{port}/",
            ],
            capture_output=True,
            text=True,
            timeout=seconds + 30,
            check=True,
        ).stdout
    finally:
        os.unlink(handle.name)
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))  # type: ignore[union-attr]
    total = int(re.search(r"(\d+) requests in", output).group(1))  # type: ignore[union-attr]
    latency = {
        int(p): float(value) * _WRK_UNITS[unit] for p, value, unit in _WRK_LATENCY.findall(output)
    }
    bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", output)
    errors = re.search(r"Socket errors:.*", output)
    statuses = {200: total - (int(bad.group(1)) if bad else 0)}
    if bad:
        statuses[0] = int(bad.group(1))
    note = errors.group(0) if errors else ""
    return Result(label, rps, latency[50], latency[99], total, note), statuses


# -- over HTTP ------------------------------------------------------------------------


def http_implementations() -> list[str]:
    found = ["h11"]
    if importlib.util.find_spec("httptools") is not None:
        found.append("httptools")
    return found


def measure_http(
    server: ServerProcess,
    load: Callable[..., tuple[Result, dict[int, int]]],
    label: str,
    requests: Sequence[bytes],
    connections: int,
    seconds: float,
    expected: frozenset[int],
) -> Result:
    """One load run, with the server's CPU time over it and a note on unexpected answers."""
    cpu_before = server.cpu_seconds()
    result, statuses = load(label, server.port, requests, connections, seconds)
    cpu_after = server.cpu_seconds()
    if cpu_before is not None and cpu_after is not None and cpu_after > cpu_before:
        result = replace(result, cpu_rps=result.requests / (cpu_after - cpu_before))
    unexpected = {status: n for status, n in statuses.items() if status not in expected}
    if unexpected:
        result = replace(result, note=f"unexpected statuses {unexpected}")
    return result


def run_http(
    served: list[tuple[Scenario, bool]], seconds: float, connections: int, generator: str
) -> None:
    load = wrk_load if generator == "wrk" else python_load
    print(
        f"\nover loopback HTTP (uvicorn, one process, asyncio loop; {connections} keep-alive"
        f" connections; load generator: {generator}; per CPU-s = server process CPU)",
        flush=True,
    )
    for http in http_implementations():
        with ServerProcess("hello", http) as hello:
            request = raw_request(Call("GET", "/", [], b""), hello.port)
            label = f"[{http}] ceiling: ASGI hello-world GET /"
            ok = frozenset({200})
            show(measure_http(hello, load, label, [request], connections, seconds, ok))
        with ServerProcess("engine", http) as server:
            for scenario, available in served:
                if not available:
                    print(f"  [{http}] {scenario.name}: skipped, the route still answers 501")
                    continue
                count = 1 if scenario.make is not cash_out_call else int(seconds * 10_000)
                requests = [
                    raw_request(scenario.make(server.credentials, i), server.port)
                    for i in range(count)
                ]
                label = f"[{http}] pixops serve {scenario.name}"
                result = measure_http(
                    server, load, label, requests, connections, seconds, scenario.expected
                )
                show(result, verdict(result, TARGET_HTTP_RPS, TARGET_HTTP_P99_MS))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per HTTP measurement")
    parser.add_argument("--in-process-seconds", type=float, default=2.0)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--generator", choices=("auto", "wrk", "python"), default="auto")
    parser.add_argument("--only", choices=("in-process", "http"), help="run one half")
    parser.add_argument("--child", choices=("engine", "hello"), help=argparse.SUPPRESS)
    parser.add_argument("--http", default="h11", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child, args.http)
        return
    generator = args.generator
    if generator == "auto":
        generator = "wrk" if shutil.which("wrk") else "python"
    began = time.monotonic()
    print(
        f"pixops engine benchmark: Python {platform.python_version()}, {os.cpu_count()} CPUs,"
        f" HTTP parsers: {', '.join(http_implementations())},"
        f" load average {os.getloadavg()[0]:.2f} (other work competes for the CPUs)"
    )
    if args.only == "http":
        served = [(scenario, True) for scenario in SCENARIOS]
    else:
        served = run_in_process(args.in_process_seconds)
    if args.only != "in-process":
        run_http(served, args.seconds, args.connections, generator)
    print(
        f"\ntotal {time.monotonic() - began:.0f} s, load average {os.getloadavg()[0]:.2f}",
        flush=True,
    )


if __name__ == "__main__":
    main()
