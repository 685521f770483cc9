"""A ledger mapping as a file: TOML (or YAML), read strictly and written back exactly.

    # pixops ledger mapping (docs/ledger-mapping.md)
    version = 1

    [columns]
    entry_id = "Documento"
    reference = "Referência"
    amount = "Valor"
    direction = false        # none: the sign of the amount says it
    fee = "Tarifa"
    status = "Situação"
    booked_on = "Data"

    [format]                 # a setting left out is detected and stated
    amount_unit = "reais"
    decimal = "comma"
    date_format = "dd/mm/yyyy"
    separator = "semicolon"
    encoding = "windows-1252"

    [tolerances]             # the rules beyond identifiers (docs/reconciliation-rules.md)
    amount_base = 500        # base units (R$ 0,05)
    days = 1
    inferred_seconds = 300   # false: no inferred pairs

Every section and key is known: anything else is refused naming it and the known ones,
so a typo never reads as "detect". A later setting gets its key in `SECTIONS` and a field
of `LedgerMapping`. Saved beside the ledger as ``<ledger>.mapping.toml``
(`mapping_beside`), it is found by the next run (`find_mapping`).
"""

from __future__ import annotations

import os
import tempfile
import tomllib
from pathlib import Path
from typing import Final

import yaml

from pixops.recon._mapping import (
    COLUMN_FIELDS,
    FORMAT_FIELDS,
    MATCH_WITHOUT_REFERENCE,
    OPTIONAL_COLUMNS,
    LedgerError,
    LedgerMapping,
)
from pixops.recon._tolerances import ToleranceError, Tolerances

__all__ = [
    "MAPPING_SUFFIXES",
    "SECTIONS",
    "find_mapping",
    "mapping_beside",
    "mapping_text",
    "read_mapping",
    "read_tolerances",
    "tolerances_from",
    "write_mapping",
]

#: The sections of a mapping file and the `LedgerMapping` fields each holds.
SECTIONS: Final[dict[str, tuple[str, ...]]] = {
    "columns": (*COLUMN_FIELDS, *MATCH_WITHOUT_REFERENCE),
    "format": FORMAT_FIELDS,
}
#: The ``[tolerances]`` section: `Tolerances`' fields (read by `read_tolerances`).
TOLERANCE_KEYS: Final = (
    "amount_base",
    "amount_bp",
    "fee_base",
    "days",
    "inferred_seconds",
    "groups",
)
#: Columns a mapping file may say the ledger keeps none of (``false``).
_NONE_ALLOWED: Final = (*OPTIONAL_COLUMNS, *MATCH_WITHOUT_REFERENCE)
VERSION: Final = 1
#: The names a mapping file may have, in the order `find_mapping` looks for them.
MAPPING_SUFFIXES: Final = (".mapping.toml", ".mapping.yaml", ".mapping.yml")
_MAX_BYTES: Final = 1 << 20


def mapping_beside(ledger: str | Path) -> Path:
    """Where the mapping of ``ledger`` is saved: ``razao.csv`` -> ``razao.mapping.toml``."""
    path = Path(ledger)
    return path.with_name(path.stem + MAPPING_SUFFIXES[0])


def find_mapping(ledger: str | Path) -> Path | None:
    """The mapping file saved beside ``ledger`` (TOML, else YAML), or None."""
    path = Path(ledger)
    for suffix in MAPPING_SUFFIXES:
        candidate = path.with_name(path.stem + suffix)
        if candidate.is_file():
            return candidate
    return None


def read_mapping(path: str | Path) -> LedgerMapping:
    """The `LedgerMapping` a TOML (``.toml``) or YAML (``.yaml``, ``.yml``) file says;
    `LedgerError` naming the file and what is wrong (an unknown key, a value of the wrong
    kind, a file that is not TOML or YAML). Its ``[tolerances]`` are checked too
    (`read_tolerances` returns them)."""
    data, name = _file_data(path)
    return mapping_from(data, name)


def read_tolerances(path: str | Path) -> Tolerances:
    """The `Tolerances` of a mapping file's ``[tolerances]`` section (the exact defaults
    without one); `LedgerError` naming the file and the entry that is wrong."""
    data, name = _file_data(path)
    mapping_from(data, name)  # the whole file must read, as every run reads it
    return tolerances_from(data, name)


def _file_data(path: str | Path) -> tuple[object, str]:
    """A mapping file's parsed text and its name for messages."""
    file = Path(path)
    if not file.is_file():
        raise LedgerError(f"no such mapping file: {file}")
    suffix = file.suffix.lower()
    if suffix not in (".toml", ".yaml", ".yml"):
        raise LedgerError(f"mapping file {file.name} must be .toml, .yaml or .yml")
    try:
        if file.stat().st_size > _MAX_BYTES:
            raise LedgerError(f"mapping file {file} is over 1 MB: it is not a mapping")
        text = file.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise LedgerError(f"mapping file {file} is not UTF-8 text") from None
    except OSError as error:
        raise LedgerError(f"cannot read {file}: {error.strerror or error}") from None
    try:
        data = tomllib.loads(text) if suffix == ".toml" else yaml.safe_load(text)
    except tomllib.TOMLDecodeError as error:
        raise LedgerError(f"mapping file {file} is not TOML: {error}") from None
    except yaml.YAMLError as error:
        where = getattr(error, "problem_mark", None)
        at = f" (line {where.line + 1})" if where is not None else ""
        raise LedgerError(f"mapping file {file} is not YAML{at}") from None
    return (data if data is not None else {}), str(file)


