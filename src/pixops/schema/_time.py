"""`UtcDateTime`: a wire timestamp, always time-zone aware and in UTC.

The spec writes every timestamp as ISO 8601 in UTC with the suffix ``Z``. pydantic's
plain ``datetime`` would also take a time without an offset (a naive ``datetime`` that
later compares wrongly or raises against an aware one), a bare date (midnight, naive) or
a number of seconds; each of those is refused here instead of guessed. An explicit offset
other than ``Z`` is accepted and converted, so every value reads in UTC.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Annotated, Final

from pydantic import AfterValidator, BeforeValidator

__all__ = ["UtcDateTime"]

#: Date, ``T`` (or a space, as RFC 3339 allows), a time, then a required offset.
_WITH_OFFSET: Final = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,9})?)?"
    r"([Zz]|[+-][0-9]{2}:?[0-9]{2})"
)


def _with_offset(value: object) -> object:
    if isinstance(value, datetime):
        if value.utcoffset() is None:
            raise ValueError(f"a timestamp must carry its time zone, not {value!r}")
        return value
    if isinstance(value, str) and _WITH_OFFSET.fullmatch(value):
        return value
    shown = repr(value)[:60]
    raise ValueError(
        f"expected an ISO 8601 time with an offset (e.g. 2026-01-15T12:00:00Z), got {shown}"
    )


def _in_utc(value: datetime) -> datetime:
    return value.astimezone(UTC)


UtcDateTime = Annotated[datetime, BeforeValidator(_with_offset), AfterValidator(_in_utc)]
"""A timestamp of the wire: ISO 8601 with an offset, held as an aware UTC ``datetime``."""
