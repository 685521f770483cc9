"""`pixops serve` and `pixops dev-cert`: the engine over HTTP(S), and a certificate for it.

pixops serve [--host H] [--port P] [--db PATH] [--tls-cert F --tls-key F]
             [--rate-limit N] [--trusted-proxy IP ...] [--manual-clock | --production]
pixops dev-cert --out DIR [--host NAME ...]

The engine and uvicorn are imported when `serve` runs, not when it is registered, so
that `pixops --help` and the other commands do not pay for them.
"""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import re
import shlex
import socket
import sqlite3
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from pixops._paths import output_folder_problem
from pixops._serve_options import HTTP_IMPLEMENTATIONS, LOOP_IMPLEMENTATIONS, ServeOptions
from pixops.devcert import write_dev_certificate

if TYPE_CHECKING:
    from pixops.cli import Commands


_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")
"""One label of a host name in ASCII (IDNA) form."""


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


def _cert_host(text: str) -> str:
    """An IP address, or a host name in its ASCII form (``pix.test``; ``café.test`` becomes
    ``xn--caf-dma.test``; ``*.pix.test`` for every name under it), as a certificate names
    it: cryptography refused non-ASCII with a traceback and took ``bad..host`` as it was."""
    name = text.strip().removesuffix(".")
    with contextlib.suppress(ValueError):
        return str(ipaddress.ip_address(name))
    try:
        ascii_name = name.encode("idna").decode("ascii").lower() if name else ""
    except UnicodeError:
        ascii_name = ""
    first, _, rest = ascii_name.partition(".")
    labels = [*([] if first == "*" and rest else [first]), *(rest.split(".") if rest else [])]
    if not ascii_name or len(ascii_name) > 253 or not all(map(_LABEL.fullmatch, labels)):
        raise argparse.ArgumentTypeError(
            f"not a host name or IP address: {text!r} (such as pix.test or 192.168.0.10)"
        )
    return ascii_name


def _existing_file(text: str) -> Path:
    path = Path(text)
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"no such file: {text}")
    return path


def register(commands: Commands) -> None:
    """`pixops serve` and `pixops dev-cert`."""
    serve = commands.add(
        "serve",
        help="run the engine as an HTTP(S) server (a sandbox unless --production)",
        handler=run_serve,
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument(
        "--port", type=_port, default=8000, help="TCP port (default 8000), 0 picks a free one"
    )
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
        "--loop",
        choices=LOOP_IMPLEMENTATIONS,
        default="auto",
        help="event loop (auto: uvloop when installed, else asyncio)",
    )
    serve.add_argument(
        "--log-level",
        choices=("critical", "error", "warning", "info", "debug"),
        default="warning",
        help="uvicorn's log level (default warning)",
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
        help="not a sandbox: no test helpers, no admin token, no demo merchant (needs --db)",
    )

    cert = commands.add(
        "dev-cert", help="write a self-signed development certificate and key", handler=dev_cert
    )
    cert.add_argument("--out", type=Path, required=True, help="directory for cert.pem, key.pem")
    cert.add_argument(
        "--host",
        type=_cert_host,
        action="append",
        default=[],
        metavar="NAME",
        help="extra host name or IP for the certificate (repeatable); loopback is always in",
    )


def run_serve(args: argparse.Namespace) -> int:
    """`pixops serve`: the engine over HTTP(S) until interrupted."""
    import ssl

    from pixops.server import PixopsServer, banner, build_engine, seed_demo_merchant

    if (args.tls_cert is None) != (args.tls_key is None):
        print("pixops serve: --tls-cert and --tls-key go together", file=sys.stderr)
        return 2
    if args.production and args.db is None:
        print(
            "pixops serve: --production needs --db PATH: a production server has no demo"
            " merchant, and its merchants and keys are issued into that file with"
            " `pixops keys issue --db PATH --new-merchant NAME` (in memory, nothing could"
            " ever call it)",
            file=sys.stderr,
        )
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
        loop=args.loop,
        log_level=args.log_level,
        sandbox=not args.production,
        manual_clock=args.manual_clock,
    )
    try:
        engine = build_engine(options)
        server = PixopsServer(engine, options)
    except ssl.SSLError as error:  # an OSError too, whose text was "[SSL] PEM lib (_ssl.c:…)"
        print(
            f"pixops serve: cannot start: --tls-cert {options.tls_cert} and --tls-key"
            f" {options.tls_key} are not a PEM certificate and its key"
            f"{f' ({error.reason})' if error.reason else ''}:"
            " pixops dev-cert --out DIR writes a pair",
            file=sys.stderr,
        )
        return 1
    except socket.gaierror as error:  # an OSError too: the name in --host did not resolve
        print(
            f"pixops serve: cannot start: --host {options.host} is not an address of this"
            f" machine ({error.strerror}): use 127.0.0.1, or 0.0.0.0 for every interface",
            file=sys.stderr,
        )
        return 1
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
    problem = output_folder_problem(args.out)
    if problem is not None:  # mkdir said only "File exists" about a file in the way
        print(f"pixops dev-cert: --out {args.out}: {problem}", file=sys.stderr)
        return 2
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
