"""`pixops notebooks init [DIR] [--update]`: the shipped notebooks and sample data, copied
into a folder of the user's (`pixops._notebook_copies`)."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from pixops._notebook_copies import CopyOutcome
    from pixops.cli import Commands


def register(commands: Commands) -> None:
    """Add `pixops notebooks init`."""
    notebooks = commands.add(
        "notebooks",
        help="copy the notebooks and sample data into a folder of yours",
        handler=lambda args: run(args, sys.stdout),
    )
    actions = notebooks.add_subparsers(dest="action", required=True, metavar="ACTION")
    init_help = (
        "copy the six notebooks into DIR/notebooks and the sample ledger and balances into"
        " DIR/data; a notebook you edited is never overwritten"
    )
    init = actions.add_parser("init", help=init_help, description=init_help)
    init.add_argument(
        "folder", nargs="?", type=Path, default=Path("."), metavar="DIR", help="default: here"
    )
    init.add_argument(
        "--update",
        action="store_true",
        help="replace the copies you did not edit with this version's, and list the others",
    )


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Copy, say what was done in a few lines; a refusal is one line on stderr, exit 2."""
    from pixops._notebook_copies import CopyError, copy_notebooks

    try:
        outcome = copy_notebooks(args.folder, update=args.update)
    except CopyError as error:
        print(f"pixops notebooks: {error}", file=sys.stderr)
        return 2
    for line in describe(outcome, update=args.update):
        print(line, file=out)
    return 0


def describe(outcome: CopyOutcome, *, update: bool) -> list[str]:
    """What a copy did, for a person: one line per kind of change."""
    from pixops._version import __version__

    where = outcome.folder.resolve()
    lines: list[str] = []
    if outcome.copied:
        lines.append(f"copied into {where}: {_by_folder(outcome.copied)}")
    if outcome.replaced:
        lines.append(
            f"updated {_count(outcome.replaced)} you had not edited to pixops {__version__}:"
            f" {_names(outcome.replaced)}"
        )
    if outcome.kept_edited:
        lines.append(
            f"left alone {_count(outcome.kept_edited)} you edited: {_names(outcome.kept_edited)}"
        )
    if outcome.outdated:
        lines.append(
            f"{_count(outcome.outdated)} from pixops {outcome.previous_version} differ from"
            f" pixops {__version__}'s: `pixops notebooks init --update {shlex.quote(str(where))}`"
            " replaces"
            " those you did not edit"
        )
    if not lines:
        lines.append(f"{where} already holds the notebooks of pixops {__version__}")
    if not update or outcome.copied:
        lines.append(f"open them: cd {shlex.quote(str(where))} && pixops lab")
    return lines


def _count(names: tuple[str, ...]) -> str:
    return f"{len(names)} file" if len(names) == 1 else f"{len(names)} files"


def _names(names: tuple[str, ...]) -> str:
    return ", ".join(names)


def _by_folder(names: tuple[str, ...]) -> str:
    """``notebooks/ (7 files), data/ (3 files)``: a first copy, in one short line."""
    folders: dict[str, int] = {}
    for name in names:
        top = name.split("/", 1)[0] + "/" if "/" in name else name
        folders[top] = folders.get(top, 0) + 1
    return ", ".join(
        f"{top} ({count} file{'' if count == 1 else 's'})" for top, count in folders.items()
    )
