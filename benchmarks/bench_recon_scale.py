"""How the reconciliation's cost grows: DuckDB at 1M, 4M and 10M x the same, under a
memory limit small enough that 10M spills to disk, and local Spark at 1M beside DuckDB
at 1M, in the same run.

    .venv/bin/python benchmarks/bench_recon_scale.py             # ~20 minutes on a busy machine
    nice .venv/bin/python benchmarks/bench_recon_scale.py --sizes 1000000 --no-spark

Each size runs in a process of its own (its peak RSS is its own): the synthetic data of
bench_recon.py (every category planted, balance snapshots) is built, then `reconcile`
runs on a DuckDB connection with ``memory_limit`` (default 1 GB) and a temp directory,
whose spilled bytes are printed beside the wall and CPU time, seconds per million rows,
the RSS with the inputs built (the interpreter and its Arrow inputs) and the peak RSS.
The peak must stay under the inputs' RSS plus the limit plus the result's frames
(which the run returns; printed beside the margin). Spark at 1M: a local[2] session
with a 4 GB driver, its start, then one `pixops.recon.spark.reconcile` run (wall, the
Python and the JVM's CPU seconds) and its counts, checked equal to DuckDB's.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The local driver's heap at 1M rows (the inputs cross to it as Arrow, the steps
#: checkpoint there): with 4 GB, 45 s of the first ~5 CPU minutes went to GC.
SPARK_DRIVER_MEMORY = "4g"


def _rss_mib() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _spilled_mib(folder: str, stop: threading.Event, found: list[float]) -> None:
    """The most bytes DuckDB's temp directory held while the run went on."""
    while not stop.is_set():
        total = 0
        for path in Path(folder).rglob("*"):
            try:
                total += path.stat().st_size
            except OSError:
                continue
        found.append(total / 2**20)
        stop.wait(0.05)


def one_duckdb(rows: int, limit: str) -> dict[str, object]:
    import duckdb

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_recon import DAY, build

    from pixops.recon import reconcile

    statement, ledger, balances = build(rows)
    inputs_mib = _rss_mib()
    with tempfile.TemporaryDirectory(prefix="pixops-spill-") as spill:
        con = duckdb.connect(
            config={
                "memory_limit": limit,
                "temp_directory": spill,
                "preserve_insertion_order": False,
            }
        )
        found: list[float] = []
        stop = threading.Event()
        watcher = threading.Thread(target=_spilled_mib, args=(spill, stop, found))
        watcher.start()
        wall, cpu = time.perf_counter(), time.process_time()
        result = reconcile(statement, ledger, balances=balances, start=DAY, end=DAY, connection=con)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        stop.set()
        watcher.join()
        con.close()
    frames = result.frames().values()
    return {
        "rows": rows,
        "result_mib": sum(int(f.memory_usage(deep=True).sum()) for f in frames) / 2**20,
        "wall_s": wall,
        "cpu_s": cpu,
        "inputs_rss_mib": inputs_mib,
        "peak_rss_mib": _peak_mib(),
        "spilled_mib": max(found, default=0.0),
        "counts": result.counts,
        "load": os.getloadavg()[0],
    }


def one_spark(rows: int) -> dict[str, object]:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_recon import DAY, build

    from pixops.recon.spark import reconcile, spark_session

    statement, ledger, balances = build(rows)
    started = time.perf_counter()
    spark = spark_session(
        "local[2]",
        shuffle_partitions=4,
        driver_memory=SPARK_DRIVER_MEMORY,
        config={"spark.ui.enabled": "false"},
    )
    start_s = time.perf_counter() - started
    jvm = int(spark._jvm.java.lang.ProcessHandle.current().pid())  # type: ignore[union-attr]
    jvm_cpu = _cpu_s(jvm)
    wall, cpu = time.perf_counter(), time.process_time()
    result = reconcile(spark, statement, ledger, balances=balances, start=DAY, end=DAY)
    counts = result.counts
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    jvm_cpu = _cpu_s(jvm) - jvm_cpu
    spark.stop()
    return {
        "rows": rows,
        "session_start_s": start_s,
        "wall_s": wall,
        "cpu_s": cpu,
        "jvm_cpu_s": jvm_cpu,
        "counts": counts,
        "load": os.getloadavg()[0],
    }


def _cpu_s(pid: int) -> float:
    """User plus system CPU seconds of process ``pid`` (the JVM's), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _child(kind: str, rows: int, limit: str) -> dict[str, object]:
    command = [sys.executable, __file__, "--child", kind, "--rows", str(rows), "--limit", limit]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{kind} at {rows:,} rows failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000000,4000000,10000000")
    parser.add_argument("--limit", default="1GB", help="DuckDB memory_limit")
    parser.add_argument("--no-spark", action="store_true")
    parser.add_argument("--child", choices=("duckdb", "spark"), help=argparse.SUPPRESS)
    parser.add_argument("--rows", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        found = (
            one_duckdb(args.rows, args.limit) if args.child == "duckdb" else one_spark(args.rows)
        )
        print(json.dumps(found))
        return
    print(f"load average {os.getloadavg()[0]:.2f}; DuckDB memory_limit {args.limit}")
    sizes = [int(size) for size in args.sizes.split(",")]
    for rows in sizes:
        found = _child("duckdb", rows, args.limit)
        per_million = float(found["wall_s"]) / (rows / 1e6)  # type: ignore[arg-type]
        margin = float(found["peak_rss_mib"]) - float(found["inputs_rss_mib"])  # type: ignore[arg-type]
        print(
            f"DuckDB {rows:>11,} x same: {found['wall_s']:7.2f} s wall {found['cpu_s']:7.2f} s CPU"
            f"  {per_million:5.2f} s/M rows  spilled {found['spilled_mib']:7.0f} MiB"
            f"  RSS inputs {found['inputs_rss_mib']:6.0f} MiB, peak {found['peak_rss_mib']:6.0f}"
            f" MiB (+{margin:.0f} over the inputs, of which the result's frames"
            f" {found['result_mib']:.0f}; limit {args.limit})  load {found['load']:.2f}",
            flush=True,
        )
        if rows == sizes[0] and not args.no_spark:  # beside DuckDB at the same size
            spark = _child("spark", rows, args.limit)
            same = spark["counts"] == found["counts"]
            print(
                f"Spark  {rows:>11,} x same: {spark['wall_s']:7.2f} s wall (one run in a fresh"
                f" session, started in {spark['session_start_s']:.2f} s), CPU"
                f" {spark['cpu_s']:.2f} s Python + {spark['jvm_cpu_s']:.2f} s JVM, counts equal"
                f" to DuckDB's: {same}  load {spark['load']:.2f}",
                flush=True,
            )
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
