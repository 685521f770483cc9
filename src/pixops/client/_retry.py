"""The retry policy: what may be sent again, and how long to wait first.

Safe to resend: a GET, or a POST carrying an `Idempotency-Key` (the client gives every
POST one, reused on each attempt, so the service replays its first answer instead of
acting twice). Resent after a connection error or a 502/503/504; a GET after a 500 too,
but not a POST: the service caches only 2xx answers, so a POST that acted and then
failed with a 500 would act again (a gateway's 502/504 leaves the service's own 2xx
cached, and a 503 says it did not act). A 429 is resent for any method: the rate
limiter runs before anything is written. A POST answered 409 (its key still in flight,
as the IETF idempotency-key draft and Stripe answer) is resent with the same key. Waits:
`Retry-After` when the service sends it (the spec's 60 s on a 429, or on a 503),
doubled on each further one; otherwise exponential from `initial_backoff`; always with
jitter and never over `max_backoff` (the spec's ceiling example: five minutes). A
`Retry-After` longer than `max_backoff` is not waited out: the error is raised at once
with its `retry_after`, so a notebook never freezes for a day.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Final

from pixops.client._errors import ConfigurationError
from pixops.client._retry_after import retry_after_seconds

__all__ = ["DEFAULT_RETRY", "NO_RETRY", "RetryPolicy", "check_policy", "retry_after_seconds"]

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
        # A policy is checked when made, in words: a string or NaN here would otherwise
        # fail (or never wait) only at the first retry, far from where it was written.
        if isinstance(self.max_attempts, bool) or not isinstance(self.max_attempts, int):
            raise ConfigurationError(f"max_attempts must be an int, not {self.max_attempts!r}")
        if self.max_attempts < 1:
            raise ConfigurationError("max_attempts must be at least 1 (1 means no retry)")
        for name in ("initial_backoff", "max_backoff", "jitter"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ConfigurationError(f"{name} must be a number of seconds, not {value!r}")
            if not math.isfinite(value):
                raise ConfigurationError(f"{name} must be finite, not {value!r}")
        if not 0 <= self.initial_backoff <= self.max_backoff:
            raise ConfigurationError("need 0 <= initial_backoff <= max_backoff (seconds)")
        if not 0 <= self.jitter < 1:
            raise ConfigurationError("jitter must be a fraction in [0, 1), e.g. 0.2")
        statuses = self.retry_statuses
        if not isinstance(statuses, frozenset | set) or not all(
            isinstance(code, int) and not isinstance(code, bool) for code in statuses
        ):
            raise ConfigurationError("retry_statuses must be a set of HTTP status codes (ints)")
        object.__setattr__(self, "retry_statuses", frozenset(statuses))

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
        if retry_after is not None and retry_after > self.max_backoff:
            return None  # raised at once, its `retry_after` said, rather than a frozen wait
        if status == 429:
            return self.backoff(attempt, retry_after)
        if status == 409 and method == "POST" and idempotency_key is not None:
            return self.backoff(attempt)  # the same key still in flight: it answers soon
        if status in self.retry_statuses and self.can_resend(method, idempotency_key):
            if method == "POST" and status in _OUTCOME_UNKNOWN:
                return None
            return self.backoff(attempt, retry_after)
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


def check_policy(retry: object) -> RetryPolicy:
    """A client's `retry=`: a `RetryPolicy` (`NO_RETRY` to send each request once)."""
    if not isinstance(retry, RetryPolicy):
        raise ConfigurationError(
            f"retry must be a pixops.client.RetryPolicy (or NO_RETRY), not {retry!r}"
        )
    return retry
