"""The long fuzzing run: what tests/stress runs in a bounded way, with many more examples.

    .venv/bin/python benchmarks/fuzz_long.py                      # ~10-20 min
    .venv/bin/python benchmarks/fuzz_long.py --examples 50 --machine-examples 100

1. schemathesis over every operation of the served document, snake_case and camelCase
   (tests/stress/test_schemathesis_fuzz.py with `STRESS_FUZZ_EXAMPLES`);
2. the ledger state machine (tests/stress/test_ledger_state_machine.py) with more and
   longer runs;
3. a census of schema-valid requests the service refused (positive cases answered 400 or
   422), grouped by operation and message: the document cannot express check digits,
   registered keys or balances, so these are read by a person, not asserted.

Prints each part's outcome and time; writes `benchmarks/results/fuzz_long.json`.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results"
sys.path.insert(0, str(ROOT))


def run_schemathesis(examples: int) -> dict[str, Any]:
    started = time.monotonic()
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/stress/test_schemathesis_fuzz.py",
            "--timeout",
            "0",
        ],
        cwd=ROOT,
        env={**os.environ, "STRESS_FUZZ_EXAMPLES": str(examples)},
        capture_output=True,
        text=True,
        check=False,
    )
    summary = completed.stdout.strip().splitlines()[-1] if completed.stdout.strip() else ""
    print(f"schemathesis, {examples} examples per operation and casing: {summary}", flush=True)
    if completed.returncode != 0:
        print(completed.stdout[-4000:])
    return {
        "examples": examples,
        "summary": summary,
        "passed": completed.returncode == 0,
        "seconds": round(time.monotonic() - started, 1),
    }


def run_machine(examples: int, steps: int) -> dict[str, Any]:
    from hypothesis import HealthCheck, settings
    from hypothesis.stateful import run_state_machine_as_test
    from tests.stress.test_ledger_state_machine import LedgerMachine

    started = time.monotonic()
    failure = None
    try:
        run_state_machine_as_test(
            LedgerMachine,
            settings=settings(
                max_examples=examples,
                stateful_step_count=steps,
                deadline=None,
                suppress_health_check=[HealthCheck.too_slow],
            ),
        )
    except Exception as error:  # a falsifying example: report it, keep the other parts
        failure = f"{type(error).__name__}: {error}"[:4000]
    outcome = "passed" if failure is None else f"FAILED {failure}"
    print(f"state machine, {examples} runs of up to {steps} steps: {outcome}", flush=True)
    return {
        "examples": examples,
        "steps": steps,
        "passed": failure is None,
        "failure": failure,
        "seconds": round(time.monotonic() - started, 1),
    }


def refusal_census(examples: int) -> dict[str, Any]:
    import schemathesis
    from hypothesis import HealthCheck, given, settings
    from schemathesis.generation.modes import GenerationMode
    from tests.stress._harness import ServerProcess, seed_merchant
    from tests.stress.test_schemathesis_fuzz import (
        Served,
        operations,
        send,
        without_owned_headers,
    )

    refused: Counter[tuple[str, int, str]] = Counter()
    sent = 0
    with tempfile.TemporaryDirectory(prefix="pixops-fuzz-") as scratch:
        db = Path(scratch) / "pix.db"
        seeded = seed_merchant(db, balance_centavos=100_000_000, received_centavos=(50_000,) * 3)
        server = ServerProcess(db).start()
        try:
            served = Served(server, seeded.credentials, db)
            document = without_owned_headers(served.http.get("/openapi.json").json())
            schema = schemathesis.openapi.from_dict(document)
            for method, path in operations():
                operation = schema[path][method]

                @settings(
                    max_examples=examples,
                    deadline=None,
                    suppress_health_check=list(HealthCheck),
                    database=None,
                )
                @given(operation.as_strategy(generation_mode=GenerationMode.POSITIVE))
                def probe(case: Any) -> None:
                    nonlocal sent
                    label = case.operation.label
                    response = send(served, case, camel=False)
                    sent += 1
                    if response.status_code in (400, 422):
                        refused[(label, response.status_code, response.text[:160])] += 1

                probe()
            served.http.close()
        finally:
            server.stop()
    print(f"schema-valid requests sent: {sent}; refused (400/422): {sum(refused.values())}")
    for (label, status, text), count in refused.most_common(25):
        print(f"  {count:>4}  {status}  {label}: {text}")
    return {
        "sent": sent,
        "refused": [
            {"operation": label, "status": status, "body": text, "count": count}
            for (label, status, text), count in refused.most_common()
        ],
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--examples", type=int, default=200, help="schemathesis, per operation")
    parser.add_argument("--machine-examples", type=int, default=300)
    parser.add_argument("--machine-steps", type=int, default=60)
    parser.add_argument("--census-examples", type=int, default=100)
    args = parser.parse_args(argv)
    results = {
        "schemathesis": run_schemathesis(args.examples),
        "state_machine": run_machine(args.machine_examples, args.machine_steps),
        "refusal_census": refusal_census(args.census_examples),
    }
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / "fuzz_long.json"
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"results written to {out}")


if __name__ == "__main__":
    main()
