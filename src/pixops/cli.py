"""The `pixops` command line: one parser, subcommands registered from their own modules.

pixops serve [--host H] [--port P] [--db PATH] [--tls-cert F --tls-key F]
             [--rate-limit N] [--trusted-proxy IP ...] [--manual-clock | --production]
pixops dev-cert --out DIR [--host NAME ...]
pixops keys issue|list|revoke --db PATH ...
pixops demo
pixops notebooks init [DIR] [--update]
pixops lab [--notebooks DIR] [--host H] [--port P] [--token T]
pixops desk [--notebook FILE] [--host H] [--port P]
pixops report daily --date DAY --html FILE [--ledger PATH] [--balances PATH]
pixops report run NOTEBOOK --html FILE [-p NAME=VALUE ...]
pixops recon --date DAY | --from DAY --to DAY  --ledger PATH --out DIR [--balances PATH]
pixops doctor [--base-url URL] [--client-id ID] [--env-file PATH]
pixops api METHOD PATH [JSON] [--camel] [--idempotency-key KEY]
pixops conformance [--write] [--only NAME] [--skip NAME] [--json FILE] [--html FILE]

`pixops --help` lists them, `pixops COMMAND --help` gives each one's options.

Adding a subcommand takes two lines here and one function in its own module::

    # in pixops/_cli_recon.py
    def register(commands: Commands) -> None:
        parser = commands.add("recon", help="reconcile a ledger", handler=run)
        parser.add_argument("--ledger", type=Path, required=True)

    # in COMMAND_MODULES below
    "pixops._cli_recon",

The handler takes the parsed `argparse.Namespace` and returns the exit status. Every
module is imported to build the parser, so a module registers with the standard library
alone and imports what its command needs (pandas, DuckDB, the engine, httpx) when the
command runs: `pixops --help` then starts in a fraction of a second.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Sequence

from pixops._version import __version__

Handler = Callable[[argparse.Namespace], int]
"""Runs one subcommand from its parsed arguments and returns the process exit status."""

EXIT_USAGE = 2
"""A bad argument: argparse's own status, and every command's "bad input"."""
EXIT_INTERRUPTED = 130
"""Ctrl-C (SIGINT) during a run: 128 + 2, as a shell reports a job it interrupted."""
EXIT_BROKEN_PIPE = 141
"""The reader of stdout went away (`pixops api ... | head -1`): 128 + SIGPIPE, silently."""

COMMAND_MODULES: tuple[str, ...] = (
    "pixops._cli_serve",
    "pixops._cli_keys",
    "pixops._cli_demo",
    "pixops._cli_notebooks",
    "pixops.desk",
    "pixops.report",
    "pixops._cli_recon",
    "pixops._cli_api",
    "pixops._cli_conformance",
)
"""Modules whose `register(commands: Commands) -> None` adds subcommands, in `--help` order."""


_EPILOG = """\
examples (from the repository root, or a folder made by `pixops notebooks init`):
  pixops notebooks init           copy the notebooks and sample data here
  pixops lab                      JupyterLab on notebooks/ (prints the URL to open)
  pixops recon --date 2026-01-15 --ledger data/sample_ledger.csv --out data/out/recon
  pixops report daily --date 2026-01-15 --html data/out/recon.html
  pixops desk                     the support investigation page, in Voilà
  pixops serve --port 8000        the API over HTTP, with a demo merchant and its key
  pixops doctor                   check the credentials configured below

The service: PIXOPS_BASE_URL, PIXOPS_CLIENT_ID and PIXOPS_CLIENT_SECRET (environment or
a .env file). Without PIXOPS_BASE_URL, lab, desk, report and recon use the embedded
sandbox holding the demo month (January 2026). `pixops COMMAND --help` for each command.
"""


class Commands:
    """The `pixops` subcommand table; each module adds its own with `add`."""

    def __init__(self, subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
        self._subparsers = subparsers
        self._names: set[str] = set()

    def add(self, name: str, *, help: str, handler: Handler) -> argparse.ArgumentParser:
        """Add subcommand `name` run by `handler`; returns its parser for the arguments."""
        if not isinstance(name, str) or not name or name.startswith("-"):
            raise ValueError(f"a subcommand name is a non-empty word, not {name!r}")
        if name in self._names:
            raise ValueError(f"subcommand {name!r} is registered twice")
        if not callable(handler):
            raise TypeError(f"the handler of {name!r} must be callable")
        self._names.add(name)
        parser = self._subparsers.add_parser(name, help=help, description=help)
        parser.set_defaults(handler=handler)
        return parser


def build_parser(modules: Sequence[str] = COMMAND_MODULES) -> argparse.ArgumentParser:
    """The full parser: every module in `modules` registers its subcommands."""
    parser = argparse.ArgumentParser(
        prog="pixops",
        description="pixops: analysis and operations toolkit for a PIX account,\n"
        "with an embedded sandbox of the service.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"pixops {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands = Commands(subparsers)
    for module_name in modules:
        importlib.import_module(module_name).register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse `argv` (default: the process arguments) and run the chosen subcommand.

    An argument that is not UTF-8 text exits 2, Ctrl-C exits 130, each with one line on
    stderr and no traceback; a closed stdout pipe exits 141 without a word.
    """
    arguments = sys.argv[1:] if argv is None else list(argv)
    for argument in arguments:
        if not _is_text(argument):
            print(
                f"pixops: the argument '{_shown(argument)}' is not UTF-8 text:"
                " retype it, or give the file a UTF-8 name",
                file=sys.stderr,
            )
            return EXIT_USAGE
    command = next((word for word in arguments if not word.startswith("-")), "")
    try:
        args = build_parser().parse_args(arguments)
        handler: Handler = args.handler
        return handler(args)
    except KeyboardInterrupt:
        print(f"{'pixops ' + command if command else 'pixops'}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE


def _is_text(argument: str) -> bool:
    """False for an argument holding bytes that were not UTF-8 (Python keeps each as a
    lone surrogate): a path or value that pyarrow, httpx or a certificate cannot take."""
    try:
        argument.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _shown(argument: str) -> str:
    """`argument` with its undecodable bytes as `\\xNN` escapes, as the shell was given it."""
    try:
        return argument.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a surrogate no argv byte makes (a caller's string)
        return argument.encode("utf-8", "backslashreplace").decode("utf-8")


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no descriptor (a test's captured stream)
        return
