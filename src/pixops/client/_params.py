"""Argument checks done before anything is sent: money, dates, filters, ids, text.

Money goes in one explicit unit: `amount_centavos=` (an `int`, NumPy's too) or `amount=` (reais as a
`Decimal` or a string such as "12.34"). A float is refused (binary floats cannot hold
centavos exactly), and so is an `int` given as `amount=` (is 1234 reais or centavos?).
"""

from __future__ import annotations

import math
import operator
import re
from datetime import date, datetime
from decimal import Decimal
from typing import Any, Final, SupportsIndex
from urllib.parse import quote

from pixops import ids, limits, money
from pixops.client._errors import ArgumentError
from pixops.schema import STATUS_FILTERS, TYPE_FILTERS
from pixops.schema._formats import REFERENCE_CHARS

__all__ = [
    "DEFAULT_WAIT_SECONDS",
    "MIN_POLL_SECONDS",
    "STATUS_FILTERS",
    "TYPE_FILTERS",
    "check_wait",
    "end_to_end_text",
    "exact_int",
    "ispb_text",
    "lifetime_seconds",
    "list_query",
    "optional_text",
    "page_query",
    "path_id",
    "reference_text",
    "request_centavos",
]

MAX_PER_PAGE: Final = limits.PER_PAGE_MAX
_REFERENCE: Final = re.compile(f"{REFERENCE_CHARS}+")
_ISPB: Final = re.compile(r"[0-9]{8}")
MAX_PAGE: Final = limits.PAGE_MAX
#: The spec's advice: poll a transaction at most every 5 s.
MIN_POLL_SECONDS: Final = 5.0
#: Long enough for a queued cash-out (7200 s retry window) to reach its end.
DEFAULT_WAIT_SECONDS: Final = 7300.0


