"""What the panels ask the API, through the public client, as the client's own models.

Every answer stays the pydantic model the client returns (`Transaction`, `StatementItem`,
`MedCase`, `Refund`): a field renamed in the schema is an error `mypy --strict` reports
in the panel that reads it, not a ``None`` shown to a user. The look-ups the API has no
endpoint for (refunds of a transaction, statement rows of a few days) are scans of the
statement, bounded by dates.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable, Iterable
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Final, Protocol, TypeAlias

from pixops.errors import PixopsError
from pixops.schema import (
    MedCase,
    OutboundInFlight,
    QrFallback,
    SettledTransaction,
    StatementItem,
    Transaction,
)

if TYPE_CHECKING:
    from pixops.client import Client

__all__ = [
    "QUOTES",
    "Received",
    "RefundRecord",
    "Row",
    "cases_of",
    "find_transactions",
    "is_missing_error",
    "is_refund_id",
    "open_cases_of",
    "received",
    "refunded_base_of",
    "refunds_between",
    "statement_items",
    "status_of",
]

#: A payment received and settled: the only kind a refund can return.
Received: TypeAlias = SettledTransaction | QrFallback
#: A refund as `GET /transactions/:id` answers it: settled, or still in flight or failed.
RefundRecord: TypeAlias = SettledTransaction | OutboundInFlight

#: The spec's refund identifiers start with this literal prefix.
_REFUND_PREFIX: Final = "PIXRET"
_END_TO_END: Final = re.compile(r"[ED][0-9A-Z]{8}[0-9A-Za-z]{22,26}")
#: A transaction or end-to-end id in any letter case: its minute (yyyyMMddHHmm, UTC)
#: says which day's statement holds it.
_ANY_CASE_ID: Final = re.compile(
    r"(?:pix[a-z]{2,4})?[ed][0-9a-z]{8}(?P<minute>\d{12})[0-9a-z]{8,14}", re.IGNORECASE
)
#: Quotes a pasted identifier often comes wrapped in.
QUOTES: Final = "'\"`\u2018\u2019\u201c\u201d"


class Row(Protocol):
    """What a picker line needs of a payment, a statement row or a transaction record."""

    @property
    def transaction_id(self) -> str: ...
    @property
    def amount(self) -> int: ...
    @property
    def counterparty_name(self) -> str | None: ...
    @property
    def created_at(self) -> datetime: ...
    @property
    def completed_at(self) -> datetime | None: ...


def status_of(error: PixopsError) -> int | None:
    """The HTTP status of a refusal, when it has one."""
    status = getattr(error, "status", None)
    return status if isinstance(status, int) else None


def is_missing_error(error: PixopsError) -> bool:
    """True for "no such record": a 404, or an id of the wrong shape for that lookup
    (the service's 400, or the client refusing it before sending)."""
    return status_of(error) in (400, 404) or isinstance(error, ValueError)


def is_refund_id(transaction_id: str) -> bool:
    """Whether an id names a refund (the spec's ``PIXRET`` prefix)."""
    return transaction_id.startswith(_REFUND_PREFIX)


def received(record: Transaction) -> Received | None:
    """The record as a payment received and settled, else None (nothing to refund)."""
    if isinstance(record, QrFallback):
        return record
    if isinstance(record, SettledTransaction) and record.direction == "inbound":
        return record
    return None


def find_transactions(
    client: Client, identifier: str, now: datetime | None = None
) -> list[Transaction]:
    """Every transaction an identifier names: transaction_id, QR tx_id, e2e, external_id,
    tag or MED case id, in that order of preference, without duplicates.

    Spaces and quotes around it are ignored, and a transaction or end-to-end id typed
    in the wrong letter case (copied from a lower-cased report) is still found, in the
    statement of the day its minute names.
    """
    if not isinstance(identifier, str):
        raise TypeError("the identifier must be text")
    ident = identifier.strip().strip(QUOTES).strip()
    if not ident:
        raise ValueError("type an identifier first")
    found = _exact(client, ident)
    if found:
        return found
    return _any_case(client, ident, now or datetime.now(UTC))


def _exact(client: Client, ident: str) -> list[Transaction]:
    if len(ident) > 128 or any(ch.isspace() for ch in ident):
        return []
    found: dict[str, Transaction] = {}

    def keep(records: Iterable[Transaction]) -> None:
        for record in records:
            found.setdefault(record.transaction_id, record)

    if ident[:4].lower() == "med_":
        # The service's case ids are lower case; one typed in capitals is tried so too.
        for candidate in dict.fromkeys((ident, ident.lower())):
            try:
                case = client.med.get(candidate)
            except PixopsError as error:
                if not is_missing_error(error):
                    raise
            else:
                keep(_exact(client, case.transaction_id))
                break
    if _END_TO_END.fullmatch(ident):
        keep(_tolerant(lambda: [client.transactions.by_e2e(ident)]))
    keep(_tolerant(lambda: [client.transactions.get(ident)]))
    keep(_tolerant(lambda: client.transactions.by_external_id(ident)))
    keep(_tolerant(lambda: client.transactions.by_tag(ident)))
    return list(found.values())


def _tolerant(call: Callable[[], list[Transaction]]) -> list[Transaction]:
    """The records a look-up answers; none when it finds no such record."""
    try:
        return call()
    except PixopsError as error:
        if is_missing_error(error):
            return []
        raise


def _any_case(client: Client, ident: str, now: datetime) -> list[Transaction]:
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
        row.transaction_id
        for row in statement_items(client, day - timedelta(days=1), day + timedelta(days=1), now)
        if wanted in (row.transaction_id.casefold(), (row.end_to_end_id or "").casefold())
    }
    if len(hits) != 1:
        return []
    return _exact(client, hits.pop())


