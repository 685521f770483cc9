"""Crash safety: SIGKILL `pixops serve` in the middle of a mixed workload, several times,
restart it on the same file, and check what was acknowledged.

After the last restart: every request that got a 2xx is present, every idempotent
replay is byte-identical, `PRAGMA integrity_check` is ok, the ledger balances, and
scheduled work written before a crash (payout and refund settlement, a QR expiry, a
webhook retry) is carried out by the new process.
"""

from __future__ import annotations

import itertools
import random
import socket
import sqlite3
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from pixops.sandbox import Sandbox
from tests.stress._harness import (
    SETTLING_KEY,
    Credentials,
    ServerProcess,
    file_violations,
    get,
    http_client,
    integrity,
    open_readonly,
    post,
    seed_merchant,
)

CYCLES = 3
WORKERS = 4
#: A DICT lookup quota small enough that every run queues some cash-outs (the rest wait
#: for the next UTC minute), so their resumption after a restart is always exercised.
SMALL_DICT_QUOTA_PER_MINUTE = 20


@dataclass(frozen=True)
class Acknowledged:
    """A POST that got a 2xx before the crash: what to replay and what to find."""

    path: str
    payload: dict[str, Any]
    idempotency_key: str
    status: int
    body: bytes
    transaction_id: str


class Workload:
    """Threads sending cash-outs, refunds and charges, each with its own Idempotency-Key,
    until the server dies under them; 2xx answers are remembered, the rest ignored."""

    def __init__(self, credentials: Credentials, originals: list[str]) -> None:
        self.credentials = credentials
        self.originals = originals
        self.acknowledged: list[Acknowledged] = []
        self.unanswered: list[tuple[str, dict[str, Any], str]] = []
        self._lock = threading.Lock()
        self._numbers = itertools.count(1)

    def _next(self) -> int:
        with self._lock:
            return next(self._numbers)

    def _request(self, number: int) -> tuple[str, dict[str, Any]]:
        kind = number % 4
        if kind == 0:
            original = self.originals[number % len(self.originals)]
            return "/pix/refund", {"original_transaction_id": original, "amount": 10}
        if kind == 1:
            return "/pix/cash-in", {"amount": 500 + number, "external_id": f"qr-{number}"}
        # Distinct amounts: one key, amount and minute would derive one end-to-end id.
        return "/pix/cash-out", {
            "amount": 100 + number,
            "pix_key": SETTLING_KEY,
            "external_id": f"co-{number}",
        }

    def run(self, base_url: str, stop: threading.Event) -> None:
        with http_client(base_url, timeout=10) as client:
            while not stop.is_set():
                number = self._next()
                path, payload = self._request(number)
                key = f"crash-{number:06d}"
                try:
                    response = post(client, path, payload, self.credentials, idempotency_key=key)
                except httpx.TransportError:
                    with self._lock:
                        self.unanswered.append((path, payload, key))
                    return
                if 200 <= response.status_code < 300:
                    body = response.json()
                    transaction_id = body.get("transaction_id") or body["data"]["transaction_id"]
                    with self._lock:
                        self.acknowledged.append(
                            Acknowledged(
                                path,
                                payload,
                                key,
                                response.status_code,
                                response.content,
                                transaction_id,
                            )
                        )


def closed_port() -> int:
    """A loopback port nobody listens on: webhook deliveries to it fail and are retried."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def seed_scheduled_work(db: Path, credentials: Credentials) -> str:
    """A QR created when the merchant was seeded, two hours ago (its 1-hour expiry is
    overdue), and a paid charge whose webhook goes to a dead receiver, written through the
    engine before any server runs (its clock goes on from the seeding)."""
    sandbox = Sandbox(path=db)
    try:
        with httpx.Client(transport=sandbox.transport(), base_url="http://sb/api/external") as c:
            charge = post(c, "/pix/cash-in", {"amount": 777}, credentials)
            assert charge.status_code == 201, charge.text
            # Only the one charge paid here emits an event: a backlog of failing deliveries
            # would delay the payouts' timers behind it (reported in /tmp/defects.md).
            hook = {
                "url": f"http://127.0.0.1:{closed_port()}/hook",
                "event_types": ["pix.charge.paid"],
            }
            subscribed = post(c, "/webhooks", hook, credentials)
            assert subscribed.status_code in (200, 201), subscribed.text
            paid = post(c, "/pix/cash-in", {"amount": 999}, credentials).json()["data"]
            sandbox.pay_charge(paid["transaction_id"])
        return str(charge.json()["data"]["transaction_id"])
    finally:
        sandbox.engine.store.close()


def crash_cycle(db: Path, workload: Workload, rng: random.Random) -> None:
    server = ServerProcess(db).start()
    stop = threading.Event()
    threads = [
        threading.Thread(target=workload.run, args=(server.base_url, stop)) for _ in range(WORKERS)
    ]
    try:
        for thread in threads:
            thread.start()
        # ~100 answered writes a cycle on a quiet machine, a third of that on a busy one:
        # enough for the checks (9 writes, more cash-outs than the DICT quota's 20); each
        # is replayed after the last restart, so a longer window only adds requests sent
        # twice (0.6-1.2 s gave ~570 writes and ~4 s more of CPU).
        time.sleep(rng.uniform(0.3, 0.6))
        server.kill()  # mid-flight: the workers are sending as fast as they can
    finally:
        stop.set()
        server.stop()
        for thread in threads:
            thread.join(15)


def pending_deliveries(db: Path, *, due_only: bool = False) -> dict[int, int]:
    """Pending webhook deliveries and their attempts so far; `due_only`: those whose next
    attempt is already due (stored times are fixed-width UTC text, so they compare)."""
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    due = " AND next_attempt_at <= ?" if due_only else ""
    conn = open_readonly(db)
    try:
        rows = conn.execute(
            "SELECT seq, attempts FROM webhook_deliveries WHERE state = 'pending'" + due,
            (now,) if due_only else (),
        ).fetchall()
    finally:
        conn.close()
    return {int(seq): int(attempts) for seq, attempts in rows}


def set_dict_quota(db: Path, per_minute: int) -> None:
    """Set the merchant's DICT lookup quota directly in the file (no server is running)."""
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        conn.execute("UPDATE merchants SET dict_lookups_per_minute = ?", (per_minute,))
    finally:
        conn.close()


