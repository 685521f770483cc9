"""`pixops recon`: reconcile business days from the shell, for people and schedulers.

Its arguments are registered by `pixops._cli_recon` (outside this package, so that
`pixops --help` does not load pandas and DuckDB); this module runs it. The service is
the real one (or a `pixops serve`) when ``PIXOPS_BASE_URL`` is set (settings from the
environment, then the nearest ``.env``, as `pixops.connect` reads them); otherwise the
demo month in the embedded sandbox. Exit codes: 0 everything reconciled, 1 some finding
needs attention, 2 bad arguments, input files or service settings, 3 the service could
not be read. A ledger that pairs with not one movement of the statement (most likely
another account's or day's: `ReconResult.ledger_warning`) is named in one line on stderr.
The steps are small functions (`options_from`, `load_inputs`, `run_recon`,
`write_outputs`) so that more outputs (an HTML report) slot in after `write_outputs`.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any, TextIO

import pyarrow as pa

from pixops._cli_ledger import ledger_mapping, recon_rules
from pixops._paths import input_file_problem, output_file_problem, output_folder_problem
from pixops.errors import PixopsError
from pixops.frames import (
    LocalStore,
    day_window,
    load_statement_table,
    parse_day,
    service_now,
)
from pixops.recon._balances import read_balances
from pixops.recon._inputs import (
    CANONICAL_MAPPING,
    LedgerError,
    LedgerMapping,
    LoadedLedger,
    load_ledger,
)
from pixops.recon._result import ATTENTION_CATEGORIES, ReconResult
from pixops.recon._run import balance_snapshot, reconcile
from pixops.recon._staging import staged_directory
from pixops.recon._tolerances import Tolerances

__all__ = [
    "EXIT_ATTENTION",
    "EXIT_BAD_INPUT",
    "EXIT_CLEAN",
    "EXIT_SERVICE",
    "ReconOptions",
    "run",
]

EXIT_CLEAN = 0
EXIT_ATTENTION = 1
EXIT_BAD_INPUT = 2
EXIT_SERVICE = 3


class _BadInputError(Exception):
    """An argument or input file that cannot be used; the message says why."""


@dataclass(frozen=True)
class ReconOptions:
    first: date
    last: date
    tz: str
    ledger: Path
    out: Path
    balances: Path | None
    store: Path | None
    progress: bool
    mapping: LedgerMapping = CANONICAL_MAPPING
    #: The mapping file read (``--ledger-map``, or the one saved beside the ledger).
    mapping_file: Path | None = None
    #: The mapping file's ``[tolerances]`` with the rule flags over them.
    tolerances: Tolerances = field(default_factory=Tolerances)
    #: The decisions on suggested pairs (``--review-file``, else beside the ledger).
    review_file: Path | None = None


def options_from(args: argparse.Namespace) -> ReconOptions:
    """Validated options; `_BadInputError` names the first problem."""
    try:
        if args.date is not None:
            if args.last is not None:
                raise _BadInputError("--to goes with --from, not with --date")
            first = last = parse_day(args.date, "--date")
        else:
            if args.last is None:
                raise _BadInputError("--from needs --to")
            first, last = parse_day(args.first, "--from"), parse_day(args.last, "--to")
        window = day_window(first, last, args.tz)
    except ValueError as error:
        raise _BadInputError(str(error)) from None
    for name, path in (("--ledger", args.ledger), ("--balances", args.balances)):
        problem = None if path is None else input_file_problem(path)
        if problem is not None:
            raise _BadInputError(f"{name} {path}: {problem}")
    _check_out(args.out)
    _check_html(getattr(args, "html", None), first, last)
    given = getattr(args, "ledger_map", None)
    problem = None if given is None else input_file_problem(given)
    if problem is not None:
        raise _BadInputError(f"--ledger-map {given}: {problem}")
    try:
        mapping, mapping_file = ledger_mapping(args, args.ledger)
    except LedgerError as error:
        raise _BadInputError(f"--ledger-map: {error}") from None
    try:
        tolerances, review_file = recon_rules(args, args.ledger, mapping_file)
    except LedgerError as error:
        raise _BadInputError(str(error)) from None
    if review_file is not None:  # read now: a file edited into nonsense stops before the service
        from pixops.recon._review import ReviewError, ReviewFile

        try:
            ReviewFile(review_file).decisions()
        except ReviewError as error:
            raise _BadInputError(f"--review-file: {error}") from None
    return ReconOptions(
        first=first,
        last=last,
        tz=window.tz,
        ledger=args.ledger,
        out=args.out,
        balances=args.balances,
        store=args.store,
        # A scheduler's log is not a terminal: bars there would be lines of carriage returns.
        progress=not args.quiet and sys.stderr.isatty(),
        mapping=mapping,
        mapping_file=mapping_file,
        tolerances=tolerances,
        review_file=review_file,
    )


def _check_out(out: Path) -> None:
    """`--out` that is (or lies under) a file, or in a folder that cannot be written
    (its results are staged beside it), is refused before the service is read: the run
    would fetch and reconcile everything and only then fail to write."""
    problem = output_folder_problem(out) or output_folder_problem(out.parent)
    if problem is not None:
        raise _BadInputError(f"--out {out}: {problem}")


def _check_html(html: Path | None, first: date, last: date) -> None:
    """`--html` refused before the run, not after the frames are written (exit 2 with
    results on disk read as a failed run that wrote anyway)."""
    if html is None:
        return
    if first != last:
        raise _BadInputError(
            "--html: the HTML report covers one business day: use --date, not --from/--to"
        )
    if html.suffix.lower() not in {".html", ".htm"}:
        raise _BadInputError(f"--html: the report is HTML: give a .html path, not {html.name}")
    problem = output_file_problem(html)  # a missing folder is made, as for --out
    if problem is not None:
        raise _BadInputError(f"--html {html}: {problem}")


def _client() -> tuple[Any, str]:
    """The configured service (its settings read as `pixops.connect` reads them: the
    environment, then the nearest ``.env``), or the demo month on the embedded sandbox;
    with the words saying which. Settings that make no client are bad input."""
    from pixops._connect import ConnectError, service_client

    try:
        configured = service_client()
    except ConnectError as error:  # fixed by the person, not by a retry: not 3
        raise _BadInputError(f"the service settings are unusable: {error}") from None
    if configured is not None:
        client, connection = configured
        return client, f"the PIX service at {connection.base_url}"
    from pixops.demo import demo_month

    month = demo_month()
    return month.sandbox.client(month.api_key), "the demo month on the embedded sandbox"


def _check_day_has_come(options: ReconOptions, client: Any, source: str) -> None:
    """A day after the service's today is refused: reconciled, a day that has not
    happened read "everything reconciled" (exit 0) in a scheduler's log. The dashboard
    refuses it too. Today is the service's (the sandbox's clock on the demo month), or
    this machine's when the key may not read the balance."""
    from zoneinfo import ZoneInfo

    today = service_now(client).astimezone(ZoneInfo(options.tz)).date()
    if options.last > today:
        flag = "--date" if options.first == options.last else "--to"
        raise _BadInputError(
            f"{flag} {options.last} has not happened yet on {source} (today is {today}"
            " there): give a day up to today"
        )


