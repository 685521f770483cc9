"""An inbox of verified webhook events, de-duplicated by ``webhook-id``.

Senders retry, so a receiver sees the same event more than once; the inbox keeps the
first copy and counts the rest. `to_frame` gives the events as a pandas DataFrame
with Arrow dtypes (money as ``int64[pyarrow]``, time as ``timestamp[ms, tz=UTC]``).
"""

from __future__ import annotations

import copy
import json
import threading
from collections import deque
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pixops._standard_webhooks import raw_body
from pixops.webhooks._errors import WebhookSetupError
from pixops.webhooks._events import (
    MONEY_FIELDS,
    TEXT_FIELDS,
    check_event,
    created_at,
    event_data,
    is_partial,
    money,
    read_event,
    text,
    typed_event,
)
from pixops.webhooks._signing import (
    DEFAULT_TOLERANCE_SECONDS,
    Headers,
    _fold,
    check_tolerance,
    secret_keys,
    verify,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FRAME_COLUMNS", "Inbox"]


FRAME_COLUMNS: tuple[str, ...] = (
    "id",
    "type",
    "created_at",
    *TEXT_FIELDS,
    *MONEY_FIELDS,
    "is_partial",
    "data",
)
"""Columns of `Inbox.to_frame()`; money columns hold base units (1 centavo = 100)."""


def _checked_id(webhook_id: object) -> str:
    if not isinstance(webhook_id, str) or not webhook_id.strip():
        raise WebhookSetupError(f"webhook_id must be a non-empty string, not {webhook_id!r:.40}")
    return webhook_id


#: The ``data`` fields `Inbox.events_about` looks an id up in.
ABOUT_FIELDS = ("transaction_id", "original_transaction_id", "med_case_id", "charge_txid")


class Inbox:
    """Verified events in arrival order, each ``webhook-id`` kept once. Thread-safe.

    An event is checked whole before it is kept (`WebhookVerificationError` naming the
    field otherwise), so `to_frame` can always type every kept event.
    """

    _secret: str | tuple[str, ...] | None

    def __init__(
        self,
        secret: str | Iterable[str] | None = None,
        *,
        tolerance_seconds: int = DEFAULT_TOLERANCE_SECONDS,
    ) -> None:
        self.secret = secret
        self.tolerance_seconds = check_tolerance(tolerance_seconds)
        self._lock = threading.Lock()
        self._events: list[dict[str, Any]] = []
        self._seen: set[str] = set()
        self._duplicates = 0
        self._unread: deque[tuple[str, bytes]] = deque()
        #: Positions in `_events` of the events whose data names an id (`ABOUT_FIELDS`).
        self._index: dict[str, list[int]] = {}

    @property
    def secret(self) -> str | tuple[str, ...] | None:
        """The secret(s) `add` verifies with; None until set."""
        return self._secret

    @secret.setter
    def secret(self, secret: str | Iterable[str] | None) -> None:
        kept: Any = secret
        if isinstance(secret, Iterable) and not isinstance(secret, str | bytes | Mapping):
            kept = tuple(secret)  # a set or a generator is read once, kept in order
        if kept is not None:
            secret_keys(kept)  # a wrong type or a malformed secret fails here, naming it
        self._secret = kept

    def add(self, headers: Headers, body: bytes, *, now: datetime | int | None = None) -> bool:
        """Verify one delivery with the inbox's secret and keep it; False for a duplicate.

        Raises `WebhookVerificationError` when the delivery does not verify.
        """
        if self.secret is None:
            raise WebhookSetupError(
                "this inbox has no secret: create it as Inbox(secret='whsec_...')"
            )
        folded = _fold(headers)
        event = verify(folded, body, self.secret, tolerance_seconds=self.tolerance_seconds, now=now)
        return self._add_parsed(folded["webhook-id"], event)

    def add_verified(self, webhook_id: str, event: dict[str, Any]) -> bool:
        """Keep an event whose signature the caller already checked; False for a duplicate.

        Raises `WebhookVerificationError` for an event that is not strict JSON or whose
        typed fields (`FRAME_COLUMNS`) are wrong, and keeps nothing then.
        """
        _checked_id(webhook_id)
        return self._keep(webhook_id, check_event(event))

    def add_verified_body(self, webhook_id: str, body: bytes) -> bool:
        """Keep a delivery's JSON body whose signature the caller already checked; False
        for a duplicate. Read once, with no copy made first (`add_verified` writes the
        dict it is given as JSON and reads it back).

        Raises `WebhookVerificationError` for a body that is not strict JSON or whose
        typed fields (`FRAME_COLUMNS`) are wrong, and keeps nothing then.
        """
        _checked_id(webhook_id)
        return self._keep(webhook_id, read_event(raw_body(body)))

    def _add_parsed(self, webhook_id: str, event: dict[str, Any]) -> bool:
        """Keep an event `verify` just parsed from its body (a new dict nobody else holds,
        so neither copied nor parsed again) once its typed fields are right."""
        return self._keep(_checked_id(webhook_id), typed_event(event))

    def _defer_verified(self, deliveries: Iterable[tuple[str, bytes]]) -> None:
        """Keep deliveries whose bodies the caller vouches for (the sandbox's own outbox,
        for `pixops.connect()`), read as `add_verified_body` reads them when the inbox is
        next looked at or added to, in order and before anything added later: a month's
        ~8,800 events cost a notebook nothing until it reads them."""
        unread = [(_checked_id(webhook_id), raw_body(body)) for webhook_id, body in deliveries]
        with self._lock:
            self._unread.extend(unread)

    def _read_unread(self) -> None:
        """Read the deferred deliveries (the lock held). One that does not read is
        dropped, its error raised; the others stay to be read on the next call."""
        while self._unread:
            webhook_id, body = self._unread.popleft()
            self._kept(webhook_id, read_event(body))

    def _keep(self, webhook_id: str, event: dict[str, Any]) -> bool:
        with self._lock:
            self._read_unread()
            return self._kept(webhook_id, event)

    def _kept(self, webhook_id: str, event: dict[str, Any]) -> bool:
        if webhook_id in self._seen:
            self._duplicates += 1
            return False
        self._seen.add(webhook_id)
        data = event.get("data")
        if isinstance(data, dict):
            for name in ABOUT_FIELDS:
                if isinstance(value := data.get(name), str):
                    self._index.setdefault(value, []).append(len(self._events))
        self._events.append(event)
        return True

    @property
    def events(self) -> list[dict[str, Any]]:
        """The distinct events received so far, oldest first: a deep copy, so editing it
        never changes what the inbox keeps or what `to_frame` shows."""
        with self._lock:
            self._read_unread()
            return copy.deepcopy(self._events)

    def events_about(self, ids: Iterable[str]) -> list[dict[str, Any]]:
        """Deep copies of the events whose ``data`` names one of `ids` as its
        ``transaction_id``, ``original_transaction_id``, ``med_case_id`` or
        ``charge_txid``, oldest first: what a panel shows about one payment or case,
        without copying the month of `events`."""
        if isinstance(ids, str | bytes) or not isinstance(ids, Iterable):
            raise TypeError(f"ids must be a set or list of ids, not {type(ids).__name__}")
        wanted = set(ids)
        with self._lock:
            self._read_unread()
            index = self._index
            positions = sorted({p for id_ in wanted for p in index.get(id_, ())})
            return copy.deepcopy([self._events[p] for p in positions])

    @property
    def duplicates(self) -> int:
        """How many repeated deliveries were recognised and dropped."""
        with self._lock:
            self._read_unread()
            return self._duplicates

    def __len__(self) -> int:
        with self._lock:
            self._read_unread()
            return len(self._events)

    def to_frame(self) -> pd.DataFrame:
        """One row per event with Arrow dtypes; the full ``data`` object stays as JSON text."""
        import pandas as pd
        import pyarrow as pa

        with self._lock:
            self._read_unread()
            events = list(self._events)  # read only: kept events are never edited
        datas: list[dict[str, Any]] = [event_data(e) for e in events]
        columns: dict[str, pa.Array] = {
            "id": pa.array([text(e, "id") for e in events], type=pa.string()),
            "type": pa.array([text(e, "type") for e in events], type=pa.string()),
            "created_at": pa.array([created_at(e) for e in events], type=pa.timestamp("ms", "UTC")),
        }
        for name in TEXT_FIELDS:
            columns[name] = pa.array([text(d, name, "data.") for d in datas], type=pa.string())
        for name in MONEY_FIELDS:
            columns[name] = pa.array([money(d, name) for d in datas], type=pa.int64())
        columns["is_partial"] = pa.array([is_partial(d) for d in datas], type=pa.bool_())
        columns["data"] = pa.array(
            [json.dumps(d, sort_keys=True, ensure_ascii=False) for d in datas], type=pa.string()
        )
        frame: pd.DataFrame = pa.table(columns).to_pandas(types_mapper=pd.ArrowDtype)
        return frame
