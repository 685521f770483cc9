"""Soak: the load benchmark's mixed workload for 10 minutes, memory sampled every 10 s.

    .venv/bin/python benchmarks/soak.py                   # 600 s
    .venv/bin/python benchmarks/soak.py --seconds 120     # a shorter look

Prints the figures of `bench_load.py` plus a memory verdict: the server's resident set
is "flat" when it grows by less than 5 % (and less than 16 MiB) between the first sample
after warm-up (one sixth of the run) and the last. Writes `benchmarks/results/soak.json`.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_load

FLAT_FRACTION = 0.05
FLAT_KIB = 16 * 1024


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=600.0)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--servers", type=int, default=1)
    args = parser.parse_args(argv)
    # A SIGTERM ends the run through the `finally` blocks that stop the servers.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    options = argparse.Namespace(
        seconds=args.seconds,
        ceiling_seconds=10.0,
        connections=args.connections,
        servers=args.servers,
        sample_every=10.0,
        db_dir=None,
        only="mix",
    )
    results = bench_load.run(options)
    mixed = results["mixed"]
    samples = mixed["memory_samples"]
    warm_at = args.seconds / 6
    warm = next((kib for at, kib in samples if at >= warm_at), samples[-1][1])
    growth = samples[-1][1] - warm
    flat = growth < FLAT_KIB and growth < warm * FLAT_FRACTION
    results["soak"] = {
        "rss_after_warmup_kib": warm,
        "rss_end_kib": samples[-1][1],
        "growth_kib": growth,
        "verdict": "flat" if flat else "GROWING",
    }
    print(
        f"memory after warm-up {warm / 1024:.1f} MiB -> end {samples[-1][1] / 1024:.1f} MiB"
        f" ({growth / 1024:+.1f} MiB): {'flat' if flat else 'GROWING'}"
    )
    bench_load.RESULTS.mkdir(exist_ok=True)
    out = bench_load.RESULTS / "soak.json"
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"results written to {out}")


if __name__ == "__main__":
    main()
