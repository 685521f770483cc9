"""Client settings: where the service is, the credentials, casing, timeouts, retries.

Secrets never appear in a repr, a log line or an exception: `Credentials` shows only
the public `client_id` and a masked secret.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal

import httpx
from dotenv import dotenv_values, find_dotenv

from pixops.client._errors import ConfigurationError

__all__ = [
    "API_PREFIX",
    "DEFAULT_TIMEOUT",
    "ENV_BASE_URL",
    "ENV_CLIENT_ID",
    "ENV_CLIENT_SECRET",
    "Credentials",
    "KeyCase",
    "Settings",
    "check_hooks",
    "check_timeout",
    "read_env",
]

API_PREFIX: Final = "/api/external"
ENV_BASE_URL: Final = "PIXOPS_BASE_URL"
ENV_CLIENT_ID: Final = "PIXOPS_CLIENT_ID"
ENV_CLIENT_SECRET: Final = "PIXOPS_CLIENT_SECRET"  # noqa: S105 - a variable name
#: 5 s to connect; 30 s to read an answer (a cash-out waits on the key directory);
#: 30 s to write; 10 s to get a pooled connection.
DEFAULT_TIMEOUT: Final = httpx.Timeout(30.0, connect=5.0, pool=10.0)
KeyCase = Literal["snake_case", "camelCase"]


@dataclass(frozen=True)
class Credentials:
    """An API key: the public `client_id` and the secret (never shown)."""

    client_id: str
    client_secret: str = field(repr=False)

    def __post_init__(self) -> None:
        for name in ("client_id", "client_secret"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip():
                raise ConfigurationError(f"{name} must be a non-empty string")
            if value != value.strip() or any(ch in value for ch in ":\r\n"):
                raise ConfigurationError(f"{name} has spaces, ':' or line breaks")
            if not (value.isascii() and value.isprintable()):
                # It travels in the Authorization header, which httpx encodes as ASCII.
                raise ConfigurationError(f"{name} must be printable ASCII")

    @property
    def authorization(self) -> str:
        return f"ApiKey {self.client_id}:{self.client_secret}"

    def __repr__(self) -> str:
        return f"Credentials(client_id={self.client_id!r}, client_secret='sk_…')"


_HOST: Final = re.compile(r"[A-Za-z0-9.-]+|[0-9A-Fa-f:.]+")


def api_root(base_url: str) -> str:
    """`https://host` or `https://host/api/external` -> `https://host/api/external`.

    The service's address only: a user and password in it would show in every repr and
    log line (the key travels in `Authorization`), and a query, fragment or endpoint
    path would be glued in front of every request's path."""
    if not isinstance(base_url, str) or not base_url.strip():
        raise ConfigurationError("base_url must be a non-empty string such as https://host")
    try:
        url = httpx.URL(base_url.strip().rstrip("/"))
        port = url.port
    except (httpx.InvalidURL, ValueError):
        port, url = -1, httpx.URL()
    example = "such as https://pix.example.com or http://127.0.0.1:8000"
    host = url.raw_host.decode("ascii", "replace")  # IDNA: a name in Unicode is xn--...
    if url.scheme not in ("http", "https") or not _HOST.fullmatch(host) or port == -1:
        raise ConfigurationError(f"base_url must be an http(s) address {example}")
    if port is not None and not 0 < port < 65536:
        raise ConfigurationError(f"base_url's port must be from 1 to 65535 ({example})")
    if url.userinfo:
        raise ConfigurationError(
            "base_url must not hold a user or password: the API key goes in client_id and"
            " client_secret"
        )
    if url.query or url.fragment:
        raise ConfigurationError(f"base_url must not have a query or fragment ({example})")
    root = str(url)
    if root.endswith(API_PREFIX):
        return root
    if API_PREFIX + "/" in url.path:
        raise ConfigurationError(
            f"base_url is the service's address, not an endpoint: drop what follows {API_PREFIX}"
        )
    return root + API_PREFIX


@dataclass(frozen=True)
class Settings:
    """Everything a client needs besides its connection pool."""

    api_root: str
    credentials: Credentials
    key_case: KeyCase = "snake_case"

    def __post_init__(self) -> None:
        if self.key_case not in ("snake_case", "camelCase"):
            raise ConfigurationError("key_case must be 'snake_case' or 'camelCase'")


def read_env(
    environ: Mapping[str, str] | None = None,
    dotenv_path: str | Path | None = None,
    *,
    require: bool = True,
) -> dict[str, str]:
    """`PIXOPS_*` settings: the environment first, then a `.env` file (found upwards from
    the working directory, or the path given) for what the environment lacks."""
    found: dict[str, str] = {}
    path = str(dotenv_path) if dotenv_path is not None else find_dotenv(usecwd=True)
    if dotenv_path is not None and Path(path).is_dir():
        raise ConfigurationError(f"{path} is a folder: give the .env file in it")
    if dotenv_path is not None and not Path(path).is_file():
        raise ConfigurationError(f"no .env file at {path}")
    if path:
        try:
            values = dotenv_values(path)
        except UnicodeDecodeError as error:
            raise ConfigurationError(f"{path} is not UTF-8 text ({error.reason})") from None
        found.update({k: v for k, v in values.items() if v is not None})
    source = os.environ if environ is None else environ
    found.update({k: v for k, v in source.items() if k.startswith("PIXOPS_")})
    missing = [
        name for name in (ENV_BASE_URL, ENV_CLIENT_ID, ENV_CLIENT_SECRET) if not found.get(name)
    ]
    if missing and require:
        raise ConfigurationError(
            f"missing {', '.join(missing)}: set them in the environment or in a .env file"
        )
    return found


def check_timeout(timeout: object) -> None:
    """A client's request timeout: a positive, finite number of seconds or an
    ``httpx.Timeout`` (httpx takes a string or NaN here and fails on the first request)."""
    if isinstance(timeout, httpx.Timeout):
        return
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, int | float)
        or not math.isfinite(timeout)
        or timeout <= 0
    ):
        raise ConfigurationError(
            f"timeout must be a positive number of seconds or an httpx.Timeout, not {timeout!r}"
        )


def check_hooks(
    *,
    transport: object,
    http_client: object,
    sleep: object,
    advance_clock: object,
    asynchronous: bool,
) -> None:
    """A client's plumbing options, checked when it is made: httpx takes a wrong one
    silently and fails on the first request with an AttributeError of its own."""
    kind = "Async" if asynchronous else ""
    transports = httpx.AsyncBaseTransport if asynchronous else httpx.BaseTransport
    clients = httpx.AsyncClient if asynchronous else httpx.Client
    if transport is not None and not isinstance(transport, transports):
        raise ConfigurationError(
            f"transport must be an httpx.{kind}BaseTransport (e.g. httpx.MockTransport),"
            f" not {type(transport).__name__}"
        )
    if http_client is not None and not isinstance(http_client, clients):
        raise ConfigurationError(
            f"http_client must be an httpx.{kind}Client, not {type(http_client).__name__}"
        )
    for name, hook in (("sleep", sleep), ("advance_clock", advance_clock)):
        if hook is not None and not callable(hook):
            raise ConfigurationError(
                f"{name} must be a function taking seconds, not {type(hook).__name__}"
            )
