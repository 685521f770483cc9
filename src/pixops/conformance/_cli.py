"""`pixops conformance`: the run behind the command (`pixops._cli_conformance` registers
its arguments without importing httpx).

Settings are `pixops doctor`'s: `PIXOPS_BASE_URL`, `PIXOPS_CLIENT_ID` and
`PIXOPS_CLIENT_SECRET` from the environment, then a `.env` file; `--base-url` and
`--client-id` override the first two; the secret never comes from the command line.
Exit status: 0 when every check passed, 1 when one failed or could not be checked,
2 for bad input (an unknown check name, an unwritable output file, no base URL).
"""

from __future__ import annotations

import argparse
import shutil
import sys
from typing import TextIO

import httpx

from pixops.client import ConfigurationError, Credentials
from pixops.client._config import (
    ENV_BASE_URL,
    ENV_CLIENT_ID,
    ENV_CLIENT_SECRET,
    api_root,
    read_env,
)
from pixops.conformance._catalogue import CHECKS
from pixops.conformance._model import Check, Result
from pixops.conformance._render import (
    check_output_path,
    report_html,
    report_json,
    table_footer,
    table_header,
    table_row,
    write_text,
)
from pixops.conformance._runner import UnknownCheckError, run_conformance, select_checks, write_plan
from pixops.conformance._session import Target

__all__ = ["run_command"]

EXIT_BAD_INPUT = 2


def _names(values: list[str] | None) -> list[str]:
    """`--only a,b --only c` -> [a, b, c]."""
    return [name.strip() for value in values or [] for name in value.split(",") if name.strip()]


def _listing(stream: TextIO) -> None:
    width = max(len(check.name) for check in CHECKS)
    for check in CHECKS:
        mark = " [--write]" if check.writes else ""
        print(f"{check.name:<{width}}  {check.rule}{mark}", file=stream)
        print(f"{'':<{width}}  sends: {check.sends}", file=stream)


def _target(args: argparse.Namespace, errors: TextIO) -> Target:
    env = read_env(dotenv_path=args.env_file, require=False)
    base_url = args.base_url or env.get(ENV_BASE_URL)
    if not base_url:
        raise ConfigurationError(
            f"missing {ENV_BASE_URL}: nothing can be checked without the service's address;"
            " set it (and the key) in the environment or a .env file, or give --base-url"
        )
    root = api_root(base_url)
    client_id = args.client_id or env.get(ENV_CLIENT_ID)
    secret = env.get(ENV_CLIENT_SECRET)
    if client_id and secret:
        Credentials(client_id, secret)  # refuses a malformed key before anything is sent
        return Target(root, client_id, secret)
    missing = [n for n, v in ((ENV_CLIENT_ID, client_id), (ENV_CLIENT_SECRET, secret)) if not v]
    print(
        f"pixops conformance: no {' or '.join(missing)}: only the checks that need no key"
        " are sent; the others could not be checked",
        file=errors,
    )
    return Target(root)


def run_command(
    args: argparse.Namespace,
    out: TextIO | None = None,
    err: TextIO | None = None,
    *,
    transport: httpx.BaseTransport | None = None,
) -> int:
    """Run the command from its parsed arguments; `transport` for tests (in-process)."""
    stream = out or sys.stdout
    errors = err or (out if out is not None else sys.stderr)
    if args.list:
        _listing(stream)
        return 0
    try:
        checks = select_checks(_names(args.only), _names(args.skip), write=args.write)
    except UnknownCheckError as exc:
        print(f"pixops conformance: {exc}", file=errors)
        return EXIT_BAD_INPUT
    for option, path in (("--json", args.json), ("--html", args.html)):
        problem = None if path is None else check_output_path(path)
        if problem is not None:
            print(f"pixops conformance: {option}: {problem}", file=errors)
            return EXIT_BAD_INPUT
    if not checks:
        print("pixops conformance: --only/--skip leave no check to run", file=errors)
        return EXIT_BAD_INPUT
    try:
        target = _target(args, errors)
    except ConfigurationError as exc:
        print(f"pixops conformance: {exc}", file=errors)
        return EXIT_BAD_INPUT
    _announce(checks, stream)
    width = max(shutil.get_terminal_size((120, 24)).columns, 100)
    print(table_header(target.api_root, args.write, width), file=stream, flush=True)

    def show(result: Result) -> None:
        print(table_row(result, width), file=stream, flush=True)

    report = run_conformance(
        target, checks=checks, transport=transport, timeout=args.timeout, on_result=show
    )
    print(table_footer(report), file=stream)
    status = 0 if report.passed else 1
    for option, path, text in (
        ("--json", args.json, report_json(report) if args.json else ""),
        ("--html", args.html, report_html(report) if args.html else ""),
    ):
        if path is None:
            continue
        try:
            write_text(path, text)
        except OSError as exc:
            print(
                f"pixops conformance: {option}: could not write {path}: {exc.strerror}", file=errors
            )
            status = EXIT_BAD_INPUT
        else:
            print(f"{option[2:].upper()} report: {path}", file=stream)
    return status


def _announce(checks: tuple[Check, ...], stream: TextIO) -> None:
    """Before anything is sent: what the writing checks will create (and never do)."""
    plan = write_plan(checks)
    if not plan:
        return
    print("--write: these checks create state, after every read-only check:", file=stream)
    for line in plan:
        print(f"  {line}", file=stream)
    print(
        "  nothing else is written, and no money is ever sent out (no cash-out, no refund)",
        file=stream,
        flush=True,
    )
