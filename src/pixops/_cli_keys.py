"""`pixops keys issue|list|revoke --db PATH`: API keys of an existing server database.

    pixops keys list --db pix.db [--merchant ID]
    pixops keys issue --db pix.db [--merchant ID | --new-merchant NAME] [--permission P ...]
                      [--ip ADDRESS ...] [--no-hmac] [--expires-at 2026-12-31T23:59:59Z]
    pixops keys revoke --db pix.db CLIENT_ID

What a server that restarts on its database needs: secrets are never stored, so a new
key is the way back in. Works while `pixops serve` runs on the same file (SQLite locks).
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from pixops.cli import Commands
    from pixops.sandbox import Sandbox

DEFAULT_WHITELIST = ("127.0.0.1", "::1")


class KeysError(Exception):
    """A `pixops keys` request that cannot be carried out; the message says why."""


def register(commands: Commands) -> None:
    """Add `pixops keys` and its three actions."""
    keys = commands.add("keys", help="issue, list or revoke API keys in a --db file", handler=run)
    actions = keys.add_subparsers(dest="action", required=True, metavar="ACTION")

    listing = actions.add_parser(
        "list", help="every key (never a secret)", description="list every key (never a secret)"
    )
    _database(listing)
    listing.add_argument("--merchant", metavar="ID", help="only this merchant's keys")

    issue = actions.add_parser(
        "issue",
        help="a new key; its secret is shown once",
        description="issue a new key; its secret is shown once, with an export line",
    )
    _database(issue)
    owner = issue.add_mutually_exclusive_group()
    owner.add_argument("--merchant", metavar="ID", help="default: the only merchant")
    owner.add_argument("--new-merchant", metavar="NAME", help="create a merchant (balance 0)")
    issue.add_argument(
        "--permission",
        action="append",
        metavar="P",
        help="repeatable (default: every permission)",
    )
    issue.add_argument(
        "--ip",
        action="append",
        metavar="ADDRESS",
        help="whitelist entry, repeatable (default: 127.0.0.1 and ::1)",
    )
    issue.add_argument("--no-hmac", action="store_true", help="a key without a signing secret")
    issue.add_argument(
        "--expires-at", type=_timestamp, metavar="ISO", help="e.g. 2026-12-31T23:59:59Z"
    )

    revoke = actions.add_parser(
        "revoke", help="deactivate a key at once", description="deactivate a key at once"
    )
    _database(revoke)
    revoke.add_argument("client_id", metavar="CLIENT_ID", help="the key's id (cli_...)")


def _database(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", type=Path, required=True, help="the SQLite file of pixops serve")


def _timestamp(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an ISO 8601 timestamp: {text!r}") from None
    if moment.tzinfo is None:
        raise argparse.ArgumentTypeError("the timestamp needs its UTC offset (end it with Z)")
    return moment


def run(args: argparse.Namespace) -> int:
    """Carry out one action; errors go to stderr with exit status 1."""
    try:
        sandbox = open_database(args.db)
        try:
            if args.action == "list":
                return list_keys(sandbox, args.merchant, sys.stdout)
            if args.action == "issue":
                return issue_key(sandbox, args, sys.stdout)
            return revoke_key(sandbox, args.client_id, sys.stdout)
        finally:
            sandbox.engine.store.close()
    except (KeysError, ValueError, sqlite3.Error) as error:
        print(f"pixops keys: {error}", file=sys.stderr)
        return 1


def open_database(path: Path) -> Sandbox:
    """The sandbox's actions on an existing pixops database, on the wall clock.

    Refuses a missing file or a file that is not a pixops database (which opening it
    as a store would otherwise fill with tables).
    """
    from pixops.engine.clock import WallClock
    from pixops.engine.core import Engine
    from pixops.engine.store import Store
    from pixops.sandbox import Sandbox

    if not path.is_file():
        raise KeysError(f"no database at {path} (pixops serve --db {path} creates one)")
    try:
        probe = sqlite3.connect(f"file:{path.resolve()}?mode=ro", uri=True)
        try:
            tables = {
                row[0] for row in probe.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
        finally:
            probe.close()
    except sqlite3.DatabaseError as error:
        raise KeysError(f"{path} is not a SQLite database: {error}") from None
    if not {"merchants", "api_keys"} <= tables:
        raise KeysError(f"{path} is not a pixops database (no merchants or api_keys table)")
    return Sandbox.over(Engine(store=Store(path), clock=WallClock(), seed=None))


def list_keys(sandbox: Sandbox, merchant_id: str | None, out: TextIO) -> int:
    from pixops.engine.admin import list_keys as stored_keys

    with sandbox.engine.store.lock:
        keys = stored_keys(sandbox.engine.store.conn, merchant_id)
    if not keys:
        print("no API keys", file=out)
        return 0
    now = sandbox.now()
    print(
        f"{'client_id':<29} {'state':<8} {'merchant':<40} {'created (UTC)':<20} whitelist", file=out
    )
    for key in keys:
        state = "active" if key.usable_at(now) else ("revoked" if not key.active else "expired")
        merchant = f"{key.merchant_id} ({key.merchant_name})"
        print(
            f"{key.client_id:<29} {state:<8} {merchant[:40]:<40}"
            f" {key.created_at:%Y-%m-%d %H:%M:%S}  {', '.join(key.ip_whitelist)}",
            file=out,
        )
    return 0


def _owner(sandbox: Sandbox, args: argparse.Namespace) -> tuple[str, str]:
    if args.new_merchant is not None:
        merchant = sandbox.create_merchant(args.new_merchant)
        return merchant.id, merchant.name
    with sandbox.engine.store.lock:
        rows = sandbox.engine.store.conn.execute(
            "SELECT id, name FROM merchants ORDER BY created_at, id"
        ).fetchall()
    if args.merchant is not None:
        for merchant_id, name in rows:
            if merchant_id == args.merchant:
                return str(merchant_id), str(name)
        raise KeysError(f"no merchant {args.merchant!r}")
    if len(rows) == 1:
        return str(rows[0][0]), str(rows[0][1])
    listed = ", ".join(f"{merchant_id} ({name})" for merchant_id, name in rows) or "none"
    raise KeysError(f"say --merchant ID or --new-merchant NAME; merchants: {listed}")


def issue_key(sandbox: Sandbox, args: argparse.Namespace, out: TextIO) -> int:
    with sandbox.engine.store.transaction():
        merchant_id, name = _owner(sandbox, args)
        key = sandbox.issue_api_key(
            merchant_id,
            permissions=None if args.permission is None else tuple(args.permission),
            ip_whitelist=DEFAULT_WHITELIST if args.ip is None else tuple(args.ip),
            hmac=not args.no_hmac,
            expires_at=args.expires_at,
        )
    print(f"merchant:      {merchant_id} ({name})", file=out)
    print(f"client_id:     {key.client_id}", file=out)
    print(f"client_secret: {key.client_secret}  (shown once: only its hash is stored)", file=out)
    print(f"permissions:   {', '.join(key.permissions)}", file=out)
    print(f"ip whitelist:  {', '.join(key.ip_whitelist)}", file=out)
    print(f"hmac:          {'on' if key.hmac else 'off'}", file=out)
    if key.expires_at is not None:
        print(f"expires at:    {key.expires_at.isoformat()}", file=out)
    print(
        f"export PIXOPS_CLIENT_ID={key.client_id} PIXOPS_CLIENT_SECRET={key.client_secret}",
        file=out,
    )
    return 0


def revoke_key(sandbox: Sandbox, client_id: str, out: TextIO) -> int:
    sandbox.revoke_api_key(client_id)
    print(f"revoked {client_id}: requests with it now get 401 API key is inactive", file=out)
    return 0