class _DayCache:
    """Statement rows of finished UTC days, kept per client: a scan is paid for once.

    Only days that ended more than a day ago (by the service's clock) are kept; their
    rows no longer appear or disappear, and the panels re-read anything whose status
    matters (refunds) by id.
    """

    def __init__(self) -> None:
        self.days: dict[date, list[StatementItem]] = {}


_CACHES: weakref.WeakKeyDictionary[object, _DayCache] = weakref.WeakKeyDictionary()


def statement_items(client: Client, first: date, last: date, now: datetime) -> list[StatementItem]:
    """Statement rows created from `first` to `last` (UTC days, inclusive), newest first."""
    try:
        cache = _CACHES.setdefault(client, _DayCache())
    except TypeError:  # a client that cannot be weakly referenced is simply not cached
        cache = _DayCache()
    settled_before = (now - timedelta(days=1)).date()
    wanted = [first + timedelta(days=n) for n in range((last - first).days + 1)]
    rows: list[StatementItem] = []
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
    rows.sort(key=lambda r: r.created_at, reverse=True)
    return rows


def _fetch_days(
    client: Client, cache: _DayCache, days: list[date], settled_before: date
) -> list[StatementItem]:
    fetched = list(client.statement.iter(date_from=days[0], date_to=days[-1]))
    by_day: dict[date, list[StatementItem]] = {day: [] for day in days}
    for row in fetched:
        created = row.created_at.date()
        if created in by_day:
            by_day[created].append(row)
    for day, day_rows in by_day.items():
        if day < settled_before:
            cache.days[day] = day_rows
    return fetched


def refunds_between(
    client: Client, original_id: str, created: datetime, payer: str, now: datetime
) -> list[RefundRecord]:
    """The refunds (voluntary and MED) of the received transaction `original_id`, created
    at `created` by `payer`, oldest first.

    The statement does not link a refund to its original, so refunds made from the
    original's day on are read one by one (`GET /transactions/:id` carries
    ``original_transaction_id``); only outbound rows to the original's payer are read.
    """
    found: list[RefundRecord] = []
    for row in statement_items(client, created.date(), max(now.date(), created.date()), now):
        if row.direction != "outbound" or not is_refund_id(row.transaction_id):
            continue
        if payer and row.counterparty_name not in ("", payer):
            continue
        record = client.transactions.get(row.transaction_id)
        if (
            isinstance(record, SettledTransaction | OutboundInFlight)
            and record.original_transaction_id == original_id
        ):
            found.append(record)
    found.sort(key=lambda r: r.created_at)
    return found


class _Refunding(Protocol):
    """What a refund's total reads of each refund."""

    @property
    def amount(self) -> int: ...
    @property
    def status(self) -> str: ...


def refunded_base_of(refunds: Iterable[_Refunding]) -> int:
    """What the refunds take from the original: every refund that has not failed."""
    return sum(int(r.amount) for r in refunds if r.status not in ("failed", "rejected"))


def cases_of(client: Client, *, transaction_id: str | None = None) -> list[MedCase]:
    """Every MED case (of one payment, with `transaction_id`), across all pages."""
    return list(client.med.iter(transaction_id=transaction_id))


def open_cases_of(client: Client, transaction_id: str) -> list[MedCase]:
    """The MED cases not yet decided on a payment."""
    return [
        case
        for case in cases_of(client, transaction_id=transaction_id)
        if case.status in ("OPEN", "ACKNOWLEDGED")
    ]
