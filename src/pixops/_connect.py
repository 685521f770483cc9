"""`pixops.connect()`: one entry point for notebooks, on the real service or the demo month.

    import pixops
    client = pixops.connect()          # prints which service it is connected to
    client.connection.mode             # "service" or "sandbox"
    client.connection.inbox            # webhook events collected so far (or None)

With ``PIXOPS_BASE_URL`` set (in the environment or a ``.env`` file) the client talks to
that service with the configured credentials. Otherwise it runs on a private copy of
the seeded demo month (`pixops.demo.demo_month`), loaded lazily so that importing
pixops never loads the engine. On the sandbox an in-process webhook receiver,
subscribed through the API, collects every event into a `pixops.webhooks.Inbox`,
seeded with the month's earlier events as if the merchant had been subscribed all along.
"""

from __future__ import annotations

import contextlib
import html
import ipaddress
import os
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Final
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from pixops._connection import Connection, connection_of, remember_connection
from pixops.errors import PixopsError

if TYPE_CHECKING:
    from pixops.client import Client
    from pixops.webhooks import Inbox

__all__ = [
    "DEFAULT_ENV_FILE",
    "ENV_BASE_URL",
    "RECEIVER_NAME",
    "ConnectError",
    "Connection",
    "connect",
    "connection_of",
    "service_client",
    "service_settings",
]

ENV_BASE_URL = "PIXOPS_BASE_URL"
DEFAULT_ENV_FILE = ".env"
#: The in-process receiver's name on the sandbox; its URL is ``inproc://pixops-notebook``.
RECEIVER_NAME = "pixops-notebook"
#: Where the merchant's day is counted; the sandbox's clock is announced in its time.
BUSINESS_TZ: Final = ZoneInfo("America/Sao_Paulo")


class ConnectError(PixopsError):
    """`connect()` could not build a client; the message says what to configure."""


def connect(
    *,
    env_file: str | Path | None = DEFAULT_ENV_FILE,
    cache_dir: str | Path | None = None,
    inbox: Inbox | None = None,
    announce: bool = True,
) -> Client:
    """A `pixops.Client` on the real service when configured, else on the demo month.

    The service is configured when ``PIXOPS_BASE_URL`` is set in the environment or in
    `env_file`; its credentials then come from ``PIXOPS_CLIENT_ID`` and
    ``PIXOPS_CLIENT_SECRET``, from the same places. The default ``.env`` is looked for
    in the working directory and the folders above it, as `Client.from_env` does (a
    notebook in ``notebooks/`` finds the project's ``.env``); another path must exist;
    None reads the environment only. `inbox` is the webhook inbox the
    merchant's own receiver fills on the real service (ignored on the sandbox, which
    brings its own). The client's ``connection`` attribute says which one it is, and
    with `announce` one short line is printed saying the same.
    """
    if env_file is not None and not isinstance(env_file, str | Path):
        raise TypeError("env_file must be a path, or None to ignore .env files")
    if cache_dir is not None and not isinstance(cache_dir, str | Path):
        raise TypeError("cache_dir must be a path or None")
    if not isinstance(announce, bool):
        raise TypeError("announce must be True or False")
    configured = service_client(env_file, inbox)
    client, connection = _sandbox(cache_dir) if configured is None else configured
    remember_connection(client, connection)
    # The attribute is a convenience; the registry above is what pixops itself reads.
    with contextlib.suppress(AttributeError):  # a client with __slots__ keeps the registry only
        setattr(client, "connection", connection)  # noqa: B010  (not a declared attribute)
    if announce:
        _announce(connection.description)
    return client


#: The announcement as a notebook shows it: printed text's look, broken only between words.
_ANNOUNCEMENT_HTML = (
    "<pre style='white-space: pre-wrap; word-break: normal; overflow-wrap: anywhere;"
    " margin: 0; padding: 0 0 0 1ch; background: none;"
    " font-size: var(--jp-code-font-size, 13px); line-height: var(--jp-code-line-height, 1.3)'>"
    "{}</pre>"
)


def _announce(text: str) -> None:
    """Print ``text``; in a notebook kernel, show it as text that wraps between words.

    JupyterLab and Voilà break a printed line anywhere once it is wider than the output
    ("No real mo" over "ney moves" on a phone); the HTML keeps the printed look and breaks
    at spaces. Its text/plain is the printed line, which logs, reports and nbval read.
    """
    if not _in_kernel():
        print(text)
        return
    from IPython.display import display

    shown = {"text/plain": text, "text/html": _ANNOUNCEMENT_HTML.format(html.escape(text))}
    display(shown, raw=True)  # type: ignore[no-untyped-call]


def _in_kernel() -> bool:
    """Whether this runs in a Jupyter kernel (IPython is loaded there, never imported here)."""
    ipython = sys.modules.get("IPython")
    shell = None if ipython is None else ipython.get_ipython()
    return getattr(shell, "kernel", None) is not None


