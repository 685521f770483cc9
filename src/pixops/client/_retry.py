"""The retry policy: what may be sent again, and how long to wait first.

Safe to resend: a GET, or a POST carrying an `Idempotency-Key` (the client gives every
POST one, reused on each attempt, so the service replays its first answer instead of
acting twice). Resent after a connection error or a 502/503/504; a GET after a 500 too,
but not a POST: the service caches only 2xx answers, so a POST that acted and then
failed with a 500 would act again (a gateway's 502/504 leaves the service's own 2xx
cached, and a 503 says it did not act). A 429 is resent for any method: the rate
limiter runs before anything is written. Waits: `Retry-After` when the
service sends it (the spec's 60 s), doubled on each further 429; otherwise exponential
from `initial_backoff`; always with jitter and never over `max_backoff` (the spec's
ceiling example: five minutes).
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Final

__all__ = ["DEFAULT_RETRY", "NO_RETRY", "RetryPolicy", "retry_after_seconds"]

_SERVER_ERRORS: Final = frozenset({500, 502, 503, 504})
# Statuses after which a POST's outcome is unknown and nothing was cached to replay.
_OUTCOME_UNKNOWN: Final = frozenset({500})


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
            if method == "POST" and status in _OUTCOME_UNKNOWN:
                return None
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


def retry_after_seconds(
    headers: Mapping[str, str] | None, now: datetime | None = None
) -> float | None:
    """The wait a `Retry-After` header asks for, in seconds, or None without a usable one.

    Both forms of RFC 9110 are read: delay-seconds (the spec's ``60``) and an HTTP-date,
    counted from the answer's own ``Date`` header when it has one (the server's clock,
    not ours), else from ``now`` (the wall clock). A date already past is no wait.
    """
    if headers is None:
        return None
    value = headers.get("retry-after")
    if value is None:
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        return _seconds_until(text, headers.get("date"), now)
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


def _seconds_until(text: str, sent: str | None, now: datetime | None) -> float | None:
    moment = _http_date(text)
    if moment is None:
        return None
    start = _http_date(sent) if sent is not None else None
    if start is None:
        start = now if now is not None else datetime.now(UTC)
    return max(0.0, (moment - start).total_seconds())


def _http_date(text: str) -> datetime | None:
    try:
        moment = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
