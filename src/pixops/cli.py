"""The `pixops` command line: one parser, subcommands registered from their own modules.

pixops serve [--host H] [--port P] [--db PATH] [--tls-cert F --tls-key F]
             [--rate-limit N] [--trusted-proxy IP ...] [--manual-clock | --production]
pixops dev-cert --out DIR [--host NAME ...]
pixops keys issue|list|revoke --db PATH ...
pixops demo

Adding a subcommand takes two lines here and one function in its own module::

    # in pixops/recon/_cli.py
    def register(commands: Commands) -> None:
        parser = commands.add("recon", help="reconcile a ledger", handler=run_recon)
        parser.add_argument("--ledger", type=Path, required=True)

    # in COMMAND_MODULES below
    "pixops.recon._cli",

The handler takes the parsed `argparse.Namespace` and returns the exit status.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import ipaddress
import shlex
import sqlite3
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

import httpx

from pixops import wire
from pixops.devcert import write_dev_certificate
from pixops.money import format_brl, format_brl_base
from pixops.sandbox import ApiKey, Sandbox
from pixops.server import (
    HTTP_IMPLEMENTATIONS,
    PixopsServer,
    ServeOptions,
    banner,
    build_engine,
    seed_demo_merchant,
)


def _port(text: str) -> int:
    value = _integer(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"port must be between 0 and 65535, not {value}")
    return value


def _positive(text: str) -> int:
    value = _integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _integer(text: str) -> int:
    try:
        return int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None


def _ip(text: str) -> str:
    try:
        return str(ipaddress.ip_address(text.strip()))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an IP address: {text!r}") from None


def _existing_file(text: str) -> Path:
    path = Path(text)
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"no such file: {text}")
    return path


Handler = Callable[[argparse.Namespace], int]
"""Runs one subcommand from its parsed arguments and returns the process exit status."""

COMMAND_MODULES: tuple[str, ...] = (
    "pixops.cli",
    "pixops._cli_keys",
    "pixops.desk",
    "pixops.report",
    "pixops.recon._cli",
    "pixops.client._cli",
)
"""Modules whose `register(commands: Commands) -> None` adds subcommands, in `--help` order."""


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
        description="pixops: analysis and operations toolkit for a PIX account, "
        "with an embedded sandbox of the service.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands = Commands(subparsers)
    for module_name in modules:
        importlib.import_module(module_name).register(commands)
    return parser


def register(commands: Commands) -> None:
    """The built-in subcommands: serve, dev-cert and demo."""
    serve = commands.add(
        "serve", help="run the engine as an HTTP(S) server on the wall clock", handler=run_serve
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=_port, default=8000, help="TCP port, 0 picks a free one")
    serve.add_argument("--db", type=Path, help="SQLite file to keep data in (default: memory)")
    serve.add_argument("--tls-cert", type=_existing_file, help="PEM certificate (enables TLS)")
    serve.add_argument("--tls-key", type=_existing_file, help="PEM private key for --tls-cert")
    serve.add_argument(
        "--rate-limit",
        type=_positive,
        default=90_000,
        metavar="N",
        help="requests per minute per IP (default 90000)",
    )
    serve.add_argument(
        "--trusted-proxy",
        type=_ip,
        action="append",
        default=[],
        metavar="IP",
        help="peer whose X-Forwarded-For is honoured (repeatable)",
    )
    serve.add_argument(
        "--http", choices=HTTP_IMPLEMENTATIONS, default="auto", help="HTTP/1.1 parser"
    )
    serve.add_argument(
        "--log-level",
        choices=("critical", "error", "warning", "info", "debug"),
        default="warning",
    )
    mode = serve.add_mutually_exclusive_group()
    mode.add_argument(
        "--manual-clock",
        action="store_true",
        help="time stands still until POST /sandbox/v1/clock/advance moves it",
    )
    mode.add_argument(
        "--production",
        action="store_true",
        help="not a sandbox: no test helpers, no admin token, no demo merchant",
    )

    cert = commands.add(
        "dev-cert", help="write a self-signed development certificate and key", handler=dev_cert
    )
    cert.add_argument("--out", type=Path, required=True, help="directory for cert.pem, key.pem")
    cert.add_argument(
        "--host",
        action="append",
        default=[],
        metavar="NAME",
        help="extra host name or IP for the certificate (repeatable); loopback is always in",
    )

    commands.add(
        "demo",
        help="run a short scenario against the in-process sandbox",
        handler=lambda _args: run_demo(sys.stdout),
    )


def run_serve(args: argparse.Namespace) -> int:
    """`pixops serve`: the engine over HTTP(S) until interrupted."""
    if (args.tls_cert is None) != (args.tls_key is None):
        print("pixops serve: --tls-cert and --tls-key go together", file=sys.stderr)
        return 2
    options = ServeOptions(
        host=args.host,
        port=args.port,
        db=args.db,
        tls_cert=args.tls_cert,
        tls_key=args.tls_key,
        rate_limit_per_minute=args.rate_limit,
        trusted_proxies=tuple(args.trusted_proxy),
        http=args.http,
        log_level=args.log_level,
        sandbox=not args.production,
        manual_clock=args.manual_clock,
    )
    try:
        engine = build_engine(options)
        server = PixopsServer(engine, options)
    except (OSError, sqlite3.Error) as error:
        print(f"pixops serve: cannot start: {error}", file=sys.stderr)
        return 1
    credentials = seed_demo_merchant(engine) if options.sandbox else None
    print(banner(server, credentials), flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.run()
    print("pixops serve: stopped", flush=True)
    return 0


def dev_cert(args: argparse.Namespace) -> int:
    """`pixops dev-cert`: a self-signed certificate for local TLS."""
    try:
        written = write_dev_certificate(args.out, hosts=tuple(args.host))
    except OSError as error:
        print(f"pixops dev-cert: cannot write: {error}", file=sys.stderr)
        return 1
    print(f"certificate: {written.cert}")
    print(f"private key: {written.key} (self-signed, 30 days, for development only)")
    print(f"serve with:  pixops serve --tls-cert {written.cert} --tls-key {written.key}")
    print("then paste the export line that pixops serve prints, and call:")
    print(
        f"  curl --cacert {shlex.quote(str(written.cert))}"
        ' -H "Authorization: ApiKey $PIXOPS_CLIENT_ID:$PIXOPS_CLIENT_SECRET"'
        ' "$PIXOPS_BASE_URL/api/external/balance"'
    )
    return 0


class DemoError(Exception):
    """A step of the demo got an answer it did not expect."""


class _DemoApi:
    """Plain httpx with hand-built headers, as any merchant's code would call the API."""

    def __init__(self, sandbox: Sandbox, key: ApiKey) -> None:
        self.http = httpx.Client(
            transport=sandbox.transport(), base_url="http://sandbox/api/external"
        )
        self.authorization = f"ApiKey {key.client_id}:{key.client_secret}"
        self.secret = key.client_secret

    def get(self, path: str, expect: int = 200, **params: str | int) -> dict[str, Any]:
        response = self.http.get(path, params=params, headers={"authorization": self.authorization})
        return self._checked("GET", path, response, expect)

    def post(self, path: str, payload: dict[str, Any], expect: int) -> dict[str, Any]:
        body = wire.canonical_json(payload)
        headers = {
            "authorization": self.authorization,
            "content-type": "application/json",
            "hmac": wire.sign(body, self.secret),
        }
        return self._checked(
            "POST", path, self.http.post(path, content=body, headers=headers), expect
        )

    @staticmethod
    def _checked(method: str, path: str, response: httpx.Response, expect: int) -> dict[str, Any]:
        if response.status_code != expect:
            raise DemoError(f"{method} {path} answered {response.status_code}: {response.text}")
        body: dict[str, Any] = response.json()
        return body


