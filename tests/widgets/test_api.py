"""The panels' reading helpers: plain records and integer money (`_api`, for what is not
an answer of the client), typed lookups and the day cache (`_reads`)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from types import SimpleNamespace

import pytest

from pixops.widgets._api import base_units, parse_time, plain, time_key
from pixops.widgets._reads import find_transactions, refunded_base_of, statement_items
from tests.widgets.conftest import Desk


def test_money_stays_integer_base_units() -> None:
    assert base_units(None) is None
    assert base_units(123_456) == 123_456
    with pytest.raises(TypeError, match="integers in base units"):
        base_units(12.5)
    with pytest.raises(TypeError, match="boolean"):
        base_units(True)
    with pytest.raises(TypeError):
        base_units("100")


def test_records_are_read_from_models_or_mappings(desk: Desk) -> None:
    balance = plain(desk.client.balance())
    assert isinstance(balance["balance"], int)
    assert plain({"a": 1}) == {"a": 1}
    with pytest.raises(TypeError):
        plain(42)


def test_times_parse_and_sort_whatever_their_form() -> None:
    assert parse_time("2026-01-15T03:00:00Z") == datetime(2026, 1, 15, 3, tzinfo=UTC)
    assert parse_time(None) is None
    with pytest.raises(TypeError):
        parse_time(20260115)
    stamps = ["2026-01-15T03:00:01Z", "2026-01-15T03:00:00.500Z", None]
    assert sorted(stamps, key=time_key) == [
        None,
        "2026-01-15T03:00:00.500Z",
        "2026-01-15T03:00:01Z",
    ]


def test_refunded_total_leaves_out_failed_refunds() -> None:
    refunds = [
        SimpleNamespace(amount=10_000, status="settled"),
        SimpleNamespace(amount=5_000, status="processing"),
        SimpleNamespace(amount=7_000, status="failed"),
        SimpleNamespace(amount=9_000, status="rejected"),
    ]
    assert refunded_base_of(refunds) == 15_000


def test_lookup_needs_text(desk: Desk) -> None:
    with pytest.raises(ValueError, match="identifier"):
        find_transactions(desk.client, "  ")
    with pytest.raises(TypeError):
        find_transactions(desk.client, 5)  # type: ignore[arg-type]


def test_finished_days_are_fetched_once(desk: Desk) -> None:
    now = desk.now()
    first = statement_items(desk.client, date(2026, 1, 20), date(2026, 1, 21), now)
    mark = desk.mark()
    again = statement_items(desk.client, date(2026, 1, 20), date(2026, 1, 21), now)
    assert again == first
    assert desk.calls_since(mark) == []
    # A range reaching today asks again for the days that are not finished yet.
    statement_items(desk.client, date(2026, 2, 12), now.date(), now)
    assert desk.calls_since(mark)
    assert {row.transaction_id for row in first} == {
        row.transaction_id
        for row in desk.client.statement.iter(date_from="2026-01-20", date_to="2026-01-21")
    }


def test_check_service_stops_a_notebook_in_one_plain_line(desk: Desk) -> None:
    import logging

    import httpx

    from pixops.widgets import Stopped, check_service

    check_service(desk.client)  # a service that answers: nothing to say

    class Down(httpx.BaseTransport):
        def handle_request(self, request: httpx.Request) -> httpx.Response:
            raise httpx.ConnectError("connection refused", request=request)

    down = desk.month.sandbox.client(desk.month.api_key, http_client=httpx.Client(transport=Down()))
    before = logging.getLogger("pixops.client").level
    with pytest.raises(Stopped) as stopped:
        check_service(down)
    (line,) = stopped.value._render_traceback_()
    assert line.startswith("The PIX service could not be reached")
    assert "ConnectError" not in line
    assert logging.getLogger("pixops.client").level == before


def test_check_service_lets_a_key_without_the_balance_permission_through(desk: Desk) -> None:
    from pixops.widgets import Stopped, check_service

    sandbox = desk.month.sandbox
    key = sandbox.issue_api_key(
        desk.month.merchant.id, permissions=["payment:read", "payment:write", "transfer:read"]
    )
    check_service(sandbox.client(key))  # a MED desk's key: the service works for it
    wrong = type(key)(**{**key.__dict__, "client_secret": "sk_wrong"})
    with pytest.raises(Stopped, match="did not accept this account's credentials"):
        check_service(sandbox.client(wrong))
