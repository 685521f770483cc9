"""The client under faults: a transport wrapper between `pixops.Client` and the sandbox
drops connections before or after the service committed, answers 429 storms and 5xx
bursts by itself, or lets the service act and then times the client out.

The client must never create a second transaction, must honour `Retry-After`, must
give up with a clear `PixopsError`, and frames loaded through it must be complete or
fail loudly (never a silently short statement).
"""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import httpx
import pytest

import pixops
from pixops.client import RetryPolicy
from pixops.frames import load_statement
from pixops.sandbox import ApiKey, Merchant, Sandbox
from tests.stress._harness import SETTLING_KEY, invariant_violations

Fault = Callable[[httpx.Request, Callable[[], httpx.Response]], httpx.Response]


def passes(request: httpx.Request, forward: Callable[[], httpx.Response]) -> httpx.Response:
    return forward()


def drop_before(request: httpx.Request, forward: Callable[[], httpx.Response]) -> httpx.Response:
    raise httpx.ConnectError("connection refused (injected)", request=request)


def drop_after(request: httpx.Request, forward: Callable[[], httpx.Response]) -> httpx.Response:
    forward()  # the service commits; the answer is lost on the way back
    raise httpx.ReadError("connection reset by peer (injected)", request=request)


def timeout_after(request: httpx.Request, forward: Callable[[], httpx.Response]) -> httpx.Response:
    forward()  # the service acts, but answers after the client's timeout
    raise httpx.ReadTimeout("timed out (injected)", request=request)


def status(code: int, retry_after: str | None = None, *, forwarded: bool = False) -> Fault:
    """An answer from a proxy in front of the service; `forwarded`: after it committed."""

    def fault(request: httpx.Request, forward: Callable[[], httpx.Response]) -> httpx.Response:
        if forwarded:
            forward()
        headers = {"content-type": "application/json"}
        if retry_after is not None:
            headers["retry-after"] = retry_after
        body = {"error": {"status": code, "message": "injected"}}
        return httpx.Response(code, headers=headers, content=json.dumps(body).encode())

    return fault


@dataclass
class FaultyTransport(httpx.BaseTransport):
    """Applies `plan[i]` to the i-th request, then `passes` (or `rest`) to the others."""

    inner: httpx.BaseTransport
    plan: list[Fault]
    rest: Fault = passes
    seen: list[httpx.Request] = field(default_factory=list)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        index = len(self.seen)
        self.seen.append(request)
        fault = self.plan[index] if index < len(self.plan) else self.rest
        return fault(request, lambda: self.inner.handle_request(request))


@dataclass
class Rig:
    sandbox: Sandbox
    merchant: Merchant
    transport: FaultyTransport
    client: pixops.Client
    sleeps: list[float]

    def cash_out_rows(self) -> int:
        with self.sandbox.engine.store.lock:
            return int(
                self.sandbox.engine.store.conn.execute(
                    "SELECT COUNT(*) FROM transactions WHERE kind = 'cash_out'"
                ).fetchone()[0]
            )


@pytest.fixture
def rig(sandbox: Sandbox, merchant: Merchant, key: ApiKey) -> Rig:
    sleeps: list[float] = []
    transport = FaultyTransport(sandbox.transport(), [])
    client = pixops.Client(
        "http://sandbox",
        key.client_id,
        key.client_secret,
        transport=transport,
        sleep=sleeps.append,
        retry=RetryPolicy(max_attempts=4, initial_backoff=0.5, max_backoff=300.0),
    )
    return Rig(sandbox, merchant, transport, client, sleeps)


def keys_sent(rig: Rig) -> set[str | None]:
    return {request.headers.get("idempotency-key") for request in rig.transport.seen}


@pytest.mark.parametrize(
    "faults",
    [
        [drop_before],
        [drop_after],
        [drop_before, drop_after],
        [timeout_after, timeout_after],
        [status(503), status(502)],
        [status(502, forwarded=True)],
        [drop_after, status(504, forwarded=True), timeout_after],
    ],
    ids=["drop-before", "drop-after", "before-then-after", "timeouts", "5xx", "502-after", "mix"],
)
def test_a_cash_out_through_faults_happens_exactly_once(rig: Rig, faults: list[Fault]) -> None:
    rig.transport.plan = faults
    payout = rig.client.pix.cash_out(pix_key=SETTLING_KEY, amount_centavos=1_234)
    assert payout.transaction_id
    assert rig.cash_out_rows() == 1, "a second transaction was created"
    assert len(rig.transport.seen) == len(faults) + 1
    (key,) = keys_sent(rig)  # one Idempotency-Key, reused on every attempt
    assert key
    with rig.sandbox.engine.store.lock:
        assert invariant_violations(rig.sandbox.engine.store.conn) == []


def test_a_429_storm_honours_retry_after_then_succeeds(rig: Rig) -> None:
    rig.transport.plan = [status(429, "7"), status(429, "7"), status(429, "7")]
    rig.client.pix.cash_out(pix_key=SETTLING_KEY, amount_centavos=2_000)
    assert len(rig.sleeps) == 3
    assert all(wait >= 7 for wait in rig.sleeps), rig.sleeps
    assert rig.sleeps == sorted(rig.sleeps), "backs off further on each 429"
    assert rig.cash_out_rows() == 1


def test_the_client_gives_up_on_a_429_storm_with_a_clear_error(rig: Rig) -> None:
    rig.transport.rest = status(429, "60")
    with pytest.raises(pixops.PixopsError) as raised:
        rig.client.pix.cash_out(pix_key=SETTLING_KEY, amount_centavos=2_000)
    assert raised.value.status == 429  # type: ignore[attr-defined]
    assert len(rig.transport.seen) == 4
    assert rig.cash_out_rows() == 0


