"""Statement pages (raw JSON bytes) into Arrow: rows per second and peak memory.

    .venv/bin/python benchmarks/bench_frames.py                  # 200,000 rows, ~1 minute
    .venv/bin/python benchmarks/bench_frames.py --rows 100000 --memory-rows 1000000

Pages are the engine's statement shape (100 items a page, compact JSON) built once in
memory. Compared in the same run: `pixops.frames.parse_pages` + de-duplication (what
`load_statement` does with `client.statement.iter_raw`: DuckDB's JSON reader, two
batches at once on two cores, plus the strictness checks, raw bytes to a table of the
declared schema), the naive `json.loads` + `pandas.json_normalize`, and pyarrow's own
JSON reader on the same items as NDJSON (the format it needs; the conversion is not
timed, and it checks nothing). Target: >= 10x the naive loader (later calls, best of
`--repeat`; the first call in a process also opens the parser's DuckDB database, ~20 ms,
and is printed apart). Wall figures need both cores free (the load average is printed
before and after); the CPU-second figures are the ones to compare on a busy machine.
Then, in a fresh process, the peak resident memory of loading `--memory-rows` rows
streamed page by page (target: < 500 MB for 1,000,000).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator

import pandas as pd
import pyarrow.json as pa_json

from pixops.frames import deduplicate_by_id, parse_pages

PER_PAGE = 100
BANKS = (
    "ITAÚ UNIBANCO S.A.",
    "BCO DO BRASIL S.A.",
    "NU PAGAMENTOS - IP",
    "CAIXA ECONOMICA FEDERAL",
)


def item(n: int) -> dict[str, object]:
    inbound = n % 10 != 0
    amount = 100 * (1_000 + n * 7_919 % 900_000)
    fee = (amount * 99 + 5_000) // 10_000 if inbound else 5_000
    second = n % 86_400
    stamp = f"2026-01-15T{second // 3600:02d}:{second // 60 % 60:02d}:{second % 60:02d}.000Z"
    return {
        "id": f"{n:08x}-50fb-4c96-809c-87a505e08e43",
        "transaction_id": f"PIXINE60746948202601151126{n:012d}",
        "end_to_end_id": f"E60746948202601151126{n:011d}",
        "external_id": None if inbound else f"payout-{n}",
        "type": "pix",
        "status": "completed",
        "payment_status": "settled",
        "amount": amount,
        "fee_amount": fee,
        "net_amount": amount - fee if inbound else amount + fee,
        "description": "" if inbound else "Pagamento a fornecedor",
        "direction": "inbound" if inbound else "outbound",
        "counterparty_name": "Gabriela Nunes Martins",
        "recipient_key": None if inbound else "maria.silva@sandbox.pixops.dev",
        "payer_document": "30447941291" if inbound else None,
        "recipient_document": None if inbound else "52998224725",
        "payer_ispb": "60746948" if inbound else None,
        "payer_bank_name": BANKS[n % len(BANKS)] if inbound else None,
        "created_at": stamp,
        "completed_at": stamp,
    }


def pages(rows: int) -> Iterator[bytes]:
    for start in range(0, rows, PER_PAGE):
        data = [item(n) for n in range(start, min(start + PER_PAGE, rows))]
        body = {"worked": True, "data": data, "page": start // PER_PAGE + 1, "per_page": PER_PAGE}
        yield json.dumps(body, separators=(",", ":")).encode()


def ours(bodies: list[bytes]) -> int:
    return int(deduplicate_by_id(parse_pages(bodies)).num_rows)


def naive(bodies: list[bytes]) -> int:
    rows: list[dict[str, object]] = []
    for body in bodies:
        rows.extend(json.loads(body)["data"])
    return len(pd.json_normalize(rows))


def pyarrow_reader(ndjson: bytes) -> int:
    table = pa_json.read_json(
        io.BytesIO(ndjson), read_options=pa_json.ReadOptions(block_size=1 << 24)
    )
    return int(table.num_rows)


def rate(label: str, rows: int, repeat: int, work: object) -> tuple[float, float]:
    """Rows per wall second and per CPU second (all threads), best of `repeat`: the CPU
    figure is the one that stays readable when the shared machine is busy."""
    best = cpu = float("inf")
    for _ in range(repeat):
        began, began_cpu = time.perf_counter(), time.process_time()
        assert work() == rows  # type: ignore[operator]
        best = min(best, time.perf_counter() - began)
        cpu = min(cpu, time.process_time() - began_cpu)
    print(
        f"{label:<52} {rows / best:>12,.0f} rows/s  ({best:.3f} s wall,"
        f" {cpu:.3f} s CPU: {rows / cpu:,.0f} rows per CPU-second)",
        flush=True,
    )
    return rows / best, rows / cpu


def peak_rss_mib() -> float:
    """This process's peak resident memory since it started its program. ``ru_maxrss``
    is kept across exec, so in a child it starts at the parent's size when it forked; the
    kernel's ``VmHWM`` belongs to the new program's memory only."""
    import resource

    with contextlib.suppress(OSError), open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def status_mib(field: str) -> float:
    """A line of this process's ``/proc/self/status`` (``RssAnon``, ``RssFile``...) in MiB;
    0 where the kernel gives none."""
    with contextlib.suppress(OSError), open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) / 1024
    return 0.0


def memory_child(rows: int) -> None:
    """Runs in a fresh interpreter: stream pages into a frame, print peak RSS in MiB, then
    what the imports alone held and, at the end, the process's own data (anonymous pages)
    beside the libraries' code mapped from their files, which varies with the kernel."""
    from pixops.frames import to_frame

    imports = status_mib("VmRSS")
    frame = to_frame(deduplicate_by_id(parse_pages(pages(rows))))
    print(
        f"{len(frame)} {peak_rss_mib():.0f} {imports:.0f}"
        f" {status_mib('RssAnon'):.0f} {status_mib('RssFile'):.0f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--memory-rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--memory-child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_child:
        memory_child(args.memory_child)
        return
    print(
        f"load average {os.getloadavg()[0]:.2f};"
        f" {args.rows:,} rows in {args.rows // PER_PAGE:,} pages"
    )
    bodies = list(pages(args.rows))
    ndjson = b"\n".join(json.dumps(item(n)).encode() for n in range(args.rows))
    cold = rate(
        "parse_pages + dedup, first call (opens its DuckDB)",
        args.rows,
        1,
        lambda: ours(bodies),
    )
    fast = rate(
        "pixops.frames.parse_pages + dedup (raw pages)",
        args.rows,
        args.repeat,
        lambda: ours(bodies),
    )
    slow = rate("json.loads + pandas.json_normalize", args.rows, 1, lambda: naive(bodies))
    arrow = rate(
        "pyarrow.json.read_json (NDJSON items)",
        args.rows,
        args.repeat,
        lambda: pyarrow_reader(ndjson),
    )
    print(
        f"parse_pages is {fast[0] / slow[0]:.1f}x the naive loader in wall time,"
        f" {fast[1] / slow[1]:.1f}x in CPU time (target >= 10x);"
        f" {fast[0] / arrow[0]:.2f}x / {fast[1] / arrow[1]:.2f}x pyarrow's reader;"
        f" the first call in a process (which opens the parser's database and threads)"
        f" is {cold[0] / slow[0]:.1f}x"
    )
    child = subprocess.run(
        [sys.executable, __file__, "--memory-child", str(args.memory_rows)],
        capture_output=True,
        text=True,
        check=True,
    )
    loaded, peak, imports, anonymous, mapped = child.stdout.split()
    print(
        f"peak RSS loading {int(loaded):,} rows page by page: {peak} MiB"
        f" = {float(peak) * 1.048576:.0f} MB (target < 500 MB); the imports alone"
        f" {imports} MiB; at the end {anonymous} MiB of data and {mapped} MiB of the"
        " libraries' code mapped from their files"
    )
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
