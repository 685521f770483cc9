"""Fixed 60-second windows keyed by (IP, window), on the engine clock."""

from __future__ import annotations

import threading
from datetime import datetime

WINDOW_SECONDS = 60


class RateLimiter:
    def __init__(self, per_minute: int) -> None:
        if per_minute < 1:
            raise ValueError("rate_limit_per_minute must be at least 1")
        self.per_minute = per_minute
        self._counts: dict[tuple[str, int], int] = {}
        self._lock = threading.Lock()

    def hit(self, address: str, now: datetime) -> int | None:
        """Count one request; the requests left in the window, or None when over."""
        window = int(now.timestamp()) // WINDOW_SECONDS
        key = (address, window)
        with self._lock:
            count = self._counts.get(key, 0) + 1
            if count == 1 and len(self._counts) > 10_000:
                self._counts = {k: v for k, v in self._counts.items() if k[1] >= window}
            self._counts[key] = count
        if count > self.per_minute:
            return None
        return self.per_minute - count
