"""Typed, frozen rows at the storage boundary: merchants, transactions and charges.

Code above the store reads attributes with their types (`row.amount_base: int`)
instead of untyped `row["amount_base"]` lookups, and mypy checks every name. Each type
mirrors its table column for column (money in base units, times as storage text, as
stored: `clock.from_db` turns them into datetimes), and `from_db` builds one from a
`sqlite3.Row`. The data layer documents its schema from these.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, TypeVar

_Row = TypeVar("_Row")

__all__ = ["TRANSACTION_COLUMNS", "ChargeRow", "MerchantRow", "TransactionRow"]


@dataclass(frozen=True, slots=True)
class MerchantRow:
    """A row of `merchants`: the account, its fee schedule (JSON) and its limits."""

    id: str
    name: str
    document: str | None
    active: bool
    created_at: str
    qr_lifetime_seconds: int
    dual_control: bool
    fees: str
    ceiling_base: int
    dict_lookups_per_minute: int

    @classmethod
    def from_db(cls, row: sqlite3.Row) -> MerchantRow:
        return cls(
            id=row["id"],
            name=row["name"],
            document=row["document"],
            active=bool(row["active"]),
            created_at=row["created_at"],
            qr_lifetime_seconds=int(row["qr_lifetime_seconds"]),
            dual_control=bool(row["dual_control"]),
            fees=row["fees"],
            ceiling_base=int(row["ceiling_base"]),
            dict_lookups_per_minute=int(row["dict_lookups_per_minute"]),
        )


@dataclass(frozen=True, slots=True)
class TransactionRow:
    """A row of `transactions`: one money movement a merchant can query.

    See docs/engine-internals.md for the meaning of `kind`, `status` and `stage`.
    """

    seq: int
    id: str
    merchant_id: str
    transaction_id: str
    end_to_end_id: str
    external_id: str | None
    tag: str | None
    type: str
    direction: str
    kind: str
    status: str
    stage: int
    amount_base: int
    fee_base: int
    description: str | None
    counterparty_name: str | None
    payer_document: str | None
    recipient_document: str | None
    recipient_key: str | None
    recipient_key_type: str | None
    payer_ispb: str | None
    recipient_ispb: str | None
    reason_code: str | None
    reason_description: str | None
    failure_reason: str | None
    charge_txid: str | None
    original_transaction_id: str | None
    refund_reason: str | None
    outbound_request_id: str | None
    purpose: str | None
    hold_id: str | None
    attempts: int
    created_at: str
    completed_at: str | None
    failed_at: str | None

    @classmethod
    def from_db(cls, row: sqlite3.Row) -> TransactionRow:
        return _build_transaction(_values(row, _TRANSACTION_COLUMNS))

    @classmethod
    def from_values(cls, values: Sequence[Any]) -> TransactionRow:
        """From the values of `TRANSACTION_COLUMNS`, in that order (a plain-tuple row)."""
        return _build_transaction(values)


@dataclass(frozen=True, slots=True)
class ChargeRow:
    """A row of `charges`: a dynamic QR code and, once paid, its payment notice."""

    id: str
    merchant_id: str
    txid: str
    amount_base: int
    description: str | None
    external_id: str | None
    tag: str | None
    pix_key: str
    status: str
    brcode: str
    created_at: str
    expires_at: str
    paid_at: str | None
    cancelled_at: str | None
    end_to_end_id: str | None
    transaction_id: str | None
    payer_name: str | None
    payer_document: str | None
    payer_ispb: str | None
    debtor_name: str | None
    debtor_document: str | None

    @classmethod
    def from_db(cls, row: sqlite3.Row) -> ChargeRow:
        return cls(*_values(row, _CHARGE_COLUMNS))


_TRANSACTION_COLUMNS = tuple(TransactionRow.__dataclass_fields__)
#: The columns of `transactions` a `TransactionRow` holds, in its fields' order: a query
#: selecting these (in this order) gives tuples for `TransactionRow(*values)`.
TRANSACTION_COLUMNS = _TRANSACTION_COLUMNS
_CHARGE_COLUMNS = tuple(ChargeRow.__dataclass_fields__)


def _builder(cls: type[_Row], columns: tuple[str, ...]) -> Callable[[Sequence[Any]], _Row]:
    """`cls(*values)` for a frozen, slotted dataclass without an `__post_init__`, setting
    each slot directly: the generated `__init__` goes through `object.__setattr__` once a
    field (frozen), and these rows have over thirty, built for most requests."""
    if "__post_init__" in cls.__dict__ or tuple(cls.__dataclass_fields__) != columns:  # type: ignore[attr-defined]
        raise TypeError(f"{cls.__name__} cannot be built slot by slot")
    setters = [cls.__dict__[name].__set__ for name in columns]
    new = object.__new__
    count = len(columns)

    def build(values: Sequence[Any]) -> _Row:
        if len(values) != count:
            raise TypeError(f"{cls.__name__} takes {count} values, not {len(values)}")
        row = new(cls)
        for setter, value in zip(setters, values, strict=True):
            setter(row, value)
        return row

    return build


_build_transaction = _builder(TransactionRow, _TRANSACTION_COLUMNS)

#: (a result's column names, the wanted columns) -> the getter of those columns by position.
_GETTERS: dict[tuple[tuple[str, ...], tuple[str, ...]], Callable[[sqlite3.Row], Any]] = {}


def _values(row: sqlite3.Row, columns: tuple[str, ...]) -> tuple[Any, ...]:
    """`tuple(row[name] for name in columns)`, by position: a lookup by name in a
    `sqlite3.Row` compares names one by one, and these rows have over thirty columns.
    The positions are worked out once per shape of result (a query's column names)."""
    names = tuple(row.keys())
    getter = _GETTERS.get((names, columns))
    if getter is None:
        lowered = [name.lower() for name in names]
        # sqlite3.Row's own rule: the first column of that name, compared without case.
        positions = [lowered.index(column.lower()) for column in columns]
        getter = itemgetter(*positions)
        if len(_GETTERS) < 256:
            _GETTERS[(names, columns)] = getter
    values: tuple[Any, ...] = getter(row)
    return values
