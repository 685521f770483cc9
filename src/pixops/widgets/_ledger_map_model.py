"""`LedgerMapDraft`: the ledger mapping panel's logic, without widgets (tested as is).

Open a ledger file, see its first rows, say which column is what and how it is written,
see the first amounts as reais, and save the mapping beside the ledger, where the next
run (`pixops recon`, the dashboard, the daily notebook) finds it.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from pixops.recon import (
    LedgerError,
    LedgerHead,
    LedgerMapping,
    find_mapping,
    ledger_head,
    load_ledger,
    mapping_beside,
    read_mapping,
    write_mapping,
)
from pixops.widgets._format import brl

__all__ = ["FIELD_LABELS", "FORMAT_CHOICES", "LedgerMapDraft", "PreviewRow"]

#: The fields a column is chosen for, in the panel's order, in a finance reader's words.
FIELD_LABELS: Final[dict[str, str]] = {
    "entry_id": "Entry id",
    "reference": "Reference",
    "amount": "Amount",
    "fee": "Fee",
    "direction": "Direction",
    "status": "Status",
    "booked_on": "Booked on",
}
REQUIRED: Final = ("entry_id", "reference", "amount", "booked_on")
#: The choices of each format setting; None: detected.
FORMAT_CHOICES: Final[dict[str, tuple[str, ...]]] = {
    "amount_unit": ("reais", "centavos", "base"),
    "decimal": ("comma", "point"),
    "date_format": ("dd/mm/yyyy", "yyyy-mm-dd", "dd-mm-yyyy", "dd.mm.yyyy", "mm/dd/yyyy"),
}
#: Header words a back office uses for each field (compared without accents or case):
#: what the dropdowns start on, shown to be checked, never used unseen.
_SUGGESTED: Final[dict[str, tuple[str, ...]]] = {
    "entry_id": ("entry_id", "documento", "id", "lancamento", "numero", "codigo"),
    "reference": ("reference", "referencia", "ref", "pedido", "identificador", "txid"),
    "amount": ("amount_base", "amount", "valor", "valor_centavos", "montante"),
    "fee": ("fee_base", "fee", "tarifa", "taxa"),
    "direction": ("direction", "direcao", "sentido", "tipo"),
    "status": ("status", "situacao", "estado"),
    "booked_on": ("booked_on", "data", "dia", "data_lancamento", "date"),
}


def _plain(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.strip().lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c)).replace(" ", "_")


@dataclass(frozen=True)
class PreviewRow:
    """One ledger row as the mapping reads it: money in R$ (pt-BR), the day dd/mm/yyyy."""

    entry_id: str
    reference: str
    direction: str
    amount: str
    fee: str
    status: str
    booked_on: str


class LedgerMapDraft:
    """A mapping being made for one ledger file: its first rows, the column chosen for
    each field (None: none), the format settings (None: detected), the preview of the
    first rows read with them, and saving it beside the ledger."""

    def __init__(self, ledger: str | Path, *, rows: int = 5) -> None:
        self.path = Path(ledger)
        self.rows = rows
        saved = find_mapping(self.path)
        #: The mapping file this draft started from (None: none was saved).
        self.saved_from: Path | None = saved
        start = read_mapping(saved) if saved is not None else None
        self.head: LedgerHead = ledger_head(self.path, start, rows)
        self.choices: dict[str, str | None] = {}
        for field in FIELD_LABELS:
            given = None if start is None else getattr(start, field)
            self.choices[field] = given if given in self.head.columns else self._suggest(field)
        self.formats: dict[str, str | None] = {
            name: None if start is None else getattr(start, name) for name in FORMAT_CHOICES
        }
        self._separator = None if start is None else start.separator
        self._encoding = None if start is None else start.encoding

    @property
    def columns(self) -> list[str]:
        return self.head.columns

    def _suggest(self, field: str) -> str | None:
        by_plain = {_plain(column): column for column in self.head.columns}
        for word in _SUGGESTED[field]:
            if word in by_plain:
                return by_plain[word]
        return None

    def choose(self, field: str, column: str | None) -> None:
        """The ledger's ``column`` holds ``field`` (None: the ledger keeps none)."""
        if field not in FIELD_LABELS:
            raise LedgerError(f"no field {field!r}; one of {', '.join(FIELD_LABELS)}")
        if column is not None and column not in self.head.columns:
            raise LedgerError(f"the ledger has no column {column!r}")
        self.choices[field] = column

    def set_format(self, name: str, value: str | None) -> None:
        """A format setting (`FORMAT_CHOICES`); None: detected."""
        if name not in FORMAT_CHOICES:
            raise LedgerError(f"no setting {name!r}; one of {', '.join(FORMAT_CHOICES)}")
        if value is not None and value not in FORMAT_CHOICES[name]:
            raise LedgerError(f"{name} must be one of {', '.join(FORMAT_CHOICES[name])}")
        self.formats[name] = value

    def mapping(self) -> LedgerMapping:
        """The mapping chosen so far; `LedgerError` says what is still missing."""
        missing = [FIELD_LABELS[f] for f in REQUIRED if self.choices[f] is None]
        if missing:
            raise LedgerError(f"Choose the column of: {', '.join(missing)}.")
        return LedgerMapping(
            **self.choices,  # type: ignore[arg-type]
            **self.formats,  # type: ignore[arg-type]
            separator=self.head.separator,  # type: ignore[arg-type]
            encoding=self.head.encoding,  # type: ignore[arg-type]
        )

    def preview(self) -> tuple[list[PreviewRow], str]:
        """The first rows read with the mapping, and the line saying how they were read;
        `LedgerError` (what to choose or which cell cannot be read) otherwise."""
        mapping = self.mapping()
        loaded = load_ledger(self.head.table, mapping)
        rows = [
            PreviewRow(
                entry_id=str(row["entry_id"]),
                reference=str(row["reference"]),
                direction="received" if row["direction"] == "inbound" else "sent",
                amount=brl(row["amount_base"]),
                fee=brl(row["fee_base"]),
                status=str(row["status"] or "settled"),
                booked_on=f"{row['booked_on']:%d/%m/%Y}",
            )
            for row in loaded.table.to_pylist()
        ]
        reading = loaded.reading
        line = type(reading)(
            separator=self.head.separator,
            encoding=self.head.encoding,
            decimal=reading.decimal,
            date_format=reading.date_format,
            amount_unit=reading.amount_unit,
            step_base=reading.step_base,
        ).line()
        return rows, line

    @property
    def target(self) -> Path:
        """Where `save` writes: ``<ledger>.mapping.toml`` beside the ledger."""
        return mapping_beside(self.path)

    def save(self) -> tuple[Path, str]:
        """Check the whole ledger reads with the mapping, then save it beside the ledger;
        the file written and how the ledger was read. Nothing is written on an error."""
        mapping = self.mapping()
        reading = load_ledger(self.path, mapping).reading
        written = write_mapping(mapping, self.target)
        self.saved_from = written
        return written, reading.line()