def queued_cash_outs(db: Path) -> int:
    conn = open_readonly(db)
    try:
        return int(
            conn.execute(
                "SELECT COUNT(*) FROM transactions WHERE kind = 'cash_out' AND status = 'queued'"
            ).fetchone()[0]
        )
    finally:
        conn.close()


def wait_for(condition: Any, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.2)
    raise AssertionError(f"not within {timeout_s} s: {what}")


def test_sigkill_mid_workload_loses_no_acknowledged_write(tmp_path: Path) -> None:
    db = tmp_path / "pix.db"
    two_hours_ago = datetime.now(UTC) - timedelta(hours=2)
    seeded = seed_merchant(
        db, balance_centavos=5_000_000, received_centavos=(50_000,) * 8, start=two_hours_ago
    )
    credentials = seeded.credentials
    qr_txid = seed_scheduled_work(db, credentials)
    set_dict_quota(db, SMALL_DICT_QUOTA_PER_MINUTE)
    workload = Workload(credentials, seeded.received_ids)
    rng = random.Random(13)
    for _ in range(CYCLES):
        crash_cycle(db, workload, rng)
        assert integrity(db) == "ok"
    assert len(workload.acknowledged) >= 3 * CYCLES, "the workload made progress"
    assert queued_cash_outs(db) > 0, "the small quota left cash-outs waiting in the queue"
    # The quota's minute is over for everyone waiting: each queued cash-out's next retry
    # (every 3 s) reaches the directory, whatever the second the test started in.
    set_dict_quota(db, 1_000_000)

    due_before_restart = pending_deliveries(db, due_only=True)
    server = ServerProcess(db).start()
    try:
        with http_client(server.base_url) as client:
            for ack in workload.acknowledged:
                found = get(client, f"/transactions/{ack.transaction_id}", credentials)
                assert found.status_code == 200, (ack.path, ack.transaction_id, found.text)
                replay = post(
                    client, ack.path, ack.payload, credentials, idempotency_key=ack.idempotency_key
                )
                assert replay.status_code == ack.status
                assert replay.content == ack.body, "a replay is the first answer, byte for byte"
                assert replay.headers["x-idempotent-replay"] == "true"
            # Requests cut off by the kill may or may not have committed; resending them
            # with their key must never make a second transaction.
            for path, payload, key in workload.unanswered:
                resent = post(client, path, payload, credentials, idempotency_key=key)
                assert resent.status_code < 500, resent.text

            def qr_expired() -> bool:
                shown = get(client, f"/transactions/{qr_txid}", credentials).json()
                return bool(shown["data"]["status"] == "expired")

            wait_for(qr_expired, 10, "the overdue QR expiry runs after restart")

        def nothing_in_flight() -> bool:
            conn = open_readonly(db)
            try:
                return not conn.execute(
                    "SELECT COUNT(*) FROM transactions WHERE direction = 'outbound'"
                    " AND status NOT IN ('settled', 'failed', 'rejected')"
                ).fetchone()[0]
            finally:
                conn.close()

        wait_for(nothing_in_flight, 15, "queued settlement of payouts and refunds resumes")

        if due_before_restart:

            def retried() -> bool:
                now = pending_deliveries(db)
                return all(
                    now.get(seq, attempts + 1) > attempts
                    for seq, attempts in due_before_restart.items()
                )

            wait_for(retried, 12, "webhook retries resume after restart")
    finally:
        server.stop()
    # The delivery queued before any server existed was attempted by one of them.
    assert pending_deliveries(db), "the dead receiver's delivery is still being retried"
    assert all(attempts >= 1 for attempts in pending_deliveries(db).values())

    conn = open_readonly(db)
    try:
        duplicated = conn.execute(
            "SELECT external_id, COUNT(*) FROM transactions WHERE external_id LIKE 'co-%'"
            " GROUP BY external_id HAVING COUNT(*) > 1"
        ).fetchall()
        assert duplicated == [], "a resent request made a second transaction"
        charges = conn.execute(
            "SELECT external_id, COUNT(*) FROM charges WHERE external_id LIKE 'qr-%'"
            " GROUP BY external_id HAVING COUNT(*) > 1"
        ).fetchall()
        assert charges == []
    finally:
        conn.close()
    assert integrity(db) == "ok"
    assert file_violations(db) == []
