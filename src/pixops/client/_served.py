"""The service's clock as a client sees it: the ``Date`` of its latest answer.

A panel deciding whether a refund is still in time or a MED deadline has passed must
use the service's time, not the machine's: a sandbox runs on a virtual clock (January
2026 while the machine says November), and a laptop's clock can be minutes off. Every
answer carries a ``Date`` header (RFC 9110 §6.6.1) on the service's clock; the client
keeps the latest one with the monotonic time it arrived, and reads the service's time
as that date plus the seconds since.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from functools import lru_cache

import httpx

__all__ = ["ServedClock"]


class ServedClock:
    """The latest ``Date`` a service answered with, and when it arrived (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._served: tuple[datetime, float] | None = None

    def note(self, headers: httpx.Headers) -> None:
        """Keep the ``Date`` of an answer; an answer without one, or with an unreadable
        one, changes nothing."""
        text = headers.get("date")
        if not text:
            return
        served = _served_at(text)
        if served is None:
            return
        with self._lock:
            self._served = (served, time.monotonic())

    @property
    def known(self) -> bool:
        """True once an answer carried a readable ``Date``."""
        return self._served is not None

    def now(self) -> datetime | None:
        """The service's time now (aware, UTC); None before any dated answer."""
        with self._lock:
            served = self._served
        if served is None:
            return None
        moment, arrived = served
        return moment + timedelta(seconds=time.monotonic() - arrived)


@lru_cache(maxsize=4)
def _served_at(text: str) -> datetime | None:
    """A ``Date`` header's time (aware, UTC), or None when unreadable. Answers within one
    second carry the same text: parsed once, not on every call (it was a tenth of the
    client's cost over raw httpx on `GET /balance`)."""
    try:
        served = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if served.tzinfo is None:  # RFC 9110's "-0000": a time in UTC
        served = served.replace(tzinfo=UTC)
    return served.astimezone(UTC)
