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
from typing import Any, Final

import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["STRING_FIELDS", "TIME_FIELDS", "PageParseError", "check_suspect_pages", "suspect_pages"]


class PageParseError(ValueError):
    """A page body is not a statement page (bad JSON, a wrong type, no ``data`` list)."""


#: Wire fields read as text: the value must be a JSON string or null.
STRING_FIELDS: Final = (
    "id",
    "transaction_id",
    "end_to_end_id",
    "external_id",
    "tag",
    "type",
    "status",
    "payment_status",
    "direction",
    "description",
    "counterparty_name",
    "recipient_key",
    "payer_document",
    "recipient_document",
    "payer_ispb",
    "payer_bank_name",
    "original_transaction_id",
)
#: Times are text on the wire too (converted later, where a number would only fail
#: with a less helpful message).
TIME_FIELDS: Final = ("created_at", "completed_at")
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
