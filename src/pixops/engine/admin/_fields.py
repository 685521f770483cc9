"""Reading a test helper's JSON body: typed fields, bounded strings, unknown fields refused.

Every reader raises `ApiError` with the engine's business shape (`errors.bad_request`),
so a helper never acts on a body it did not fully understand.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from pixops import wire
from pixops.engine.http import ApiError, JSONObject, bad_request
from pixops.limits import BODY_MAX_DEPTH

MAX_CENTAVOS = 10**15
"""Largest amount a helper accepts: R$ 10 trillion, far inside int64 once in base units."""


def parse_body(raw: bytes, allowed: Iterable[str]) -> JSONObject:
    """The body as a JSON object (empty body: `{}`), with only `allowed` field names."""
    if not raw.strip():
        return {}
    try:
        parsed = wire.parse_strict(raw)
    except wire.WireError as error:
        raise bad_request(f"Request body must be valid JSON: {error}") from None
    if not isinstance(parsed, dict):
        raise bad_request("Request body must be a JSON object")
    if not _plain(parsed, BODY_MAX_DEPTH):
        raise bad_request(
            f"Request body must be valid JSON: no lone surrogates, at most {BODY_MAX_DEPTH} levels"
        )
    unknown = sorted(set(parsed) - set(allowed))
    if unknown:
        known = ", ".join(sorted(allowed)) or "none"
        raise bad_request(
            {name: [f"unknown field; this helper takes: {known}"] for name in unknown}
        )
    return parsed


def _plain(value: Any, depth: int) -> bool:
    """No lone surrogate in any string or key (they cannot be stored or echoed as UTF-8)."""
    if depth < 0:
        return False
    if isinstance(value, str):
        return _encodable(value)
    if isinstance(value, dict):
        return all(_encodable(key) and _plain(item, depth - 1) for key, item in value.items())
    if isinstance(value, list):
        return all(_plain(item, depth - 1) for item in value)
    return True


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _field_error(name: str, message: str) -> ApiError:
    return bad_request({name: [message]})


def text(body: JSONObject, name: str, *, max_chars: int, required: bool = False) -> str | None:
    """A string field of 1 to `max_chars` characters after trimming (None when absent)."""
    value = body.get(name)
    if value is None:
        if required:
            raise _field_error(name, "is required")
        return None
    if not isinstance(value, str):
        raise _field_error(name, "must be a string")
    trimmed = value.strip()
    if not trimmed:
        raise _field_error(name, "must not be empty")
    if len(trimmed) > max_chars:
        raise _field_error(name, f"must be at most {max_chars} characters")
    return trimmed


def integer(
    body: JSONObject, name: str, *, minimum: int, maximum: int, required: bool = False
) -> int | None:
    """An integer field within [minimum, maximum] (None when absent); never a float."""
    value = body.get(name)
    if value is None:
        if required:
            raise _field_error(name, "is required")
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise _field_error(name, "must be an integer")
    if not minimum <= value <= maximum:
        raise _field_error(name, f"must be between {minimum} and {maximum}")
    return value


def amount_centavos(body: JSONObject, name: str = "amount", *, required: bool) -> int | None:
    """An amount in centavos, as every request of the API carries money: 1 to MAX_CENTAVOS."""
    return integer(body, name, minimum=1, maximum=MAX_CENTAVOS, required=required)


def flag(body: JSONObject, name: str, *, default: bool) -> bool:
    """A JSON boolean field (`default` when absent)."""
    value = body.get(name)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise _field_error(name, "must be true or false")
    return value


def texts(body: JSONObject, name: str, *, max_items: int, max_chars: int) -> tuple[str, ...] | None:
    """A list of non-empty strings (None when absent); entries are kept as written."""
    value = body.get(name)
    if value is None:
        return None
    if not isinstance(value, list) or len(value) > max_items:
        raise _field_error(name, f"must be a list of at most {max_items} strings")
    for entry in value:
        if not isinstance(entry, str) or not entry or len(entry) > max_chars:
            raise _field_error(name, f"entries must be strings of 1 to {max_chars} characters")
    return tuple(value)


def choice(body: JSONObject, name: str, options: tuple[str, ...], *, default: str) -> str:
    """One of `options` (`default` when absent); any other value is named in the error."""
    value = body.get(name)
    if value is None:
        return default
    if not isinstance(value, str) or value not in options:
        raise _field_error(name, f"must be one of {', '.join(options)}")
    return value


def timestamp(body: JSONObject, name: str) -> datetime | None:
    """An ISO 8601 instant with its offset (`Z` or `+hh:mm`); None when absent."""
    value = body.get(name)
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > 40:
        raise _field_error(name, "must be an ISO 8601 timestamp such as 2026-12-31T23:59:59Z")
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise _field_error(
            name, "must be an ISO 8601 timestamp such as 2026-12-31T23:59:59Z"
        ) from None
    if moment.tzinfo is None:
        raise _field_error(name, "must carry its UTC offset (end it with Z)")
    return moment