def test_the_client_gives_up_on_5xx_after_its_attempts_and_says_so(rig: Rig) -> None:
    rig.transport.rest = status(503)
    with pytest.raises(pixops.PixopsError) as raised:
        rig.client.balance()
    assert raised.value.status == 503  # type: ignore[attr-defined]
    assert raised.value.retryable
    assert len(rig.transport.seen) == 4


def test_timeouts_after_commit_then_giving_up_leave_one_transaction(rig: Rig) -> None:
    rig.transport.rest = timeout_after
    with pytest.raises(pixops.PixopsError) as raised:
        rig.client.pix.cash_out(pix_key=SETTLING_KEY, amount_centavos=3_000)
    assert "time" in str(raised.value).lower() or isinstance(raised.value, pixops.TransportError)
    assert len(rig.transport.seen) == 4
    assert rig.cash_out_rows() == 1, "every retry replayed the first commit"


def test_a_refund_through_a_drop_after_commit_happens_once(rig: Rig) -> None:
    original = rig.sandbox.receive_pix(rig.merchant.id, amount_centavos=10_000)
    rig.transport.plan = [drop_after]
    rig.client.pix.refund(original, amount_centavos=4_000)
    with rig.sandbox.engine.store.lock:
        refunded = rig.sandbox.engine.store.conn.execute(
            "SELECT COUNT(*), SUM(amount_base) FROM transactions WHERE original_transaction_id = ?",
            (original,),
        ).fetchone()
    assert tuple(refunded) == (1, 4_000 * 100)


# -- frames through a faulty client --------------------------------------------------


def busy_day(sandbox: Sandbox, merchant: Merchant) -> str:
    for amount in range(1_000, 1_000 + 250):
        sandbox.receive_pix(merchant.id, amount_centavos=amount)
    return sandbox.now().date().isoformat()


def test_a_statement_loaded_through_transient_faults_is_complete(rig: Rig) -> None:
    day = busy_day(rig.sandbox, rig.merchant)
    clean = load_statement(rig.client, day, day, progress=False)
    assert len(clean) == 250
    rig.transport.seen.clear()
    rig.transport.plan = [passes, drop_before, passes, status(503), passes, timeout_after]
    faulty = load_statement(rig.client, day, day, progress=False)
    assert len(faulty) == len(clean)
    assert sorted(faulty["id"]) == sorted(clean["id"])
    assert int(faulty["amount_base"].sum()) == int(clean["amount_base"].sum())


def test_a_statement_whose_pages_keep_failing_fails_loudly(rig: Rig) -> None:
    day = busy_day(rig.sandbox, rig.merchant)
    rig.transport.plan = [passes]  # the first page arrives, every later one fails
    rig.transport.rest = status(503)
    with pytest.raises(pixops.PixopsError):
        load_statement(rig.client, day, day, progress=False)


# -- a real slow server on loopback -------------------------------------------------


class SlowFront:
    """A loopback HTTP server in front of the sandbox's engine: it lets the engine act at
    once, then holds the answer of the first `slow` requests until the client has gone."""

    def __init__(self, sandbox: Sandbox, slow: int, hold_s: float) -> None:
        self.sandbox = sandbox
        self.slow = slow
        self.hold = threading.Event()
        self.hold_s = hold_s
        self.received = 0
        front = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _serve(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length)
                front.received += 1
                number = front.received
                answer = front.sandbox.engine.handle(
                    self.command, self.path, list(self.headers.items()), body, "127.0.0.1"
                )
                if number <= front.slow:
                    front.hold.wait(front.hold_s)  # past the client's timeout
                self.send_response(answer.status)
                for name, value in answer.headers:
                    if name.lower() != "content-length":
                        self.send_header(name, value)
                self.send_header("content-length", str(len(answer.body)))
                self.end_headers()
                self.wfile.write(answer.body)

            def do_GET(self) -> None:
                self._serve()

            def do_POST(self) -> None:
                self._serve()

            def log_message(self, *args: object) -> None:
                return

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> SlowFront:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.hold.set()
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)


def test_a_slow_answer_past_the_timeout_is_retried_without_a_second_transaction(
    sandbox: Sandbox, key: ApiKey
) -> None:
    with SlowFront(sandbox, slow=1, hold_s=5.0) as front:
        client = pixops.Client(
            front.url,
            key.client_id,
            key.client_secret,
            timeout=0.5,
            sleep=lambda _: None,
            retry=RetryPolicy(max_attempts=3, initial_backoff=0.0),
        )
        payout = client.pix.cash_out(pix_key=SETTLING_KEY, amount_centavos=4_321)
        client.close()
    assert front.received == 2, "one timed-out attempt, one replay"
    with sandbox.engine.store.lock:
        rows = sandbox.engine.store.conn.execute(
            "SELECT transaction_id FROM transactions WHERE kind = 'cash_out'"
        ).fetchall()
    assert [row[0] for row in rows] == [payout.transaction_id]


def test_a_server_that_stays_slow_ends_in_a_clear_timeout_error(
    sandbox: Sandbox, key: ApiKey
) -> None:
    with SlowFront(sandbox, slow=99, hold_s=5.0) as front:
        client = pixops.Client(
            front.url,
            key.client_id,
            key.client_secret,
            timeout=0.3,
            sleep=lambda _: None,
            retry=RetryPolicy(max_attempts=2, initial_backoff=0.0),
        )
        with pytest.raises(pixops.PixopsError) as raised:
            client.balance()
        client.close()
    assert isinstance(raised.value, pixops.client.TransportError)
    assert front.received == 2
