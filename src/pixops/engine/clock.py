"""Engine time: a manual clock for the sandbox, the wall clock for server mode.

Timestamps are stored as fixed-width ISO strings (microseconds, `Z`) so that text
order is time order in SQL, and rendered on the wire with milliseconds.
"""

from __future__ import annotations

import sqlite3
import threading
from datetime import UTC, datetime
from email.utils import format_datetime
from functools import lru_cache
from typing import Protocol

DEFAULT_START = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)


class Clock(Protocol):
    def now(self) -> datetime: ...


class ManualClock:
    """Time that moves only when told to: deterministic runs for tests and notebooks."""

    def __init__(self, start: datetime = DEFAULT_START) -> None:
        if start.tzinfo is None:
            raise ValueError("the clock's start must be timezone-aware (use tzinfo=UTC)")
        self._now = start.astimezone(UTC)
        self._lock = threading.Lock()

    def now(self) -> datetime:
        # One attribute read is atomic; the lock serialises `set`'s check and write.
        return self._now

    def set(self, moment: datetime) -> None:
        with self._lock:
            if moment < self._now:
                raise ValueError("the clock never moves backwards")
            self._now = moment


#: Each table whose rows carry the moment they were made, and that moment's column.
_STAMPED = (
    ("merchants", "created_at"),
    ("api_keys", "created_at"),
    ("charges", "created_at"),
    ("transactions", "created_at"),
    ("events", "created_at"),
    ("med_cases", "opened_at"),
    ("webhooks", "created_at"),
    ("dict_keys", "created_at"),
)
_NEWEST = " UNION ALL ".join(
    f"SELECT * FROM (SELECT {column} FROM {table} ORDER BY rowid DESC LIMIT 1)"  # noqa: S608
    for table, column in _STAMPED
)


def last_recorded(conn: sqlite3.Connection) -> datetime | None:
    """The newest moment a database's records carry (None when it has none): where a
    manual clock reopened on it resumes, so nothing written later predates them.
    Each table's last row is its newest: rows are only appended in time order."""
    found = [row[0] for row in conn.execute(_NEWEST)]
    return from_db(max(found)) if found else None


class WallClock:
    """Real UTC time, for server mode."""

    def now(self) -> datetime:
        return datetime.now(UTC)


@lru_cache(maxsize=4096)
def to_db(moment: datetime) -> str:
    """Fixed-width sortable text form used in storage (cached: one instant, many rows)."""
    utc = moment.astimezone(UTC)
    return (
        f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}T{utc.hour:02d}:{utc.minute:02d}:"
        f"{utc.second:02d}.{utc.microsecond:06d}Z"
    )


def from_db(text: str) -> datetime:
    return datetime.fromisoformat(text)


def to_wire(moment: datetime) -> str:
    """ISO 8601 UTC with milliseconds and `Z`, as every response shows time."""
    return to_db(moment)[:23] + "Z"


def db_to_wire(text: str | None) -> str | None:
    return None if text is None else text[:23] + "Z"


def http_date(moment: datetime) -> str:
    """The ``Date`` header's form of a moment (RFC 9110 IMF-fixdate, whole seconds)."""
    return _http_date(int(moment.timestamp()))


@lru_cache(maxsize=64)
def _http_date(seconds: int) -> str:
    """Cached per second: every answer of the same second carries the same text."""
    return format_datetime(datetime.fromtimestamp(seconds, UTC), usegmt=True)
