"""The wait a `Retry-After` header asks for (RFC 9110: delay-seconds or an HTTP-date).

Apart from `_retry` so that `_errors` (which reads it into `ApiError.retry_after`) and the
retry policy (which raises `_errors.ConfigurationError`) do not import each other.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

__all__ = ["retry_after_seconds"]


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