def _seconds(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        return None
    return float(value)


def check_wait(timeout: object, interval: object) -> None:
    """`wait_until_final`'s timeout (seconds, `math.inf` for no limit) and poll interval."""
    every = _seconds(interval)
    if every is None or every < MIN_POLL_SECONDS or not math.isfinite(every):
        raise ArgumentError(
            f"interval must be a number of seconds, at least {MIN_POLL_SECONDS:g}, not {interval!r}"
        )
    limit = _seconds(timeout)
    if limit is None or limit < 0:
        raise ArgumentError(
            "timeout must be a non-negative number of seconds (math.inf: no limit),"
            f" not {timeout!r}"
        )


def exact_int(value: object) -> int | None:
    """`value` as an int when it is an exact integer (an `int`, or a NumPy or pandas
    integer read from a frame), else None: a bool, float or Decimal is not one."""
    if type(value) is int:  # the common case, first (a bool's type is bool)
        return value
    if isinstance(value, bool | float | Decimal | str):
        return None
    if isinstance(value, int):
        return int(value)
    if not isinstance(value, SupportsIndex) or "bool" in type(value).__name__:
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None


def request_centavos(
    amount_centavos: object = None, amount: object = None, *, required: bool = True
) -> int | None:
    """The request amount in centavos from exactly one of the two explicit forms."""
    if amount_centavos is not None and amount is not None:
        raise ArgumentError("give amount_centavos= or amount=, not both")
    if amount_centavos is not None:
        exact = exact_int(amount_centavos)
        if exact is None:
            raise ArgumentError(
                f"amount_centavos must be an int, got {type(amount_centavos).__name__}"
                " (use amount=Decimal('12.34') for reais)"
            )
        value = exact
    elif amount is not None:
        if isinstance(amount, float):
            raise ArgumentError("amount must not be a float: use Decimal('12.34') or '12.34'")
        if isinstance(amount, (bool, int)):
            raise ArgumentError(
                "amount= takes reais as a Decimal or str; an int is ambiguous"
                " (use amount_centavos= for centavos)"
            )
        if not isinstance(amount, Decimal | str):
            raise ArgumentError(f"amount must be a Decimal or str, got {type(amount).__name__}")
        try:
            value = money.parse_centavos(amount)
        except money.MoneyError as exc:
            raise ArgumentError(f"amount: {exc}") from None
    else:
        if required:
            raise ArgumentError("an amount is required: amount_centavos= (int) or amount= (reais)")
        return None
    if value < 1:
        raise ArgumentError(f"the amount must be at least 1 centavo, got {value}")
    try:
        money.check_int64(money.centavos_to_base(value))
    except money.MoneyError as exc:
        raise ArgumentError(str(exc)) from None
    return value


def optional_text(name: str, value: object, *, max_length: int | None = None) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ArgumentError(f"{name} must be a string, got {type(value).__name__}")
    if max_length is not None and len(value) > max_length:
        raise ArgumentError(f"{name} must be at most {max_length} characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ArgumentError(f"{name} is not valid text (it holds a lone surrogate)") from None
    return value


def required_text(name: str, value: object, *, max_length: int | None = None) -> str:
    text = optional_text(name, value, max_length=max_length)
    if text is None or not text.strip():
        raise ArgumentError(f"{name} is required and must be a non-empty string")
    return text


def path_id(name: str, value: object) -> str:
    """An identifier placed in a URL path, percent-encoded so it stays one segment; `.` and
    `..` are refused, since a URL reads them as "here" and "up" (`/med/../defense` is
    `/defense`), so the request would go to another endpoint."""
    text = required_text(name, value, max_length=512)
    if text.strip() in (".", ".."):
        raise ArgumentError(f"{name} {text!r} is not an identifier")
    return quote(text, safe="")


def reference_text(name: str, value: object, max_length: int, note: str = "") -> str | None:
    """An `external_id` or `tag`: 1 to `max_length` of a-z A-Z 0-9 . _ : - once trimmed
    (the service trims). For cash-out the spec's service drops any other value silently,
    and the payment would carry no reference to reconcile it by."""
    text = optional_text(name, value)
    if text is None:
        return None
    trimmed = text.strip()
    if not trimmed or len(trimmed) > max_length or not _REFERENCE.fullmatch(trimmed):
        raise ArgumentError(
            f"{name} must be 1 to {max_length} of the characters {limits.EXTERNAL_ID_ALPHABET}"
            f" once trimmed, not {text[:40]!r}{note}"
        )
    return text


def ispb_text(name: str, value: object) -> str | None:
    """An institution code (ISPB): 8 digits, as the spec's `recipient_ispb`."""
    text = optional_text(name, value)
    if text is not None and not _ISPB.fullmatch(text):
        raise ArgumentError(f"{name} must be the institution's 8-digit ISPB, not {text[:40]!r}")
    return text


def end_to_end_text(name: str, value: object) -> str | None:
    """A caller's end-to-end ID: E, the ISPB, yyyyMMddHHmm (a real UTC minute), 11
    letters or digits, as the central bank writes it."""
    text = optional_text(name, value)
    if text is not None and not ids.is_strict_end_to_end_id(text):
        raise ArgumentError(
            f"{name} must be E, an 8-character ISPB, yyyyMMddHHmm (UTC) and 11 letters or"
            f" digits (32 characters), not {text[:40]!r}; omit it to get a deterministic one"
        )
    return text


def lifetime_seconds(name: str, value: object, lowest: int, highest: int) -> int | None:
    """A whole number of seconds from `lowest` to `highest` (a bool or float refused)."""
    if value is None:
        return None
    seconds = exact_int(value)
    if seconds is None or not lowest <= seconds <= highest:
        raise ArgumentError(
            f"{name} must be an int number of seconds from {lowest} to {highest}, not {value!r}"
        )
    return seconds


def _day(name: str, value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        raise ArgumentError(f"{name} is a UTC calendar day: pass a date, not a datetime")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, str):
        try:
            return date.fromisoformat(value).isoformat() if len(value) == 10 else _bad_day(name)
        except ValueError:
            return _bad_day(name)
    raise ArgumentError(f"{name} must be a datetime.date or 'YYYY-MM-DD'")


def _bad_day(name: str) -> str:
    raise ArgumentError(f"{name} must be a calendar date written YYYY-MM-DD")


def _bounded(name: str, value: object, upper: int) -> int:
    exact = exact_int(value)
    if exact is None or not 1 <= exact <= upper:
        raise ArgumentError(f"{name} must be an int from 1 to {upper}, not {value!r}")
    return exact


def page_query(page: object = 1, per_page: object = 20) -> dict[str, str]:
    """`per_page` always (the termination rule reads it, so it is never left to a
    default) and `page` when it is not the spec's default 1: the query a careful raw
    caller writes, and one parameter less for both sides to encode and read."""
    number = _bounded("page", page, MAX_PAGE)
    query = {"per_page": str(_bounded("per_page", per_page, MAX_PER_PAGE))}
    if number != 1:
        query["page"] = str(number)
    return query


def list_query(
    *,
    page: object = 1,
    per_page: object = 20,
    status: object = None,
    type: object = None,
    date_from: object = None,
    date_to: object = None,
) -> dict[str, str]:
    """The statement's query string, checked: every bad value is named at once."""
    query = page_query(page, per_page)
    if status is not None:
        if status not in STATUS_FILTERS:
            raise ArgumentError(f"status must be one of {', '.join(STATUS_FILTERS)}")
        query["status"] = str(status)
    if type is not None:
        if type not in TYPE_FILTERS:
            raise ArgumentError(f"type must be one of {', '.join(TYPE_FILTERS)}")
        query["type"] = str(type)
    start, end = _day("date_from", date_from), _day("date_to", date_to)
    if start and end and start > end:
        raise ArgumentError("date_from must not be after date_to")
    if start:
        query["date_from"] = start
    if end:
        query["date_to"] = end
    return query


def filters_of(options: dict[str, Any]) -> dict[str, Any]:
    """Only the known list filters; an unknown keyword is an error, not ignored."""
    known = {"status", "type", "date_from", "date_to", "per_page", "page"}
    unknown = sorted(set(options) - known)
    if unknown:
        raise ArgumentError(
            f"unknown filter(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
        )
    return options
