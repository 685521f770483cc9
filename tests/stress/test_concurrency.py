"""Concurrency against `pixops serve` on a file store, from many threads at once, with
one server and with two server processes sharing the database file.

Each test fires its requests through a barrier so they arrive together, then checks
the exact outcome and the ledger invariants (`_harness.invariant_violations`).

The servers are started once for the module (one alone on a file, two sharing another
file: a start costs a second of CPU) and each test seeds its own merchant into the
running servers' file; the files are checked again once the servers have stopped.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

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
    served,
)

Request = Callable[[httpx.Client, int], httpx.Response]
#: By how many servers share it: the database file and the servers running on it.
Running = dict[int, tuple[Path, list[ServerProcess]]]


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    """One server on one file and two servers on another, for the whole module."""
    folder = tmp_path_factory.mktemp("concurrency")
    one, two = folder / "one.db", folder / "two.db"
    with served(one, count=1) as alone, served(two, count=2) as pair:
        yield {1: (one, alone), 2: (two, pair)}
    for db in (one, two):  # stopped: what every test left behind, once more
        assert file_violations(db) == []
        assert integrity(db) == "ok"


def fire_together(base_urls: list[str], count: int, request: Request) -> list[httpx.Response]:
    """`count` requests from `count` threads released at once, spread over the servers."""
    barrier = threading.Barrier(count, timeout=30)
    clients = [http_client(base_urls[i % len(base_urls)]) for i in range(count)]

    def one(index: int) -> httpx.Response:
        barrier.wait()
        return request(clients[index], index)

    try:
        with ThreadPoolExecutor(max_workers=count) as pool:
            return list(pool.map(one, range(count)))
    finally:
        for client in clients:
            client.close()


def wait_until_settled(db: Path, transaction_ids: list[str], timeout_s: float = 20.0) -> None:
    """The wall-clock timer worker settles payouts and refunds ~2 s after acceptance."""
    deadline = time.monotonic() + timeout_s
    marks = ",".join("?" * len(transaction_ids))
    while time.monotonic() < deadline:
        conn = open_readonly(db)
        try:
            pending = conn.execute(
                f"SELECT COUNT(*) FROM transactions WHERE transaction_id IN ({marks})"
                " AND status NOT IN ('settled', 'failed', 'rejected')",
                transaction_ids,
            ).fetchone()[0]
        finally:
            conn.close()
        if pending == 0:
            return
        time.sleep(0.2)
    raise AssertionError(f"{pending} transactions still in flight after {timeout_s} s")


@pytest.mark.parametrize("servers", [1, 2])
def test_fifty_refunds_of_one_original_refund_exactly_its_amount(
    running: Running, servers: int
) -> None:
    db, on = running[servers]
    seeded = seed_merchant(db, balance_centavos=1_000_000, received_centavos=(10_000,))
    original = seeded.received_ids[0]
    credentials = seeded.credentials

    def refund(client: httpx.Client, index: int) -> httpx.Response:
        body = {"original_transaction_id": original, "amount": 300, "reason": "MD06"}
        return post(client, "/pix/refund", body, credentials)

    responses = fire_together([s.base_url for s in on], 50, refund)
    statuses = Counter(r.status_code for r in responses)
    # 33 x 300 = 9,900 fits in 10,000; the 34th would exceed the original.
    assert statuses == {202: 33, 422: 17}, statuses
    for refused in (r for r in responses if r.status_code == 422):
        assert "unprocessable_entity" in refused.json()["errors"]
    accepted = [r.json()["transaction_id"] for r in responses if r.status_code == 202]
    assert len(set(accepted)) == 33
    wait_until_settled(db, accepted)
    with http_client(on[-1].base_url) as client:
        shown = get(client, f"/transactions/{accepted[0]}", credentials).json()
        assert shown["data"]["status"] == "settled"

    conn = open_readonly(db)
    try:
        refunded = conn.execute(
            "SELECT SUM(amount_base), COUNT(*) FROM transactions"
            " WHERE original_transaction_id = ? AND status = 'settled'",
            (original,),
        ).fetchone()
    finally:
        conn.close()
    assert refunded == (9_900 * 100, 33)
    assert file_violations(db) == []
    assert integrity(db) == "ok"


@pytest.mark.parametrize("servers", [1, 2])
def test_simultaneous_cash_outs_never_take_the_safe_balance_below_zero(
    running: Running, servers: int
) -> None:
    db, on = running[servers]
    balance_centavos = 10_000
    credentials = seed_merchant(db, balance_centavos=balance_centavos).credentials

    def cash_out(client: httpx.Client, index: int) -> httpx.Response:
        # Distinct amounts: equal amount, key and minute derive one end-to-end id (DUPL).
        body = {"amount": 1_000 + index, "pix_key": SETTLING_KEY, "external_id": f"co-{index}"}
        return post(client, "/pix/cash-out", body, credentials)

    responses = fire_together([s.base_url for s in on], 30, cash_out)
    accepted = [r.json() for r in responses if r.status_code in (200, 202)]
    refused = [r for r in responses if r.status_code not in (200, 202)]
    assert accepted, "at least one cash-out fits the balance"
    assert refused, "30 cash-outs of R$ 10 cannot all fit in R$ 100"
    assert {r.status_code for r in refused} == {422}
    assert all("insufficient" in r.text.lower() for r in refused)
    debited_base = sum(a["net_amount"] for a in accepted)  # amount + fee each
    remaining_base = balance_centavos * 100 - debited_base
    assert remaining_base >= 0, "no overdraft"
    # No spurious refusal: each refused debit exceeded what was left even at the end.
    for r in refused:
        assert r.json()["errors"][0]["params"]["required"] > remaining_base
    wait_until_settled(db, [a["transaction_id"] for a in accepted])
    with http_client(on[0].base_url) as client:
        balance = get(client, "/balance", credentials).json()["data"]
    assert balance["balance"] == remaining_base
    assert file_violations(db) == []
    assert integrity(db) == "ok"


def test_twenty_posts_with_one_idempotency_key_make_one_transaction(running: Running) -> None:
    db, on = running[2]
    credentials: Credentials = seed_merchant(db, balance_centavos=1_000_000).credentials
    key = "stress-idem-0001"

    def cash_out(client: httpx.Client, index: int) -> httpx.Response:
        body = {"amount": 1_234, "pix_key": SETTLING_KEY, "external_id": "idem-once"}
        return post(client, "/pix/cash-out", body, credentials, idempotency_key=key)

    responses = fire_together([s.base_url for s in on], 20, cash_out)
    successes = [r for r in responses if r.status_code in (200, 202)]
    conflicts = [r for r in responses if r.status_code == 409]
    assert len(successes) + len(conflicts) == 20, Counter(r.status_code for r in responses)
    assert successes, "one request must win"
    first_body = successes[0].content
    assert all(r.content == first_body for r in successes), "replays are byte-identical"
    assert all(r.status_code == successes[0].status_code for r in successes)
    replays = [r for r in successes if r.headers.get("x-idempotent-replay") == "true"]
    assert len(replays) == len(successes) - 1
    assert all(r.headers.get("idempotency-key") == key for r in successes)
    for conflict in conflicts:
        assert "idempot" in conflict.text.lower()
    conn = open_readonly(db)
    try:
        count = conn.execute(
            "SELECT COUNT(*) FROM transactions WHERE external_id = 'idem-once'"
        ).fetchone()[0]
    finally:
        conn.close()
    assert count == 1
    assert file_violations(db) == []
