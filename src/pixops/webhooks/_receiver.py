"""A tiny ASGI app that verifies deliveries and stores them in an `Inbox`.

For local use, e.g. ``uvicorn.run(receiver_app(inbox, secret), port=8765)``. Answers
200 for a new or a duplicate event (so the sender stops retrying), 400 when the
delivery does not verify or its event cannot be kept, 405 for anything but POST, 413
for a body over 1 MiB; every answer is a JSON object (``error`` says what was wrong).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable, Sequence
from datetime import datetime
from typing import Any

from pixops._asgi import BodyTooLargeError, Receive, Scope, Send, lifespan, read_body
from pixops.webhooks._errors import WebhookSetupError, WebhookVerificationError
from pixops.webhooks._inbox import Inbox
from pixops.webhooks._signing import _fold, _unix_seconds, secret_keys, verify

__all__ = ["ReceiverApp", "receiver_app"]

ReceiverApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_MAX_BODY_BYTES = 1_048_576


def receiver_app(
    inbox: Inbox,
    secret: str | Iterable[str] | None = None,
    *,
    clock: Callable[[], datetime | int] | None = None,
) -> ReceiverApp:
    """An ASGI 3 app storing verified events in `inbox`; `secret` defaults to the inbox's.

    `clock` gives "now" for the timestamp check (default: the wall clock); pass the
    sandbox's `now` when receiving from a sandbox whose clock is virtual.
    """
    if not isinstance(inbox, Inbox):
        raise WebhookSetupError(
            f"inbox must be a pixops.webhooks.Inbox, not {type(inbox).__name__}"
        )
    key = inbox.secret if secret is None else secret
    if key is None:
        raise WebhookSetupError("receiver_app needs a secret (or an Inbox created with one)")
    secret_keys(key)
    if clock is not None:
        if not callable(clock):
            raise WebhookSetupError(f"clock must be a callable, not {type(clock).__name__}")
        _unix_seconds(clock())  # a clock giving the wrong type fails here, not per request

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        if scope["method"] != "POST":
            await _reply(send, 405, {"error": "only POST is accepted"}, [(b"allow", b"POST")])
            return
        try:
            body = await read_body(receive, _MAX_BODY_BYTES)
        except BodyTooLargeError:
            await _reply(send, 413, {"error": f"body over the limit of {_MAX_BODY_BYTES} bytes"})
            return
        if body is None:
            return
        headers = [
            (name.decode("latin-1"), value.decode("latin-1"))
            for name, value in scope.get("headers", [])
        ]
        try:
            folded = _fold(headers)
            event = verify(
                folded,
                body,
                key,
                tolerance_seconds=inbox.tolerance_seconds,
                now=None if clock is None else clock(),
            )
            new = inbox._add_parsed(folded["webhook-id"], event)
        except WebhookVerificationError as error:
            await _reply(send, 400, {"error": str(error)})
            return
        except WebhookSetupError as error:  # e.g. a clock that later gives a wrong type
            await _reply(send, 500, {"error": f"receiver set-up error: {error}"})
            return
        await _reply(send, 200, {"received": True, "duplicate": not new})

    return app


async def _reply(
    send: Send, status: int, payload: dict[str, Any], extra: Sequence[tuple[bytes, bytes]] = ()
) -> None:
    body = json.dumps(payload, separators=(",", ":")).encode("utf-8")
    headers = [(b"content-type", b"application/json"), *extra]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
