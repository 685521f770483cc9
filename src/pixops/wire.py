"""What travels on the wire: key casing, canonical JSON and the body's HMAC.

One implementation for both sides, so the client signs exactly what the
sandbox verifies.

Key casing (header ``X-Key-Case: camelCase``):

* :func:`to_camel` upper-cases an ASCII letter that follows an underscore and a
  letter or digit, dropping that underscore: ``end_to_end_id`` -> ``endToEndId``.
  Leading, doubled and trailing underscores are kept; names without underscores
  (already camelCase) are unchanged.
* :func:`to_snake` is the exact inverse: an ASCII capital that follows a letter
  or digit becomes an underscore and its lower-case letter, so ``endToEndId`` ->
  ``end_to_end_id``. It does not guess acronyms: ``transactionID`` ->
  ``transaction_i_d``, because an acronym-aware rule cannot be inverted
  (``a_a_a`` -> ``aAA`` would come back as ``a_aa``). Names without capitals
  (already snake_case) are unchanged; a leading capital is only lower-cased.
* Hence, for snake_case names made of lower-case words,
  ``to_snake(to_camel(k)) == k``, and for camelCase names whose words start with
  a capital, ``to_camel(to_snake(k)) == k``.

Canonical JSON (what the service sorts before checking the HMAC): keys sorted
by code point at every level, separators ``,`` and ``:``, no whitespace,
non-ASCII characters written as themselves in UTF-8, integers and booleans as
is, floats as Python's ``repr``. NaN and infinities are refused. Money is
never a float.
"""

import hashlib
import hmac
import json
import math
import re
from collections.abc import Callable
from typing import Any, Final, TypeAlias

from pixops.errors import PixopsError

__all__ = [
    "JSON",
    "WireError",
    "body_nests_within",
    "camelize_keys",
    "canonical_json",
    "canonicalize",
    "compact_json",
    "nests_within",
    "sign",
    "snakify_keys",
    "to_camel",
    "to_snake",
    "verify",
]

JSON: TypeAlias = dict[str, "JSON"] | list["JSON"] | str | int | float | bool | None
"""A parsed JSON document (float only because JSON has it; money never uses it)."""

_SNAKE_BOUNDARY = re.compile(r"(?<=[a-zA-Z0-9])_([a-z])")
_CAMEL_BOUNDARY = re.compile(r"(?<=[a-zA-Z0-9])([A-Z])")
_ASCII_LOWER: Final = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_SIGNATURE = re.compile(r"[0-9a-f]{128}")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")


class WireError(PixopsError, ValueError):
    """A body cannot be read or written as the wire format requires."""


def to_camel(name: str) -> str:
    """``end_to_end_id`` -> ``endToEndId``; a name without underscores is unchanged."""
    return _SNAKE_BOUNDARY.sub(lambda match: match.group(1).upper(), name)


def to_snake(name: str) -> str:
    """``endToEndId`` -> ``end_to_end_id``; a name without capitals is unchanged."""
    return _CAMEL_BOUNDARY.sub(r"_\1", name).translate(_ASCII_LOWER)


def camelize_keys(value: JSON) -> JSON:
    """`value` with every object key, at any depth, in camelCase; values untouched.

    WireError if two keys of one object become the same key.
    """
    return _convert_keys(value, to_camel)


def snakify_keys(value: JSON) -> JSON:
    """`value` with every object key, at any depth, in snake_case; values untouched.

    WireError if two keys of one object become the same key.
    """
    return _convert_keys(value, to_snake)


def canonical_json(value: JSON) -> bytes:
    """The canonical UTF-8 bytes of `value` (sorted keys, compact); WireError if impossible."""
    try:
        text = json.dumps(
            value,
            sort_keys=True,
            separators=(",", ":"),
            ensure_ascii=False,
            allow_nan=False,
        )
        return text.encode("utf-8")
    except (TypeError, ValueError, RecursionError) as error:
        raise WireError(f"cannot write canonical JSON: {error}") from None


#: Compact UTF-8 JSON in input key order, built once (no per-call encoder).
_COMPACT_ENCODER: Final = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def compact_json(value: Any) -> bytes:
    """Compact UTF-8 JSON of any JSON value, keys in their own order: the one encoding of
    every body the service answers (the engine's and the HTTP server's own 400s)."""
    return _COMPACT_ENCODER.encode(value).encode("utf-8")


