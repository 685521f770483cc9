"""`pixops._asgi`: the body reader and lifespan shared by the engine's app and the
webhook receiver."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from pixops._asgi import BodyTooLargeError, Message, lifespan, read_body


def _receiver(messages: list[Message]) -> tuple[Any, list[Message]]:
    pending: Iterator[Message] = iter(messages)
    taken: list[Message] = []

    async def receive() -> Message:
        message = next(pending)
        taken.append(message)
        return message

    return receive, taken


def _chunk(body: bytes, *, more: bool) -> Message:
    return {"type": "http.request", "body": body, "more_body": more}


def test_a_body_in_chunks_is_read_whole() -> None:
    receive, _ = _receiver(
        [_chunk(b"ab", more=True), _chunk(b"", more=True), _chunk(b"c", more=False)]
    )
    assert asyncio.run(read_body(receive, 3)) == b"abc"


def test_a_client_gone_before_the_end_gives_none() -> None:
    receive, _ = _receiver([_chunk(b"ab", more=True), {"type": "http.disconnect"}])
    assert asyncio.run(read_body(receive, 10)) is None


def test_reading_stops_at_the_first_chunk_past_the_limit() -> None:
    chunks = [_chunk(b"x" * 4, more=True) for _ in range(5)]
    receive, taken = _receiver(chunks)
    with pytest.raises(BodyTooLargeError):
        asyncio.run(read_body(receive, 10))
    assert len(taken) == 3  # 12 bytes > 10: the last two chunks are never read


def test_lifespan_acknowledges_startup_and_shutdown() -> None:
    receive, _ = _receiver([{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}])
    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    asyncio.run(lifespan(receive, send))
    assert [m["type"] for m in sent] == ["lifespan.startup.complete", "lifespan.shutdown.complete"]
