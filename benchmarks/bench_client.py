"""The client's cost per call on top of raw httpx, both on the sandbox's in-process
transport, measured in the same run (issue 10: under 25 % on top).

    .venv/bin/python benchmarks/bench_client.py               # ~25 s
    .venv/bin/python benchmarks/bench_client.py --calls 10 --rounds 10

Three operations, each timed raw (an `httpx.Client` with the `Authorization` header, the
body signed by hand, `response.json()`) and through `pixops.Client` (argument checks,
canonical JSON and HMAC, retry bookkeeping, pydantic models):
`GET /balance`, a signed `POST /cpf/validate`, and `GET /statement?per_page=100` over a
page of 100 rows. Each round runs a raw batch and a client batch side by side (the order
alternating), so machine drift hits both halves of a pair alike; the overhead is the
median of the pairs' ratios, printed with the middle half of the rounds. (Until
2026-11-28 it was the fastest raw batch against the fastest client batch, taken at
different moments: on this VM the raw figure alone swung from 570 to 1,085 calls per
CPU-second between runs, and the two minima from different moments swung the ratio.)
A hundred rounds by default (forty before 2026-11-28): each run's middle half narrows, but
runs still differ when this VM's speed changes under them (the raw side's calls per
CPU-second halve in its slow spells, and the statement page's overhead then rises): see
benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
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
    parser.add_argument("--rounds", type=int, default=100, help="batches of each, alternated")
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
    print(
        f"{'operation':<30} {'raw httpx':>12} {'client':>10} {'overhead':>9}  (calls/CPU-s)"
        f"{'':>19}{'fastest':>9}"
    )
    for name, raw_call, client_call in operations:
        raw_times: list[float] = []
        client_times: list[float] = []
        for round_number in range(args.rounds):
            # Each round is a pair of batches side by side in time, in alternating order
            # (neither side always runs on the caches the other left).
            pair = [(raw_times, raw_call), (client_times, client_call)]
            for times, call in pair if round_number % 2 == 0 else pair[::-1]:
                times.append(per_call(call, args.calls))
        ratios = sorted(c / r for r, c in zip(raw_times, client_times, strict=True))
        low, mid, high = (ratios[int(q * (len(ratios) - 1))] - 1 for q in (0.25, 0.5, 0.75))
        raw_median, client_median = statistics.median(raw_times), statistics.median(client_times)
        fastest = min(client_times) / min(raw_times) - 1
        print(
            f"{name:<30} {1 / raw_median:>12,.0f} {1 / client_median:>10,.0f} {mid:>8.1%}"
            f"  ({low:.1%} to {high:.1%})  {fastest:>7.1%}"
        )
    print("overhead = extra time per call of the client over raw httpx (target < 25 %): the")
    print("median over rounds of client batch / raw batch, each pair run side by side in time")
    print("(in brackets the middle half of the rounds); calls/CPU-s are the median batches;")
    print("last, the fastest client batch against the fastest raw batch (the old figure)")


if __name__ == "__main__":
    main()
