"""The demo month's statement around 2026-01-15 as day-partitioned Parquet (what
`LocalStore.write_parquet` writes) and a way to run `pixops recon` on it."""

from __future__ import annotations

import io
from pathlib import Path

from pixops._cli_recon._engine import run
from pixops.cli import build_parser
from pixops.demo import demo_month
from pixops.frames import LocalStore

DATA = Path(__file__).resolve().parents[2] / "data"
ZONE = "America/Sao_Paulo"


def statement_folder(folder: Path) -> Path:
    """Days 2026-01-14..16 (São Paulo) of the demo month, synced and written as Parquet."""
    month = demo_month()
    with LocalStore() as store:
        store.sync(
            month.sandbox.client(month.api_key), "2026-01-14", "2026-01-16", tz=ZONE, progress=False
        )
        return store.write_parquet(folder, "2026-01-14", "2026-01-16", tz=ZONE)


def recon(*argv: str) -> tuple[int, str, str]:
    args = build_parser().parse_args(["recon", *argv])
    out, err = io.StringIO(), io.StringIO()
    status = run(args, out, err)
    return status, out.getvalue(), err.getvalue()


def day_args(statement: Path, out: Path, *more: str) -> list[str]:
    return [
        "--date",
        "2026-01-15",
        "--ledger",
        str(DATA / "sample_ledger.csv"),
        "--statement",
        str(statement),
        "--out",
        str(out),
        "--quiet",
        *more,
    ]
