"""`pixops recon --engine spark` and `pixops recon --statement PATH`: the same run, its
rules on Spark or its statement from Parquet (a file, or a folder such as
`LocalStore.write_parquet`'s) instead of the service.

The summary, the verdict, the files in ``--out`` and the exit codes are `pixops recon`'s
(`pixops._cli_recon._run`): ``--out`` gets the same files as a DuckDB run, the results
collected to this machine. Results too big for it are written by the cluster from
Python (`pixops.recon.spark.SparkReconResult.write`, docs/spark.md). ``--statement`` may
be any URI Spark reads (``s3a://``) with ``--engine spark``.
Spark failing (no Java, a cluster that cannot be reached) is exit 3, as a service that
cannot be read; an input that cannot be used is exit 2.
"""

from __future__ import annotations

import argparse
import sys
from datetime import datetime
from pathlib import Path
from typing import TextIO

import pyarrow as pa
import pyarrow.dataset as ds

from pixops._cli_recon._run import (
    EXIT_BAD_INPUT,
    EXIT_SERVICE,
    ReconOptions,
    _BadInputError,
    _client,
    load_inputs,
    options_from,
    say_result,
)
from pixops.errors import PixopsError
from pixops.frames import conform_table, day_window
from pixops.money import MoneyError
from pixops.recon._balances import read_balances
from pixops.recon._inputs import LedgerError, LoadedLedger, load_ledger
from pixops.recon._result import ReconResult
from pixops.recon._run import reconcile

__all__ = ["run"]

_INSTALL = (
    "--engine spark needs pyspark: pip install 'pixops[spark]', and Java 17 (Debian:"
    " apt-get install openjdk-17-jre-headless)"
)


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """The handler of `pixops recon` with ``--engine spark`` or ``--statement``."""
    stdout = sys.stdout if out is None else out
    stderr = sys.stderr if err is None else err
    spark_run = args.engine == "spark"
    try:
        options = _options(args)
        statement, ledger, balances, source = _inputs(args, options)
        if spark_run:
            outcome = _on_spark(args, options, statement, ledger, balances)
        else:
            table = statement if isinstance(statement, pa.Table) else _read_statement(statement)
            outcome = reconcile(
                table,
                ledger,
                balances=balances,
                start=options.first,
                end=options.last,
                tz=options.tz,
                mapping=options.mapping,
                tolerances=options.tolerances,
                review_file=options.review_file,
            )
    except _BadInputError as error:
        print(f"pixops recon: {error}", file=stderr)
        return EXIT_BAD_INPUT
    except (LedgerError, MoneyError, ValueError, FileNotFoundError) as error:
        print(f"pixops recon: {_one_line(error)}", file=stderr)
        return EXIT_BAD_INPUT
    except (PixopsError, OSError) as error:
        print(f"pixops recon: cannot read the service: {_one_line(error)}", file=stderr)
        return EXIT_SERVICE
    except Exception as error:  # Spark's own errors (a cluster, Java): said in one line
        if not _is_spark_error(error):
            raise
        print(f"pixops recon: Spark failed: {_one_line(error)}", file=stderr)
        return EXIT_SERVICE
    return _report(args, options, outcome, (source, ledger), stdout, stderr)


def _options(args: argparse.Namespace) -> ReconOptions:
    if args.engine != "spark" and (args.spark_master or args.spark_remote):
        raise _BadInputError("--spark-master and --spark-remote go with --engine spark")
    if args.engine == "spark" and getattr(args, "html", None) is not None:
        raise _BadInputError(
            "--html renders the daily notebook on this machine: leave it out with --engine spark"
        )
    if args.statement is not None and args.store is not None:
        raise _BadInputError("--statement reads the statement from a file: leave out --store")
    local = args.statement is not None and "://" not in args.statement
    if local and not Path(args.statement).exists():
        raise _BadInputError(f"--statement {args.statement}: there is no such file or folder")
    return options_from(args)


def _inputs(
    args: argparse.Namespace, options: ReconOptions
) -> tuple[pa.Table | str, LoadedLedger, list[tuple[datetime, int]] | None, str]:
    """The statement (a table from the service, or the Parquet path), the ledger (read
    here, by the reader and mapping of a DuckDB run), the balance snapshots, and the words
    naming where the statement came from."""
    if args.statement is None:
        client, source = _client()
        loaded = load_inputs(options, client, source)
        return loaded.statement, loaded.ledger, loaded.balances, source
    try:
        ledger = load_ledger(options.ledger, options.mapping, tz=options.tz)
    except LedgerError as error:
        raise _BadInputError(f"--ledger: {error}") from None
    balances = None if options.balances is None else _file_balances(options)
    return str(args.statement), ledger, balances, f"the statement in {args.statement}"


def _file_balances(options: ReconOptions) -> list[tuple[datetime, int]]:
    """With a statement from a file there is no live balance: the last snapshot at or
    before the first day opens, those inside the days follow, and the first after them
    closes (the statement file must cover up to it)."""
    assert options.balances is not None
    try:
        snapshots = read_balances(options.balances)
    except ValueError as error:
        raise _BadInputError(f"--balances: {error}") from None
    window = day_window(options.first, options.last, options.tz)
    opening = [s for s in snapshots if s[0] <= window.start_at]
    if not opening:
        raise _BadInputError(
            f"--balances has no snapshot at or before {window.start_at:%Y-%m-%d %H:%M}Z"
        )
    inside = [s for s in snapshots if window.start_at < s[0] <= window.end_at]
    after = [s for s in snapshots if s[0] > window.end_at][:1]
    return [opening[-1], *inside, *after]


def _read_statement(path: str) -> pa.Table:
    """A Parquet statement file or (hive-partitioned) folder, files in path order, rows
    in file order (the order the Spark host numbers them in); a partition column such as
    ``business_date`` is left out (the host works out each row's day itself)."""
    try:
        table = ds.dataset(path, format="parquet", partitioning="hive").to_table()
    except (pa.ArrowInvalid, OSError) as error:
        raise _BadInputError(f"--statement {path}: {_one_line(error)}") from None
    if "business_date" in table.column_names:
        table = table.drop_columns(["business_date"])
    return conform_table(table)


def _on_spark(
    args: argparse.Namespace,
    options: ReconOptions,
    statement: pa.Table | str,
    ledger: LoadedLedger,
    balances: list[tuple[datetime, int]] | None,
) -> ReconResult:
    try:
        from pixops.recon.spark import reconcile as spark_reconcile
        from pixops.recon.spark import spark_session
    except ImportError:
        raise _BadInputError(_INSTALL) from None
    session = spark_session(master=args.spark_master, remote=args.spark_remote)
    result = spark_reconcile(
        session,
        statement,
        ledger,
        balances=balances,
        start=options.first,
        end=options.last,
        tz=options.tz,
        mapping=options.mapping,
        tolerances=options.tolerances,
        review_file=options.review_file,
    )
    return result.to_result()


def _report(
    args: argparse.Namespace,
    options: ReconOptions,
    outcome: ReconResult,
    read: tuple[str, LoadedLedger],
    stdout: TextIO,
    stderr: TextIO,
) -> int:
    engine = " on Spark" if args.engine == "spark" else ""
    status = say_result(options, outcome, read, stdout, stderr, engine=engine)
    if status == EXIT_BAD_INPUT:
        return status
    foreign = outcome.ledger_warning(options.ledger, setting="--ledger")
    if foreign is not None:
        print(f"pixops recon: {foreign}", file=stderr)
    return status


def _is_spark_error(error: Exception) -> bool:
    return type(error).__module__.startswith(("pyspark", "py4j"))


def _one_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]
