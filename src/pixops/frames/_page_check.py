"""What DuckDB's JSON reader would let through, found in the raw page bytes.

DuckDB turns a JSON number, boolean, object or array into its text when the target
column is text, and it accepts a trailing comma. One RE2 pass over the raw bodies
(Arrow's regex kernel, no Python per row) flags every page where that could have
happened; only flagged pages are read again with ``json.loads`` to find the exact
item and field, so a false alarm (e.g. an unknown nested object with an ``id`` key)
costs one page's decoding and nothing else.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

import pyarrow as pa
import pyarrow.compute as pc

from pixops.frames._schema import STATEMENT_SCHEMA, WIRE_RENAMES

__all__ = [
    "MONEY_FIELDS",
    "STRING_FIELDS",
    "TIME_FIELDS",
    "PageParseError",
    "check_suspect_pages",
    "suspect_pages",
]


class PageParseError(ValueError):
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
#: Times are text on the wire too (converted later, where a number would only fail
#: with a less helpful message).
TIME_FIELDS: Final = _wire_fields(pa.types.is_timestamp)
#: Money: JSON integers only (`_page_sql` reads them as JSON text).
MONEY_FIELDS: Final = _wire_fields(pa.types.is_integer)
_TEXT_FIELDS: Final = STRING_FIELDS + TIME_FIELDS

#: Any of: a string field whose value starts with something other than a quote or the
#: ``n`` of null; a key written with an escape (``"\u0069d"`` is ``id`` to a JSON reader,
#: so the first alternative would miss it); a comma before a closing bracket. Matches
#: inside string values are possible (false alarms), misses are not.
_SUSPECT: Final = "|".join(
    [
        r'"(?:' + "|".join(_TEXT_FIELDS) + r')"\s*:\s*[^"\sn]',
        r'\\.(?:[^"\\]|\\.)*"\s*:',
        r",\s*[\]}]",
    ]
)


def suspect_pages(bodies: pa.Array) -> list[int]:
    """Indices (into ``bodies``) of the pages that need the exact check."""
    flags = pc.match_substring_regex(bodies, _SUSPECT)
    return [int(index) for index in pc.indices_nonzero(flags).to_pylist()]


def check_suspect_pages(bodies: pa.Array, suspects: list[int], first_number: int) -> None:
    """Raise `PageParseError` naming the page, item and field if a flagged page is bad.

    ``first_number`` is the 1-based number of ``bodies[0]`` among all pages.
    """
    for index in suspects:
        _check_page(bodies[index].as_py(), first_number + index)


def _check_page(body: str, number: int) -> None:
    try:
        page = json.loads(body, object_pairs_hook=_unique_keys, parse_constant=_no_constant)
    except (ValueError, RecursionError) as error:
        raise PageParseError(f"page {number} is not valid JSON: {error}") from None
    items = page.get("data") if isinstance(page, dict) else None
    if not isinstance(items, list):
        return  # the reader reports a page without a data list
    for position, item in enumerate(items, start=1):
        if not isinstance(item, dict):
            continue  # the reader reports an item that is not an object
        for name in _TEXT_FIELDS:
            value = item.get(name)
            if value is not None and not isinstance(value, str):
                raise PageParseError(
                    f"page {number}, item {position}: {name!r} is a JSON"
                    f" {_json_type(value)} ({json.dumps(value)[:40]}), not a string"
                )


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):
        repeated = sorted({key for key in keys if keys.count(key) > 1})
        raise ValueError(f"repeated keys {repeated}")
    return dict(pairs)


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def _json_type(value: object) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, list):
        return "array"
    return "object"
