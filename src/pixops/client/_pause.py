"""Waiting between attempts and polls: the client's `sleep` hook when one was given (a
test's fake clock, a sandbox's), else the standard sleep of each kind of client."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

__all__ = ["apause", "pause"]


def pause(sleep: Callable[[float], Any] | None, seconds: float) -> None:
    """Wait `seconds` with `sleep`, else `time.sleep`."""
    if sleep is None:
        time.sleep(seconds)
    else:
        sleep(seconds)


async def apause(sleep: Callable[[float], Any] | None, seconds: float) -> None:
    """Wait `seconds` without blocking the event loop: with `sleep` (awaited when it
    returns a coroutine), else `asyncio.sleep`."""
    if sleep is None:
        await asyncio.sleep(seconds)
        return
    result = sleep(seconds)
    if asyncio.iscoroutine(result):
        await result
