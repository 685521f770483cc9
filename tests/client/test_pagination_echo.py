"""A list walk trusts what each page says of itself: a service that ignores `page`
must not make the walk endless, and one that caps `per_page` lower must not end it
early (skipping rows)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

import pixops
from pixops.client import ResponseValidationError
from tests.client.test_pagination import row

MED_CASE = {
    "transaction_id": "PIX1",
    "amount": 10_000,
    "status": "OPEN",
}


def statement_rows(count: int) -> list[dict[str, Any]]:
    return [row(n) for n in range(count, 0, -1)]


class IgnoresPage:
    """Answers page 1, full, whatever page is asked: an endless walk if believed."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.rows = rows
        self.asked: list[int] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.asked.append(int(request.url.params["page"]))
        assert len(self.asked) < 10, "the walk does not end"
        per_page = int(request.url.params["per_page"])
        body = {"worked": True, "data": self.rows[:per_page], "page": 1, "per_page": per_page}
        return httpx.Response(200, json=body)


class CapsPerPage:
    """Serves at most `cap` rows a page and says so in `per_page`."""

    def __init__(self, rows: list[dict[str, Any]], cap: int) -> None:
        self.rows, self.cap = rows, cap
        self.asked: list[int] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        page = int(request.url.params["page"])
        self.asked.append(page)
        data = self.rows[(page - 1) * self.cap : page * self.cap]
        body = {"worked": True, "data": data, "page": page, "per_page": self.cap}
        return httpx.Response(200, json=body)


def client(handler: Callable[[httpx.Request], httpx.Response]) -> pixops.Client:
    return pixops.Client(
        "https://pix.example", "cli_x", "sk_x", transport=httpx.MockTransport(handler)
    )


def med_cases(count: int) -> list[dict[str, Any]]:
    return [{**MED_CASE, "id": f"MED{n}"} for n in range(count, 0, -1)]


WALKS: list[tuple[str, Callable[[pixops.Client], list[Any]], Callable[[int], list[Any]]]] = [
    ("statement.iter", lambda c: list(c.statement.iter(per_page=3)), statement_rows),
    ("statement.iter_raw", lambda c: list(c.statement.iter_raw(per_page=3)), statement_rows),
    ("med.iter", lambda c: list(c.med.iter(per_page=3)), med_cases),
]


@pytest.mark.parametrize(("name", "walk", "rows"), WALKS, ids=[w[0] for w in WALKS])
def test_a_service_answering_another_page_stops_the_walk_in_words(
    name: str, walk: Callable[[pixops.Client], list[Any]], rows: Callable[[int], list[Any]]
) -> None:
    handler = IgnoresPage(rows(5))
    with pytest.raises(ResponseValidationError, match=r"asked for page 2 .* answered page 1"):
        walk(client(handler))
    assert handler.asked == [1, 2]


def test_a_service_ignoring_page_stops_the_async_walk_too() -> None:
    handler = IgnoresPage(statement_rows(5))

    async def run() -> None:
        async with pixops.AsyncClient(
            "https://pix.example", "cli_x", "sk_x", transport=httpx.MockTransport(handler)
        ) as c:
            with pytest.raises(ResponseValidationError):
                [r async for r in c.statement.iter(per_page=3)]

    asyncio.run(run())
    assert handler.asked == [1, 2]


def test_a_per_page_capped_by_the_service_still_walks_every_row() -> None:
    handler = CapsPerPage(statement_rows(7), cap=3)
    ids = [r.transaction_id for r in client(handler).statement.iter(per_page=100)]
    assert ids == [f"PIX{n}" for n in range(7, 0, -1)]
    assert handler.asked == [1, 2, 3]
    raw = list(client(CapsPerPage(statement_rows(7), cap=3)).statement.iter_raw())
    assert sum(len(json.loads(body)["data"]) for body in raw) == 7
