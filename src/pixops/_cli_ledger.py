"""The ledger options `pixops recon` and `pixops report daily` share: a mapping file and
flags for the common cases. Registered here without importing pandas; `ledger_mapping`
imports `pixops.recon` when a command runs."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pixops.recon import LedgerMapping, Tolerances

__all__ = ["RULE_FLAGS", "add_ledger_options", "ledger_mapping", "recon_rules"]

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
        " direction, fee, status, booked_on, and for the rules beyond identifiers booked_at,"
        " document, name, settlement, kind; NAME none for direction, fee or status the"
        " ledger keeps none of",
    )
    rules = parser.add_argument_group(
        "reconciliation rules",
        "tolerances over the mapping file's [tolerances]; left out: exact, as before"
        " (docs/reconciliation-rules.md)",
    )
    rules.add_argument(
        "--tolerance-amount",
        dest="tolerance_amount",
        action="append",
        default=[],
        type=_amount_tolerance,
        metavar="BASE|PCT%",
        help="amounts may differ by BASE base units (500 = R$ 0,05) or by a share of the"
        " amount (0.5%%); give both to allow the larger",
    )
    rules.add_argument(
        "--tolerance-fee",
        dest="fee_base",
        type=_whole("--tolerance-fee"),
        metavar="BASE",
        help="fees may differ by BASE base units",
    )
    rules.add_argument(
        "--day-window",
        dest="days",
        type=_whole("--day-window"),
        metavar="DAYS",
        help="business days may be DAYS apart (0 to 7)",
    )
    rules.add_argument(
        "--time-window",
        dest="inferred_seconds",
        type=_seconds,
        metavar="SECONDS",
        help="pair an entry and a movement sharing no identifier within this window"
        " (300, 5min, 1h; at most a day)",
    )
    rules.add_argument(
        "--groups",
        dest="groups",
        action="store_const",
        const=True,
        default=None,
        help="match an entry against the exact sum of the rows its reference names",
    )
    rules.add_argument(
        "--review-file",
        dest="review_file",
        type=Path,
        metavar="FILE",
        help="the decisions on suggested pairs (default: <ledger>.review.csv beside the ledger)",
    )


#: The rule flags and the `Tolerances` field each sets (``--tolerance-amount`` sets two).
RULE_FLAGS = {
    "fee_base": "--tolerance-fee",
    "days": "--day-window",
    "inferred_seconds": "--time-window",
    "groups": "--groups",
}


def _whole(flag: str) -> Callable[[str], int]:
    def whole(text: str) -> int:
        value = text.strip()
        if not value.isdigit():
            raise argparse.ArgumentTypeError(
                f"{flag} takes a whole number, not {text!r}"
                + (
                    " (money is in base units: R$ 0,05 is 500)"
                    if "." in text or "," in text
                    else ""
                )
            )
        return int(value)

    return whole


def _amount_tolerance(text: str) -> tuple[str, int]:
    """``500`` as ``("amount_base", 500)``; ``0.5%`` (or ``0,5%``) as
    ``("amount_bp", 50)``: a percentage with at most two decimals, exactly."""
    value = text.strip()
    if not value.endswith("%"):
        return "amount_base", _whole("--tolerance-amount")(value)
    whole, _, decimals = value[:-1].strip().replace(",", ".").partition(".")
    if not whole.isdigit() or len(decimals) > 2 or (decimals and not decimals.isdigit()):
        raise argparse.ArgumentTypeError(
            f"--tolerance-amount takes base units (500) or a percentage with at most two"
            f" decimals (0.5%), not {text!r}"
        )
    return "amount_bp", int(whole) * 100 + int(decimals.ljust(2, "0") or "0")


_UNITS = {"s": 1, "min": 60, "h": 3600}


def _seconds(text: str) -> int:
    """``300``, ``300s``, ``5min``, ``1h`` as seconds."""
    value = text.strip().lower()
    for unit, factor in _UNITS.items():
        if value.endswith(unit) and value[: -len(unit)].strip().isdigit():
            return int(value[: -len(unit)]) * factor
    if value.isdigit():
        return int(value)
    raise argparse.ArgumentTypeError(f"--time-window takes seconds (300) or 5min, 1h; not {text!r}")


_FIELDS = (
    "entry_id",
    "reference",
    "amount",
    "direction",
    "fee",
    "status",
    "booked_on",
    "booked_at",
    "document",
    "name",
    "settlement",
    "kind",
)
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


def recon_rules(
    args: argparse.Namespace, ledger: Path | None, mapping_file: Path | None
) -> tuple[Tolerances, Path | None]:
    """The tolerances (the mapping file's ``[tolerances]`` with the flags over them) and
    the review file (``--review-file``, else ``<ledger>.review.csv`` beside the ledger).
    `pixops.recon.LedgerError` names a bad tolerance and where it was given."""
    from dataclasses import replace

    from pixops.recon import LedgerError, ToleranceError, Tolerances, read_tolerances, review_path

    base = Tolerances() if mapping_file is None else read_tolerances(mapping_file)
    given: dict[str, object] = dict(getattr(args, "tolerance_amount", None) or [])
    for field in RULE_FLAGS:
        value = getattr(args, field, None)
        if value is not None:
            given[field] = value
    try:
        tolerances = replace(base, **given)  # type: ignore[arg-type]
    except ToleranceError as error:
        flags = {
            **RULE_FLAGS,
            "amount_base": "--tolerance-amount",
            "amount_bp": "--tolerance-amount",
        }
        named = next((flags[f] for f in given if f in str(error)), "a tolerance flag")
        raise LedgerError(f"{named}: {error}") from None
    review: Path | None = getattr(args, "review_file", None)
    if review is None and ledger is not None:
        review = review_path(ledger)
    return tolerances, review
