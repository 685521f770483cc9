"""The retry policy: what may be sent again, and how long to wait first.

Safe to resend: a GET, or a POST carrying an `Idempotency-Key` (the client gives every
POST one, reused on each attempt, so the service replays its first answer instead of
acting twice). Resent after a connection error or a 5xx. A 429 is resent for any
method: the rate limiter runs before anything is written. Waits: `Retry-After` when the
service sends it (the spec's 60 s), doubled on each further 429; otherwise exponential
from `initial_backoff`; always with jitter and never over `max_backoff` (the spec's
ceiling example: five minutes).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Final

__all__ = ["DEFAULT_RETRY", "NO_RETRY", "RetryPolicy"]

_SERVER_ERRORS: Final = frozenset({500, 502, 503, 504})


@dataclass(frozen=True)
class RetryPolicy:
    """How many attempts, and how long between them (seconds)."""

    max_attempts: int = 4
    initial_backoff: float = 0.5
    max_backoff: float = 300.0
    jitter: float = 0.2
    retry_statuses: frozenset[int] = field(default=_SERVER_ERRORS)
    rng: random.Random = field(default_factory=random.Random, repr=False, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.max_attempts, bool) or not isinstance(self.max_attempts, int):
            raise TypeError("max_attempts must be an int")
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if not 0 <= self.initial_backoff <= self.max_backoff:
            raise ValueError("need 0 <= initial_backoff <= max_backoff")
        if not 0 <= self.jitter < 1:
            raise ValueError("jitter must be in [0, 1)")

    @staticmethod
    def can_resend(method: str, idempotency_key: str | None) -> bool:
        """A request whose repetition cannot act twice."""
        return method == "GET" or (method == "POST" and idempotency_key is not None)

    def backoff(self, attempt: int, retry_after: float | None = None) -> float:
        """The wait before attempt `attempt + 1` (attempt counts from 1)."""
        exponent = max(attempt - 1, 0)
        if retry_after is not None:
            # The server's figure is a floor: wait at least that long, then double.
            wait = min(self.max_backoff, retry_after * 2.0**exponent)
            spread = wait * self.jitter * self.rng.random()
            return max(retry_after, min(self.max_backoff, wait + spread))
        wait = min(self.max_backoff, self.initial_backoff * 2.0**exponent)
        return wait * (1 - self.jitter * self.rng.random())

    def after_status(
        self,
        method: str,
        idempotency_key: str | None,
        status: int,
        attempt: int,
        retry_after: float | None,
    ) -> float | None:
        """Seconds to wait before resending after this status, or None to stop."""
        if attempt >= self.max_attempts:
            return None
        if status == 429:
            return self.backoff(attempt, retry_after)
        if status in self.retry_statuses and self.can_resend(method, idempotency_key):
            return self.backoff(attempt)
        return None

    def after_exception(
        self, method: str, idempotency_key: str | None, attempt: int
    ) -> float | None:
        """Seconds to wait before resending after a connection error, or None to stop."""
        if attempt >= self.max_attempts or not self.can_resend(method, idempotency_key):
            return None
        return self.backoff(attempt)


DEFAULT_RETRY: Final = RetryPolicy()
NO_RETRY: Final = RetryPolicy(max_attempts=1)
