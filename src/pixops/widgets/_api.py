"""Reading what is not an answer of the client: a DataFrame's row or cell, a mapping, a
webhook event's text. Money is integer base units (floats refused), a missing cell
(None, NaN, ``pd.NA``, ``pd.NaT``) is None, a timestamp an aware datetime. The client's
own answers are read as its models, in `_reads`."""

from __future__ import annotations

from datetime import UTC, datetime
from numbers import Integral, Real
from typing import Any, Final

from pixops import money
from pixops.widgets._reads import is_refund_id

__all__ = [
    "MAX_MATCHES",
    "Record",
    "base_units",
    "is_missing",
    "is_refund_id",
    "parse_time",
    "plain",
    "time_key",
]

Record = dict[str, Any]

#: A search by payer or amount shows at most this many matches, newest first.
MAX_MATCHES: Final = 50


def plain(value: Any) -> Record:
    """A client answer as a snake_case dict (a pydantic model, a mapping, or an object);
    a DataFrame's row too (from `iterrows` or `itertuples`), its missing cells None."""
    if isinstance(value, dict):
        return dict(value)
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        dumped = dump(mode="json")
        if isinstance(dumped, dict):
            return dumped
    for name in ("to_dict", "_asdict"):  # a pandas Series; a namedtuple
        row = getattr(value, name, None)
        cells = row() if callable(row) else None
        if isinstance(cells, dict):
            return {str(k): None if is_missing(v) else v for k, v in cells.items()}
    raise TypeError(f"cannot read a {type(value).__name__} as a record")


def is_missing(value: Any) -> bool:
    """None, or a missing value in a DataFrame's cell (NaN, ``pd.NA``, ``pd.NaT``)."""
    if value is None:
        return True
    if isinstance(value, Real) and not isinstance(value, Integral):
        return bool(value != value)  # NaN is the one number unequal to itself
    return type(value).__name__ in ("NAType", "NaTType")


def base_units(value: Any) -> int | None:
    """Money from a record or a DataFrame as integer base units (a NumPy integer too);
    a missing value is None; floats are refused."""
    if is_missing(value):
        return None
    if isinstance(value, bool):
        raise TypeError("a boolean is not an amount")
    if isinstance(value, Integral):
        return money.check_int64(int(value))
    inner = getattr(value, "base", None)
    if isinstance(inner, int) and not isinstance(inner, bool):
        return money.check_int64(inner)
    raise TypeError(f"amounts must be integers in base units, got {value!r}")


def parse_time(value: Any) -> datetime | None:
    """An ISO 8601 UTC timestamp from a record, as an aware datetime."""
    if is_missing(value) or value == "":
        return None
    if isinstance(value, datetime):
        return value
    if not isinstance(value, str):
        raise TypeError(f"timestamps must be ISO 8601 strings, got {value!r}")
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def time_key(value: Any) -> datetime:
    """A sort key for timestamps of any format the API and the inbox use (absent: first)."""
    return parse_time(value) or datetime.min.replace(tzinfo=UTC)
