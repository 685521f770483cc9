"""The client's cost per call on top of raw httpx, both on the sandbox's in-process
transport, measured in the same run (issue 10: under 25 % on top).

    .venv/bin/python benchmarks/bench_client.py               # ~40 s
    .venv/bin/python benchmarks/bench_client.py --calls 10 --rounds 10

Three operations, each timed raw (an `httpx.Client` with the `Authorization` header, the
body signed by hand, `response.json()`) and through `pixops.Client` (argument checks,
canonical JSON and HMAC, retry bookkeeping, pydantic models):
`GET /balance`, a signed `POST /cpf/validate`, and `GET /statement?per_page=100` over a
page of 100 rows. Batches alternate raw and client so machine drift hits both; the
figure kept for each is its fastest batch (the least disturbed by other processes).
"""

from __future__ import annotations

import argparse
import json
import time
import uuid
from collections.abc import Callable

import httpx

from pixops import wire
from pixops.client import NO_RETRY
from pixops.sandbox import Sandbox


def per_call(action: Callable[[], object], calls: int) -> float:
    """CPU seconds per call of `action`, over `calls` calls in a row. CPU time of this
    process, not wall time: the in-process transport runs on this thread, and other
    processes on the shared machine then cannot inflate one side of the comparison."""
    start = time.process_time()
    for _ in range(calls):
        action()
    return (time.process_time() - start) / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20, help="calls per timed batch")
    parser.add_argument("--rounds", type=int, default=30, help="batches of each, alternated")
    args = parser.parse_args()

    sandbox = Sandbox(rate_limit_per_minute=10**9)
    merchant = sandbox.create_merchant("Bench", balance_centavos=10**9)
    key = sandbox.issue_api_key(merchant.id)
    for n in range(150):
        sandbox.receive_pix(merchant.id, amount_centavos=1_000 + n)
    raw = httpx.Client(
        transport=sandbox.transport(),
        base_url="http://sandbox/api/external",
        headers={"Authorization": f"ApiKey {key.client_id}:{key.client_secret}"},
    )
    client = sandbox.client(key, retry=NO_RETRY)

    def raw_post_cpf() -> object:
        # What a careful raw caller sends: signed, with a fresh Idempotency-Key (the
        # client adds one to every POST, and the service stores it).
        body = json.dumps({"cpf": "52998224725"}).encode()
        headers = {
            "content-type": "application/json",
            "hmac": wire.sign(body, key.client_secret),
            "idempotency-key": uuid.uuid4().hex,
        }
        return raw.post("/cpf/validate", content=body, headers=headers).json()

    operations: list[tuple[str, Callable[[], object], Callable[[], object]]] = [
        ("GET /balance", lambda: raw.get("/balance").json(), client.balance),
        ("POST /cpf/validate (signed)", raw_post_cpf, lambda: client.cpf.validate("52998224725")),
        (
            "GET /statement per_page=100",
            lambda: raw.get("/statement", params={"per_page": 100}).json(),
            lambda: client.statement.list(per_page=100),
        ),
    ]
    print(f"{'operation':<30} {'raw httpx':>12} {'client':>10} {'overhead':>9}  (calls/CPU-s)")
    for name, raw_call, client_call in operations:
        raw_best = client_best = float("inf")
        for _ in range(args.rounds):
            raw_best = min(raw_best, per_call(raw_call, args.calls))
            client_best = min(client_best, per_call(client_call, args.calls))
        overhead = client_best / raw_best - 1
        print(f"{name:<30} {1 / raw_best:>12,.0f} {1 / client_best:>10,.0f} {overhead:>8.1%}")
    print("overhead = extra time per call of the client over raw httpx (target < 25 %);")
    print("each figure is the fastest of its batches (the least disturbed by the machine)")


if __name__ == "__main__":
    main()
