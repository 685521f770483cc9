"""The `pixops` command line: one parser, subcommands registered from their own modules.

pixops serve [--host H] [--port P] [--db PATH] [--tls-cert F --tls-key F]
             [--rate-limit N] [--trusted-proxy IP ...] [--manual-clock | --production]
pixops dev-cert --out DIR [--host NAME ...]
pixops keys issue|list|revoke --db PATH ...
pixops demo
pixops lab [--notebooks DIR] [--host H] [--port P] [--token T]
pixops desk [--notebook FILE] [--host H] [--port P]
pixops report daily --date DAY --html FILE [--ledger PATH] [--balances PATH]
pixops report run NOTEBOOK --html FILE [-p NAME=VALUE ...]
pixops recon --date DAY | --from DAY --to DAY  --ledger PATH --out DIR [--balances PATH]
pixops doctor [--base-url URL] [--client-id ID] [--env-file PATH]
pixops api METHOD PATH [JSON] [--camel] [--idempotency-key KEY]

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
from collections.abc import Callable, Sequence

Handler = Callable[[argparse.Namespace], int]
"""Runs one subcommand from its parsed arguments and returns the process exit status."""

COMMAND_MODULES: tuple[str, ...] = (
    "pixops._cli_serve",
    "pixops._cli_keys",
    "pixops._cli_demo",
    "pixops.desk",
    "pixops.report",
    "pixops._cli_recon",
    "pixops._cli_api",
)
"""Modules whose `register(commands: Commands) -> None` adds subcommands, in `--help` order."""


_EPILOG = """\
examples (from the repository root):
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
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands = Commands(subparsers)
    for module_name in modules:
        importlib.import_module(module_name).register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse `argv` (default: the process arguments) and run the chosen subcommand."""
    args = build_parser().parse_args(argv)
    handler: Handler = args.handler
    return handler(args)
