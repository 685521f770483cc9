"""`pixops report`: run a notebook headless and write its offline HTML report.

pixops report daily --date 2026-01-31 [--tz America/Sao_Paulo] [--ledger PATH] --html OUT
                    [--ledger-map FILE] [--amount-unit reais|centavos|base] [--decimal ...]
pixops report run NOTEBOOK --html OUT [--param NAME=VALUE ...] [--title TEXT]

Exit codes, as `pixops recon`'s: 0 the report is written (daily: everything reconciled),
1 the daily report is written and has findings to check, 2 no report (bad arguments or
files, or the notebook stopped, saying why), 3 no report because the service could not be
read (not reached, a refused key, an unreadable answer).
"""

from __future__ import annotations

import argparse
import sys
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from pixops._cli_ledger import (
    FLAGS,
    RULE_FLAGS,
    add_ledger_options,
    ledger_mapping,
    recon_rules,
)
from pixops._paths import input_file_problem, output_file_problem
from pixops.report._daily import DEFAULT_TIMEZONE, daily_report, find_daily_notebook
from pixops.report._errors import ReportError, ServiceUnreachableError
from pixops.report._render import render_report

if TYPE_CHECKING:
    from pixops.cli import Commands
    from pixops.recon import LedgerMapping, Tolerances


def register(commands: Commands) -> None:
    """Add `pixops report daily` and `pixops report run`."""
    report = commands.add(
        "report", help="run a notebook headless and write an offline HTML report", handler=run
    )
    kinds = report.add_subparsers(dest="kind", required=True, metavar="KIND")

    daily_help = "the daily reconciliation notebook of one business day"
    daily = kinds.add_parser("daily", help=daily_help, description=daily_help)
    daily.add_argument("--date", type=_date, required=True, help="business day, YYYY-MM-DD")
    daily.add_argument("--tz", default=DEFAULT_TIMEZONE, help=f"default {DEFAULT_TIMEZONE}")
    daily.add_argument(
        "--ledger", type=Path, help="the merchant's ledger file (default data/sample_ledger.csv)"
    )
    daily.add_argument(
        "--balances",
        type=Path,
        help="balance snapshots CSV to roll forward (default data/balances.csv)",
    )
    daily.add_argument(
        "--notebooks", type=Path, help="notebooks folder (default ./notebooks, else pixops' own)"
    )
    daily.add_argument("--html", type=Path, required=True, help="where to write the report")
    add_ledger_options(daily)

    run_help = "any notebook; -p sets the variables of its cell tagged `parameters`"
    any_notebook = kinds.add_parser("run", help=run_help, description=run_help)
    any_notebook.add_argument("notebook", type=Path, help="the .ipynb file to run")
    any_notebook.add_argument("--html", type=Path, required=True, help="where to write it")
    any_notebook.add_argument(
        "--param",
        "-p",
        type=_assignment,
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a string parameter (repeatable)",
    )
    any_notebook.add_argument(
        "--title", help="page title (default: the notebook's name and the -p values)"
    )


#: The exit codes (`pixops recon`'s: a scheduler alerts on either the same way).
EXIT_CLEAN, EXIT_ATTENTION, EXIT_FAILED, EXIT_SERVICE = 0, 1, 2, 3


def run(args: argparse.Namespace) -> int:
    """Write the report; exit 1 when the daily report has findings, 2 with the reason when
    no report could be written, 3 when that reason is a service that could not be read."""
    from pixops.desk import ServerError, default_notebooks_dir

    problem = _path_problem(args)
    if problem is not None:  # before the notebook runs, which takes seconds to minutes
        print(f"pixops report: {problem}", file=sys.stderr)
        return EXIT_FAILED
    stated: list[int | None] = []
    try:
        if args.kind == "daily":
            notebooks = args.notebooks or default_notebooks_dir()
            mapping, tolerances = _mapping(args)
            written = daily_report(
                args.date,
                args.html,
                notebook=find_daily_notebook(notebooks),
                timezone=args.tz,
                ledger=args.ledger,
                balances=args.balances,
                mapping=mapping,
                tolerances=tolerances,
                review_file=args.review_file,
                say=print,
                findings=stated.append,
            )
        else:
            written = render_report(
                args.notebook, args.html, parameters=dict(args.param), title=args.title, say=print
            )
    except ServiceUnreachableError as error:
        print(f"pixops report: cannot read the service: {error}", file=sys.stderr)
        return EXIT_SERVICE
    except (ReportError, ServerError, OSError) as error:
        print(f"pixops report: {error}", file=sys.stderr)
        return EXIT_FAILED
    print(f"report: {written.resolve()}")
    return EXIT_ATTENTION if any(stated) else EXIT_CLEAN


def _mapping(args: argparse.Namespace) -> tuple[LedgerMapping | None, Tolerances | None]:
    """The mapping and tolerances ``--ledger-map`` and the flags say, None when none is
    given (the notebook then reads the file saved beside its ledger, if any)."""
    from pixops.recon import LedgerError

    rules = bool(args.tolerance_amount) or any(getattr(args, f) is not None for f in RULE_FLAGS)
    if args.ledger_map is None and not rules and all(getattr(args, f) is None for f in FLAGS):
        return None, None
    try:
        mapping, found = ledger_mapping(args, args.ledger)
    except LedgerError as error:
        raise ReportError(f"--ledger-map: {error}") from None
    try:
        return mapping, recon_rules(args, args.ledger, found)[0]
    except LedgerError as error:
        raise ReportError(str(error)) from None


def _path_problem(args: argparse.Namespace) -> str | None:
    """The first given path that cannot be used, as ``--flag PATH: why``; else None."""
    given = (
        [
            ("--ledger", args.ledger),
            ("--balances", args.balances),
            ("--ledger-map", args.ledger_map),
        ]
        if args.kind == "daily"
        else []
    )
    for flag, path in given:
        problem = None if path is None else input_file_problem(path)
        if problem is not None:
            return f"{flag} {path}: {problem}"
    problem = output_file_problem(args.html)
    return None if problem is None else f"--html {args.html}: {problem}"


def _date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {text!r}") from None


def _assignment(text: str) -> tuple[str, str]:
    name, equals, value = text.partition("=")
    if not equals or not name.strip().isidentifier():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, not {text!r}")
    return name.strip(), value
