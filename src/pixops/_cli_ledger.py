"""The ledger options `pixops recon` and `pixops report daily` share: a mapping file and
flags for the common cases. Registered here without importing pandas; `ledger_mapping`
imports `pixops.recon` when a command runs."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pixops.recon import LedgerMapping

__all__ = ["add_ledger_options", "ledger_mapping"]

#: The flags and the `LedgerMapping` field each sets (kept equal to it by a test).
FLAGS = {
    "amount_unit": ("--amount-unit", ("reais", "centavos", "base")),
    "decimal": ("--decimal", ("comma", "point")),
    "date_format": (
        "--date-format",
        ("yyyy-mm-dd", "dd/mm/yyyy", "dd-mm-yyyy", "dd.mm.yyyy", "mm/dd/yyyy"),
    ),
    "separator": ("--separator", ("comma", "semicolon", "tab")),
    "encoding": ("--encoding", ("utf-8", "windows-1252")),
}
_HELP = {
    "amount_unit": "unit of the ledger's amounts and fees (R$ 1,00 = 1 real, 100 centavos,"
    " 10000 base units); detected when the cells or the column's name say it",
    "decimal": "decimal mark of the amounts: comma (1.234,56) or point (1,234.56)",
    "date_format": "how the ledger writes its days (detected: yyyy-mm-dd or dd/mm/yyyy)",
    "separator": "the CSV file's field separator (detected from its header)",
    "encoding": "the CSV file's encoding (detected: UTF-8, else Windows-1252)",
}


def add_ledger_options(parser: argparse.ArgumentParser) -> None:
    """``--ledger-map FILE`` and the flags; a flag wins over the file."""
    group = parser.add_argument_group(
        "ledger format",
        "how the ledger is written; what is left out is detected and said in one line"
        " (docs/ledger-mapping.md)",
    )
    group.add_argument(
        "--ledger-map",
        type=Path,
        metavar="FILE",
        help="mapping file (TOML or YAML) naming the ledger's columns and units"
        " (default: <ledger>.mapping.toml beside the ledger, when there is one)",
    )
    for field, (flag, choices) in FLAGS.items():
        group.add_argument(flag, dest=field, choices=choices, help=_HELP[field])
    group.add_argument(
        "--column",
        dest="columns",
        action="append",
        default=[],
        type=_column,
        metavar="FIELD=NAME",
        help="the ledger's column for a field (repeatable): entry_id, reference, amount,"
        " direction, fee, status, booked_on; NAME none for direction, fee or status the"
        " ledger keeps none of",
    )


_FIELDS = ("entry_id", "reference", "amount", "direction", "fee", "status", "booked_on")
_OPTIONAL = ("direction", "fee", "status")


def _column(text: str) -> tuple[str, str | None]:
    """``amount=Valor`` as ``("amount", "Valor")``; ``fee=none`` as ``("fee", None)``."""
    field, equals, name = text.partition("=")
    field, name = field.strip(), name.strip()
    if not equals or field not in _FIELDS or not name:
        raise argparse.ArgumentTypeError(
            f"expected FIELD=NAME with FIELD one of {', '.join(_FIELDS)}, not {text!r}"
        )
    if name.lower() == "none":
        if field not in _OPTIONAL:
            raise argparse.ArgumentTypeError(f"{field} must name a column")
        return field, None
    return field, name


def ledger_mapping(
    args: argparse.Namespace, ledger: Path | None
) -> tuple[LedgerMapping, Path | None]:
    """The mapping the arguments say: ``--ledger-map`` (else the file beside ``ledger``,
    else the defaults) with the flags over it; and the mapping file read, if any.
    `pixops.recon.LedgerError` names a bad file or setting."""
    from pixops.recon import LedgerMapping, find_mapping, read_mapping

    given: Path | None = getattr(args, "ledger_map", None)
    found = given if given is not None else (None if ledger is None else find_mapping(ledger))
    mapping = LedgerMapping() if found is None else read_mapping(found)
    flags = {field: getattr(args, field, None) for field in FLAGS}
    columns = dict(getattr(args, "columns", None) or [])
    none = [field for field, name in columns.items() if name is None]
    named = {field: name for field, name in columns.items() if name is not None}
    return mapping.updated(**flags, **named).without(*none), found