def parse_strict(body: bytes) -> JSON:
    """Parse a JSON body strictly.

    Refused with WireError: invalid UTF-8 (a BOM included), invalid JSON, ``NaN``
    or ``Infinity``, numbers too large for a float, duplicate keys in an
    object, because parsers disagree on which duplicate wins and a signed
    document must mean one thing, and a ``\\uD800``-style escape of a lone
    surrogate in any string or key, because it is not a character (RFC 8259
    section 8.2): no UTF-8 text can hold it, so nothing downstream could store
    or echo it.
    """
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise WireError(f"body is not valid UTF-8: {error}") from None
    try:
        if text.startswith("\ufeff"):
            # What json.loads says; the shared decoder below does not look for a BOM.
            raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
        value: JSON = _STRICT_DECODER.decode(text)
    except json.JSONDecodeError as error:
        raise WireError(f"body is not valid JSON: {error}") from None
    except (ValueError, RecursionError) as error:
        raise WireError(f"body is not acceptable JSON: {error}") from None
    # Surrogates can only come from escapes (the UTF-8 decoder refuses them), and an
    # escaped pair is joined into one character by the parser: any left are lone.
    if _SURROGATE_ESCAPE.search(text) is not None and _holds_surrogate(value):
        raise WireError("body is not valid JSON: a string escapes a lone UTF-16 surrogate")
    return value


def nests_within(value: JSON, limit: int) -> bool:
    """Whether `value` nests objects and arrays at most `limit` levels deep (a bare value
    is level 0, the top object or array level 1); walked with its own stack."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return False
        stack.extend((child, depth + 1) for child in children)
    return True


def body_nests_within(body: bytes, value: JSON, limit: int) -> bool:
    """`nests_within` for `value` parsed from `body`, answered from the text when it holds
    at most `limit` opening brackets (nothing can nest deeper than the brackets it has;
    one inside a string only makes the count larger): a C count instead of a Python walk
    for every ordinary body."""
    if body.count(b"{") + body.count(b"[") <= limit:
        return True
    return nests_within(value, limit)


def canonicalize(body: bytes) -> bytes:
    """Parse a JSON body strictly (see `parse_strict`) and return its canonical bytes."""
    return canonical_json(parse_strict(body))


def sign(body: bytes, secret: str) -> str:
    """Lowercase hex HMAC-SHA512 of `body` keyed with `secret` (UTF-8): the ``hmac`` header."""
    return hmac.new(secret.encode("utf-8"), body, hashlib.sha512).hexdigest()


def verify(body: bytes, secret: str, signature: str) -> bool:
    """Whether `signature` is the HMAC of `body`; constant-time, never raises.

    Only the form the service documents is accepted: exactly 128 lowercase hex
    characters. Anything else (upper case, spaces, another length) is False.
    """
    if not isinstance(signature, str) or _SIGNATURE.fullmatch(signature) is None:
        return False
    return hmac.compare_digest(sign(body, secret), signature)


def _convert_keys(value: JSON, convert: Callable[[str], str]) -> JSON:
    if isinstance(value, dict):
        converted: dict[str, JSON] = {}
        for key, item in value.items():
            new_key = convert(key)
            if new_key in converted:
                raise WireError(f"keys collide after conversion: {key!r} -> {new_key!r}")
            converted[new_key] = _convert_keys(item, convert)
        return converted
    if isinstance(value, list):
        return [_convert_keys(item, convert) for item in value]
    return value


def _holds_surrogate(value: JSON) -> bool:
    """Whether any string or key anywhere in `value` contains a surrogate code point."""
    stack: list[JSON] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item) is not None:
                return True
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _reject_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, item in pairs:
        if key in result:
            raise WireError(f"duplicate key {key!r} in a JSON object")
        result[key] = item
    return result


def _reject_constant(name: str) -> Any:
    raise WireError(f"{name} is not valid JSON")


def _finite_float(text: str) -> float:  # JSON numbers (money is refused as float later)
    value = float(text)
    if math.isinf(value):
        raise WireError(f"the number {text[:40]} is too large for a float")
    return value


#: The strict decoder, built once (json.loads given hooks builds one on every call).
_STRICT_DECODER = json.JSONDecoder(
    object_pairs_hook=_reject_duplicates,
    parse_constant=_reject_constant,
    parse_float=_finite_float,
)
