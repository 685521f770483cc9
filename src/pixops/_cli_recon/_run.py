"""`pixops recon`: reconcile business days from the shell, for people and schedulers.

Its arguments are registered by `pixops._cli_recon` (whose ``__init__`` loads no pandas
or DuckDB, for `pixops --help`); this module runs it: it builds the client (`_client`)
and passes it to `pixops.recon.run_days`, the one run of days. The service is
the real one (or a `pixops serve`) when ``PIXOPS_BASE_URL`` is set (settings from the
environment, then the nearest ``.env``, as `pixops.connect` reads them); otherwise the
demo month in the embedded sandbox. Exit codes: 0 everything reconciled, 1 some finding
needs attention, 2 bad arguments, input files or service settings, 3 the service could
not be read. A ledger that pairs with not one movement of the statement (most likely
another account's or day's: `ReconResult.ledger_warning`) is named in one line on stderr.
The steps are small functions (`options_from`, `reconcile_days`, `write_outputs`) so
that more outputs (an HTML report) slot in after `write_outputs`.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, TextIO

from pixops._cli_ledger import ledger_mapping, recon_rules
from pixops._paths import input_file_problem, output_file_problem, output_folder_problem
from pixops.errors import PixopsError
from pixops.frames import day_window, parse_day
from pixops.recon import (
    DayNotComeError,
    DaysInputs,
    DaysRun,
    LedgerError,
    LedgerMapping,
    LoadedLedger,
    NoOpeningBalanceError,
    ReconResult,
    RunInputError,
    load_days,
    run_days,
)
from pixops.recon._categories import ATTENTION_CATEGORIES
from pixops.recon._inputs import CANONICAL_MAPPING
from pixops.recon._review import ReviewError
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
        from pixops.recon._review import ReviewFile

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


def _refused(error: ValueError, options: ReconOptions, source: str) -> _BadInputError:
    """A refusal of the run (`pixops.recon.load_days`) in the words of the flags.

    A day after the service's today is refused: reconciled, a day that has not happened
    read "everything reconciled" (exit 0) in a scheduler's log. The dashboard refuses it
    too. Today is the service's (the sandbox's clock on the demo month)."""
    if isinstance(error, DayNotComeError):
        flag = "--date" if options.first == options.last else "--to"
        return _BadInputError(
            f"{flag} {error.last} has not happened yet on {source} (today is {error.today}"
            " there): give a day up to today"
        )
    if isinstance(error, NoOpeningBalanceError):
        return _BadInputError(
            f"--balances has no snapshot at or before {error.start_at:%Y-%m-%d %H:%M}Z"
        )
    if isinstance(error, RunInputError):
        cause = error.__cause__
        if error.setting == "balances" and isinstance(cause, OSError):
            # unreadable: the file's fault, not the service's
            reason = cause.strerror or cause
            return _BadInputError(f"--balances: cannot read {options.balances}: {reason}")
        return _BadInputError(f"--{error.setting}: {error}")
    return _BadInputError(str(error))


def _days(options: ReconOptions) -> dict[str, Any]:
    """`load_days`'s and `run_days`'s arguments, from the options."""
    return {
        "ledger": options.ledger,
        "balances": options.balances,
        "tz": options.tz,
        "store": options.store,
        "mapping": options.mapping,
        "progress": options.progress,
    }


def reconcile_days(options: ReconOptions, client: object, source: str) -> DaysRun:
    """The run (`pixops.recon.run_days`): the statement around the days (and up to now
    when rolling balances forward), the ledger, the balance snapshots, the result."""
    try:
        return run_days(
            client,
            options.first,
            options.last,
            **_days(options),
            tolerances=options.tolerances,
            review_file=options.review_file,
        )
    except (DayNotComeError, NoOpeningBalanceError, RunInputError) as error:
        raise _refused(error, options, source) from None
    except ReviewError as error:  # read again at the run: changed since the check
        raise _BadInputError(f"--review-file: {error}") from None


def load_inputs(options: ReconOptions, client: object, source: str) -> DaysInputs:
    """The run's inputs alone (`pixops.recon.load_days`), for another engine."""
    try:
        return load_days(client, options.first, options.last, **_days(options))
    except (DayNotComeError, NoOpeningBalanceError, RunInputError) as error:
        raise _refused(error, options, source) from None


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
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            inputs = reconcile_days(options, client, source)
        for warning in caught:  # a decision the review file names that no longer exists
            print(f"pixops recon: warning: {warning.message}", file=stderr)
        result = inputs.result
    except _BadInputError as error:
        print(f"pixops recon: {error}", file=stderr)
        return EXIT_BAD_INPUT
    except (PixopsError, OSError) as error:
        print(f"pixops recon: cannot read the service: {error}", file=stderr)
        return EXIT_SERVICE
    status = say_result(options, result, (source, inputs.ledger), stdout, stderr)
    if status == EXIT_BAD_INPUT:
        return status
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


def say_result(
    options: ReconOptions,
    result: ReconResult,
    read: tuple[str, LoadedLedger],
    stdout: TextIO,
    stderr: TextIO,
    *,
    engine: str = "",
) -> int:
    """Write ``--out`` and print the run's lines (a unit hint first, where the statement
    came from, how the ledger was read, the summary, the verdict); the exit status, or
    `EXIT_BAD_INPUT` when ``--out`` cannot be written. Every engine's run ends here."""
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
    source, ledger = read
    hint = result.unit_hint()
    if hint is not None:  # first: every finding below follows from it
        print(f"pixops recon: {hint}", file=stdout)
    print(f"pixops recon {period} ({options.tz}) against {source}{engine}", file=stdout)
    print(_read_as(options, ledger), file=stdout)
    print(result.summary_text(), file=stdout)
    print(f"{_verdict(result, status)}; results in {options.out}", file=stdout)
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
