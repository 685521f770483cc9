"""Query parameters of the list routes: pages, statement filters, every problem at once."""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from datetime import date
from typing import Final

from pixops import limits, wire
from pixops.engine.http import bad_request

DEFAULT_PER_PAGE: Final = limits.PER_PAGE_DEFAULT
MAX_PER_PAGE: Final = limits.PER_PAGE_MAX
MAX_PAGE: Final = limits.PAGE_MAX
STATUS_FILTERS: Final = ("settled", "rejected", "failed", "processing")
TYPE_FILTERS: Final = ("pix", "ted", "internal")
PAGE_PARAMETERS: Final = frozenset({"page", "per_page"})
LIST_PARAMETERS: Final = PAGE_PARAMETERS | {"status", "type", "date_from", "date_to"}

_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_INTEGER = re.compile(r"[0-9]{1,10}")


@dataclass(frozen=True)
class Page:
    page: int = 1
    per_page: int = DEFAULT_PER_PAGE

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.per_page


@dataclass(frozen=True)
class ListFilters:
    """Statement filters; dates are inclusive UTC days."""

    status: str | None = None
    type: str | None = None
    date_from: date | None = None
    date_to: date | None = None


class _Params:
    """Query parameters by snake_case name, collecting every problem before refusing."""

    def __init__(self, query: dict[str, list[str]], allowed: frozenset[str]) -> None:
        merged: dict[str, list[str]] = {}
        for name, values in query.items():
            merged.setdefault(wire.to_snake(name), []).extend(values)
        self.errors: dict[str, list[str]] = {}
        self.values: dict[str, str] = {}
        known = ", ".join(sorted(allowed))
        for name, values in merged.items():
            if name not in allowed:
                self.fail(name, f"is not a known parameter; known parameters: {known}")
            elif len(values) > 1:
                self.fail(name, "is given more than once")
            else:
                self.values[name] = values[0]

    def fail(self, name: str, message: str) -> None:
        self.errors.setdefault(name, []).append(message)

    def integer(self, name: str, default: int, upper: int) -> int:
        text = self.values.get(name)
        if text is None:
            return default
        if _INTEGER.fullmatch(text) is None or not 1 <= int(text) <= upper:
            self.fail(name, f"must be an integer from 1 to {upper}")
            return default
        return int(text)

    def choice(self, name: str, allowed: tuple[str, ...]) -> str | None:
        text = self.values.get(name)
        if text is None:
            return None
        if text not in allowed:
            self.fail(name, f"must be one of {', '.join(allowed)}")
            return None
        return text

    def day(self, name: str) -> date | None:
        text = self.values.get(name)
        if text is None:
            return None
        if _DATE.fullmatch(text) is not None:
            with contextlib.suppress(ValueError):  # 2026-02-30 has the shape, not the date
                return date.fromisoformat(text)
        self.fail(name, "must be a calendar date written YYYY-MM-DD")
        return None

    def page(self) -> Page:
        return Page(
            page=self.integer("page", 1, MAX_PAGE),
            per_page=self.integer("per_page", DEFAULT_PER_PAGE, MAX_PER_PAGE),
        )

    def check(self) -> None:
        if self.errors:
            raise bad_request(self.errors)


def read_page_query(query: dict[str, list[str]]) -> Page:
    """`page` and `per_page` only (the list lookups by tag and external id)."""
    params = _Params(query, PAGE_PARAMETERS)
    page = params.page()
    params.check()
    return page


def read_list_query(query: dict[str, list[str]]) -> tuple[ListFilters, Page]:
    """The statement's parameters; any bad value is a 400 naming every bad parameter."""
    params = _Params(query, LIST_PARAMETERS)
    page = params.page()
    filters = ListFilters(
        status=params.choice("status", STATUS_FILTERS),
        type=params.choice("type", TYPE_FILTERS),
        date_from=params.day("date_from"),
        date_to=params.day("date_to"),
    )
    if filters.date_from and filters.date_to and filters.date_from > filters.date_to:
        params.fail("date_from", "must not be after date_to")
    params.check()
    return filters, page
