"""pixops: operate and analyse a PIX account, with an embedded sandbox of the service.

    import pixops
    client = pixops.connect()   # the service in PIXOPS_BASE_URL, else the demo month; says which
    client.balance().available_balance.format()            # 'R$ 11.891.791,42' on the demo

    sb = pixops.Sandbox()                                  # an empty sandbox of your own
    merchant = sb.create_merchant("Loja Exemplo", balance_centavos=1_000_000)
    client = sb.client(sb.issue_api_key(merchant.id))      # the same Client, in process
    client.balance().available_balance.format()            # 'R$ 10.000,00'

On a real service without `connect()`: `pixops.Client.from_env()` (`PIXOPS_BASE_URL`,
`PIXOPS_CLIENT_ID`, `PIXOPS_CLIENT_SECRET`, or a `.env` file) or `pixops.Client(...)`.

What is where:

* `pixops.connect`, `pixops.Client` / `pixops.AsyncClient` (`pixops.client`): the API,
  typed; `pixops.Sandbox` (`pixops.sandbox`): the engine in process, with what payers,
  the central bank and the portal do; `pixops.demo.demo_month()`: the seeded month.
* `pixops.frames`: the statement and transactions as pandas / Arrow / DuckDB frames.
* `pixops.recon`: the reconciliation against a merchant ledger and balance snapshots.
* `pixops.widgets`: the ipywidgets panels (refunds, MED, inspector, reconciliation).
* `pixops.webhooks`: verify and collect webhook deliveries.
* `pixops.report`, `pixops.desk`: the headless HTML report, JupyterLab and Voilà, as
  used by the `pixops` command (`pixops --help`).
* Primitives, each in its own module: `pixops.money`, `pixops.ids`, `pixops.wire`,
  `pixops.brcode`, `pixops.pixkeys`, `pixops.documents`, `pixops.participants`; the wire
  schema is `pixops.schema`.

Importing `pixops` is cheap: `connect`, `Client`, `AsyncClient` and `Sandbox` are loaded
on first use, so `import pixops.money` never loads the engine, httpx or pydantic.
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