@dataclass(frozen=True)
class ReconInputs:
    statement: pa.Table
    ledger: LoadedLedger
    balances: list[tuple[datetime, int]] | None


def load_inputs(options: ReconOptions, client: Any) -> ReconInputs:
    """The statement around the days (and up to now when rolling balances forward)."""
    try:
        ledger = load_ledger(options.ledger, options.mapping, tz=options.tz)
    except LedgerError as error:
        raise _BadInputError(f"--ledger: {error}") from None
    window = day_window(options.first, options.last, options.tz)
    # One day either side: a payment booked across midnight is a timing difference.
    load_first, load_last = options.first - timedelta(days=1), options.last + timedelta(days=1)
    balances = None
    now: datetime | None = None
    if options.balances is not None:
        try:
            snapshots = read_balances(options.balances)
        except ValueError as error:
            raise _BadInputError(f"--balances: {error}") from None
        except OSError as error:  # unreadable: the file's fault, not the service's
            reason = error.strerror or error
            raise _BadInputError(f"--balances: cannot read {options.balances}: {reason}") from None
        opening = [s for s in snapshots if s[0] <= window.start_at]
        if not opening:
            raise _BadInputError(
                f"--balances has no snapshot at or before {window.start_at:%Y-%m-%d %H:%M}Z"
            )
        live = balance_snapshot(client)
        inside = [s for s in snapshots if window.start_at < s[0] <= window.end_at and s < live]
        balances = [opening[-1], *inside, live]
        now = live[0]
        load_first = min(load_first, opening[-1][0].date())
        load_last = max(load_last, live[0].date() + timedelta(days=1))
    if options.store is not None:
        try:
            store = LocalStore(options.store)
        except ValueError as error:
            raise _BadInputError(f"--store: {error}") from None
        with store:
            store.sync(
                client, load_first, load_last, tz=options.tz, now=now, progress=options.progress
            )
            statement = store.statement_table(load_first, load_last, tz=options.tz)
    else:
        statement = load_statement_table(
            client, load_first, load_last, tz=options.tz, progress=options.progress
        )
    return ReconInputs(statement, ledger, balances)


