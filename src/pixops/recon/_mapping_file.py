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
    OPTIONAL_COLUMNS,
    LedgerError,
    LedgerMapping,
)

__all__ = [
    "MAPPING_SUFFIXES",
    "SECTIONS",
    "find_mapping",
    "mapping_beside",
    "mapping_text",
    "read_mapping",
    "write_mapping",
]

#: The sections of a mapping file and the `LedgerMapping` fields each holds.
SECTIONS: Final[dict[str, tuple[str, ...]]] = {
    "columns": COLUMN_FIELDS,
    "format": FORMAT_FIELDS,
}
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
    kind, a file that is not TOML or YAML)."""
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
    return mapping_from(data if data is not None else {}, str(file))


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
        if key not in SECTIONS:
            known = ", ".join(["version", *SECTIONS])
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


def _value(name: str, section: str, field: str, value: object) -> object:
    """A setting's value: text; ``false`` (or YAML's null) for a column the ledger keeps
    none of."""
    if field in OPTIONAL_COLUMNS and (value is False or value is None):
        return None
    if not isinstance(value, str):
        none = " or false (the ledger keeps none)" if field in OPTIONAL_COLUMNS else ""
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


def mapping_text(mapping: LedgerMapping) -> str:
    """``mapping`` as the text of a TOML mapping file; settings left to detection are
    written as comments."""
    lines = ["# pixops ledger mapping (docs/ledger-mapping.md)", f"version = {VERSION}", ""]
    for section, names in SECTIONS.items():
        lines.append(f"[{section}]")
        for field in names:
            value = getattr(mapping, field)
            if isinstance(value, str):
                lines.append(f"{field} = {_toml_string(value)}")
            elif field in OPTIONAL_COLUMNS:
                lines.append(f"{field} = false  # the ledger keeps none")
            else:
                lines.append(f"# {field}: detected")
        lines.append("")
    return "\n".join(lines)


def write_mapping(mapping: LedgerMapping, path: str | Path) -> Path:
    """Save ``mapping`` as a TOML file at ``path`` (a ``.toml`` name), whole or not at
    all: written beside it and renamed into place."""
    target = Path(path)
    if target.suffix.lower() != ".toml":
        raise LedgerError(f"a mapping is saved as TOML: give a .toml name, not {target.name}")
    if target.is_dir():
        raise LedgerError(f"{target} is a folder: give a file name ending in .toml")
    text = mapping_text(mapping)
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
