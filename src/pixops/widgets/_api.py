"""What the panels ask the API, through the public client only, as plain dictionaries.

The client returns typed models; the panels only read fields, so every answer is turned
into a snake_case ``dict`` here, with money kept as integer base units. The few
look-ups the API has no endpoint for (refunds of a transaction, received payments by
payer or amount) are scans of the statement, bounded by dates.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import UTC, date, datetime, timedelta
from numbers import Integral, Real
from typing import Any, Final

from pixops import money
from pixops.errors import PixopsError
from pixops.widgets import _reads
from pixops.widgets._reads import is_refund_id

__all__ = [
    "MAX_MATCHES",
    "Record",
    "base_units",
    "is_missing",
    "is_refund_id",
    "lookup",
    "med_cases",
    "open_cases",
    "parse_time",
    "plain",
    "refunds_of",
    "rows_between",
    "statement_rows",
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


def items_of(value: Any) -> list[Record]:
    """The records of a list answer: a list, or an object with ``data`` or ``items``."""
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    for name in ("data", "items"):
        inner = getattr(value, name, None)
        if isinstance(inner, list | tuple):
            return [plain(item) for item in inner]
    if isinstance(value, dict) and isinstance(value.get("data"), list):
        return [plain(item) for item in value["data"]]
    if isinstance(value, Iterable) and not isinstance(value, str | bytes):
        return [plain(item) for item in value]
    raise TypeError(f"cannot read a {type(value).__name__} as a list of records")


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


def status_of(error: PixopsError) -> int | None:
    return _reads.status_of(error)


def lookup(client: Any, identifier: str, now: datetime | None = None) -> list[Record]:
    """`_reads.find_transactions` as dictionaries (the panels not yet typed read these)."""
    return [plain(record) for record in _reads.find_transactions(client, identifier, now)]


def statement_rows(
    client: Any, date_from: date | None = None, date_to: date | None = None, **filters: Any
) -> Iterator[Record]:
    """Statement items of a range of UTC days (all pages, each id once), newest first."""
    if date_from is not None:
        filters["date_from"] = date_from
    if date_to is not None:
        filters["date_to"] = date_to
    for item in client.statement.iter(**filters):
        yield plain(item)


def rows_between(client: Any, first: date, last: date, now: datetime) -> list[Record]:
    """Statement rows created from `first` to `last` (UTC days, inclusive), newest first."""
    return [plain(row) for row in _reads.statement_items(client, first, last, now)]


def refunds_of(client: Any, original: Record, now: datetime) -> list[Record]:
    """The refunds (voluntary and MED) of a received transaction, oldest first."""
    original_id = original.get("transaction_id")
    created = parse_time(original.get("created_at"))
    if not isinstance(original_id, str) or created is None:
        return []
    payer = str(original.get("counterparty_name") or "")
    refunds = _reads.refunds_between(client, original_id, created, payer, now)
    return [plain(record) for record in refunds]


def refunded_base(refunds: Iterable[Record]) -> int:
    """What the refunds take from the original: every refund that has not failed."""
    return sum(
        base_units(r.get("amount")) or 0
        for r in refunds
        if r.get("status") not in ("failed", "rejected")
    )


def med_cases(client: Any, **filters: Any) -> list[Record]:
    """Every MED case matching the filters, across all pages."""
    return [plain(case) for case in client.med.iter(**filters)]


def open_cases(client: Any, transaction_id: str) -> list[Record]:
    """The MED cases not yet decided on a payment (none on a client without MED access)."""
    if not hasattr(client, "med"):
        return []
    cases = med_cases(client, transaction_id=transaction_id)
    return [c for c in cases if c.get("status") in ("OPEN", "ACKNOWLEDGED")]


def days_after(moment: datetime, days: int) -> datetime:
    return moment + timedelta(days=days)
