"""An inbox of verified webhook events, de-duplicated by ``webhook-id``.

Senders retry, so a receiver sees the same event more than once; the inbox keeps the
first copy and counts the rest. `to_frame` gives the events as a pandas DataFrame
with Arrow dtypes (money as ``int64[pyarrow]``, time as ``timestamp[ms, tz=UTC]``).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pixops.webhooks._signing import DEFAULT_TOLERANCE_SECONDS, Headers, _fold, verify

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FRAME_COLUMNS", "Inbox"]

_TEXT_FIELDS = (
    "transaction_id",
    "end_to_end_id",
    "original_transaction_id",
    "external_id",
    "status",
    "reason_code",
)
_MONEY_FIELDS = ("amount", "fee_amount", "net_amount", "total_refunded", "remaining_refundable")

FRAME_COLUMNS: tuple[str, ...] = (
    "id",
    "type",
    "created_at",
    *_TEXT_FIELDS,
    *_MONEY_FIELDS,
    "is_partial",
    "data",
)
"""Columns of `Inbox.to_frame()`; money columns hold base units (1 centavo = 100)."""


class Inbox:
    """Verified events in arrival order, each ``webhook-id`` kept once. Thread-safe."""

    def __init__(
        self,
        secret: str | Sequence[str] | None = None,
        *,
        tolerance_seconds: int = DEFAULT_TOLERANCE_SECONDS,
    ) -> None:
        self.secret = secret
        self.tolerance_seconds = tolerance_seconds
        self._lock = threading.Lock()
        self._events: list[dict[str, Any]] = []
        self._seen: set[str] = set()
        self._duplicates = 0

    def add(self, headers: Headers, body: bytes, *, now: datetime | int | None = None) -> bool:
        """Verify one delivery with the inbox's secret and keep it; False for a duplicate.

        Raises `WebhookVerificationError` when the delivery does not verify.
        """
        if self.secret is None:
            raise ValueError("this inbox has no secret: create it as Inbox(secret='whsec_...')")
        folded = _fold(headers)
        event = verify(folded, body, self.secret, tolerance_seconds=self.tolerance_seconds, now=now)
        return self.add_verified(folded["webhook-id"], event)

    def add_verified(self, webhook_id: str, event: dict[str, Any]) -> bool:
        """Keep an event whose signature the caller already checked; False for a duplicate."""
        with self._lock:
            if webhook_id in self._seen:
                self._duplicates += 1
                return False
            self._seen.add(webhook_id)
            self._events.append(event)
            return True

    @property
    def events(self) -> list[dict[str, Any]]:
        """The distinct events received so far, oldest first (a copy)."""
        with self._lock:
            return list(self._events)

    @property
    def duplicates(self) -> int:
        """How many repeated deliveries were recognised and dropped."""
        with self._lock:
            return self._duplicates

    def __len__(self) -> int:
        with self._lock:
            return len(self._events)

    def to_frame(self) -> pd.DataFrame:
        """One row per event with Arrow dtypes; the full ``data`` object stays as JSON text."""
        import pandas as pd
        import pyarrow as pa

        events = self.events
        columns: dict[str, pa.Array] = {
            "id": pa.array([_text(e.get("id")) for e in events], type=pa.string()),
            "type": pa.array([_text(e.get("type")) for e in events], type=pa.string()),
            "created_at": pa.array(
                [_timestamp(e.get("created_at")) for e in events], type=pa.timestamp("ms", "UTC")
            ),
        }
        datas: list[dict[str, Any]] = [_data(e) for e in events]
        for name in _TEXT_FIELDS:
            columns[name] = pa.array([_text(d.get(name)) for d in datas], type=pa.string())
        for name in _MONEY_FIELDS:
            columns[name] = pa.array([_money(d, name) for d in datas], type=pa.int64())
        columns["is_partial"] = pa.array(
            [d.get("is_partial") if isinstance(d.get("is_partial"), bool) else None for d in datas],
            type=pa.bool_(),
        )
        columns["data"] = pa.array(
            [json.dumps(d, sort_keys=True, ensure_ascii=False) for d in datas], type=pa.string()
        )
        frame: pd.DataFrame = pa.table(columns).to_pandas(types_mapper=pd.ArrowDtype)
        return frame


def _data(event: dict[str, Any]) -> dict[str, Any]:
    data = event.get("data")
    return data if isinstance(data, dict) else {}


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _timestamp(value: Any) -> datetime | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"created_at must be an ISO 8601 string, got {value!r}")
    moment = datetime.fromisoformat(value)
    if moment.tzinfo is None:
        raise ValueError(f"created_at must carry a UTC offset, got {value!r}")
    return moment


def _money(data: dict[str, Any], name: str) -> int | None:
    value = data.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an integer in base units, got {value!r}")
    return value
