"""`pixops doctor` and `pixops api`: their arguments; the runs are in `pixops.client._cli`.

Registered from here, outside `pixops.client`, whose import loads httpx and pydantic:
the runs import them, `pixops --help` and the other commands do not. The secret is read
only from the environment or a `.env` file, never from the command line, where it
would land in shell history and `ps`.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pixops.cli import Commands

__all__ = ["register"]


def _connection_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--base-url", help="the service (default $PIXOPS_BASE_URL)")
    parser.add_argument("--client-id", help="the API key id (default $PIXOPS_CLIENT_ID)")
    parser.add_argument(
        "--env-file", type=Path, help="a .env file to read (default: .env found upwards)"
    )


def register(commands: Commands) -> None:
    """Add `pixops doctor` and `pixops api`."""
    doctor = commands.add(
        "doctor",
        help="check the connection, credentials, IP whitelist, signing, permissions, clock"
        " and rate limit",
        handler=run_doctor,
    )
    _connection_arguments(doctor)
    api = commands.add("api", help="send one signed request and print the answer", handler=run_api)
    _connection_arguments(api)
    api.add_argument(
        "method",
        choices=["GET", "POST", "DELETE", "get", "post", "delete"],
        metavar="METHOD",
        help="GET, POST or DELETE",
    )
    api.add_argument(
        "path", metavar="PATH", help="under /api/external, e.g. /balance or /statement?per_page=5"
    )
    api.add_argument("json", nargs="?", metavar="JSON", help="the JSON body of a POST")
    api.add_argument("--camel", action="store_true", help="send and receive camelCase keys")
    api.add_argument("--idempotency-key", help="reuse a key to replay a POST safely")


def run_doctor(args: argparse.Namespace) -> int:
    """`pixops doctor`: `pixops.client._cli.run_doctor_command`, imported now."""
    from pixops.client._cli import run_doctor_command

    return run_doctor_command(args)


def run_api(args: argparse.Namespace) -> int:
    """`pixops api`: `pixops.client._cli.run_api`, imported now."""
    from pixops.client._cli import run_api as run_call

    return run_call(args)
