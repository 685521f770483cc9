"""Walking the statement and transaction lists page by page.

Termination (spec, statement rule 2): stop at an empty page or one with fewer than
`per_page` rows. De-duplication by row `id`: with newest-first offset pages, rows that
arrive while the walk runs push older rows onto the next page, where they would be
seen twice. Page 1 also lists in-flight cash-outs on top of `per_page` rows; those are
held back until the end, so that when the same movement turns up later as a terminal
row (it settled meanwhile) the terminal row wins and is the only one yielded.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator, Sized
from typing import Any, Protocol, TypeVar

from pixops.client._errors import ResponseValidationError

__all__ = [
    "Dedup",
    "aiter_pages",
    "count_rows",
    "first_sight",
    "is_last_page",
    "iter_pages",
    "model_shape",
]

T = TypeVar("T")


class Row(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def in_flight(self) -> bool: ...


R = TypeVar("R", bound=Row)


def is_last_page(rows: int, per_page: int) -> bool:
    return rows == 0 or rows < per_page


Shape = tuple[int, int | None, int | None]
"""What a page says of itself: its row count, and the `page` and `per_page` it echoes."""


class Paged(Protocol):
    @property
    def data(self) -> Sized: ...

    @property
    def page(self) -> int: ...

    @property
    def per_page(self) -> int: ...


def model_shape(result: Paged) -> Shape:
    return len(result.data), result.page, result.per_page


def _echoed(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        return value
    return None


def count_rows(body: bytes) -> Shape:
    """How many rows a raw page holds and what it echoes (a body that is not JSON is the
    service's fault)."""
    try:
        parsed: Any = json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise ResponseValidationError(
            f"a page of the list is not JSON: {exc}", status=200, body=body
        ) from None
    if not isinstance(parsed, dict):
        return 0, None, None
    data = parsed.get("data")
    rows = len(data) if isinstance(data, list) else 0
    return rows, _echoed(parsed.get("page")), _echoed(parsed.get("per_page"))


def _is_last(shape: Shape, asked: int, per_page: int) -> bool:
    """Whether the walk ends at this page. The page the service echoes must be the one
    asked for (a service ignoring `page` would answer page 1 forever); the `per_page` it
    echoes is the one that counts, since a service capping it lower would otherwise end
    the walk after its first full page, skipping the rest."""
    rows, page, echoed = shape
    if page is not None and page != asked:
        raise ResponseValidationError(
            f"asked for page {asked} of the list, the service answered page {page}: it"
            " cannot be walked without repeating or skipping rows",
            status=200,
            body=b"",
        )
    return is_last_page(rows, echoed or per_page)


def iter_pages(
    fetch: Callable[[dict[str, str]], T],
    shape: Callable[[T], Shape],
    query: dict[str, str],
) -> Iterator[T]:
    """Each page in order, from page 1 to the last by the termination rule."""
    per_page = int(query["per_page"])
    page = 1
    while True:
        result = fetch({**query, "page": str(page)})
        yield result
        if _is_last(shape(result), page, per_page):
            return
        page += 1


async def aiter_pages(
    fetch: Callable[[dict[str, str]], Awaitable[T]],
    shape: Callable[[T], Shape],
    query: dict[str, str],
) -> AsyncIterator[T]:
    per_page = int(query["per_page"])
    page = 1
    while True:
        result = await fetch({**query, "page": str(page)})
        yield result
        if _is_last(shape(result), page, per_page):
            return
        page += 1


def first_sight(rows: Iterable[T], seen: set[str], key: Callable[[T], str]) -> Iterator[T]:
    """The rows whose `key` is not in ``seen`` (adding it): a row that a newer one pushed
    onto the next page while the walk ran comes once."""
    for row in rows:
        ident = key(row)
        if ident not in seen:
            seen.add(ident)
            yield row


class Dedup:
    """Rows by id, once each; in-flight rows wait for a terminal version of themselves."""

    def __init__(self) -> None:
        self.seen: set[str] = set()
        self.held: dict[str, Any] = {}

    def feed(self, rows: Iterable[R]) -> Iterator[R]:
        for row in rows:
            if row.id in self.seen:
                continue
            if row.in_flight:
                self.held.setdefault(row.id, row)
                continue
            self.seen.add(row.id)
            self.held.pop(row.id, None)
            yield row

    def rest(self) -> list[Any]:
        """The in-flight rows that never showed up settled, in the order first seen."""
        left = [row for ident, row in self.held.items() if ident not in self.seen]
        self.seen.update(self.held)
        self.held.clear()
        return left
