"""`pixops recon`: its arguments; the run is `pixops._cli_recon._run.run`.

pixops recon --date 2026-01-31 [--tz America/Sao_Paulo] --ledger PATH --out DIR
pixops recon --from 2026-01-01 --to 2026-01-31 --ledger PATH --out DIR
             [--balances PATH] [--store FILE.duckdb] [--quiet] [--html FILE]
             [--ledger-map FILE] [--amount-unit reais|centavos|base] [--decimal comma|point]
             [--date-format dd/mm/yyyy] [--separator semicolon] [--encoding windows-1252]
pixops recon --engine spark [--spark-master local[2] | --spark-remote sc://HOST]
             --statement PARQUET --date 2026-01-31 --ledger PATH --out DIR

Registered from here, without importing `pixops.recon` (which loads pandas and DuckDB): the
run imports them, `pixops --help` and the other commands do not.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from pixops._cli_ledger import add_ledger_options

if TYPE_CHECKING:
    from pixops.cli import Commands

__all__ = ["register"]

#: `--tz` when not given: business days are counted in Brasília time
#: (`pixops.frames.BUSINESS_TZ`, which a test keeps equal to this).
DEFAULT_TZ = "America/Sao_Paulo"

_EPILOG = (
    "exit status: 0 everything reconciled; 1 findings need attention; "
    "2 bad arguments, input files or service settings; 3 the service could not be read. "
    "Uses PIXOPS_BASE_URL / PIXOPS_CLIENT_ID / PIXOPS_CLIENT_SECRET when set, "
    "else the demo month in the embedded sandbox."
)


def register(commands: Commands) -> None:
    """Add `pixops recon`."""
    parser = commands.add(
        "recon", help="reconcile business days against a merchant ledger", handler=run
    )
    parser.epilog = _EPILOG
    days = parser.add_mutually_exclusive_group(required=True)
    days.add_argument("--date", metavar="YYYY-MM-DD", help="one business day")
    days.add_argument("--from", dest="first", metavar="YYYY-MM-DD", help="first business day")
    parser.add_argument("--to", dest="last", metavar="YYYY-MM-DD", help="last day (with --from)")
    parser.add_argument("--tz", default=DEFAULT_TZ, help=f"time zone of the days ({DEFAULT_TZ})")
    parser.add_argument("--ledger", type=Path, required=True, help="ledger CSV or Parquet")
    parser.add_argument("--out", type=Path, required=True, help="directory for the results")
    parser.add_argument(
        "--balances", type=Path, help="balance snapshots CSV (as_of, balance_base) to roll forward"
    )
    parser.add_argument("--store", type=Path, help="DuckDB file kept in sync (incremental)")
    parser.add_argument(
        "--quiet",
        action="store_true",
        help="no progress bars (there are none when stderr is not a terminal)",
    )
    # pixops._cli_recon._engine's: the same rules on Spark, or a statement from a file.
    parser.add_argument(
        "--engine",
        choices=("duckdb", "spark"),
        default="duckdb",
        help="run the reconciliation on DuckDB (this machine) or Spark (pixops[spark])",
    )
    parser.add_argument(
        "--statement",
        metavar="PATH",
        help="statement Parquet file or folder (a URI with --engine spark), not the service",
    )
    spark = parser.add_mutually_exclusive_group()
    spark.add_argument("--spark-master", metavar="URL", help="Spark master (local[2], yarn, ...)")
    spark.add_argument("--spark-remote", metavar="sc://HOST", help="Spark Connect server")
    # pixops.report's hook: the daily notebook of the same day as an offline HTML page.
    parser.add_argument(
        "--html", type=Path, help="also write the daily notebook as an offline HTML report"
    )
    add_ledger_options(parser)


def run(args: argparse.Namespace) -> int:
    """The `pixops recon` handler: `pixops._cli_recon._run.run`, imported now."""
    engine = getattr(args, "engine", "duckdb")
    if engine != "duckdb" or getattr(args, "statement", None) is not None:
        from pixops._cli_recon._engine import run as run_engine

        return run_engine(args)
    from pixops._cli_recon._run import run as run_recon

    return run_recon(args)
