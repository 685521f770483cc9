"""`pixops doctor` and `pixops api METHOD PATH [JSON]`: the runs (`pixops._cli_api`
registers their arguments, outside this package, so `pixops --help` skips httpx).

Both read the connection from `PIXOPS_BASE_URL`, `PIXOPS_CLIENT_ID` and
`PIXOPS_CLIENT_SECRET` (the environment, then a `.env` file); `--base-url` and
`--client-id` override the first two. The secret is read only from the environment or
the file, never from the command line, where it would land in shell history and `ps`.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from typing import Any, TextIO
from urllib.parse import parse_qsl

from pixops import wire
from pixops.client._config import ENV_BASE_URL, ENV_CLIENT_ID, ENV_CLIENT_SECRET, read_env
from pixops.client._core import raw_call
from pixops.client._errors import ArgumentError, ConfigurationError, TransportError
from pixops.client._retry import NO_RETRY
from pixops.client._sync import Client
from pixops.wire import WireError

__all__ = ["run_api", "run_doctor_command"]


def _client(args: argparse.Namespace, **options: Any) -> Client:
    env = read_env(dotenv_path=args.env_file, require=False)
    base_url = args.base_url or env.get(ENV_BASE_URL)
    client_id = args.client_id or env.get(ENV_CLIENT_ID)
    secret = env.get(ENV_CLIENT_SECRET)
    missing = [
        name
        for name, value in (
            (ENV_BASE_URL, base_url),
            (ENV_CLIENT_ID, client_id),
            (ENV_CLIENT_SECRET, secret),
        )
        if not value
    ]
    if missing:
        raise ConfigurationError(
            f"missing {', '.join(missing)}: set them in the environment or a .env file"
            " (`pixops serve` prints the export line of its demo key, to try it first)"
        )
    return Client(base_url, client_id, secret, retry=NO_RETRY, **options)


def _streams(out: TextIO | None, err: TextIO | None) -> tuple[TextIO, TextIO]:
    """Where the answer and the errors go: stdout and stderr from the shell (a scheduler
    logs stderr, `| jq` reads stdout); a caller that passes one `out` gets both there."""
    if out is None:
        return sys.stdout, sys.stderr if err is None else err
    return out, out if err is None else err


def run_doctor_command(
    args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    stream, errors = _streams(out, err)
    try:
        with _client(args) as client:
            report = client.doctor()
    except (ConfigurationError, ArgumentError) as exc:
        print(f"pixops doctor: {exc}", file=errors)
        return 2
    print(report, file=stream)
    return 0 if report.ok else 1


def run_api(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    stream, errors = _streams(out, err)
    body: Any = None
    if args.json is not None:
        try:  # argv bytes that were not UTF-8 come back as they were, and are refused
            raw = args.json.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:  # a lone surrogate no argv byte makes (from Python code)
            print("pixops api: the JSON body is refused: it is not valid text", file=errors)
            return 2
        try:
            body = wire.parse_strict(raw)
        except WireError as exc:
            print(f"pixops api: the JSON body is refused: {exc}", file=errors)
            return 2
    path, _, query_text = args.path.partition("?")
    try:  # read as a URL writes it: %C3%A9 is é and + a space, not sent encoded twice
        query = dict(parse_qsl(query_text, keep_blank_values=True, errors="strict"))
    except UnicodeDecodeError:
        print("pixops api: the query's %-escapes are not UTF-8 text", file=errors)
        return 2
    try:
        with _client(args, key_case="camelCase" if args.camel else "snake_case") as client:
            call = replace(
                raw_call(args.method, path, body, query), idempotency_key=args.idempotency_key
            )
            response = client.send(call)
    except (ConfigurationError, ArgumentError) as exc:
        print(f"pixops api: {exc}", file=errors)
        return 2
    except WireError as exc:  # parsed, yet not writable as canonical JSON (kept defensively)
        print(f"pixops api: the JSON body is refused: {exc}", file=errors)
        return 2
    except TransportError as exc:
        print(f"pixops api: {exc}", file=errors)
        return 1
    print(f"HTTP {response.status_code} {response.reason_phrase}", file=stream)
    for name in ("idempotency-key", "x-idempotent-replay", "x-ratelimit-remaining", "retry-after"):
        if name in response.headers:
            print(f"{name}: {response.headers[name]}", file=stream)
    try:
        print(json.dumps(response.json(), indent=2, ensure_ascii=False), file=stream)
    except ValueError:
        print(response.text, file=stream)
    return 0 if response.is_success else 1
