"""Where a ledger's cells come from: a CSV file read as text (its encoding and separator
detected or given), a Parquet file, or a frame; and the columns taken from it by name.

Every CSV cell is read as text: money and ids never pass through float or int guessing.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq

from pixops.recon._arrow import frame_table
from pixops.recon._encoding import UTF8, csv_encoding, not_text_message
from pixops.recon._mapping import ENCODINGS, SEPARATORS, LedgerError, LedgerMapping

__all__ = ["Source", "column_of", "is_text", "ledger_source", "text_column"]

_BOM: Final = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class Source:
    """The ledger's cells as read, with where they came from: ``kind`` is ``csv``,
    ``parquet`` or ``frame`` (a cell is a line of a CSV file, a row otherwise)."""

    table: pa.Table
    kind: str
    separator: str | None = None
    encoding: str | None = None

    def where(self, index: int) -> str:
        """The cell at ``index`` (0-based) as people find it: line n (the header is line
        1) of a CSV file, row n of anything else."""
        return f"line {index + 2}" if self.kind == "csv" else f"row {index + 1}"


def ledger_source(source: object, mapping: LedgerMapping) -> Source:
    if isinstance(source, pa.Table):
        return Source(source, "frame")
    if isinstance(source, pd.DataFrame):
        return Source(_from_pandas(source, "ledger"), "frame")
    if isinstance(source, (str, Path)):
        path = Path(source)
        if path.is_dir():
            raise LedgerError(f"{path} is a folder, not a ledger file")
        if not path.is_file():
            raise LedgerError(f"no such ledger file: {path}")
        suffix = path.suffix.lower()
        try:
            if suffix == ".parquet":
                return Source(pq.read_table(path), "parquet")
            if suffix in (".csv", ".txt"):
                return _read_csv(path, mapping)
        except (pa.ArrowInvalid, OSError) as error:
            raise LedgerError(f"cannot read {path}: {error}") from None
        raise LedgerError(f"ledger must be .csv or .parquet, not {path.name}")
    raise LedgerError(f"ledger must be a path, a DataFrame or a pyarrow.Table, not {source!r}")


def _from_pandas(frame: pd.DataFrame, what: str) -> pa.Table:
    """The frame as Arrow; a column Arrow cannot type (mixed values) is named, not leaked."""
    return frame_table(frame, what, LedgerError)


def _encoding_of(path: Path, mapping: LedgerMapping) -> str:
    given = None if mapping.encoding is None else ENCODINGS[mapping.encoding]
    try:
        return csv_encoding(path, given)
    except UnicodeDecodeError as error:
        if given is None:
            raise LedgerError(not_text_message(path, error)) from error
        other = "windows-1252" if mapping.encoding == "utf-8" else "utf-8"
        raise LedgerError(
            f"{path} is not {mapping.encoding} text (it holds the byte"
            f" 0x{error.object[error.start]:02x}): give encoding {other}, or leave it out"
            " to detect it"
        ) from error


def _separator_of(header: str, path: Path, mapping: LedgerMapping) -> str:
    """The separator given, else the one the header line uses most; a header using two
    of them as often is asked about, not guessed."""
    if mapping.separator is not None:
        return SEPARATORS[mapping.separator]
    counts = sorted(((header.count(sep), name) for name, sep in SEPARATORS.items()), reverse=True)
    (most, name), (next_most, other) = counts[0], counts[1]
    if most and most == next_most:
        raise LedgerError(
            f"{path}: the header line holds as many {name}s as {other}s: say which separates"
            f" the fields (--separator {name} or {other}; separator in a mapping file)"
        )
    return SEPARATORS[name] if most else ","


def _read_csv(path: Path, mapping: LedgerMapping) -> Source:
    """Every cell as text: money and ids never pass through float or int guessing. The
    text is UTF-8 or, failing that, Windows-1252 (Excel's plain "CSV" in Brazil; a byte
    order mark before it is skipped too); the separator is the one the header line uses
    most."""
    encoding = _encoding_of(path, mapping)
    with path.open("rb") as raw:
        skip = len(_BOM) if raw.read(len(_BOM)) == _BOM else 0
        raw.seek(skip)
        header = raw.readline().decode(encoding)
        header_only = raw.read(1) == b""
    separator = _separator_of(header, path, mapping)
    encoding_name = next(name for name, codec in ENCODINGS.items() if codec == encoding)
    separator_name = next(name for name, sep in SEPARATORS.items() if sep == separator)
    names = next(csv.reader([header.lstrip("\ufeff")], delimiter=separator), [])
    if not names:
        raise LedgerError(f"{path} has no header row")
    if header_only:  # Arrow cannot read a header alone without its line end
        table = pa.Table.from_arrays([pa.array([], pa.string()) for _ in names], names=names)
        return Source(table, "csv", separator_name, encoding_name)
    try:
        with path.open("rb") as raw:
            raw.seek(0 if encoding == UTF8 else skip)  # Arrow skips a UTF-8 mark itself
            table = pa_csv.read_csv(
                raw,
                # Arrow reads UTF-8 itself; other text it recodes.
                read_options=pa_csv.ReadOptions(encoding="utf8" if encoding == UTF8 else encoding),
                parse_options=pa_csv.ParseOptions(delimiter=separator),
                convert_options=pa_csv.ConvertOptions(
                    column_types={name: pa.string() for name in names},
                    strings_can_be_null=True,
                ),
            )
    except pa.ArrowInvalid as error:
        uneven = _UNEVEN_ROW.match(str(error))
        if uneven is None:
            raise
        expected, got, text = uneven.groups()
        quoted = "a comma" if separator == "," else repr(separator)
        raise LedgerError(
            f"{path}: a line has {got} fields where the header has {expected}"
            f" ({text[:60]!r}); a field that holds {quoted} needs double quotes"
        ) from None
    return Source(table, "csv", separator_name, encoding_name)


#: How Arrow's CSV reader words a row of the wrong width.
_UNEVEN_ROW: Final = re.compile(r"CSV parse error: Expected (\d+) columns, got (\d+): (.*)", re.S)


def column_of(table: pa.Table, name: str, empty: pa.DataType) -> pa.ChunkedArray:
    """The column ``name``; one of Arrow's null type (a frame's column of None only) is
    read as empty cells of type ``empty``, as the same column of a CSV file is."""
    found = table.column_names.count(name)
    if not found:
        raise LedgerError(
            f"ledger has no column {name!r} (its columns: {', '.join(table.column_names)})"
        )
    if found > 1:
        raise LedgerError(f"ledger has {found} columns named {name!r}; which one is meant?")
    column = table.column(name)
    if pa.types.is_null(column.type):
        return pa.chunked_array([pa.nulls(table.num_rows, empty)], type=empty)
    return column


def text_column(table: pa.Table, name: str, trim: bool = True) -> pa.Array:
    """The column as text; from files, surrounding whitespace removed (spreadsheets add it)."""
    column = column_of(table, name, pa.string())
    if not (
        pa.types.is_integer(column.type)
        or pa.types.is_string(column.type)
        or pa.types.is_large_string(column.type)
        or pa.types.is_dictionary(column.type)
    ):
        raise LedgerError(f"column {name!r} must be text, not {column.type}")
    text = column.cast(pa.string()).combine_chunks()
    return pc.utf8_trim_whitespace(text) if trim else text


def is_text(column: pa.ChunkedArray) -> bool:
    return bool(pa.types.is_string(column.type) or pa.types.is_large_string(column.type))
