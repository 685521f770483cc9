"""The client reads the whole demo month: every row and every shape parses."""

from __future__ import annotations

import json

from pixops.demo import demo_month


def test_the_demo_month_through_the_client() -> None:
    month = demo_month()
    client = month.sandbox.client(month.api_key)
    rows = list(client.statement.iter())
    assert len(rows) > 5_000
    assert len({row.id for row in rows}) == len(rows)
    raw_ids = {
        item["id"] for body in client.statement.iter_raw() for item in json.loads(body)["data"]
    }
    assert raw_ids == {row.id for row in rows}
    shapes = {}
    for row in rows:
        if len(shapes) == 4:
            break
        key = (row.direction, row.payment_status)
        if key not in shapes:
            shapes[key] = client.transactions.get(row.transaction_id)
    assert all(record.transaction_id for record in shapes.values())
    assert client.balance().safe_balance.base > 0


def test_every_med_case_page_after_page() -> None:
    """`med.iter` walks every page: a notebook counting decided cases from one page of
    `med.list` undercounts once a merchant has more cases than a page holds."""
    month = demo_month()
    client = month.sandbox.client(month.api_key)
    everything = client.med.list(per_page=100).data
    assert 5 < len(everything) < 100
    walked = list(client.med.iter(per_page=3))
    assert [case.id for case in walked] == [case.id for case in everything]
    closed = [case.id for case in client.med.iter(status="CLOSED", per_page=3)]
    assert closed == [case.id for case in everything if case.status == "CLOSED"]
