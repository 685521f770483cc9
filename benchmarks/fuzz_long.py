"""The long fuzzing run: what tests/stress runs in a bounded way, with many more examples.

    .venv/bin/python benchmarks/fuzz_long.py                      # ~15 min
    .venv/bin/python benchmarks/fuzz_long.py --examples 50 --machine-examples 100

1. schemathesis over every operation of the served document, snake_case and camelCase
   (tests/stress/test_schemathesis_fuzz.py with `STRESS_FUZZ_EXAMPLES`): no 5xx, no
   answer outside the document, schema-invalid requests refused, schema-valid ones
   accepted or refused for an explained state;
2. the ledger state machine (tests/stress/test_ledger_state_machine.py) with more and
   longer runs;
3. the acceptance census: schema-valid requests only, both casings, counted by
   operation as accepted (2xx), refused for an explained state (the test's `EXPLAINED`,
   by cause) or refused unexplained, which fails the run and is listed with its body.

Prints each part's outcome and time; writes `benchmarks/results/fuzz_long.json`; exits
1 when any part failed.
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


def acceptance_census(examples: int) -> dict[str, Any]:
    import schemathesis
    from hypothesis import HealthCheck, given, settings
    from schemathesis.generation.modes import GenerationMode
    from tests.stress._harness import ServerProcess
    from tests.stress.test_schemathesis_fuzz import (
        Served,
        acceptance_problem,
        discover,
        explained,
        operations,
        refusal_cause,
        register_formats,
        seed,
        send,
        without_owned_headers,
    )

    from pixops import wire

    started = time.monotonic()
    accepted: Counter[str] = Counter()
    refused: Counter[tuple[str, int, str]] = Counter()
    unexplained: list[str] = []

    def tally(served: Any, case: Any, camel: bool) -> None:
        try:
            response = send(served, case, camel)
        except wire.WireError:
            return  # no camelCase request means this body
        label = case.operation.label + (" (camelCase)" if camel else "")
        if response.status_code < 300:
            accepted[label] += 1
        elif acceptance_problem(case, response) is None:
            assert explained(case, response) is not None
            refused[(label, response.status_code, refusal_cause(response))] += 1
        else:
            unexplained.append(str(acceptance_problem(case, response)))

    def probe(served: Any, operation: Any, camel: bool) -> None:
        @settings(
            max_examples=examples,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            database=None,
        )
        @given(operation.as_strategy(generation_mode=GenerationMode.POSITIVE))
        def run(case: Any) -> None:
            tally(served, case, camel)

        run()

    with tempfile.TemporaryDirectory(prefix="pixops-fuzz-") as scratch:
        db = Path(scratch) / "pix.db"
        credentials = seed(db)
        server = ServerProcess(db).start()
        try:
            served = Served(server, credentials, db)
            register_formats(discover(served))
            document = without_owned_headers(served.http.get("/openapi.json").json())
            schema = schemathesis.openapi.from_dict(document)
            for camel in (False, True):
                for method, path in operations():
                    probe(served, schema[path][method], camel)
            served.http.close()
        finally:
            server.stop()
    sent = sum(accepted.values()) + sum(refused.values()) + len(unexplained)
    outcome = "passed" if not unexplained else f"FAILED ({len(unexplained)} unexplained)"
    print(
        f"acceptance census, {examples} schema-valid requests per operation and casing:"
        f" {outcome}; {sent} sent, {sum(accepted.values())} accepted,"
        f" {sum(refused.values())} refused for an explained state",
        flush=True,
    )
    for (label, status, cause), count in refused.most_common(25):
        print(f"  {count:>5}  {status}  {label}: {cause}")
    for problem in unexplained[:10]:
        print(f"  UNEXPLAINED {problem}")
    return {
        "examples": examples,
        "passed": not unexplained,
        "sent": sent,
        "accepted": dict(sorted(accepted.items())),
        "explained_refusals": [
            {"operation": label, "status": status, "cause": cause, "count": count}
            for (label, status, cause), count in refused.most_common()
        ],
        "unexplained_refusals": unexplained[:50],
        "seconds": round(time.monotonic() - started, 1),
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--examples", type=int, default=200, help="schemathesis, per operation")
    parser.add_argument("--machine-examples", type=int, default=300)
    parser.add_argument("--machine-steps", type=int, default=60)
    parser.add_argument("--census-examples", type=int, default=100)
    args = parser.parse_args(argv)
    started = time.monotonic()
    load_before = os.getloadavg()
    results: dict[str, Any] = {
        "schemathesis": run_schemathesis(args.examples),
        "state_machine": run_machine(args.machine_examples, args.machine_steps),
        "acceptance_census": acceptance_census(args.census_examples),
    }
    results["load_average_1_5_15"] = {
        "before": [round(x, 2) for x in load_before],
        "after": [round(x, 2) for x in os.getloadavg()],
    }
    results["seconds"] = round(time.monotonic() - started, 1)
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / "fuzz_long.json"
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"results written to {out}")
    failed = [
        name
        for name, part in results.items()
        if isinstance(part, dict) and part.get("passed") is False
    ]
    if failed:
        print(f"FAILED: {', '.join(failed)}")
        sys.exit(1)


if __name__ == "__main__":
    main()
