"""pixops: operate and analyse a PIX account, with an embedded sandbox of the service.

    import pixops
    client = pixops.Client.from_env()          # or pixops.Client(base_url=..., client_id=..., ...)
    client.balance().available_balance.format()
    sb = pixops.Sandbox(); client = sb.client(api_key)   # the same client on the sandbox

Importing `pixops` is cheap: `Client`, `AsyncClient` and `Sandbox` are loaded on first
use, so `import pixops.money` never loads the engine, httpx or pydantic. The primitives
live in their own modules (`pixops.money`, `pixops.ids`, `pixops.wire`, `pixops.brcode`,
`pixops.pixkeys`, `pixops.documents`, `pixops.participants`); webhook receiving is
`pixops.webhooks`, the wire schema `pixops.schema`, the client `pixops.client`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from pixops._version import __version__
from pixops.errors import PixopsError

if TYPE_CHECKING:
    from pixops._connect import connect
    from pixops.client import ApiError, AsyncClient, Client
    from pixops.sandbox import Sandbox

__all__ = [
    "ApiError",
    "AsyncClient",
    "Client",
    "PixopsError",
    "Sandbox",
    "__version__",
    "connect",
]

_LAZY = {
    "Sandbox": "pixops.sandbox",
    "Client": "pixops.client",
    "AsyncClient": "pixops.client",
    "ApiError": "pixops.client",
    "connect": "pixops._connect",
}


def __getattr__(name: str) -> Any:
    """Load the heavy public names on first access (PEP 562)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'pixops' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