def run_demo(out: TextIO) -> int:
    """A short merchant day against the in-process sandbox, printed as a report."""
    sandbox = Sandbox()
    merchant = sandbox.create_merchant("Loja Exemplo", balance_centavos=1_000_000)
    key = sandbox.issue_api_key(merchant.id)
    api = _DemoApi(sandbox, key)

    def say(text: str = "") -> None:
        print(text, file=out, flush=True)

    say("pixops demo: a merchant's day on the in-process sandbox (no network, manual clock)")
    say(f"merchant {merchant.name} ({merchant.id}), API key {key.client_id}, every permission")
    say(f"clock starts at {sandbox.now():%Y-%m-%d %H:%M} UTC")
    try:
        _demo_steps(sandbox, merchant.id, api, say)
    except DemoError as failure:
        say(f"demo FAILED: {failure}")
        return 1
    finally:
        api.http.close()
    audit = sandbox.audit(merchant.id)
    say(f"ledger audit: {'consistent' if audit.consistent else 'INCONSISTENT'}")
    return 0 if audit.consistent else 1


def _demo_steps(sandbox: Sandbox, merchant_id: str, api: _DemoApi, say: Any) -> None:
    balance = api.get("/balance")["data"]
    say(
        f"\n1. GET /balance: balance {format_brl_base(balance['balance'])},"
        f" available {format_brl_base(balance['available_balance'])}"
    )

    say("\n2. POST /cpf/validate")
    for cpf in ("529.982.247-25", "123.456.789-00"):
        valid = api.post("/cpf/validate", {"cpf": cpf}, 200)["data"]["valid"]
        say(f"   {cpf}: {'valid' if valid else 'invalid'}")

    amount_centavos = 15_000
    charge = api.post(
        "/pix/cash-in",
        {"amount": amount_centavos, "description": "Pedido 1001", "external_id": "pedido-1001"},
        201,
    )["data"]
    say(f"\n3. POST /pix/cash-in {format_brl(amount_centavos)}: QR {charge['transaction_id']}")
    say(f"   copia e cola: {charge['brcode'][:60]}...")
    credit_id = sandbox.pay_charge(
        charge["transaction_id"], payer_name="Maria Silva", payer_document="52998224725"
    )
    credit = api.get(f"/transactions/{credit_id}")["data"]
    say(
        f"   paid by {credit['counterparty_name']}: {credit_id} {credit['status']},"
        f" amount {format_brl_base(credit['amount'])}, fee {format_brl_base(credit['fee_amount'])},"
        f" net {format_brl_base(credit['net_amount'])}"
    )

    payout = api.post(
        "/pix/cash-out",
        {
            "amount": 4_250,
            "pix_key": "maria.silva@sandbox.pixops.dev",
            "description": "Fornecedor",
            "external_id": "pagamento-77",
        },
        202,
    )
    say(
        f"\n4. POST /pix/cash-out {format_brl(4_250)} to maria.silva@sandbox.pixops.dev:"
        f" {payout['status']} (final {str(payout['final']).lower()}),"
        f" fee {format_brl_base(payout['fee_amount'])},"
        f" debit {format_brl_base(payout['net_amount'])}"
    )

    refund = api.post(
        "/pix/refund",
        {"original_transaction_id": credit_id, "amount": 5_000, "reason": "MD06"},
        202,
    )
    say(
        f"\n5. POST /pix/refund {format_brl(5_000)} of {credit_id}: {refund['status']},"
        f" {refund['transaction_id']}"
    )

    ran = sandbox.advance(minutes=1)
    say(f"\n6. one minute later ({ran} timers ran on the simulated clock)")
    for transaction_id in (payout["transaction_id"], refund["transaction_id"]):
        shown = api.get(f"/transactions/{transaction_id}")["data"]
        say(f"   {transaction_id}: {shown['status']}")

    items = api.get("/statement", per_page=20)["data"]
    say(f"\n7. GET /statement: {len(items)} movements, newest first")
    for item in items:
        sign = "+" if item["direction"] == "inbound" else "-"
        say(
            f"   {item['created_at']}  {sign}{format_brl_base(item['net_amount']):>14}"
            f"  {item['status']:<10} {item['counterparty_name'] or ''}"
        )

    balance = api.get("/balance")["data"]
    say(f"\n8. GET /balance: balance {format_brl_base(balance['balance'])}")
    kinds = [event.type for event in sandbox.events(merchant_id)]
    say(f"   events emitted: {', '.join(kinds)}")


def main(argv: Sequence[str] | None = None) -> int:
    """Parse `argv` (default: the process arguments) and run the chosen subcommand."""
    args = build_parser().parse_args(argv)
    handler: Handler = args.handler
    return handler(args)
