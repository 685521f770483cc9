"""`LedgerMapping`: which column of a merchant's ledger holds what, in which unit, and how
its text is written (separator, encoding, decimal mark, form of the days)."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Final, Literal

import pyarrow as pa

from pixops.errors import PixopsError

__all__ = [
    "CANONICAL_MAPPING",
    "COLUMN_FIELDS",
    "DATE_FORMATS",
    "DECIMALS",
    "ENCODINGS",
    "FORMAT_FIELDS",
    "MATCH_WITHOUT_REFERENCE",
    "OPTIONAL_COLUMNS",
    "PER_UNIT",
    "SEPARATORS",
    "LedgerError",
    "LedgerMapping",
    "Unit",
    "check_columns",
    "unit_of_name",
]

Unit = Literal["base", "centavos", "reais"]
PER_UNIT: Final[dict[str, int]] = {"base": 1, "centavos": 100, "reais": 10_000}
#: The decimal marks a ledger's amounts may use.
DECIMALS: Final = ("comma", "point")
#: A ledger file's field separators, by name (as a mapping file and `--separator` say them).
SEPARATORS: Final[dict[str, str]] = {"comma": ",", "semicolon": ";", "tab": "\t"}
#: A ledger file's encodings, by name; ``utf-8`` allows a byte order mark.
ENCODINGS: Final[dict[str, str]] = {"utf-8": "utf-8-sig", "windows-1252": "cp1252"}
#: The forms a day may be written in, by name (a mapping file, `--date-format`).
DATE_FORMATS: Final[dict[str, str]] = {
    "yyyy-mm-dd": "%Y-%m-%d",
    "dd/mm/yyyy": "%d/%m/%Y",
    "dd-mm-yyyy": "%d-%m-%Y",
    "dd.mm.yyyy": "%d.%m.%Y",
    "mm/dd/yyyy": "%m/%d/%Y",
}
#: The fields naming columns, and those saying how the file is written (None: detected).
COLUMN_FIELDS: Final = (
    "entry_id",
    "reference",
    "amount",
    "direction",
    "fee",
    "status",
    "booked_on",
)
FORMAT_FIELDS: Final = ("amount_unit", "decimal", "date_format", "separator", "encoding")
OPTIONAL_COLUMNS: Final = ("direction", "fee", "status")
#: Mapped columns the rules beyond identifiers read (issue 31); with any of them named an
#: entry may go without a reference.
MATCH_WITHOUT_REFERENCE: Final = ("booked_at", "document", "name", "settlement", "kind")


class LedgerError(PixopsError, ValueError):
    """The ledger cannot be read as described by its mapping."""


def unit_of_name(column: str) -> Unit | None:
    """The unit a column's name says (``amount_base``, ``valor_centavos``), or None."""
    lowered = column.strip().lower()
    for unit in ("base", "centavos", "reais"):
        if lowered.endswith(f"_{unit}"):
            return unit
    return None