def mapping_from(data: object, name: str = "mapping") -> LedgerMapping:
    """A `LedgerMapping` from a file's sections (`SECTIONS`); strict about every key."""
    if not isinstance(data, dict):
        raise LedgerError(f"{name}: expected sections [columns] and [format], not {data!r}")
    settings: dict[str, object] = {}
    for key, value in data.items():
        if key == "version":
            if value != VERSION:
                raise LedgerError(f"{name}: version {value!r} is not one this pixops reads (1)")
            continue
        if key == "tolerances":
            tolerances_from(data, name)  # a bad tolerance is an error on every read
            continue
        if key not in SECTIONS:
            known = ", ".join(["version", *SECTIONS, "tolerances"])
            raise LedgerError(f"{name}: unknown key {key!r} (known: {known})")
        if not isinstance(value, dict):
            raise LedgerError(f"{name}: [{key}] must be a section of settings")
        for field, setting in value.items():
            if field not in SECTIONS[key]:
                raise LedgerError(
                    f"{name}: unknown key {key}.{field} (known in [{key}]:"
                    f" {', '.join(SECTIONS[key])})"
                )
            settings[field] = _value(name, key, field, setting)
    return LedgerMapping(**settings)  # type: ignore[arg-type]


def tolerances_from(data: object, name: str = "mapping") -> Tolerances:
    """The `Tolerances` of a mapping file's ``[tolerances]`` section (the defaults, exact,
    without one); every key known and every value a whole number (``groups`` true or
    false, ``inferred_seconds`` false for none), else `LedgerError` naming the entry."""
    section = data.get("tolerances", {}) if isinstance(data, dict) else {}
    if not isinstance(section, dict):
        raise LedgerError(f"{name}: [tolerances] must be a section of settings")
    settings: dict[str, object] = {}
    for key, value in section.items():
        if key not in TOLERANCE_KEYS:
            raise LedgerError(
                f"{name}: unknown key tolerances.{key} (known in [tolerances]:"
                f" {', '.join(TOLERANCE_KEYS)})"
            )
        if key == "inferred_seconds" and (value is False or value is None):
            continue
        settings[key] = value
    try:
        return Tolerances(**settings)  # type: ignore[arg-type]
    except ToleranceError as error:
        raise LedgerError(f"{name}: [tolerances] {error}") from None


def _value(name: str, section: str, field: str, value: object) -> object:
    """A setting's value: text; ``false`` (or YAML's null) for a column the ledger keeps
    none of."""
    if field in _NONE_ALLOWED and (value is False or value is None):
        return None
    if not isinstance(value, str):
        none = " or false (the ledger keeps none)" if field in _NONE_ALLOWED else ""
        raise LedgerError(f"{name}: {section}.{field} must be text{none}, not {value!r}")
    return value


def _toml_string(text: str) -> str:
    """``text`` as a TOML basic string (quotes, backslashes and control characters
    escaped)."""
    out = []
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def mapping_text(mapping: LedgerMapping, tolerances: Tolerances | None = None) -> str:
    """``mapping`` as the text of a TOML mapping file; settings left to detection are
    written as comments, rules columns the ledger keeps none of left out, and
    ``tolerances`` (unless None or exact) as a ``[tolerances]`` section."""
    lines = ["# pixops ledger mapping (docs/ledger-mapping.md)", f"version = {VERSION}", ""]
    for section, names in SECTIONS.items():
        lines.append(f"[{section}]")
        for field in names:
            value = getattr(mapping, field)
            if isinstance(value, str):
                lines.append(f"{field} = {_toml_string(value)}")
            elif field in MATCH_WITHOUT_REFERENCE:
                continue
            elif field in OPTIONAL_COLUMNS:
                lines.append(f"{field} = false  # the ledger keeps none")
            else:
                lines.append(f"# {field}: detected")
        lines.append("")
    if tolerances is not None and not tolerances.exact:
        lines.append("[tolerances]  # docs/reconciliation-rules.md")
        for key, setting in tolerances.as_dict().items():
            if setting is None:
                continue
            text = str(setting).lower() if isinstance(setting, bool) else str(setting)
            lines.append(f"{key} = {text}")
        lines.append("")
    return "\n".join(lines)


def write_mapping(
    mapping: LedgerMapping, path: str | Path, tolerances: Tolerances | None = None
) -> Path:
    """Save ``mapping`` (and ``tolerances``, unless exact) as a TOML file at ``path`` (a
    ``.toml`` name), whole or not at all: written beside it and renamed into place.
    ``tolerances`` None keeps the ``[tolerances]`` the file already has (the dashboard's
    mapping panel saving columns never drops them)."""
    target = Path(path)
    if target.suffix.lower() != ".toml":
        raise LedgerError(f"a mapping is saved as TOML: give a .toml name, not {target.name}")
    if target.is_dir():
        raise LedgerError(f"{target} is a folder: give a file name ending in .toml")
    if tolerances is None and target.is_file():
        try:
            tolerances = read_tolerances(target)
        except LedgerError:
            tolerances = None  # replaced whole: the file as it was did not read
    text = mapping_text(mapping, tolerances)
    try:
        handle = tempfile.NamedTemporaryFile(  # noqa: SIM115 (closed below, then renamed)
            "w",
            encoding="utf-8",
            dir=target.parent,
            prefix=f".{target.name}.",
            suffix=".partial",
            delete=False,
        )
        try:
            with handle:
                handle.write(text)
            os.chmod(handle.name, 0o644)
            os.replace(handle.name, target)
        except BaseException:
            Path(handle.name).unlink(missing_ok=True)
            raise
    except OSError as error:
        raise LedgerError(f"cannot write {target}: {error.strerror or error}") from None
    return target