def service_settings(env_file: str | Path | None = DEFAULT_ENV_FILE) -> dict[str, str]:
    """The ``PIXOPS_*`` settings: the environment first, then `env_file` for what it lacks
    (`connect`'s rules; `pixops recon` reads them the same way)."""
    if env_file is None:
        return {name: value for name, value in os.environ.items() if name.startswith("PIXOPS_")}
    from pixops.client._config import read_env

    explicit = None if Path(env_file) == Path(DEFAULT_ENV_FILE) else env_file
    try:
        return read_env(dotenv_path=explicit, require=False)
    except PixopsError as error:  # a missing, folder or non-UTF-8 file, in words
        raise ConnectError(f"cannot read the service settings: {error}") from None


def service_client(
    env_file: str | Path | None = DEFAULT_ENV_FILE, inbox: Inbox | None = None
) -> tuple[Client, Connection] | None:
    """A client on the service the settings name, with its `Connection`; None when
    ``PIXOPS_BASE_URL`` is not set. `ConnectError` when the settings make no client."""
    settings = service_settings(env_file)
    base_url = settings.get(ENV_BASE_URL, "").strip()
    if not base_url:
        return None
    client = _client_from(base_url, settings)
    if _is_this_machine(base_url):
        description = (
            f"Using the PIX service at {base_url}, on this machine: "
            "if it is `pixops serve` (a sandbox), no real money moves."
        )
    else:
        description = f"Using the PIX service at {base_url}: real money, real customers."
    if inbox is None:
        description += " No webhook inbox given: timelines show the API's records only."
    return client, Connection("service", description, base_url=base_url, inbox=inbox)


def _client_from(base_url: str, settings: dict[str, str]) -> Client:
    from pixops.client import Client
    from pixops.client._config import ENV_CLIENT_ID, ENV_CLIENT_SECRET

    credentials = (ENV_CLIENT_ID, ENV_CLIENT_SECRET)
    missing = [name for name in credentials if not settings.get(name, "").strip()]
    try:
        if not missing:
            return Client(base_url, settings[ENV_CLIENT_ID], settings[ENV_CLIENT_SECRET])
        problem = f"missing {' and '.join(missing)}"
    except PixopsError as error:
        problem = str(error)
    raise ConnectError(
        f"{ENV_BASE_URL} is set to {base_url!r} but no client can be made from the settings:"
        f" {problem}. Fix them in the environment or the .env file, or unset {ENV_BASE_URL}"
        " to use the demo month."
    )


def _sandbox(cache_dir: str | Path | None) -> tuple[Client, Connection]:
    # Imported here, never at module level: the layers above the client must not load
    # the engine unless a notebook actually runs on the sandbox.
    from pixops.demo import demo_month
    from pixops.webhooks import Inbox

    month = demo_month(cache_dir=cache_dir)
    sandbox = month.sandbox
    client = sandbox.client(month.api_key)
    inbox = Inbox()
    # As if the merchant's receiver had been subscribed all month: the month's events,
    # already signed and delivered in a real deployment, are kept as received.
    inbox._defer_verified(sandbox.event_bodies(month.merchant.id))  # read when looked at
    url = sandbox.add_webhook_receiver(_receiver(inbox, sandbox.now), name=RECEIVER_NAME)
    subscription = client.webhooks.create(url=url, event_types=["*"])
    inbox.secret = _secret_of(subscription)
    now = sandbox.now().astimezone(BUSINESS_TZ)
    description = (
        f"Using the sandbox: demo month of {month.merchant.name!r}, "
        f"clock at {now:%d/%m/%Y %H:%M} (São Paulo). No real money moves."
    )
    connection = Connection(
        "sandbox",
        description,
        sandbox=sandbox,
        merchant_id=month.merchant.id,
        inbox=inbox,
        clock=sandbox.now,
    )
    return client, connection


def _receiver(
    inbox: Inbox, clock: Callable[[], datetime]
) -> Callable[[dict[str, str], bytes], int]:
    """An in-process webhook endpoint: verify against the sandbox's virtual clock, keep."""
    from pixops.webhooks import WebhookVerificationError

    def receive(headers: dict[str, str], body: bytes) -> int:
        try:
            inbox.add(headers, body, now=clock())
        except WebhookVerificationError:
            return 400
        return 200

    return receive


def _secret_of(subscription: object) -> str:
    """The signing secret of a created subscription (a model or a plain mapping)."""
    secret = getattr(subscription, "secret", None)
    if secret is None and isinstance(subscription, dict):
        secret = subscription.get("secret")
    reveal = getattr(secret, "get_secret_value", None)  # pydantic's SecretStr hides it
    if callable(reveal):
        secret = reveal()
    if not isinstance(secret, str):
        raise ConnectError("the webhook subscription came back without its signing secret")
    return secret


def _is_this_machine(base_url: str) -> bool:
    """A loopback address: most likely `pixops serve`, not the real service."""
    host = (urlsplit(base_url).hostname or "").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