@dataclass(frozen=True)
class LedgerMapping:
    """Which ledger column holds what. Defaults match `data/sample_ledger.csv`.

    - ``entry_id``: the ledger's own row id (unique).
    - ``reference``: what the merchant wrote down for the movement: its external_id,
      tag, transaction_id or end-to-end id (any of them matches).
    - ``amount``: the expected amount, in ``amount_unit``; with ``direction=None`` a
      negative amount is outbound.
    - ``direction``: ``inbound``/``outbound`` column (``entrada``/``saída`` too), or
      None (sign of the amount).
    - ``fee``: expected fee in ``amount_unit``, or None when the ledger keeps no fees.
    - ``status``: expected status (settled, rejected, failed, processing, or their pt-BR
      words: liquidado, rejeitado, falhou, processando), or None (all expected settled).
    - ``booked_on``: the business day the ledger booked it (date, text in
      ``date_format``, a naive midnight as ``pd.to_datetime`` gives, or a
      time-zone-aware timestamp, read as a day in the reconciliation's time zone).

    How the text is written; None (the default) is detected and stated
    (`LedgerReading.line`), and a file that could be read two ways asks for the setting:

    - ``amount_unit``: ``reais``, ``centavos`` or ``base`` (1 centavo = 100 base units);
      detected from the column's name (``amount_base``, ``valor_centavos``) or from its
      cells (amounts with decimals are reais; whole numbers alone are not guessed).
    - ``decimal``: ``comma`` (``1.234,56``) or ``point`` (``1,234.56``).
    - ``date_format``: one of `DATE_FORMATS` (detected: ``yyyy-mm-dd`` or ``dd/mm/yyyy``).
    - ``separator``: ``comma``, ``semicolon`` or ``tab``; ``encoding``: ``utf-8`` or
      ``windows-1252`` (a CSV file only).

    Columns the rules beyond identifiers read (None: the ledger keeps none;
    docs/reconciliation-rules.md):

    - ``booked_at``: when the payment was recorded (a time-zone-aware timestamp, or ISO
      text; without an offset read in the reconciliation's time zone), for inferred pairs.
    - ``document``: the counterparty's CPF or CNPJ (punctuation ignored) and ``name``:
      their name; an inferred pair needs them to agree where both sides have one.
    - ``settlement``: a settlement key: the entry is matched as a group against every
      statement row carrying that key (in any identifier), e.g. a payout batch.
    - ``kind``: ``fees``, ``inbound`` or ``outbound``: the entry books one business day's
      fees, or that day's movements of one direction no other entry booked, as one line.

    Amounts may be integers, text or ``Decimal`` (a Parquet decimal column,
    `pixops.frames.reais_decimal`), converted exactly; floats are refused. A mapping is
    saved and read as a TOML or YAML file by `pixops.recon.write_mapping` and
    `read_mapping` (docs/ledger-mapping.md).
    """

    entry_id: str = "entry_id"
    reference: str = "reference"
    amount: str = "amount_base"
    direction: str | None = "direction"
    fee: str | None = "fee_base"
    status: str | None = "status"
    booked_on: str = "booked_on"
    amount_unit: Unit | None = None
    decimal: Literal["comma", "point"] | None = None
    date_format: str | None = None
    separator: Literal["comma", "semicolon", "tab"] | None = None
    encoding: Literal["utf-8", "windows-1252"] | None = None
    booked_at: str | None = None
    document: str | None = None
    name: str | None = None
    settlement: str | None = None
    kind: str | None = None

    def __post_init__(self) -> None:
        for name in ("entry_id", "reference", "amount", "booked_on"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip():
                raise LedgerError(f"mapping.{name} must name a column, not {value!r}")
        for name in (*OPTIONAL_COLUMNS, *MATCH_WITHOUT_REFERENCE):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise LedgerError(f"mapping.{name} must name a column or be None, not {value!r}")
        _one_of("amount_unit", self.amount_unit, tuple(PER_UNIT))
        _one_of("decimal", self.decimal, DECIMALS)
        _one_of("date_format", self.date_format, tuple(DATE_FORMATS))
        _one_of("separator", self.separator, tuple(SEPARATORS))
        _one_of("encoding", self.encoding, tuple(ENCODINGS))
        # One column for two things is a slip of the dropdowns, except the entry's id
        # doubling as its reference (a ledger that writes down only the transaction id).
        named = [getattr(self, name) for name in COLUMN_FIELDS[1:]]
        twice = sorted({c for c in named if c is not None and named.count(c) > 1})
        if twice:
            raise LedgerError(f"mapping names the column {twice[0]!r} for two things")

    def updated(self, **changes: object) -> LedgerMapping:
        """This mapping with ``changes`` (None values left out: not given), validated."""
        known = {f.name for f in fields(self)}
        unknown = sorted(set(changes) - known)
        if unknown:
            raise LedgerError(f"mapping has no setting {unknown[0]!r}; known: {sorted(known)}")
        given = {name: value for name, value in changes.items() if value is not None}
        return replace(self, **given)  # type: ignore[arg-type]

    def without(self, *columns: str) -> LedgerMapping:
        """This mapping with the optional ``columns`` (direction, fee, status) kept by none."""
        wrong = sorted(set(columns) - set(OPTIONAL_COLUMNS))
        if wrong:
            raise LedgerError(f"{wrong[0]} must name a column: only {OPTIONAL_COLUMNS} may be none")
        return replace(self, **dict.fromkeys(columns))  # type: ignore[arg-type]

    def unit_for(self, column: str) -> Unit | None:
        """The unit given, else the one ``column``'s name says; None: from the cells."""
        return self.amount_unit if self.amount_unit is not None else unit_of_name(column)


def _one_of(name: str, value: object, allowed: tuple[str, ...]) -> None:
    if value is not None and value not in allowed:
        raise LedgerError(f"{name} must be one of {', '.join(allowed)}, not {value!r}")


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
        + (f" ({field}=None if the ledger keeps none)" if field in OPTIONAL_COLUMNS else "")
        + f", --column {field}=NAME on the command line"
        + (f" ({field}=none)" if field in OPTIONAL_COLUMNS else "")
        + " or a mapping file (--ledger-map, docs/ledger-mapping.md)"
    )
