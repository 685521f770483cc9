"""What the panels ask the API, through the public client only, as plain dictionaries.

The client returns typed models; the panels only read fields, so every answer is turned
into a snake_case ``dict`` here, with money kept as integer base units. The few
look-ups the API has no endpoint for (refunds of a transaction, received payments by
payer or amount) are scans of the statement, bounded by dates.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterable, Iterator
from datetime import UTC, date, datetime, timedelta
from numbers import Integral, Real
from typing import Any, Final

from pixops import money
from pixops.errors import PixopsError

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
#: The spec's refund identifiers start with this literal prefix.
_REFUND_PREFIX: Final = "PIXRET"
_END_TO_END: Final = re.compile(r"[ED][0-9A-Z]{8}[0-9A-Za-z]{22,26}")
#: A transaction or end-to-end id in any letter case: its minute (yyyyMMddHHmm, UTC)
#: says which day's statement holds it.
_ANY_CASE_ID: Final = re.compile(
    r"(?:pix[a-z]{2,4})?[ed][0-9a-z]{8}(?P<minute>\d{12})[0-9a-z]{8,14}", re.IGNORECASE
)
#: Quotes a pasted identifier often comes wrapped in.
_QUOTES: Final = "'\"`\u2018\u2019\u201c\u201d"


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
    status = getattr(error, "status", None)
    return status if isinstance(status, int) else None


def _missing(error: PixopsError) -> bool:
    """True for "no such record": a 404, or an id of the wrong shape for that lookup
    (the service's 400, or the client refusing it before sending)."""
    return status_of(error) in (400, 404) or isinstance(error, ValueError)


def is_refund_id(transaction_id: str) -> bool:
    return transaction_id.startswith(_REFUND_PREFIX)


def lookup(client: Any, identifier: str, now: datetime | None = None) -> list[Record]:
    """Every transaction an identifier names: transaction_id, QR tx_id, e2e, external_id,
    tag or MED case id, in that order of preference, without duplicates.

    Spaces and quotes around it are ignored, and a transaction or end-to-end id typed
    in the wrong letter case (copied from a lower-cased report) is still found, in the
    statement of the day its minute names.
    """
    if not isinstance(identifier, str):
        raise TypeError("the identifier must be text")
    ident = identifier.strip().strip(_QUOTES).strip()
    if not ident:
        raise ValueError("type an identifier first")
    found = _lookup_exact(client, ident)
    if found:
        return found
    return _lookup_any_case(client, ident, now or datetime.now(UTC))


def _lookup_exact(client: Any, ident: str) -> list[Record]:
    if len(ident) > 128 or any(ch.isspace() for ch in ident):
        return []
    found: dict[str, Record] = {}

    def keep(records: Iterable[Record]) -> None:
        for record in records:
            key = str(record.get("transaction_id") or record.get("id"))
            found.setdefault(key, record)

    if ident[:4].lower() == "med_":
        # The service's case ids are lower case; one typed in capitals is tried so too.
        for candidate in dict.fromkeys((ident, ident.lower())):
            try:
                case = plain(client.med.get(candidate))
            except PixopsError as error:
                if not _missing(error):
                    raise
            else:
                keep(_lookup_exact(client, str(case["transaction_id"])))
                break
    if _END_TO_END.fullmatch(ident):
        keep(_one(lambda: client.transactions.by_e2e(ident)))
    keep(_one(lambda: client.transactions.get(ident)))
    keep(_many(lambda: client.transactions.by_external_id(ident)))
    keep(_many(lambda: client.transactions.by_tag(ident)))
    return list(found.values())


def _lookup_any_case(client: Any, ident: str, now: datetime) -> list[Record]:
    """The transaction whose id or end-to-end id equals `ident` but for letter case."""
    shape = _ANY_CASE_ID.fullmatch(ident)
    if shape is None:
        return []
    try:
        minute = datetime.strptime(shape["minute"], "%Y%m%d%H%M").replace(tzinfo=UTC)
    except ValueError:
        return []
    day = minute.date()
    if day > now.date() + timedelta(days=1):
        return []
    wanted = ident.casefold()
    hits = {
        str(row.get("transaction_id"))
        for row in rows_between(client, day - timedelta(days=1), day + timedelta(days=1), now)
        if wanted in (str(row.get("transaction_id")).casefold(), _e2e_of(row).casefold())
    }
    if len(hits) != 1:
        return []
    return _lookup_exact(client, hits.pop())


def _e2e_of(row: Record) -> str:
    return str(row.get("end_to_end_id") or "")


def _one(call: Any) -> list[Record]:
    try:
        return [plain(call())]
    except PixopsError as error:
        if _missing(error):
            return []
        raise


def _many(call: Any) -> list[Record]:
    try:
        return items_of(call())
    except PixopsError as error:
        if _missing(error):
            return []
        raise


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


class _DayCache:
    """Statement rows of finished UTC days, kept per client: a scan is paid for once.

    Only days that ended more than a day ago (by the service's clock) are kept; their
    rows no longer appear or disappear, and the panels re-read anything whose status
    matters (refunds) by id.
    """

    def __init__(self) -> None:
        self.days: dict[date, list[Record]] = {}


_CACHES: weakref.WeakKeyDictionary[Any, _DayCache] = weakref.WeakKeyDictionary()


def rows_between(client: Any, first: date, last: date, now: datetime) -> list[Record]:
    """Statement rows created from `first` to `last` (UTC days, inclusive), newest first."""
    try:
        cache = _CACHES.setdefault(client, _DayCache())
    except TypeError:  # a client that cannot be weakly referenced is simply not cached
        cache = _DayCache()
    settled_before = (now - timedelta(days=1)).date()
    wanted = [first + timedelta(days=n) for n in range((last - first).days + 1)]
    rows: list[Record] = []
    run: list[date] = []
    for day in [*wanted, None]:
        if day is not None and (day not in cache.days or day >= settled_before):
            run.append(day)
            continue
        if run:
            rows.extend(_fetch_days(client, cache, run, settled_before))
            run = []
        if day is not None:
            rows.extend(cache.days[day])
    rows.sort(key=lambda r: time_key(r.get("created_at")), reverse=True)
    return rows


def _fetch_days(
    client: Any, cache: _DayCache, days: list[date], settled_before: date
) -> list[Record]:
    fetched = list(statement_rows(client, days[0], days[-1]))
    by_day: dict[date, list[Record]] = {day: [] for day in days}
    for row in fetched:
        created = parse_time(row.get("created_at"))
        if created is not None and created.date() in by_day:
            by_day[created.date()].append(row)
    for day, day_rows in by_day.items():
        if day < settled_before:
            cache.days[day] = day_rows
    return fetched


def refunds_of(client: Any, original: Record, now: datetime) -> list[Record]:
    """The refunds (voluntary and MED) of a received transaction, oldest first.

    The statement does not link a refund to its original, so refunds made from the
    original's day on are read one by one (`GET /transactions/:id` carries
    ``original_transaction_id``); only outbound rows to the original's payer are read.
    """
    original_id = original.get("transaction_id")
    created = parse_time(original.get("created_at"))
    if not isinstance(original_id, str) or created is None:
        return []
    payer = original.get("counterparty_name") or ""
    found: list[Record] = []
    for row in rows_between(client, created.date(), max(now.date(), created.date()), now):
        row_id = str(row.get("transaction_id", ""))
        if row.get("direction") != "outbound" or not is_refund_id(row_id):
            continue
        if payer and row.get("counterparty_name") not in ("", payer):
            continue
        record = plain(client.transactions.get(row_id))
        if record.get("original_transaction_id") == original_id:
            found.append(record)
    found.sort(key=lambda r: time_key(r.get("created_at")))
    return found


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