def run_recon(options: ReconOptions, inputs: ReconInputs) -> ReconResult:
    """The reconciliation; a review file that does not read is bad input, naming it."""
    from pixops.recon._review import ReviewError

    try:
        return _reconcile(options, inputs)
    except ReviewError as error:
        raise _BadInputError(f"--review-file: {error}") from None


def _reconcile(options: ReconOptions, inputs: ReconInputs) -> ReconResult:
    return reconcile(
        inputs.statement,
        inputs.ledger,
        balances=inputs.balances,
        start=options.first,
        end=options.last,
        tz=options.tz,
        tolerances=options.tolerances,
        review_file=options.review_file,
    )


def write_outputs(options: ReconOptions, result: ReconResult, status: int) -> list[Path]:
    """Frames as Parquet and CSV, the Excel-friendly file, ``summary.txt`` and ``.json``:
    written beside ``--out`` and moved in together, so a failure leaves no partial set."""
    summary = {
        "first_day": options.first.isoformat(),
        "last_day": options.last.isoformat(),
        "tz": options.tz,
        "needs_attention": result.needs_attention,
        "balances_checked": result.balances_checked,
        "exit_status": status,
        "counts": result.counts,
        "tolerances": options.tolerances.as_dict(),
    }
    with staged_directory(options.out) as stage:
        written = result.write(stage)
        text = stage / "summary.txt"
        text.write_text(result.summary_text() + "\n", encoding="utf-8")
        data = stage / "summary.json"
        data.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return [options.out / path.name for path in [*written, text, data]]


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """The `pixops recon` handler; returns the documented exit status."""
    stdout = sys.stdout if out is None else out
    stderr = sys.stderr if err is None else err
    try:
        options = options_from(args)
        client, source = _client()
        _check_day_has_come(options, client, source)
        inputs = load_inputs(options, client)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = run_recon(options, inputs)
        for warning in caught:  # a decision the review file names that no longer exists
            print(f"pixops recon: warning: {warning.message}", file=stderr)
    except _BadInputError as error:
        print(f"pixops recon: {error}", file=stderr)
        return EXIT_BAD_INPUT
    except (PixopsError, OSError) as error:
        print(f"pixops recon: cannot read the service: {error}", file=stderr)
        return EXIT_SERVICE
    status = EXIT_ATTENTION if result.needs_attention else EXIT_CLEAN
    try:
        write_outputs(options, result, status)
    except OSError as error:
        print(f"pixops recon: cannot write {options.out}: {error}", file=stderr)
        return EXIT_BAD_INPUT
    # The day's results first: a log shows them even when the report then fails.
    period = (
        f"{options.first}" if options.first == options.last else f"{options.first}..{options.last}"
    )
    hint = result.unit_hint()
    if hint is not None:  # first: every finding below follows from it
        print(f"pixops recon: {hint}", file=stdout)
    print(f"pixops recon {period} ({options.tz}) against {source}", file=stdout)
    print(_read_as(options, inputs.ledger), file=stdout)
    print(result.summary_text(), file=stdout)
    print(f"{_verdict(result, status)}; results in {options.out}", file=stdout)
    html = getattr(args, "html", None)
    if html is not None:  # pixops.report's hook, after the frames are safely written
        from pixops.report import ReportError, recon_html_report

        try:
            recon_html_report(
                html,
                options.first,
                options.last,
                options.tz,
                options.ledger,
                balances=options.balances,
                mapping=options.mapping,
                tolerances=options.tolerances,
                review_file=options.review_file,
            )
        except ReportError as error:
            print(f"pixops recon: cannot write the HTML report: {error}", file=stderr)
            return EXIT_BAD_INPUT
        print(f"report: {html}", file=stdout)
    foreign = result.ledger_warning(options.ledger, setting="--ledger")
    if foreign is not None:  # last, where a person or a scheduler's log looks first
        print(f"pixops recon: {foreign}", file=stderr)
    return status


def _read_as(options: ReconOptions, ledger: LoadedLedger) -> str:
    """``ledger razao.csv read as: semicolon, Windows-1252, ...`` (and the mapping file)."""
    line = f"ledger {options.ledger.name} {ledger.reading.line()}"
    if options.mapping_file is not None:
        line += f" (mapping {options.mapping_file})"
    return line


def _verdict(result: ReconResult, status: int) -> str:
    """The run's last word for a log: how many findings there are to check."""
    if status != EXIT_ATTENTION:
        if not result.counts.get("matched", 0):  # not one movement or entry in the days
            return "nothing to reconcile (no movement in the statement, no entry in the ledger)"
        return "everything reconciled"
    findings = sum(result.counts.get(category, 0) for category in ATTENTION_CATEGORIES)
    return f"needs attention ({findings} {'finding' if findings == 1 else 'findings'} to check)"
