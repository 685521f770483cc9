"""What DuckDB's JSON reader would let through, checked after it has read the pages.

DuckDB turns a JSON number, boolean, object or array into its text when the target
column is text, and it accepts a trailing comma. So every text field is read as its JSON
text (`_page_sql`): a JSON string is the one value whose text starts with a quote, and
`json_strings` checks that first byte of every value and drops the quotes, with no
Python per row. A trailing comma is found by one RE2 pass over the raw bodies; only the
pages it flags are decoded again with ``json.loads``, so a false alarm (``",]"`` inside
a string) costs one page's decoding and nothing else.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Final

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pixops.errors import PixopsError
from pixops.frames._schema import STATEMENT_SCHEMA, WIRE_RENAMES

__all__ = [
    "MONEY_FIELDS",
    "STRING_FIELDS",
    "TIME_FIELDS",
    "PageParseError",
    "check_suspect_pages",
    "json_strings",
    "suspect_pages",
]


class PageParseError(PixopsError, ValueError):
    """A page body is not a statement page (bad JSON, a wrong type, no ``data`` list)."""


def _wire_fields(kind: Callable[[pa.DataType], bool]) -> tuple[str, ...]:
    """The wire names of the declared statement columns whose type is of `kind`."""
    return tuple(
        _FRAME_TO_WIRE.get(field.name, field.name) for field in STATEMENT_SCHEMA if kind(field.type)
    )


_FRAME_TO_WIRE: Final = {frame: wire for wire, frame in WIRE_RENAMES.items()}
#: Wire fields read as text (plain or categorical): the value must be a JSON string or null.
STRING_FIELDS: Final = _wire_fields(
    lambda kind: pa.types.is_string(kind) or pa.types.is_dictionary(kind)
)
#: Times are JSON strings on the wire too, converted once they are text.
TIME_FIELDS: Final = _wire_fields(pa.types.is_timestamp)
#: Money: JSON integers only (`_page_sql` reads them as JSON text).
MONEY_FIELDS: Final = _wire_fields(pa.types.is_integer)

#: A comma before a closing bracket, whatever the spacing. Matches inside string values
#: are possible (false alarms), misses are not.
_SUSPECT: Final = r",\s*[\]}]"
_QUOTE: Final = ord('"')
_BACKSLASH: Final = ord("\\")
_JSON_KINDS: Final = {"t": "boolean", "f": "boolean", "[": "array", "{": "object"}


def suspect_pages(bodies: pa.Array) -> list[int]:
    """Indices (into ``bodies``) of the pages that need the exact check."""
    flags = pc.match_substring_regex(bodies, _SUSPECT)
    return [int(index) for index in pc.indices_nonzero(flags).to_pylist()]


def check_suspect_pages(bodies: pa.Array, suspects: list[int], first_number: int) -> None:
    """Raise `PageParseError` naming the page if a flagged page is not strict JSON.

    ``first_number`` is the 1-based number of ``bodies[0]`` among all pages.
    """
    for index in suspects:
        try:
            json.loads(bodies[index].as_py(), parse_constant=_no_constant)
        except (ValueError, RecursionError) as error:
            raise PageParseError(
                f"page {first_number + index} is not valid JSON: {error}"
            ) from None


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def json_strings(texts: pa.Array, wire: str, pages: pa.ChunkedArray) -> pa.Array:
    """The strings of ``texts``, each the JSON text of one value (as DuckDB writes it).

    ``pages`` numbers the page of each row. A value that is not a JSON string raises
    `PageParseError` naming its page, item and field. DuckDB's JSON writer escapes only
    a quote, a backslash and control characters (``\u00e9`` comes back as ``é``), so the
    quotes are simply dropped, and the few values with a backslash are decoded.
    """
    offsets = np.frombuffer(
        texts.buffers()[1], dtype=np.int32, count=len(texts) + 1, offset=texts.offset * 4
    )
    data = texts.buffers()[2]
    text = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8)
    starts = offsets[:-1]
    if texts.null_count:
        starts = starts[texts.is_valid().to_numpy(zero_copy_only=False)]
    not_quoted = np.flatnonzero(text[starts] != _QUOTE)
    if len(not_quoted):
        _refuse(texts, int(not_quoted[0]), wire, pages)
    strings: pa.Array = pc.binary_slice(texts.view(pa.binary()), 1, -1).view(pa.string())
    backslashes = text[offsets[0] : offsets[-1]] == _BACKSLASH
    if backslashes.any():
        where = np.flatnonzero(backslashes) + offsets[0]
        rows = np.unique(np.searchsorted(offsets, where, side="right") - 1)
        mask = np.zeros(len(texts), dtype=bool)
        mask[rows] = True
        decoded = [json.loads(texts[int(row)].as_py()) for row in rows]
        strings = pc.replace_with_mask(strings, mask, pa.array(decoded, pa.string()))
    return strings


def _refuse(texts: pa.Array, valid_index: int, wire: str, pages: pa.ChunkedArray) -> None:
    """Raise for the ``valid_index``-th non-null value of ``texts`` (not a JSON string)."""
    row = int(pc.indices_nonzero(texts.is_valid())[valid_index].as_py())
    page = pages[row].as_py()
    item = row - int(pc.index(pages, page).as_py()) + 1
    value = str(texts[row].as_py())
    kind = _JSON_KINDS.get(value[:1], "number")
    raise PageParseError(
        f"page {page}, item {item}: {wire!r} is a JSON {kind} ({value[:40]}), not a string"
    )
