"""`pixops conformance`: its arguments; the run is `pixops.conformance._cli.run_command`.

Registered from here so `pixops --help` imports neither httpx nor pydantic.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pixops.cli import Commands

__all__ = ["register"]


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError("the timeout must be a positive number of seconds")
    return value


def register(commands: Commands) -> None:
    """Add `pixops conformance`."""
    parser = commands.add(
        "conformance",
        help="measure the configured PIX service against the spec (docs/api.md);"
        " read-only unless --write",
        handler=run,
    )
    parser.add_argument("--base-url", help="the service (default $PIXOPS_BASE_URL)")
    parser.add_argument("--client-id", help="the API key id (default $PIXOPS_CLIENT_ID)")
    parser.add_argument(
        "--env-file", type=Path, help="a .env file to read (default: .env found upwards)"
    )
    parser.add_argument(
        "--write",
        action="store_true",
        help="also run the checks that leave a R$ 0,01 QR charge to expire (listed first;"
        " never a transfer out)",
    )
    parser.add_argument(
        "--only", action="append", metavar="NAME[,NAME]", help="run only these checks"
    )
    parser.add_argument("--skip", action="append", metavar="NAME[,NAME]", help="leave these out")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the report as JSON")
    parser.add_argument(
        "--html", type=Path, metavar="FILE", help="also write a self-contained HTML report"
    )
    parser.add_argument(
        "--timeout", type=_seconds, default=10.0, help="seconds to wait for each answer (10)"
    )
    parser.add_argument(
        "--list", action="store_true", help="list the checks and what each sends; send nothing"
    )


def run(args: argparse.Namespace) -> int:
    """`pixops conformance`: `pixops.conformance._cli.run_command`, imported now."""
    from pixops.conformance._cli import run_command

    return run_command(args)
