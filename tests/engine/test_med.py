"""MED dispute cases: raw-HTTP list/get/defense, the lifecycle, blocks and the automatic refund."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

import pytest

from pixops.sandbox import MedCase, MedError, Merchant, Sandbox

if TYPE_CHECKING:
    from tests.conftest import Api, Connect

RESOURCE_KEYS = {
    "id", "transaction_id", "end_to_end_id", "amount", "blocked_amount", "reason", "details",
    "status", "opened_at", "defense_deadline", "defense", "defended_at", "analysis_result",
    "analysis_details", "closed_at", "refund_transaction_id",
}  # fmt: skip


def received(sb: Sandbox, merchant: Merchant, amount_centavos: int = 50_000) -> str:
    return sb.receive_pix(merchant.id, amount_centavos=amount_centavos, payer_name="Ana Costa")


def defend(api: Api, case_id: str, body: Any) -> Any:
    return api("POST", f"/med/{case_id}/defense", body)


def opened(sb: Sandbox, merchant: Merchant, **options: Any) -> MedCase:
    return sb.open_med_case(received(sb, merchant), **options)


# -- opening ------------------------------------------------------------------------------


def test_open_case_blocks_the_amount_and_emits_refund_requested(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    transaction_id = received(sandbox, merchant)
    before = sandbox.balance(merchant.id)
    case = sandbox.open_med_case(transaction_id, details="Payer reports a scam")
    assert case.id.startswith("med_")
    assert (case.status, case.reason, case.amount_base) == ("OPEN", "FRAUD", 5_000_000)
    assert case.defense_deadline - case.opened_at == timedelta(days=7)
    after = sandbox.balance(merchant.id)
    assert after.blocked_base == before.blocked_base + 5_000_000
    assert after.ledger_base == before.ledger_base
    assert after.available_base == before.available_base - 5_000_000
    [event] = [e for e in sandbox.events(merchant.id) if e.type == "pix.refund.requested"]
    assert event.transaction_id == transaction_id
    assert event.data == {
        "med_case_id": case.id,
        "transaction_id": transaction_id,
        "end_to_end_id": transaction_id.removeprefix("PIXIN"),
        "amount": 5_000_000,
        "reason": "FRAUD",
        "status": "OPEN",
        "defense_deadline": "2026-01-12T12:00:00.000Z",
    }
    response = api("GET", f"/med/{case.id}")
    assert response.status_code == 200
    body = response.json()
    assert body["worked"] is True
    assert set(body["data"]) == RESOURCE_KEYS
    assert body["data"] == {
        "id": case.id,
        "transaction_id": transaction_id,
        "end_to_end_id": transaction_id.removeprefix("PIXIN"),
        "amount": 5_000_000,
        "blocked_amount": 5_000_000,
        "reason": "FRAUD",
        "details": "Payer reports a scam",
        "status": "OPEN",
        "opened_at": "2026-01-05T12:00:00.000Z",
        "defense_deadline": "2026-01-12T12:00:00.000Z",
        "defense": None,
        "defended_at": None,
        "analysis_result": None,
        "analysis_details": None,
        "closed_at": None,
        "refund_transaction_id": None,
    }


def test_block_is_capped_by_the_available_balance(sandbox: Sandbox) -> None:
    poor = sandbox.create_merchant("Loja Nova", balance_centavos=0)
    case = sandbox.open_med_case(received(sandbox, poor, 10_000))
    balance = sandbox.balance(poor.id)
    assert balance.ledger_base == 1_000_000 - 9_900  # the cash-in fee is 0.99%
    assert case.amount_base == 1_000_000
    assert case.blocked_base == balance.blocked_base == 990_100
    assert balance.available_base == 0


def test_open_by_end_to_end_id_and_partial_amount(sandbox: Sandbox, merchant: Merchant) -> None:
    transaction_id = received(sandbox, merchant)
    case = sandbox.open_med_case(
        transaction_id.removeprefix("PIXIN"), reason="OPERATIONAL_FLAW", amount_centavos=1_234
    )
    assert (case.transaction_id, case.amount_base, case.reason) == (
        transaction_id, 123_400, "OPERATIONAL_FLAW",
    )  # fmt: skip
    assert sandbox.med_case(case.id) == case


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"reason": "CHARGEBACK"}, "reason must be one of"),
        ({"details": "x" * 2001}, "at most 2000"),
        ({"details": 7}, "details must be a string"),
        ({"amount_centavos": 0}, "must be positive"),
        ({"amount_centavos": True}, "must be an integer"),
        ({"amount_centavos": 50_001}, "exceeds what is still refundable"),
    ],
)
def test_open_refuses_bad_arguments(
    sandbox: Sandbox, merchant: Merchant, options: dict[str, Any], message: str
) -> None:
    transaction_id = received(sandbox, merchant)
    with pytest.raises(MedError, match=message):
        sandbox.open_med_case(transaction_id, **options)
    assert sandbox.balance(merchant.id).blocked_base == 0
    assert [e.type for e in sandbox.events(merchant.id)] == []


def test_open_refuses_what_cannot_be_disputed(sandbox: Sandbox, merchant: Merchant) -> None:
    with pytest.raises(MedError, match="no transaction"):
        sandbox.open_med_case("PIXINE000000002026010512000000000000")
    failed = sandbox.receive_pix(merchant.id, amount_centavos=1_000, fail_reason="AM02")
    with pytest.raises(MedError, match="settled received PIX"):
        sandbox.open_med_case(failed)
    transaction_id = received(sandbox, merchant)
    sandbox.open_med_case(transaction_id)
    with pytest.raises(MedError, match="already has MED case"):
        sandbox.open_med_case(transaction_id)


def test_open_only_within_80_days(sandbox: Sandbox, merchant: Merchant) -> None:
    transaction_id = received(sandbox, merchant)
    sandbox.advance(days=80, seconds=1)
    with pytest.raises(MedError, match="up to 80 days"):
        sandbox.open_med_case(transaction_id)


# -- defense ------------------------------------------------------------------------------


def test_defense_acknowledges_the_case_once(sandbox: Sandbox, merchant: Merchant, api: Api) -> None:
    case = opened(sandbox, merchant)
    sandbox.advance(hours=1)
    response = defend(api, case.id, {"defense": "  Goods delivered; tracking BR123.  "})
    assert response.status_code == 200
    data = response.json()["data"]
    assert (data["status"], data["defense"]) == ("ACKNOWLEDGED", "Goods delivered; tracking BR123.")
    assert data["defended_at"] == "2026-01-05T13:00:00.000Z"
    again = defend(api, case.id, {"defense": "Another story"})
    assert again.status_code == 422
    assert "already submitted" in again.json()["errors"]["unprocessable_entity"]
    assert sandbox.med_case(case.id).defense == "Goods delivered; tracking BR123."
    sandbox.advance(days=8)
    assert sandbox.med_case(case.id).status == "ACKNOWLEDGED"


@pytest.mark.parametrize(
    ("body", "field", "fragment"),
    [
        ({}, "defense", "is required"),
        ({"defense": ""}, "defense", "must not be empty"),
        ({"defense": "   "}, "defense", "must not be empty"),
        ({"defense": 12}, "defense", "must be a string"),
        ({"defense": "d" * 2001}, "defense", "at most 2000"),
        ({"defense": "ok", "attachments": "scan.pdf"}, "attachments", "unknown field"),
    ],
)
def test_defense_body_is_validated(
    sandbox: Sandbox, merchant: Merchant, api: Api, body: dict[str, Any], field: str, fragment: str
) -> None:
    case = opened(sandbox, merchant)
    response = defend(api, case.id, body)
    assert response.status_code == 400
    assert fragment in response.json()["errors"]["bad_request"][field][0]
    assert sandbox.med_case(case.id).status == "OPEN"


def test_defense_of_2000_characters_is_accepted(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    case = opened(sandbox, merchant)
    assert defend(api, case.id, {"defense": "d" * 2000}).status_code == 200


def test_deadline_without_defense_acknowledges_and_closes_the_window(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    case = opened(sandbox, merchant)
    sandbox.advance(days=7)
    assert sandbox.med_case(case.id).status == "ACKNOWLEDGED"
    late = defend(api, case.id, {"defense": "Sorry, I was travelling"})
    assert late.status_code == 422
    assert late.json()["errors"]["unprocessable_entity"] == (
        f"The defense deadline of MED case {case.id} passed at 2026-01-12T12:00:00.000Z"
    )


def test_defense_one_second_before_the_deadline(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    case = opened(sandbox, merchant)
    sandbox.advance(days=6, hours=23, minutes=59, seconds=59)
    assert sandbox.med_case(case.id).status == "OPEN"
    assert defend(api, case.id, {"defense": "Just in time"}).status_code == 200


def test_defense_on_a_closed_case_is_422(sandbox: Sandbox, merchant: Merchant, api: Api) -> None:
    case = opened(sandbox, merchant)
    sandbox.resolve_med_case(case.id, "DISAGREED")
    response = defend(api, case.id, {"defense": "Too late"})
    assert response.status_code == 422
    assert "is CLOSED" in response.json()["errors"]["unprocessable_entity"]


def test_cases_of_other_merchants_are_not_found(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    other = sandbox.create_merchant("Outra Loja", balance_centavos=10_000)
    theirs = opened(sandbox, other)
    for case_id in (theirs.id, "med_unknown"):
        for response in (api("GET", f"/med/{case_id}"), defend(api, case_id, {"defense": "x"})):
            assert response.status_code == 404
            assert response.json() == {
                "worked": False, "errors": {"not_found": f"MED case {case_id} not found"},
            }  # fmt: skip
    assert sandbox.med_case(theirs.id).status == "OPEN"
    assert api("GET", "/med").json()["data"] == []


def test_permissions(sandbox: Sandbox, merchant: Merchant, connect: Connect) -> None:
    case = opened(sandbox, merchant)
    reader = connect(sandbox, sandbox.issue_api_key(merchant.id, permissions=["payment:read"]))
    writer = connect(sandbox, sandbox.issue_api_key(merchant.id, permissions=["payment:write"]))
    assert defend(reader, case.id, {"defense": "x"}).json() == {
        "error": "forbidden", "message": "API key lacks permission: payment:write",
    }  # fmt: skip
    assert writer("GET", "/med").status_code == 403
    assert writer("GET", f"/med/{case.id}").status_code == 403
    assert reader("GET", f"/med/{case.id}").status_code == 200
    assert defend(writer, case.id, {"defense": "x"}).status_code == 200


# -- listing ------------------------------------------------------------------------------


def test_list_is_newest_first_with_filters_and_pages(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    cases = []
    for _ in range(3):
        cases.append(opened(sandbox, merchant))
        sandbox.advance(hours=1)
    sandbox.resolve_med_case(cases[0].id, "DISAGREED")
    listed = api("GET", "/med").json()
    assert (listed["worked"], listed["page"], listed["per_page"]) == (True, 1, 20)
    assert [item["id"] for item in listed["data"]] == [c.id for c in reversed(cases)]
    closed = api("GET", "/med?" + urlencode({"status": "CLOSED"})).json()["data"]
    assert [item["id"] for item in closed] == [cases[0].id]
    lower = api("GET", "/med?" + urlencode({"status": "open"})).json()["data"]
    assert [item["id"] for item in lower] == [cases[2].id, cases[1].id]
    by_tx = api("GET", "/med?" + urlencode({"transaction_id": cases[1].transaction_id})).json()[
        "data"
    ]
    assert [item["id"] for item in by_tx] == [cases[1].id]
    page_two = api("GET", "/med?" + urlencode({"page": 2, "per_page": 2})).json()
    assert [item["id"] for item in page_two["data"]] == [cases[0].id]
    assert (page_two["page"], page_two["per_page"]) == (2, 2)
    assert api("GET", "/med?" + urlencode({"page": 3, "per_page": 2})).json()["data"] == []
    camel = api(
        "GET", "/med?" + urlencode({"perPage": 1}), headers={"X-Key-Case": "camelCase"}
    ).json()
    assert camel["perPage"] == 1
    assert "defenseDeadline" in camel["data"][0]


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"per_page": "101"}, "per_page"),
        ({"per_page": "0"}, "per_page"),
        ({"page": "-1"}, "page"),
        ({"page": "one"}, "page"),
        ({"status": "PENDING"}, "status"),
        ({"sort": "asc"}, "sort"),
    ],
)
def test_bad_list_parameters_are_400(api: Api, params: dict[str, str], field: str) -> None:
    response = api("GET", "/med?" + urlencode(params))
    assert response.status_code == 400
    assert field in response.json()["errors"]["bad_request"]


def test_repeated_parameter_is_400(api: Api) -> None:
    response = api("GET", "/med?status=OPEN&status=CLOSED")
    assert response.status_code == 400
    assert response.json()["errors"]["bad_request"]["status"] == ["is given more than once"]


# -- resolution ---------------------------------------------------------------------------


def test_disagreed_releases_the_block_and_moves_no_money(
    sandbox: Sandbox, merchant: Merchant
) -> None:
    case = opened(sandbox, merchant)
    before = sandbox.balance(merchant.id)
    sandbox.advance(days=8)
    closed = sandbox.resolve_med_case(case.id, "DISAGREED", details="Goods were delivered")
    assert (closed.status, closed.analysis_result) == ("CLOSED", "DISAGREED")
    assert closed.analysis_details == "Goods were delivered"
    assert closed.closed_at == sandbox.now()
    assert (closed.blocked_base, closed.refund_transaction_id) == (0, None)
    after = sandbox.balance(merchant.id)
    assert after.blocked_base == 0
    assert after.ledger_base == before.ledger_base
    sandbox.advance(days=1)
    assert [e.type for e in sandbox.events(merchant.id)] == ["pix.refund.requested"]
    assert sandbox.audit(merchant.id).consistent


def test_agreed_refunds_automatically(sandbox: Sandbox, merchant: Merchant, api: Api) -> None:
    transaction_id = received(sandbox, merchant)
    case = sandbox.open_med_case(transaction_id)
    before = sandbox.balance(merchant.id)
    closed = sandbox.resolve_med_case(case.id, "AGREED")
    assert (closed.status, closed.analysis_result, closed.blocked_base) == ("CLOSED", "AGREED", 0)
    refund_id = closed.refund_transaction_id
    assert refund_id is not None
    assert refund_id.startswith("PIXRETD")
    in_flight = sandbox.balance(merchant.id)
    assert (in_flight.blocked_base, in_flight.held_base) == (0, 5_000_000)
    sandbox.advance(seconds=5)
    after = sandbox.balance(merchant.id)
    assert after.ledger_base == before.ledger_base - 5_000_000
    assert (after.held_base, after.blocked_base) == (0, 0)
    assert sandbox.audit(merchant.id).consistent
    refund_events = [e for e in sandbox.events(merchant.id) if e.transaction_id == refund_id]
    assert [e.type for e in refund_events] == ["pix.refund.completed", "pix.payout.returned"]
    assert refund_events[0].data["original_transaction_id"] == transaction_id
    assert refund_events[0].data["reason"] == "FR01"
    assert refund_events[0].data["total_refunded"] == 5_000_000
    assert refund_events[0].data["remaining_refundable"] == 0
    statement = api("GET", "/statement").json()["data"]
    [row] = [item for item in statement if item["transaction_id"] == refund_id]
    assert (row["direction"], row["amount"]) == ("outbound", 5_000_000)
    assert row["completed_at"] is not None
    shown = api("GET", f"/med/{case.id}").json()["data"]
    assert (shown["status"], shown["refund_transaction_id"]) == ("CLOSED", refund_id)


def test_agreed_operational_flaw_refunds_the_disputed_part_with_be08(
    sandbox: Sandbox, merchant: Merchant
) -> None:
    case = opened(sandbox, merchant, reason="OPERATIONAL_FLAW", amount_centavos=20_000)
    closed = sandbox.resolve_med_case(case.id, "AGREED")
    sandbox.advance(seconds=5)
    [completed] = [
        e for e in sandbox.events(merchant.id)
        if e.type == "pix.refund.completed" and e.transaction_id == closed.refund_transaction_id
    ]  # fmt: skip
    assert completed.data["amount"] == 2_000_000
    assert completed.data["reason"] == "BE08"
    assert completed.data["is_partial"] is True
    assert completed.data["remaining_refundable"] == 3_000_000
    assert sandbox.audit(merchant.id).consistent


def test_agreed_refund_is_limited_by_the_balance(sandbox: Sandbox) -> None:
    poor = sandbox.create_merchant("Loja Nova", balance_centavos=0)
    case = sandbox.open_med_case(received(sandbox, poor, 10_000))
    closed = sandbox.resolve_med_case(case.id, "AGREED")
    sandbox.advance(seconds=5)
    balance = sandbox.balance(poor.id)
    assert (balance.ledger_base, balance.held_base, balance.blocked_base) == (0, 0, 0)
    [completed] = [
        e for e in sandbox.events(poor.id)
        if e.type == "pix.refund.completed" and e.transaction_id == closed.refund_transaction_id
    ]  # fmt: skip
    assert completed.data["amount"] == 990_100
    assert sandbox.audit(poor.id).consistent


def test_case_after_a_voluntary_refund_disputes_the_rest(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    transaction_id = received(sandbox, merchant)
    refund = api(
        "POST", "/pix/refund", {"original_transaction_id": transaction_id, "amount": 10_000}
    )
    assert refund.status_code in (200, 202), refund.text
    with pytest.raises(MedError, match="exceeds what is still refundable"):
        sandbox.open_med_case(transaction_id, amount_centavos=40_001)
    case = sandbox.open_med_case(transaction_id)
    assert case.amount_base == 4_000_000


def test_cancelled_case_releases_the_block(sandbox: Sandbox, merchant: Merchant) -> None:
    case = opened(sandbox, merchant)
    cancelled = sandbox.cancel_med_case(case.id)
    assert (cancelled.status, cancelled.blocked_base) == ("CANCELLED", 0)
    assert cancelled.closed_at == sandbox.now()
    assert sandbox.balance(merchant.id).blocked_base == 0
    with pytest.raises(MedError, match="already CANCELLED"):
        sandbox.resolve_med_case(case.id, "AGREED")
    sandbox.advance(days=8)
    assert sandbox.med_case(case.id).status == "CANCELLED"


def test_resolution_is_checked(sandbox: Sandbox, merchant: Merchant) -> None:
    case = opened(sandbox, merchant)
    with pytest.raises(MedError, match="AGREED or DISAGREED"):
        sandbox.resolve_med_case(case.id, "MAYBE")
    with pytest.raises(MedError, match="no MED case"):
        sandbox.resolve_med_case("med_unknown", "AGREED")
    sandbox.resolve_med_case(case.id, "DISAGREED")
    with pytest.raises(MedError, match="already CLOSED"):
        sandbox.resolve_med_case(case.id, "AGREED")
    with pytest.raises(MedError, match="already CLOSED"):
        sandbox.cancel_med_case(case.id)
    assert sandbox.balance(merchant.id).blocked_base == 0


def test_a_new_case_may_follow_a_closed_one(sandbox: Sandbox, merchant: Merchant) -> None:
    transaction_id = received(sandbox, merchant)
    first = sandbox.open_med_case(transaction_id)
    sandbox.resolve_med_case(first.id, "DISAGREED")
    second = sandbox.open_med_case(transaction_id, reason="REFUND_REQUEST")
    assert second.id != first.id
    assert sandbox.balance(merchant.id).blocked_base == second.blocked_base == 5_000_000
