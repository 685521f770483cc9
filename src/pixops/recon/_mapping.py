"""`LedgerMapping`: which column of a merchant's ledger holds what, in which unit."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

import pyarrow as pa

from pixops.errors import PixopsError

__all__ = [
    "CANONICAL_MAPPING",
    "MATCH_WITHOUT_REFERENCE",
    "PER_UNIT",
    "LedgerError",
    "LedgerMapping",
    "Unit",
    "check_columns",
]

Unit = Literal["base", "centavos", "reais"]
PER_UNIT: Final[dict[str, int]] = {"base": 1, "centavos": 100, "reais": 10_000}


_OPTIONAL: Final = (
    "direction",
    "fee",
    "status",
    "booked_at",
    "document",
    "name",
    "settlement",
    "kind",
)
#: Mapped columns that let an entry match without a reference.
MATCH_WITHOUT_REFERENCE: Final = ("booked_at", "document", "name", "settlement", "kind")


class LedgerError(PixopsError, ValueError):
    """The ledger cannot be read as described by its mapping."""


@dataclass(frozen=True)
class LedgerMapping:
    """Which ledger column holds what. Defaults match `data/sample_ledger.csv`.

    - ``entry_id``: the ledger's own row id (unique).
    - ``reference``: what the merchant wrote down for the movement: its external_id,
      tag, transaction_id or end-to-end id (any of them matches).
    - ``amount``: the expected amount, in ``amount_unit``; with ``direction=None`` a
      negative amount is outbound.
    - ``direction``: ``inbound``/``outbound`` column, or None (sign of the amount).
    - ``fee``: expected fee in ``amount_unit``, or None when the ledger keeps no fees.
    - ``status``: expected status (settled, rejected, failed, processing), or None
      (everything booked is expected settled).
    - ``booked_on``: the business day the ledger booked it (date, ``YYYY-MM-DD`` or
      pt-BR ``DD/MM/YYYY`` text, a naive midnight as ``pd.to_datetime`` gives, or a
      time-zone-aware timestamp, read as a day in the reconciliation's time zone).

    Columns the other matching rules read (None: the ledger keeps none):

    - ``booked_at``: when the payment was recorded (a time-zone-aware timestamp, or ISO
      text; text without an offset is read in the reconciliation's time zone): the time an
      inferred pair is judged by (`Tolerances.inferred_seconds`).
    - ``document``: the counterparty's CPF or CNPJ (punctuation ignored) and ``name``:
      their name; an inferred pair needs them to agree where both sides have one.
    - ``settlement``: a settlement key: the entry is matched as a group against every
      statement row carrying that key (in any identifier), e.g. a payout batch.
    - ``kind``: ``fees``, ``inbound`` or ``outbound``: the entry books one business day's
      fees, or that day's movements of one direction no other entry booked, as one line.

    An entry may leave ``reference`` empty when the mapping names one of these columns.

    Amounts may be integers, text (``"1.234,56"`` in reais) or ``Decimal`` (a Parquet
    decimal column, `pixops.frames.reais_decimal`), converted exactly; floats are refused.
    """

    entry_id: str = "entry_id"
    reference: str = "reference"
    amount: str = "amount_base"
    direction: str | None = "direction"
    fee: str | None = "fee_base"
    status: str | None = "status"
    booked_on: str = "booked_on"
    amount_unit: Unit = "base"
    booked_at: str | None = None
    document: str | None = None
    name: str | None = None
    settlement: str | None = None
    kind: str | None = None

    def __post_init__(self) -> None:
        if self.amount_unit not in PER_UNIT:
            raise LedgerError(f"amount_unit must be one of {sorted(PER_UNIT)}")
        for name in ("entry_id", "reference", "amount", "booked_on"):
            if not isinstance(getattr(self, name), str) or not getattr(self, name):
                raise LedgerError(f"mapping.{name} must name a column")
        for name in _OPTIONAL:
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or not value):
                raise LedgerError(f"mapping.{name} must name a column or be None")


#: The mapping of a table already in `LEDGER_SCHEMA` (amounts in base units).
CANONICAL_MAPPING: Final = LedgerMapping()


#: What each mapped column holds, in a finance reader's words.
_HOLDS: Final = {
    "entry_id": "the ledger's own id of each entry",
    "reference": "what was written down for the payment: its transaction id, end-to-end id,"
    " external_id or tag",
    "amount": "the expected amount",
    "direction": "inbound or outbound",
    "fee": "the expected fee",
    "status": "the expected status (settled, rejected, failed or processing)",
    "booked_on": "the day the entry was booked",
    "booked_at": "the time the payment was recorded",
    "document": "the counterparty's CPF or CNPJ",
    "name": "the counterparty's name",
    "settlement": "the settlement key the statement rows of a group carry",
    "kind": "the kind of a day's line: fees, inbound or outbound",
}


def check_columns(table: pa.Table, mapping: LedgerMapping) -> None:
    """Every column the mapping names is there; else the first missing one, what it
    holds, and how to name another column for it (`LedgerMapping`)."""
    missing = [
        (field, column)
        for field in _HOLDS
        if (column := getattr(mapping, field)) is not None and column not in table.column_names
    ]
    if not missing:
        return
    field, column = missing[0]
    also = ", ".join(repr(name) for _, name in missing[1:])
    raise LedgerError(
        f"ledger has no column {column!r} (its columns: {', '.join(table.column_names)}):"
        f" it needs one with {_HOLDS[field]}{f'; also missing: {also}' if also else ''}."
        f" Rename the ledger's column, or name yours with LedgerMapping({field}='...')"
        + (f" ({field}=None if the ledger keeps none)" if field in _OPTIONAL else "")
    )
