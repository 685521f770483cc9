"""Conformance of `GET /statement`: items, statuses, filters, pages, refusals; ledger totals."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any, Literal

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pixops import ids, wire
from pixops.engine import ledger
from pixops.engine.clock import to_db
from pixops.sandbox import Sandbox

BASE = "http://sandbox/api/external"
ITEM_KEYS = {
    "id", "transaction_id", "end_to_end_id", "external_id", "type", "status", "payment_status",
    "amount", "fee_amount", "net_amount", "description", "direction", "counterparty_name",
    "recipient_key", "payer_document", "recipient_document", "payer_ispb", "payer_bank_name",
    "created_at", "completed_at",
}  # fmt: skip
STAGES = {
    "pending_approval": 0,
    "queued": 0,
    "processing": 2,
    "settled": 3,
    "rejected": 3,
    "failed": 3,
}


class Api:
    def __init__(self, sb: Sandbox, key: Any) -> None:
        self.client = httpx.Client(transport=sb.transport(), base_url=BASE)
        self.key = key
        self.headers = {"Authorization": f"ApiKey {key.client_id}:{key.client_secret}"}

    def get(self, path: str, **params: str) -> httpx.Response:
        return self.client.get(path, params=params, headers=self.headers)

    def statement(self, **params: str) -> list[dict[str, Any]]:
        response = self.get("/statement", **params)
        assert response.status_code == 200, response.text
        data: list[dict[str, Any]] = response.json()["data"]
        return data

    def charge(self, amount_centavos: int, **fields: Any) -> str:
        body = json.dumps({"amount": amount_centavos, **fields}).encode()
        headers = {
            **self.headers,
            "content-type": "application/json",
            "hmac": wire.sign(body, self.key.client_secret),
        }
        response = self.client.post("/pix/cash-in", content=body, headers=headers)
        assert response.status_code == 201, response.text
        txid: str = response.json()["data"]["tx_id"]
        return txid


def insert_outbound(
    sb: Sandbox, merchant_id: str, *, status: str, amount_centavos: int = 10_000,
    fee_centavos: int = 50, kind: str = "cash_out",
) -> str:  # fmt: skip
    """An outbound row as docs/engine-internals.md describes it, with its hold or debits."""
    engine, now = sb.engine, sb.now()
    prefix: Literal["E", "D"] = "E" if kind == "cash_out" else "D"
    e2e = ids.new_end_to_end_id(engine.config.service_ispb, now, engine.rng, prefix=prefix)
    transaction_id = ("PIXOUT" if kind == "cash_out" else "PIXRET") + e2e
    amount_base, fee_base = amount_centavos * 100, fee_centavos * 100
    stage = STAGES[status]
    with engine.store.transaction() as conn:
        hold_id = None
        if stage < 3:
            hold_id = ledger.place_hold(
                conn, engine.rng, merchant_id, amount_base + fee_base, kind, transaction_id, now
            )
        conn.execute(
            "INSERT INTO transactions (id, merchant_id, transaction_id, end_to_end_id, type,"
            " direction, kind, status, stage, amount_base, fee_base, counterparty_name,"
            " recipient_document, recipient_key, recipient_key_type, recipient_ispb, hold_id,"
            " created_at, completed_at, failed_at) VALUES (?, ?, ?, ?, 'pix', 'outbound', ?, ?,"
            " ?, ?, ?, 'Maria Silva', '52998224725', 'maria@example.com', 'email', '60746948', ?,"
            " ?, ?, ?)",
            (
                ids.new_hex_id(engine.rng), merchant_id, transaction_id, e2e, kind, status, stage,
                amount_base, fee_base, hold_id, to_db(now),
                to_db(now) if status == "settled" else None,
                to_db(now) if status in ("rejected", "failed") else None,
            ),
        )  # fmt: skip
        if status == "settled":
            ledger.post(conn, merchant_id, -amount_base, kind, now, transaction_id=transaction_id)
            ledger.post(
                conn, merchant_id, -fee_base, "cash_out_fee", now, transaction_id=transaction_id
            )
    return transaction_id


def new_world(*, balance_centavos: int = 1_000_000) -> tuple[Sandbox, Any, Api]:
    sb = Sandbox()
    merchant = sb.create_merchant("Loja Exemplo", balance_centavos=balance_centavos)
    key = sb.issue_api_key(
        merchant.id, permissions=["statement:read", "transfer:read", "pix:write"]
    )
    return sb, merchant, Api(sb, key)


@pytest.fixture
def world() -> tuple[Sandbox, Any, Api]:
    return new_world()


def ids_of(items: list[dict[str, Any]]) -> list[str]:
    return [item["transaction_id"] for item in items]


# -- items ----------------------------------------------------------------------


def test_empty_statement(world: tuple[Sandbox, Any, Api]) -> None:
    _, _, api = world
    assert api.get("/statement").json() == {"worked": True, "data": [], "page": 1, "per_page": 20}


def test_every_kind_of_row_renders(world: tuple[Sandbox, Any, Api]) -> None:
    sb, merchant, api = world
    credit = sb.receive_pix(
        merchant.id, amount_centavos=10_000, payer_ispb="18236120", payer_document="52998224725"
    )
    failed_in = sb.receive_pix(merchant.id, amount_centavos=500, fail_reason="AC03")
    settled_out = insert_outbound(sb, merchant.id, status="settled")
    rejected_out = insert_outbound(sb, merchant.id, status="rejected")
    failed_out = insert_outbound(sb, merchant.id, status="failed")
    sb.advance(1)
    flying = insert_outbound(sb, merchant.id, status="processing")
    returned = sb.receive_return(settled_out, amount_centavos=1_000)
    items = {item["transaction_id"]: item for item in api.statement()}
    assert all(set(item) == ITEM_KEYS for item in items.values())
    assert all(item["id"].count("-") == 4 for item in items.values())

    inbound = items[credit]
    assert (inbound["status"], inbound["payment_status"]) == ("completed", "settled")
    assert inbound["net_amount"] == inbound["amount"] - inbound["fee_amount"] == 1_000_000 - 9_900
    assert inbound["recipient_key"] is None
    assert inbound["recipient_document"] is None
    assert inbound["payer_document"] == "52998224725"
    assert inbound["payer_bank_name"] == "NU PAGAMENTOS - IP"
    assert inbound["completed_at"] is not None

    outbound = items[settled_out]
    assert (outbound["status"], outbound["payment_status"]) == ("completed", "settled")
    assert outbound["net_amount"] == 1_000_000 + 5_000
    assert outbound["recipient_key"] == "maria@example.com"
    assert outbound["recipient_document"] == "52998224725"
    assert outbound["payer_document"] is None
    assert outbound["payer_ispb"] is None
    assert outbound["payer_bank_name"] is None

    assert (items[rejected_out]["status"], items[rejected_out]["payment_status"]) == (
        "rejected", "rejected",
    )  # fmt: skip
    assert (items[failed_out]["status"], items[failed_out]["payment_status"]) == (
        "failed",
        "failed",
    )
    assert (items[failed_in]["status"], items[failed_in]["payment_status"]) == ("failed", "failed")
    assert items[failed_in]["completed_at"] is None

    in_flight = items[flying]
    assert (in_flight["status"], in_flight["payment_status"]) == ("pending", "processing")
    assert in_flight["completed_at"] is None

    back = items[returned]
    assert back["type"] == "pix"  # a received return is a PIX in the statement
    assert back["direction"] == "inbound"
    assert back["net_amount"] == 100_000
    assert sb.audit(merchant.id).consistent


def test_order_is_newest_first_then_latest_stored(world: tuple[Sandbox, Any, Api]) -> None:
    sb, merchant, api = world
    first = sb.receive_pix(merchant.id, amount_centavos=100)
    second = sb.receive_pix(merchant.id, amount_centavos=200)  # same second
    sb.advance(1)
    third = sb.receive_pix(merchant.id, amount_centavos=300)
    assert ids_of(api.statement()) == [third, second, first]


# -- pages and in-flight rows -----------------------------------------------------------


def test_in_flight_rows_join_page_one_only_and_do_not_count(
    world: tuple[Sandbox, Any, Api],
) -> None:
    sb, merchant, api = world
    terminal = []
    for amount in (100, 200, 300):
        terminal.append(sb.receive_pix(merchant.id, amount_centavos=amount))
        sb.advance(1)
    flying = insert_outbound(sb, merchant.id, status="queued")
    page_1 = api.get("/statement", per_page="2").json()
    assert ids_of(page_1["data"]) == [flying, terminal[2], terminal[1]]
    assert (page_1["page"], page_1["per_page"]) == (1, 2)
    page_2 = api.statement(page="2", per_page="2")
    assert ids_of(page_2) == [terminal[0]]
    assert api.statement(page="3", per_page="2") == []


def test_a_payout_settling_between_page_fetches_appears_twice(
    world: tuple[Sandbox, Any, Api],
) -> None:
    """Recorded in docs/decisions.md (issue 8.6): page 1 holds in-flight rows on top of
    the terminal ones, so a payout that settles between the fetch of page 1 and page 2
    is seen on both pages; clients de-duplicate by id."""
    sb, merchant, api = world
    payer = sb.issue_api_key(merchant.id, permissions=["transfer:write"])
    body = json.dumps({"amount": 1_000, "pix_key": "maria.silva@sandbox.pixops.dev"}).encode()
    sent = api.client.post(
        "/pix/cash-out",
        content=body,
        headers={
            "authorization": f"ApiKey {payer.client_id}:{payer.client_secret}",
            "content-type": "application/json",
            "hmac": wire.sign(body, payer.client_secret),
        },
    )
    assert sent.status_code == 202
    payout = sent.json()["transaction_id"]
    credits = [sb.receive_pix(merchant.id, amount_centavos=amount) for amount in (100, 200)]
    page_1 = ids_of(api.statement(page="1", per_page="2"))
    assert page_1 == [payout, credits[1], credits[0]]
    sb.advance(5)  # the payout settles and joins the terminal rows, behind the credits
    page_2 = ids_of(api.statement(page="2", per_page="2"))
    assert page_2 == [payout]
    assert len(set(page_1 + page_2)) == 3


def test_paging_until_a_short_page_sees_every_row_once(world: tuple[Sandbox, Any, Api]) -> None:
    sb, merchant, api = world
    expected = set()
    for n in range(23):
        expected.add(sb.receive_pix(merchant.id, amount_centavos=100 + n))
        if n % 4 == 0:
            sb.advance(1)
    seen: list[str] = []
    page = 1
    while True:
        items = api.statement(page=str(page), per_page="5")
        seen.extend(ids_of(items))
        if len(items) < 5:
            break
        page += 1
    assert len(seen) == len(set(seen)) == 23
    assert set(seen) == expected


# -- filters ------------------------------------------------------------------------------


def test_status_filters(world: tuple[Sandbox, Any, Api]) -> None:
    sb, merchant, api = world
    credit = sb.receive_pix(merchant.id, amount_centavos=100)
    failed_in = sb.receive_pix(merchant.id, amount_centavos=100, fail_reason="DUPL")
    settled_out = insert_outbound(sb, merchant.id, status="settled")
    rejected_out = insert_outbound(sb, merchant.id, status="rejected")
    failed_out = insert_outbound(sb, merchant.id, status="failed")
    flying = insert_outbound(sb, merchant.id, status="processing")
    waiting = insert_outbound(sb, merchant.id, status="pending_approval")
    assert set(ids_of(api.statement(status="settled"))) == {credit, settled_out}
    assert ids_of(api.statement(status="rejected")) == [rejected_out]
    assert set(ids_of(api.statement(status="failed"))) == {failed_in, failed_out}
    assert ids_of(api.statement(status="processing")) == [waiting, flying]
    assert api.statement(status="processing", page="2") == []
    assert len(api.statement()) == 7


def test_type_filter(world: tuple[Sandbox, Any, Api]) -> None:
    sb, merchant, api = world
    out = insert_outbound(sb, merchant.id, status="settled")
    back = sb.receive_return(out)
    assert set(ids_of(api.statement(type="pix"))) == {out, back}
    assert api.statement(type="ted") == []
    assert api.statement(type="internal") == []


def test_dates_are_inclusive_utc_days() -> None:
    sb = Sandbox(start=datetime(2026, 1, 5, 23, 59, 59, tzinfo=UTC))
    merchant = sb.create_merchant("Loja", balance_centavos=0)
    api = Api(sb, sb.issue_api_key(merchant.id, permissions=["statement:read"]))
    late = sb.receive_pix(merchant.id, amount_centavos=100)
    sb.advance(1)
    early = sb.receive_pix(merchant.id, amount_centavos=100)
    assert ids_of(api.statement(date_from="2026-01-06")) == [early]
    assert ids_of(api.statement(date_to="2026-01-05")) == [late]
    assert ids_of(api.statement(date_from="2026-01-05", date_to="2026-01-05")) == [late]
    assert ids_of(api.statement(date_from="2026-01-05", date_to="2026-01-06")) == [early, late]
    assert api.statement(date_from="2026-01-07") == []


def test_camel_case_parameter_names(world: tuple[Sandbox, Any, Api]) -> None:
    sb, merchant, api = world
    for amount in (100, 200):
        sb.receive_pix(merchant.id, amount_centavos=amount)
    response = api.get("/statement", perPage="1", dateFrom="2026-01-05")
    assert response.status_code == 200
    assert len(response.json()["data"]) == 1


@pytest.mark.parametrize(
    ("params", "field", "message"),
    [
        ({"page": "0"}, "page", "must be an integer from 1 to 1000000000"),
        ({"page": "abc"}, "page", "must be an integer from 1 to 1000000000"),
        ({"page": "-1"}, "page", "must be an integer from 1 to 1000000000"),
        ({"page": "1.5"}, "page", "must be an integer from 1 to 1000000000"),
        ({"page": ""}, "page", "must be an integer from 1 to 1000000000"),
        ({"page": "99999999999"}, "page", "must be an integer from 1 to 1000000000"),
        ({"per_page": "0"}, "per_page", "must be an integer from 1 to 100"),
        ({"per_page": "101"}, "per_page", "must be an integer from 1 to 100"),
        ({"status": "completed"}, "status", "must be one of settled, rejected, failed, processing"),
        ({"status": "SETTLED"}, "status", "must be one of settled, rejected, failed, processing"),
        ({"type": "pix_return"}, "type", "must be one of pix, ted, internal"),
        ({"date_from": "2026-13-01"}, "date_from", "must be a calendar date written YYYY-MM-DD"),
        ({"date_to": "2026-02-30"}, "date_to", "must be a calendar date written YYYY-MM-DD"),
        ({"date_from": "05/01/2026"}, "date_from", "must be a calendar date written YYYY-MM-DD"),
        ({"date_from": "2026-01-05T00:00:00Z"}, "date_from", None),
        (
            {"date_from": "2026-01-06", "date_to": "2026-01-05"},
            "date_from",
            "must not be after date_to",
        ),
        ({"limit": "5"}, "limit", None),
    ],
)
def test_bad_parameters_are_400(
    world: tuple[Sandbox, Any, Api], params: dict[str, str], field: str, message: str | None
) -> None:
    _, _, api = world
    response = api.get("/statement", **params)
    assert response.status_code == 400
    body = response.json()
    assert body["worked"] is False
    errors = body["errors"]["bad_request"]
    assert list(errors) == [field]
    if message is not None:
        assert errors[field] == [message]


def test_repeated_parameter_is_400(world: tuple[Sandbox, Any, Api]) -> None:
    _, _, api = world
    response = api.client.get("/statement?page=1&page=2", headers=api.headers)
    assert response.status_code == 400
    assert response.json()["errors"]["bad_request"] == {"page": ["is given more than once"]}


def test_statement_needs_statement_read(world: tuple[Sandbox, Any, Api]) -> None:
    sb, merchant, _ = world
    api = Api(sb, sb.issue_api_key(merchant.id, permissions=["transfer:read"]))
    response = api.get("/statement")
    assert response.status_code == 403
    assert response.json()["message"] == "API key lacks permission: statement:read"
    client = httpx.Client(transport=sb.transport(), base_url=BASE)
    assert client.get("/statement").status_code == 401


# -- the ledger agrees ----------------------------------------------------------------------


def settled_total_base(api: Api) -> int:
    """Signed sum of every settled statement row: inbound +net, outbound -net."""
    total, page = 0, 1
    while True:
        items = api.statement(page=str(page), per_page="100", status="settled")
        for item in items:
            sign = 1 if item["direction"] == "inbound" else -1
            total += sign * item["net_amount"]
        if len(items) < 100:
            return total
        page += 1


OPERATIONS = st.lists(
    st.one_of(
        st.tuples(st.just("charge_paid"), st.integers(1, 5_000_000), st.integers(0, 120)),
        st.tuples(st.just("charge_expires"), st.integers(1, 5_000_000), st.integers(60, 600)),
        st.tuples(st.just("charge_cancelled"), st.integers(1, 5_000_000), st.just(0)),
        st.tuples(st.just("credit"), st.integers(1, 5_000_000), st.just(0)),
        st.tuples(st.just("credit_failed"), st.integers(1, 5_000_000), st.just(0)),
        st.tuples(st.just("cash_out_returned"), st.integers(1, 500_000), st.integers(0, 100)),
        st.tuples(st.just("advance"), st.just(0), st.integers(1, 900)),
    ),
    max_size=14,
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(operations=OPERATIONS)
def test_random_histories_keep_the_ledger_and_statement_in_agreement(
    operations: list[tuple[str, int, int]],
) -> None:
    sb, merchant, api = new_world(balance_centavos=10_000_000)
    opening_base = 10_000_000 * 100
    charges: dict[str, str] = {}
    for operation, amount_centavos, extra in operations:
        if operation == "charge_paid":
            txid = api.charge(amount_centavos)
            sb.pay_charge(txid, link_after_seconds=extra)
            charges[txid] = "paid"
        elif operation == "charge_expires":
            charges[api.charge(amount_centavos, expires_in=extra)] = "expiring"
        elif operation == "charge_cancelled":
            txid = api.charge(amount_centavos)
            sb.cancel_charge(txid)
            charges[txid] = "cancelled"
        elif operation == "credit":
            sb.receive_pix(merchant.id, amount_centavos=amount_centavos)
        elif operation == "credit_failed":
            sb.receive_pix(merchant.id, amount_centavos=amount_centavos, fail_reason="AM02")
        elif operation == "cash_out_returned":
            out = insert_outbound(
                sb, merchant.id, status="settled", amount_centavos=amount_centavos
            )
            if extra:
                sb.receive_return(out, amount_centavos=max(1, amount_centavos * extra // 100))
        else:
            sb.advance(extra)
        assert sb.audit(merchant.id).consistent
    sb.advance(3_600)  # every link and expiry is due by now
    audit = sb.audit(merchant.id)
    assert audit.consistent
    assert settled_total_base(api) == audit.balance.ledger_base - opening_base
    for txid, fate in charges.items():
        shown = api.get(f"/transactions/{txid}").json()["data"]
        if fate == "paid":
            assert (shown["type"], shown["status"]) == ("pix", "settled")
        else:
            assert shown["status"] == ("cancelled" if fate == "cancelled" else "expired")
    paid = sum(1 for fate in charges.values() if fate == "paid")
    assert len([e for e in sb.events(merchant.id) if e.type == "pix.charge.paid"]) == paid
