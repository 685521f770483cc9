"""What the engine's ASGI app and the webhook receiver both need from ASGI 3: its types,
the lifespan handshake, and reading a request body with a size limit."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

__all__ = ["BodyTooLargeError", "Message", "Receive", "Scope", "Send", "lifespan", "read_body"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class BodyTooLargeError(Exception):
    """The body passed the limit: answer 413 without reading the rest."""


async def read_body(receive: Receive, limit: int) -> bytes | None:
    """The whole request body, or None when the client went away first. Stops reading
    (`BodyTooLargeError`) as soon as more than `limit` bytes have arrived, so an endless
    body never fills memory."""
    body = bytearray()
    more = True
    while more:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        body.extend(message.get("body", b""))
        more = bool(message.get("more_body", False))
        if len(body) > limit:
            raise BodyTooLargeError
    return bytes(body)


async def lifespan(receive: Receive, send: Send) -> None:
    """Acknowledge startup and shutdown: neither app has anything to open or close."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return
