"""What a client made by `pixops.connect()` is connected to (`Connection`), kept beside
the client so the layers above it read the service's clock and webhook inbox from the
client they are given.

The panels (`pixops.widgets`) call `connection_of(client)`; `pixops.connect()` (which
builds the sandbox) registers each client it makes. Standard library only, so a panel
reading a connection never loads `pixops._connect`, the demo month or the engine.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from pixops.sandbox import Sandbox
    from pixops.webhooks import Inbox

__all__ = ["Connection", "Mode", "connection_of", "remember_connection"]

Mode = Literal["service", "sandbox"]


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


def remember_connection(client: object, connection: Connection) -> None:
    """Keep `connection` as the one of `client` (as long as the client lives)."""
    _CONNECTIONS[client] = connection


def connection_of(client: object) -> Connection | None:
    """The `Connection` of a client made by `connect()`, else None (any other client)."""
    try:
        return _CONNECTIONS.get(client)
    except TypeError:  # an object that cannot be weakly referenced was never registered
        return None
