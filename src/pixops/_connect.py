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
import ipaddress
import os
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Final, Literal
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from pixops.errors import PixopsError

if TYPE_CHECKING:
    from pixops.client import Client
    from pixops.sandbox import Sandbox
    from pixops.webhooks import Inbox

__all__ = [
    "ENV_BASE_URL",
    "RECEIVER_NAME",
    "ConnectError",
    "Connection",
    "connect",
    "connection_of",
]

ENV_BASE_URL = "PIXOPS_BASE_URL"
#: The in-process receiver's name on the sandbox; its URL is ``inproc://pixops-notebook``.
RECEIVER_NAME = "pixops-notebook"
#: Where the merchant's day is counted; the sandbox's clock is announced in its time.
BUSINESS_TZ: Final = ZoneInfo("America/Sao_Paulo")

Mode = Literal["service", "sandbox"]


class ConnectError(PixopsError):
    """`connect()` could not build a client; the message says what to configure."""


@dataclass(frozen=True)
class Connection:
    """Where a client from `connect()` is connected, and what comes with it.

    `sandbox` and `merchant_id` are set only on the demo month (for simulating what
    payers and the central bank do); `inbox` holds the webhook events received, when
    there is a receiver to collect them.
    """

    mode: Mode
    description: str
    base_url: str | None = None
    sandbox: Sandbox | None = None
    merchant_id: str | None = None
    inbox: Inbox | None = None
    clock: Callable[[], datetime] | None = None

    def now(self) -> datetime:
        """The service's current time: the sandbox's virtual clock, else the wall clock (UTC)."""
        return datetime.now(UTC) if self.clock is None else self.clock()

    def __str__(self) -> str:
        return self.description


_CONNECTIONS: weakref.WeakKeyDictionary[object, Connection] = weakref.WeakKeyDictionary()


def connection_of(client: object) -> Connection | None:
    """The `Connection` of a client made by `connect()`, else None (any other client)."""
    try:
        return _CONNECTIONS.get(client)
    except TypeError:  # an object that cannot be weakly referenced was never registered
        return None


def connect(
    *,
    env_file: str | Path | None = ".env",
    cache_dir: str | Path | None = None,
    inbox: Inbox | None = None,
    announce: bool = True,
) -> Client:
    """A `pixops.Client` on the real service when configured, else on the demo month.

    The service is configured when ``PIXOPS_BASE_URL`` is set in the environment or in
    `env_file`; its credentials then come from ``PIXOPS_CLIENT_ID`` and
    ``PIXOPS_CLIENT_SECRET`` (`Client.from_env`). `inbox` is the webhook inbox the
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
    base_url = _configured_base_url(env_file)
    if base_url:
        client, connection = _service(base_url, inbox)
    else:
        client, connection = _sandbox(cache_dir)
    _CONNECTIONS[client] = connection
    # The attribute is a convenience; the registry above is what pixops itself reads.
    with contextlib.suppress(AttributeError):  # a client with __slots__ keeps the registry only
        setattr(client, "connection", connection)  # noqa: B010  (not a declared attribute)
    if announce:
        print(connection.description)
    return client


def _configured_base_url(env_file: str | Path | None) -> str | None:
    configured = os.environ.get(ENV_BASE_URL)
    if configured:
        return configured.strip() or None
    if env_file is None or not Path(env_file).is_file():
        return None
    from dotenv import dotenv_values

    value = dotenv_values(env_file).get(ENV_BASE_URL)
    return value.strip() if value and value.strip() else None


def _service(base_url: str, inbox: Inbox | None) -> tuple[Client, Connection]:
    from pixops.client import Client

    try:
        client = Client.from_env()
    except PixopsError as error:
        raise ConnectError(
            f"{ENV_BASE_URL} is set to {base_url!r} but the client could not be configured: "
            f"{error}. Set PIXOPS_CLIENT_ID and PIXOPS_CLIENT_SECRET (or unset "
            f"{ENV_BASE_URL} to use the demo month)."
        ) from error
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
    for event in sandbox.events(month.merchant.id):
        inbox.add_verified(event.id, event.envelope())
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
