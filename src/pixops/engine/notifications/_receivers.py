"""In-process webhook receivers: Python callables a sandbox delivers to, no socket."""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from pixops.engine.core import Engine

INPROC_SCHEME: Final = "inproc"
_RECEIVER_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,62}")

Receiver = Callable[[dict[str, str], bytes], int]
"""An in-process receiver: (headers, body) -> HTTP status code."""

_RECEIVERS: weakref.WeakKeyDictionary[Engine, dict[str, Receiver]] = weakref.WeakKeyDictionary()


def add_receiver(engine: Engine, receiver: Receiver, name: str | None = None) -> str:
    """Register a Python callable as a webhook endpoint; returns its `inproc://` URL."""
    if not callable(receiver):
        raise TypeError("receiver must be a callable (headers, body) -> status code")
    registry = _RECEIVERS.setdefault(engine, {})
    chosen = f"receiver-{len(registry) + 1}" if name is None else name
    if not isinstance(chosen, str) or _RECEIVER_NAME.fullmatch(chosen) is None:
        raise ValueError(
            "receiver name: 1-63 characters [a-z0-9._-], starting with a letter or digit"
        )
    if chosen in registry:
        raise ValueError(f"an in-process receiver named {chosen!r} already exists")
    registry[chosen] = receiver
    return f"{INPROC_SCHEME}://{chosen}"


def find_receiver(engine: Engine, name: str) -> Receiver | None:
    return _RECEIVERS.get(engine, {}).get(name)
