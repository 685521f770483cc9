"""Pagination edge cases over a scripted statement (httpx.MockTransport)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx

import pixops


def row(n: int, *, in_flight: bool = False) -> dict[str, Any]:
    return {
        "id": f"00000000-0000-4000-8000-{n:012d}",
        "transaction_id": f"PIX{n}",
        "end_to_end_id": None,
        "external_id": None,
        "type": "pix",
        "status": "pending" if in_flight else "completed",
        "payment_status": "processing" if in_flight else "settled",
        "amount": n * 100,
        "fee_amount": 0,
        "net_amount": n * 100,
        "description": "",
        "direction": "outbound" if in_flight else "inbound",
        "counterparty_name": "",
        "created_at": f"2026-01-05T12:00:{n % 60:02d}.000Z",
        "completed_at": None,
    }


class Ledger:
    """A newest-first statement that can change between page requests."""

    def __init__(self, rows: list[dict[str, Any]], in_flight: list[dict[str, Any]] = ()) -> None:  # type: ignore[assignment]
        self.rows = list(rows)
        self.in_flight = list(in_flight)
        self.pages: list[int] = []
        self.before_page: dict[int, Any] = {}

    def __call__(self, request: httpx.Request) -> httpx.Response:
        page = int(request.url.params["page"])
        per_page = int(request.url.params["per_page"])
        if page in self.before_page:
            self.before_page.pop(page)(self)
        self.pages.append(page)
        data = self.rows[(page - 1) * per_page : page * per_page]
        if page == 1:
            data = self.in_flight + data
        body = {"worked": True, "data": data, "page": page, "per_page": per_page}
        return httpx.Response(200, json=body)


def client_for(ledger: Ledger) -> pixops.Client:
    return pixops.Client(
        "https://pix.example", "cli_x", "sk_x", transport=httpx.MockTransport(ledger)
    )


def test_an_empty_statement_is_one_request() -> None:
    ledger = Ledger([])
    assert list(client_for(ledger).statement.iter()) == []
    assert ledger.pages == [1]


def test_an_exact_multiple_of_per_page_needs_the_empty_page() -> None:
    ledger = Ledger([row(n) for n in range(6, 0, -1)])
    ids = [r.transaction_id for r in client_for(ledger).statement.iter(per_page=3)]
    assert ids == ["PIX6", "PIX5", "PIX4", "PIX3", "PIX2", "PIX1"]
    assert ledger.pages == [1, 2, 3]


def test_rows_pushed_to_the_next_page_by_new_arrivals_come_once() -> None:
    ledger = Ledger([row(n) for n in range(5, 0, -1)])
    # Two new payments arrive between page 1 and page 2: PIX4 and PIX3 shift onto page 2.
    ledger.before_page[2] = lambda led: led.rows.insert(0, row(7)) or led.rows.insert(0, row(8))
    ids = [r.transaction_id for r in client_for(ledger).statement.iter(per_page=3)]
    assert ids == ["PIX5", "PIX4", "PIX3", "PIX2", "PIX1"]
    assert len(ids) == len(set(ids))


def test_an_in_flight_row_that_settles_mid_walk_is_yielded_once_settled() -> None:
    moving = row(9, in_flight=True)
    ledger = Ledger([row(n) for n in range(4, 0, -1)], in_flight=[moving])
    settled = {**row(9), "id": moving["id"], "transaction_id": "PIX9"}
    ledger.before_page[2] = lambda led: led.rows.insert(2, settled)
    rows = list(client_for(ledger).statement.iter(per_page=2))
    nines = [r for r in rows if r.transaction_id == "PIX9"]
    assert len(nines) == 1
    assert nines[0].payment_status == "settled"
    assert len(rows) == len({r.id for r in rows}) == 5


def test_an_in_flight_row_still_in_flight_comes_last() -> None:
    ledger = Ledger([row(2), row(1)], in_flight=[row(9, in_flight=True)])
    rows = list(client_for(ledger).statement.iter(per_page=5))
    assert [r.transaction_id for r in rows] == ["PIX2", "PIX1", "PIX9"]
    assert rows[-1].in_flight


def test_page_one_over_per_page_because_of_in_flight_rows_walks_on() -> None:
    ledger = Ledger([row(3), row(2), row(1)], in_flight=[row(9, in_flight=True)])
    raw = list(client_for(ledger).statement.iter_raw(per_page=3))
    assert [len(json.loads(body)["data"]) for body in raw] == [4, 0]


def test_async_iteration_and_bulk_fetch_follow_the_same_rules() -> None:
    ledger = Ledger([row(n) for n in range(5, 0, -1)])

    async def main() -> tuple[list[str], list[str]]:
        async with pixops.AsyncClient(
            "https://pix.example", "cli_x", "sk_x", transport=httpx.MockTransport(ledger)
        ) as client:
            walked = [r.transaction_id async for r in client.statement.iter(per_page=2)]
            bulk = await client.statement.fetch_range(
                "2026-01-01", "2026-01-03", concurrency=2, per_page=100
            )
            return walked, [r.transaction_id for r in bulk]

    walked, bulk = asyncio.run(main())
    assert walked == ["PIX5", "PIX4", "PIX3", "PIX2", "PIX1"]
    # The scripted ledger ignores dates: three days answer the same five rows, kept once.
    assert sorted(bulk) == sorted(walked)
