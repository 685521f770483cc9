"""The sandbox test helpers over raw HTTP, in-process: hand-built requests, no client library.

Each helper is checked by what the merchant then sees through `/api/external` with its
own key, the way an outside caller would check it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from pixops.engine.admin import TestHelpers, new_admin_token
from pixops.engine.clock import WallClock
from pixops.engine.core import Engine
from pixops.sandbox import ApiKey, Merchant, Sandbox

if TYPE_CHECKING:
    from tests.conftest import Api, Connect

TOKEN = "adm_" + "t" * 43


class Helpers:
    """Raw requests to `/sandbox/v1` with the admin token written by hand."""

    def __init__(self, client: httpx.Client, token: str | None = TOKEN) -> None:
        self.client = client
        self.token = token

    def __call__(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | bytes | None = None,
        *,
        headers: dict[str, str | bytes] | None = None,
    ) -> httpx.Response:
        written: dict[str, str | bytes] = {}
        if self.token is not None:
            written["authorization"] = f"Bearer {self.token}"
        content = None
        if body is not None:
            content = body if isinstance(body, bytes) else json.dumps(body).encode()
            written["content-type"] = "application/json"
        written.update(headers or {})
        raw = [
            (name.encode(), value if isinstance(value, bytes) else value.encode())
            for name, value in written.items()
        ]
        return self.client.request(method, "/sandbox/v1" + path, content=content, headers=raw)


@pytest.fixture
def helpers(sandbox: Sandbox) -> Iterator[Helpers]:
    TestHelpers(sandbox, TOKEN).mount(sandbox.engine)
    with httpx.Client(transport=sandbox.transport(), base_url="http://sandbox") as client:
        yield Helpers(client)


def data(response: httpx.Response, status: int) -> Any:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["worked"] is True
    return body["data"]


def balance_base(api: Api) -> int:
    return int(api("GET", "/balance").json()["data"]["balance"])


# -- the token and the mode ----------------------------------------------------------


@pytest.mark.parametrize(
    ("authorization", "message"),
    [
        (None, "Missing admin token. Use Authorization: Bearer <admin token>"),
        ("Basic " + TOKEN, "Missing admin token"),
        ("Bearer ", "Missing admin token"),
        ("Bearer " + TOKEN[:-1] + "x", "Invalid admin token"),
        ("Bearer " + TOKEN + "x", "Invalid admin token"),
        (("Bearer ñ" + TOKEN).encode("latin-1"), "Invalid admin token"),
    ],
)
def test_the_admin_token_is_required(
    helpers: Helpers, authorization: str | bytes | None, message: str
) -> None:
    helpers.token = None
    headers: dict[str, str | bytes] = {}
    if authorization is not None:
        headers["authorization"] = authorization
    response = helpers("GET", "/clock", headers=headers)
    assert response.status_code == 401
    assert response.json()["error"]["status"] == 401
    assert response.json()["error"]["message"].startswith(message)


def test_an_api_key_is_not_an_admin_token(helpers: Helpers, key: ApiKey) -> None:
    helpers.token = None
    response = helpers(
        "GET", "/clock", headers={"authorization": f"ApiKey {key.client_id}:{key.client_secret}"}
    )
    assert response.status_code == 401


def test_a_server_that_is_not_a_sandbox_refuses_every_helper(sandbox: Sandbox) -> None:
    TestHelpers(sandbox, None).mount(sandbox.engine)
    with httpx.Client(transport=sandbox.transport(), base_url="http://sandbox") as client:
        response = Helpers(client)("POST", "/clock/advance", {"seconds": 60})
    assert response.status_code == 403
    assert "--production" in response.json()["error"]["message"]
    assert sandbox.now().isoformat() == "2026-01-05T12:00:00+00:00"


def test_admin_tokens_are_long_random_and_prefixed() -> None:
    tokens = {new_admin_token() for _ in range(50)}
    assert len(tokens) == 50
    assert all(token.startswith("adm_") and len(token) == 47 for token in tokens)
    with pytest.raises(ValueError, match="at least 32"):
        TestHelpers(Sandbox(), "short")


def test_unknown_paths_methods_and_query_strings(helpers: Helpers) -> None:
    missing = helpers("GET", "/nothing/here")
    assert missing.status_code == 404
    assert missing.json() == {
        "worked": False,
        "errors": {"not_found": "No route for GET /sandbox/v1/nothing/here"},
    }
    wrong = helpers("DELETE", "/clock")
    assert wrong.status_code == 405
    assert wrong.headers["allow"] == "GET"
    query = helpers("GET", "/clock?verbose=1")
    assert query.status_code == 400
    assert helpers("GET", "/clock", b'{"a":1}').status_code == 400


def test_the_external_api_is_untouched_by_the_mount(helpers: Helpers, api: Api) -> None:
    assert api("GET", "/balance").status_code == 200
    response = api("GET", "/balance", key=None, headers={"authorization": f"Bearer {TOKEN}"})
    assert response.status_code == 401


# -- bodies --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        (b"{", "valid JSON"),
        (b"[1, 2]", "JSON object"),
        (b'{"amount": 1, "amount": 2}', "valid JSON"),
        (b'{"amount": 5000, "payer_name": "\\ud800"}', "surrogate"),
        (b'{"amount": 5000, "\\udc00": 1}', "surrogate"),
        (b"\xff\xfe", "valid JSON"),
        (b'{"amount": 50.0}', "must be an integer"),
        (b'{"amount": true}', "must be an integer"),
        (b'{"amount": "5000"}', "must be an integer"),
        (b'{"amount": 0}', "between 1 and"),
        (b'{"amount": -5}', "between 1 and"),
        (b'{"amount": 10000000000000000}', "between 1 and"),
        (b"{}", "is required"),
        (b'{"amount": 5000, "colour": "blue"}', "unknown field"),
        (b'{"amount": 5000, "payer_name": 7}', "must be a string"),
        (b'{"amount": 5000, "payer_name": "   "}', "must not be empty"),
        (b'{"amount": 5000, "description": "' + b"x" * 141 + b'"}', "at most 140"),
    ],
)
def test_bad_bodies_are_400_and_write_nothing(
    helpers: Helpers, sandbox: Sandbox, merchant: Merchant, body: bytes, fragment: str
) -> None:
    events_before = len(sandbox.events(merchant.id))
    response = helpers("POST", f"/merchants/{merchant.id}/received-pix", body)
    assert response.status_code == 400, response.text
    assert response.json()["worked"] is False
    assert fragment in json.dumps(response.json()["errors"]["bad_request"])
    assert sandbox.balance(merchant.id).ledger_base == 1_000_000 * 100
    assert len(sandbox.events(merchant.id)) == events_before


def test_a_body_must_be_declared_json(helpers: Helpers, merchant: Merchant) -> None:
    response = helpers(
        "POST",
        f"/merchants/{merchant.id}/received-pix",
        b'{"amount": 5000}',
        headers={"content-type": "application/x-www-form-urlencoded"},
    )
    assert response.status_code == 415
    assert response.json()["error"]["message"].startswith("Unsupported Media Type")


# -- money arriving ------------------------------------------------------------------


def test_a_received_pix_credits_the_merchant(
    helpers: Helpers, api: Api, merchant: Merchant
) -> None:
    before = balance_base(api)
    credit = data(
        helpers(
            "POST",
            f"/merchants/{merchant.id}/received-pix",
            {"amount": 5_000, "payer_name": "Maria Silva", "description": "Pedido 9"},
        ),
        201,
    )
    assert credit["status"] == "settled"
    assert credit["transaction_id"].startswith("PIXINE")
    shown = api("GET", f"/transactions/{credit['transaction_id']}").json()["data"]
    assert shown["amount"] == 5_000 * 100
    assert shown["counterparty_name"] == "Maria Silva"
    assert balance_base(api) == before + shown["net_amount"]


def test_a_failed_received_pix_moves_no_money(
    helpers: Helpers, api: Api, merchant: Merchant
) -> None:
    before = balance_base(api)
    credit = data(
        helpers(
            "POST",
            f"/merchants/{merchant.id}/received-pix",
            {"amount": 5_000, "fail_reason": "AM02"},
        ),
        201,
    )
    assert credit["status"] == "failed"
    shown = api("GET", f"/transactions/{credit['transaction_id']}").json()["data"]
    assert shown["reason_code"] == "AM02"
    assert balance_base(api) == before


def test_a_received_pix_for_an_unknown_merchant_is_404(helpers: Helpers) -> None:
    response = helpers("POST", "/merchants/mer_nobody/received-pix", {"amount": 5_000})
    assert response.status_code == 404
    assert response.json() == {"worked": False, "errors": {"not_found": "No merchant mer_nobody"}}


def test_paying_a_charge_then_paying_it_again(
    helpers: Helpers, api: Api, sandbox: Sandbox, merchant: Merchant
) -> None:
    charge = api("POST", "/pix/cash-in", {"amount": 2_500}).json()["data"]
    paid = data(
        helpers("POST", f"/charges/{charge['transaction_id']}/pay", {"payer_name": "João"}), 201
    )
    assert paid["status"] == "settled"
    shown = api("GET", f"/transactions/{charge['transaction_id']}").json()["data"]
    assert shown["status"] == "settled"
    events = len(sandbox.events(merchant.id))
    again = helpers("POST", f"/charges/{charge['transaction_id']}/pay")
    assert again.status_code == 422
    assert "only a pending charge can be paid" in again.json()["errors"]["unprocessable_entity"]
    assert len(sandbox.events(merchant.id)) == events
    assert helpers("POST", "/charges/nope/pay").status_code == 404


def test_cancelling_a_charge(helpers: Helpers, api: Api) -> None:
    charge = api("POST", "/pix/cash-in", {"amount": 2_500}).json()["data"]
    data(helpers("POST", f"/charges/{charge['transaction_id']}/cancel"), 200)
    shown = api("GET", f"/transactions/{charge['transaction_id']}").json()["data"]
    assert shown["status"] == "cancelled"


def test_a_counterparty_returns_a_settled_cash_out(
    helpers: Helpers, api: Api, sandbox: Sandbox
) -> None:
    payout = api(
        "POST", "/pix/cash-out", {"amount": 4_000, "pix_key": "maria.silva@sandbox.pixops.dev"}
    ).json()
    data(helpers("POST", "/clock/advance", {"seconds": 10}), 200)
    assert sandbox.transaction_status(payout["transaction_id"]) == "settled"
    before = balance_base(api)
    returned = data(
        helpers("POST", f"/payouts/{payout['transaction_id']}/returns", {"amount": 1_500}), 201
    )
    assert returned["status"] == "settled"
    assert balance_base(api) == before + 1_500 * 100
    too_much = helpers("POST", f"/payouts/{payout['transaction_id']}/returns", {"amount": 9_000})
    assert too_much.status_code == 422


# -- the clock -----------------------------------------------------------------------


def test_advancing_the_manual_clock_runs_due_timers(
    helpers: Helpers, api: Api, sandbox: Sandbox
) -> None:
    assert data(helpers("GET", "/clock"), 200) == {
        "now": "2026-01-05T12:00:00.000Z",
        "manual": True,
    }
    payout = api(
        "POST", "/pix/cash-out", {"amount": 1_000, "pix_key": "maria.silva@sandbox.pixops.dev"}
    ).json()
    moved = data(helpers("POST", "/clock/advance", {"seconds": 3_600}), 200)
    assert moved["now"] == "2026-01-05T13:00:00.000Z"
    assert moved["timers_run"] >= 1
    shown = api("GET", f"/transactions/{payout['transaction_id']}").json()["data"]
    assert shown["status"] == "settled"
    assert helpers("POST", "/clock/advance", {"seconds": 366 * 86_400 + 1}).status_code == 400


def test_the_wall_clock_cannot_be_advanced() -> None:
    engine = Engine(clock=WallClock(), seed=None)
    TestHelpers(Sandbox.over(engine), TOKEN).mount(engine)
    response = engine.handle(
        "POST",
        "/sandbox/v1/clock/advance",
        [("authorization", f"Bearer {TOKEN}"), ("content-type", "application/json")],
        b'{"seconds": 60}',
        "127.0.0.1",
    )
    assert response.status == 409
    body = json.loads(response.body)
    assert "--manual-clock" in body["errors"]["conflict"]
    clock = engine.handle(
        "GET", "/sandbox/v1/clock", [("authorization", f"Bearer {TOKEN}")], b"", "127.0.0.1"
    )
    assert json.loads(clock.body)["data"]["manual"] is False


# -- MED and dual control ------------------------------------------------------------


def test_a_med_case_opened_and_resolved(helpers: Helpers, api: Api, merchant: Merchant) -> None:
    credit = data(helpers("POST", f"/merchants/{merchant.id}/received-pix", {"amount": 8_000}), 201)
    case = data(
        helpers(
            "POST",
            "/med-cases",
            {"transaction_id": credit["transaction_id"], "reason": "FRAUD", "details": "golpe"},
        ),
        201,
    )
    assert case["status"] == "OPEN"
    assert case["amount"] == 8_000 * 100
    assert api("GET", f"/med/{case['id']}").json()["data"]["status"] == "OPEN"
    closed = data(helpers("POST", f"/med-cases/{case['id']}/resolve", {"result": "AGREED"}), 200)
    assert closed["analysis_result"] == "AGREED"
    assert closed["refund_transaction_id"]
    again = helpers("POST", f"/med-cases/{case['id']}/resolve", {"result": "DISAGREED"})
    assert again.status_code == 422
    bad = helpers("POST", "/med-cases", {"transaction_id": credit["transaction_id"], "reason": "X"})
    assert bad.status_code == 400
    assert helpers("POST", "/med-cases/med_nope/resolve").status_code == 404


def test_dual_control_approve_and_deny(
    helpers: Helpers, connect: Connect, sandbox: Sandbox
) -> None:
    merchant = data(
        helpers(
            "POST",
            "/merchants",
            {"name": "Loja Dupla", "balance_centavos": 100_000, "dual_control": True},
        ),
        201,
    )
    assert merchant["balance"] == 100_000 * 100
    issued = data(helpers("POST", f"/merchants/{merchant['id']}/keys", {}), 201)
    key = ApiKey(
        issued["client_id"],
        issued["client_secret"],
        merchant["id"],
        tuple(issued["permissions"]),
        tuple(issued["ip_whitelist"]),
        True,
        None,
    )
    api = connect(sandbox, key)
    first, second = (
        api("POST", "/pix/cash-out", {"amount": 1_000, "pix_key": "maria.silva@sandbox.pixops.dev"})
        for _ in range(2)
    )
    assert first.json()["status"] == "pending_approval"
    approved = data(helpers("POST", f"/payouts/{first.json()['transaction_id']}/approve"), 200)
    assert approved["status"] == "processing"
    denied = data(helpers("POST", f"/payouts/{second.json()['transaction_id']}/deny"), 200)
    assert denied["status"] == "failed"
    twice = helpers("POST", f"/payouts/{second.json()['transaction_id']}/approve")
    assert twice.status_code == 422


# -- keys ----------------------------------------------------------------------------


def test_issue_list_and_revoke_keys(
    helpers: Helpers, connect: Connect, sandbox: Sandbox, merchant: Merchant
) -> None:
    issued = data(
        helpers(
            "POST",
            f"/merchants/{merchant.id}/keys",
            {"permissions": ["account:read"], "ip_whitelist": ["127.0.0.1"]},
        ),
        201,
    )
    assert issued["client_secret"].startswith("sk_")
    key = ApiKey(
        issued["client_id"], issued["client_secret"], merchant.id, ("account:read",), (), True, None
    )
    api = connect(sandbox, key)
    assert api("GET", "/balance").status_code == 200
    assert api("GET", "/statement").status_code == 403
    listed = data(helpers("GET", f"/merchants/{merchant.id}/keys"), 200)
    assert [entry["client_id"] for entry in listed] == [issued["client_id"]]
    assert "client_secret" not in listed[0]
    assert issued["client_secret"] not in json.dumps(listed)
    revoked = data(helpers("POST", f"/keys/{issued['client_id']}/revoke"), 200)
    assert revoked["active"] is False
    refused = api("GET", "/balance")
    assert refused.status_code == 401
    assert refused.json()["error"]["message"] == "API key is inactive"
    assert helpers("POST", "/keys/cli_nope/revoke").status_code == 404


@pytest.mark.parametrize(
    "body",
    [
        {"permissions": ["root"]},
        {"permissions": "account:read"},
        {"ip_whitelist": "127.0.0.1"},
        {"ip_whitelist": [""]},
        {"hmac": "yes"},
        {"expires_at": "tomorrow"},
        {"expires_at": "2026-12-31T23:59:59"},
    ],
)
def test_bad_key_requests_are_400(
    helpers: Helpers, sandbox: Sandbox, merchant: Merchant, body: dict[str, Any]
) -> None:
    response = helpers("POST", f"/merchants/{merchant.id}/keys", body)
    assert response.status_code == 400, response.text
    assert data(helpers("GET", f"/merchants/{merchant.id}/keys"), 200) == []


def test_a_key_with_an_expiry(helpers: Helpers, merchant: Merchant) -> None:
    issued = data(
        helpers("POST", f"/merchants/{merchant.id}/keys", {"expires_at": "2026-01-05T13:00:00Z"}),
        201,
    )
    assert issued["expires_at"] == "2026-01-05T13:00:00.000Z"
    listed = data(helpers("GET", f"/merchants/{merchant.id}/keys"), 200)
    assert listed[0]["expires_at"] == "2026-01-05T13:00:00.000Z"
