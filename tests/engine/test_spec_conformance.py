"""An independent audit of the engine against the spec, section by section, raw HTTP.

Every test cites, in its docstring, the spec sentence (or docs/engine-internals.md
statement) it checks. The other conformance files already pin most single statements;
this file adds the cross-cutting ones (all 19 routes at once, real flows read back
through the query endpoints, code vocabularies, the event table of the internals
document) and the statements no other test asserted.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from pixops import wire
from pixops.sandbox import ApiKey, Merchant, Sandbox
from tests.conftest import SPEC_ENDPOINTS

if TYPE_CHECKING:
    from tests.conftest import Api, Connect

INTERNALS = Path(__file__).resolve().parents[2] / "docs" / "engine-internals.md"

SETTLE_KEY = "maria.silva@sandbox.pixops.dev"
AC03_KEY = "12345678909"  # cpf test key: accepted, then rejected AC03
VALID_CPF = "52998224725"
FEE_BASE = 50 * 100  # the default cash-out fee, R$ 0,50

WIRE_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?Z")
CAMEL_KEY = re.compile(r"[a-z][a-zA-Z0-9]*")
SNAKE_KEY = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)*")
HEX32 = re.compile(r"[0-9a-f]{32}")
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
E2E = re.compile(r"E[0-9]{8}[A-Za-z0-9]{22,26}")
RETURN_ID = re.compile(r"D[0-9]{8}[A-Za-z0-9]{22,26}")
CENTRAL_BANK_CODE = re.compile(r"[A-Z][A-Z0-9]{3}")
PROVIDER_CODE = re.compile(r"[a-z]+(_[a-z]+)+")
REPROCESSING_CODE = re.compile(r"DICT_[A-Z_]+")

MISSING_CREDENTIALS = {
    "error": {
        "status": 401,
        "message": "Missing API key credentials. Use Authorization: ApiKey "
        "<client_id>:<client_secret>",
    }
}

# -- helpers ---------------------------------------------------------------------


def entries(value: Any) -> Iterator[tuple[str, Any]]:
    """Every (key, value) of every object nested anywhere in a JSON value."""
    if isinstance(value, dict):
        for name, item in value.items():
            yield name, item
            yield from entries(item)
    elif isinstance(value, list):
        for item in value:
            yield from entries(item)


def snake(name: str) -> str:
    """camelCase to snake_case, written here so the check does not lean on pixops.wire."""
    return re.sub(r"[A-Z]", lambda match: "_" + match.group(0).lower(), name)


def camel(value: Any) -> Any:
    """Every key of a JSON value in camelCase, written independently of pixops.wire."""
    if isinstance(value, dict):
        return {
            re.sub(r"_([a-z0-9])", lambda m: m.group(1).upper(), name): camel(item)
            for name, item in value.items()
        }
    if isinstance(value, list):
        return [camel(item) for item in value]
    return value


def is_money_key(name: str) -> bool:
    name = snake(name)
    return name in ("amount", "balance", "total_refunded", "remaining_refundable") or (
        name.endswith(("_amount", "_balance"))
    )


def is_time_key(name: str) -> bool:
    return snake(name).endswith("_at") or snake(name) in ("as_of", "defense_deadline")


def assert_wire_conventions(body: Any) -> None:
    """Conventions 3 and 4: timestamps ISO 8601 UTC with `Z`; money is a JSON integer."""
    for name, value in entries(body):
        if is_time_key(name) and value is not None:
            assert isinstance(value, str), (name, value)
            assert WIRE_TIME.fullmatch(value), (name, value)
        if is_money_key(name) and value is not None:
            assert type(value) is int, (name, value)


def json_of(response: httpx.Response) -> Any:
    assert response.headers["content-type"] == "application/json"
    return response.json()


def data(api: Api, path: str) -> dict[str, Any]:
    response = api("GET", path)
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()["data"]
    return found


def statement(api: Api, **params: str) -> list[dict[str, Any]]:
    query = "&".join(f"{name}={value}" for name, value in params.items())
    response = api("GET", "/statement" + (f"?{query}" if query else ""))
    assert response.status_code == 200, response.text
    items: list[dict[str, Any]] = response.json()["data"]
    return items


def cash_out(api: Api, pix_key: str, amount: int = 1_000, **fields: Any) -> httpx.Response:
    return api("POST", "/pix/cash-out", {"amount": amount, "pix_key": pix_key, **fields})


def transactions_count(sb: Sandbox, merchant_id: str) -> int:
    with sb.engine.store.lock:
        row = sb.engine.store.conn.execute(
            "SELECT COUNT(*) FROM transactions WHERE merchant_id = ?", (merchant_id,)
        ).fetchone()
    return int(row[0])


# -- General conventions --------------------------------------------------------------


def test_every_endpoint_speaks_camel_case_and_keeps_the_wire_conventions(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    """Conventions 2, 3, 4, 5: "With header `X-Key-Case: camelCase` the request keys are
    accepted in camelCase and every key of the JSON response is returned in camelCase";
    "Timestamps are ISO 8601 in UTC with suffix `Z`"; amounts are integers; "Successful
    responses carry `worked: true` (boolean). Query endpoints wrap the record(s) in
    `data`." Endpoints: "Optional header `X-Key-Case` is accepted on every endpoint."
    Headers: `X-Key-Case` "may vary per request"."""
    camel_case: dict[str, str | None] = {"x-key-case": "camelCase"}
    credit = sandbox.receive_pix(merchant.id, amount_centavos=10_000, payer_ispb="18236120")
    disputed = sandbox.receive_pix(merchant.id, amount_centavos=5_000)
    case = sandbox.open_med_case(disputed)
    url = sandbox.add_webhook_receiver(lambda headers, body: 200)
    e2e = credit.removeprefix("PIXIN")

    posts: list[tuple[str, str, dict[str, Any]]] = [
        ("/pix/cash-in", "/pix/cash-in",
         {"amount": 2_500, "externalId": "pedido-7", "tag": "balcao", "expiresIn": 600}),
        ("/pix/cash-out", "/pix/cash-out",
         {"amount": 1_000, "pixKey": SETTLE_KEY, "externalId": "saida-1"}),
        ("/pix/refund", "/pix/refund", {"originalTransactionId": credit, "amount": 100}),
        ("/med/:id/defense", f"/med/{case.id}/defense", {"defense": "Goods delivered"}),
        ("/cpf/validate", "/cpf/validate", {"cpf": VALID_CPF}),
        ("/webhooks", "/webhooks", {"url": url, "eventTypes": ["pix.charge.paid"]}),
    ]  # fmt: skip
    seen: set[tuple[str, str]] = set()
    created: dict[str, Any] = {}
    for pattern, path, body in posts:
        response = api("POST", path, body, headers=camel_case)
        assert 200 <= response.status_code < 300, (path, response.text)
        payload = json_of(response)
        assert payload["worked"] is True
        for name, _ in entries(payload):
            assert CAMEL_KEY.fullmatch(name), (path, name)
        assert_wire_conventions(payload)
        created[pattern] = payload
        seen.add(("POST", pattern))
    assert created["/pix/cash-out"]["externalId"] == "saida-1"  # camelCase request keys read
    assert created["/pix/cash-in"]["data"]["externalId"] == "pedido-7"
    webhook_id = created["/webhooks"]["data"]["id"]
    txid = created["/pix/cash-in"]["data"]["transactionId"]

    gets: list[tuple[str, str]] = [
        ("/webhooks", "/webhooks"),
        ("/balance", "/balance"),
        ("/transactions", "/transactions"),
        ("/transactions/:id", f"/transactions/{credit}"),
        ("/transactions/e2e/:e2e_id", f"/transactions/e2e/{e2e}"),
        ("/transactions/tag/:tag", "/transactions/tag/balcao"),
        ("/transactions/ref/:external_id", "/transactions/ref/pedido-7"),
        ("/transactions/:id/receipt", f"/transactions/{credit}/receipt"),
        ("/pix/keys", "/pix/keys"),
        ("/med", "/med"),
        ("/med/:id", f"/med/{case.id}"),
        ("/statement", "/statement"),
    ]
    for pattern, path in gets:
        plain = api("GET", path)
        shown = api("GET", path, headers=camel_case)
        again = api("GET", path)  # the casing is chosen per request, not per key
        assert plain.status_code == shown.status_code == again.status_code == 200, path
        assert plain.content == again.content
        snake_body, camel_body = json_of(plain), json_of(shown)
        assert snake_body["worked"] is True
        assert "data" in snake_body
        for name, _ in entries(snake_body):
            assert SNAKE_KEY.fullmatch(name), (path, name)
        for name, _ in entries(camel_body):
            assert CAMEL_KEY.fullmatch(name), (path, name)
        if pattern != "/balance":  # the balance carries its own `as_of` clock reading
            assert camel_body == camel(snake_body), path
        assert_wire_conventions(snake_body)
        seen.add(("GET", pattern))
    assert data(api, f"/transactions/{txid}")["type"] == "pix_qrcode"

    deleted = api("DELETE", f"/webhooks/{webhook_id}", headers=camel_case)
    assert deleted.status_code == 200
    assert json_of(deleted)["worked"] is True
    seen.add(("DELETE", "/webhooks/:id"))
    assert seen == {(method, pattern) for method, pattern, _ in SPEC_ENDPOINTS}


@pytest.mark.parametrize(
    ("method", "pattern"),
    [(method, pattern) for method, pattern, _ in SPEC_ENDPOINTS],
    ids=[f"{method} {pattern}" for method, pattern, _ in SPEC_ENDPOINTS],
)
def test_every_endpoint_requires_authorization(api: Api, method: str, pattern: str) -> None:
    """Endpoints: "Every request carries `Authorization`"; Headers: `Authorization`
    "required always"; Errors: 401 no credentials "Missing API key credentials. Use
    Authorization: ApiKey <client_id>:<client_secret>"."""
    path = pattern.replace(":e2e_id", "E99999999202601051200abcdefghijk")
    path = re.sub(r":[a-z_]+", "x1", path)
    body = {"amount": 100} if method == "POST" else None
    response = api(method, path, body, key=None)
    assert (response.status_code, json_of(response)) == (401, MISSING_CREDENTIALS)


# -- Resources --------------------------------------------------------------------------


def test_settled_credit_identifiers_and_the_statement_uuid(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    """Transaction: `data.id` "For settled transactions it is 32 lowercase hex characters
    without hyphens"; `data.transaction_id` "the literal prefix `PIXIN` immediately
    followed by the end-to-end ID"; `data.end_to_end_id` "Letter E, 8 digits, then 22 to
    26 alphanumeric characters"; `data.external_id` "null if none was given". Statement
    item: `id` "internal UUID" (the same record, hyphenated)."""
    credit = sandbox.receive_pix(merchant.id, amount_centavos=1_234)
    record = data(api, f"/transactions/{credit}")
    assert HEX32.fullmatch(record["id"])
    assert E2E.fullmatch(record["end_to_end_id"])
    assert record["transaction_id"] == "PIXIN" + record["end_to_end_id"]
    assert record["external_id"] is None
    (item,) = statement(api)
    assert UUID.fullmatch(item["id"])
    assert item["id"].replace("-", "") == record["id"]
    assert item["transaction_id"] == credit


def test_statement_item_description_and_counterparty_are_strings(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    """Statement item table: `description` | string and `counterparty_name` | string,
    while the same table types `external_id`, `payer_document`, `recipient_document`,
    `payer_ispb`, `payer_bank_name` and `completed_at` as "string or null"."""
    sandbox.receive_pix(merchant.id, amount_centavos=500)  # no description given
    assert cash_out(api, SETTLE_KEY).status_code == 202  # no description given
    queued = cash_out(api, "queue.timeout@sandbox.pixops.dev")  # no recipient yet
    assert queued.json()["status"] == "queued"
    items = statement(api)
    assert len(items) == 3
    for item in items:
        assert isinstance(item["description"], str), item
        assert isinstance(item["counterparty_name"], str), item


# -- States and transitions, read back through GET /transactions/:id ------------------


@pytest.mark.parametrize(
    ("pix_key", "key_type", "wait", "payment_status", "reason_code"),
    [
        (AC03_KEY, "cpf", 2, "rejected", "AC03"),
        ("orphan@sandbox.pixops.dev", None, 1_800, "failed", "orphan_force_voided"),
        ("queue.timeout@sandbox.pixops.dev", None, 7_200, "failed", "DICT_QUEUE_TIMEOUT"),
    ],
)
def test_outbound_query_shape_follows_the_real_lifecycle(
    sandbox: Sandbox,
    api: Api,
    pix_key: str,
    key_type: str | None,
    wait: int,
    payment_status: str,
    reason_code: str,
) -> None:
    """GET /transactions/:id: "a processing or failed outgoing transaction returns the
    cash-out query shape, with `status` `processing` or `failed` and the fields
    `reason_code` and `reason_description`"; statuses: `processing` "outgoing
    transaction in processing"; transitions to rejected (pacs.002 RJCT), failed
    (orphan_force_voided after 30 minutes) and failed (DICT_QUEUE_TIMEOUT after 7200 s)."""
    extra = {"pix_key_type": key_type} if key_type else {}
    response = cash_out(api, pix_key, 3_000, **extra)
    assert response.status_code == 202
    transaction_id = response.json()["transaction_id"]
    in_flight = data(api, f"/transactions/{transaction_id}")
    assert (in_flight["status"], in_flight["direction"]) == ("processing", "outbound")
    assert {"reason_code", "reason_description"} <= set(in_flight)
    assert in_flight["completed_at"] is None
    assert in_flight["amount"] == 300_000
    assert in_flight["net_amount"] == 300_000 + FEE_BASE
    sandbox.advance(wait - 1)
    assert data(api, f"/transactions/{transaction_id}")["status"] == "processing"
    sandbox.advance(1)
    ended = data(api, f"/transactions/{transaction_id}")
    assert (ended["status"], ended["payment_status"]) == ("failed", payment_status)
    assert ended["reason_code"] == reason_code
    assert isinstance(ended["reason_description"], str)
    assert ended["reason_description"].isascii()  # English text
    assert ended["completed_at"] is None
    assert WIRE_TIME.fullmatch(ended["failed_at"])


def test_settled_cash_out_answers_the_default_shape(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    """Transaction (default shape, status settled): `id` 32 lowercase hex, `type` `pix`,
    `direction` `outbound`, `counterparty_name` the recipient, `net_amount` the total
    debit (Note on `net_amount`), `completed_at` "null while pending". Statement: "In-flight
    outbound rows carry `status` = `pending`, `payment_status` = `processing`,
    `completed_at` = null"; the `processing` filter finds them, `settled` does not."""
    response = cash_out(api, SETTLE_KEY, 2_000, external_id="lote-9")
    transaction_id = response.json()["transaction_id"]
    (flying,) = statement(api)
    assert (flying["status"], flying["payment_status"]) == ("pending", "processing")
    assert flying["completed_at"] is None
    assert [i["transaction_id"] for i in statement(api, status="processing")] == [transaction_id]
    assert statement(api, status="settled") == []
    sandbox.advance(2)
    record = data(api, f"/transactions/{transaction_id}")
    assert HEX32.fullmatch(record["id"])
    assert (record["status"], record["type"], record["direction"]) == ("settled", "pix", "outbound")
    assert (record["amount"], record["fee_amount"]) == (200_000, FEE_BASE)
    assert record["net_amount"] == 200_000 + FEE_BASE
    assert record["counterparty_name"] == "Maria Silva"
    assert record["recipient_key"] == SETTLE_KEY
    assert record["external_id"] == "lote-9"
    assert record["completed_at"] == "2026-01-05T12:00:02.000Z"
    (done,) = statement(api, status="settled")
    assert (done["status"], done["payment_status"]) == ("completed", "settled")
    assert done["net_amount"] == 200_000 + FEE_BASE
    assert statement(api, status="processing") == []
    assert sandbox.audit(merchant.id).consistent


def test_refund_read_back_in_flight_completed_and_failed(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    """Refund response: `transaction_id` "prefix `PIXRET`", `end_to_end_id` "prefix letter
    D (not E)"; transitions "refund `accepted` | refund completes | completed" and
    "refund `accepted` | central bank later rejects | failed", seen through the query."""
    original = sandbox.receive_pix(merchant.id, amount_centavos=10_000)
    good = api("POST", "/pix/refund", {"original_transaction_id": original, "amount": 1_000})
    bad = api(
        "POST", "/pix/refund", {"original_transaction_id": original, "amount": 1, "reason": "ZZ01"}
    )
    assert good.status_code == bad.status_code == 202
    good_id, bad_id = good.json()["transaction_id"], bad.json()["transaction_id"]
    for body in (good.json(), bad.json()):
        assert RETURN_ID.fullmatch(body["end_to_end_id"])
        assert body["transaction_id"] == "PIXRET" + body["end_to_end_id"]
    in_flight = data(api, f"/transactions/{good_id}")
    assert (in_flight["status"], in_flight["direction"]) == ("processing", "outbound")
    sandbox.advance(2)
    completed = data(api, f"/transactions/{good_id}")
    assert (completed["status"], completed["type"], completed["amount"]) == (
        "settled",
        "pix",
        100_000,
    )
    assert completed["original_transaction_id"] == original
    failed = data(api, f"/transactions/{bad_id}")
    assert (failed["status"], failed["payment_status"], failed["reason_code"]) == (
        "failed",
        "failed",
        "AG03",
    )


def test_qr_lifetime_defaults_to_one_hour(sandbox: Sandbox, api: Api) -> None:
    """States: `expired` "QR expired (lifetime configurable per account, default 1 hour)";
    Limits: QR lifetime "default 1 hour"."""
    response = api("POST", "/pix/cash-in", {"amount": 1_000})
    assert response.status_code == 201
    charge = response.json()["data"]
    assert charge["expires_at"] == "2026-01-05T13:00:00.000Z"
    sandbox.advance(3_599)
    assert data(api, f"/transactions/{charge['transaction_id']}")["status"] == "pending"
    sandbox.advance(1)
    assert data(api, f"/transactions/{charge['transaction_id']}")["status"] == "expired"


# -- POST /pix/cash-out ------------------------------------------------------------------


def test_code_vocabularies(sandbox: Sandbox, merchant: Merchant, api: Api) -> None:
    """Cash-out: "central-bank codes are UPPERCASE ... and appear only asynchronously
    (status query, `pix.payout.rejected`), never in synchronous responses.
    Provider/DICT codes are lowercase snake_case. Automatic reprocessing codes are
    UPPERCASE with prefix `DICT_`"."""
    refusals: list[dict[str, Any]] = [
        {"pix_key": "11144477735"},  # ambiguous
        {"pix_key": SETTLE_KEY, "recipient_ispb": sandbox.engine.config.service_ispb},
        {"pix_key": "nobody@example.com"},
        {"pix_key": "blocked@sandbox.pixops.dev"},
        {"pix_key": "lookup.failed@sandbox.pixops.dev"},
        {"pix_key": "rate.limited@sandbox.pixops.dev"},
        {"pix_key": "bucket.exhausted@sandbox.pixops.dev"},
        {"pix_key": "provider.rejected@sandbox.pixops.dev"},
        {"pix_key": "provider.schema@sandbox.pixops.dev"},
        {"pix_key": "provider.unknown@sandbox.pixops.dev"},
        {"pix_key": SETTLE_KEY, "amount": 10**9},  # over the balance and the ceiling
    ]
    for fields in refusals:
        response = api("POST", "/pix/cash-out", {"amount": 100, **fields})
        assert response.status_code in (400, 422), response.text
        (error,) = response.json()["errors"]
        assert PROVIDER_CODE.fullmatch(error["code"]), error
    # Accepted payments that the central bank will reject: nothing uppercase yet.
    rejecting = [
        cash_out(api, AC03_KEY, pix_key_type="cpf"),
        cash_out(api, "reject.ed05@sandbox.pixops.dev"),
        cash_out(api, SETTLE_KEY, 4_321),
        cash_out(api, SETTLE_KEY, 4_321),  # same minute: DUPL later
    ]
    for response in rejecting:
        assert (response.status_code, response.json()["status"]) == (202, "accepted")
        for _, value in entries(response.json()):
            assert not (isinstance(value, str) and CENTRAL_BANK_CODE.fullmatch(value)), value
    queued = cash_out(api, "queue.client@sandbox.pixops.dev")
    assert REPROCESSING_CODE.fullmatch(queued.json()["reason_code"])
    sandbox.advance(2)
    rejected = [e for e in sandbox.events(merchant.id) if e.type == "pix.payout.rejected"]
    assert sorted(e.data["reason_code"] for e in rejected) == ["AC03", "DUPL", "ED05"]
    for event in rejected:
        assert CENTRAL_BANK_CODE.fullmatch(event.data["reason_code"])
        shown = data(api, f"/transactions/{event.data['transaction_id']}")
        assert shown["reason_code"] == event.data["reason_code"]
    (queued_event,) = [e for e in sandbox.events(merchant.id) if e.type == "pix.payout.queued"]
    assert REPROCESSING_CODE.fullmatch(queued_event.data["reason_code"])


def test_cash_out_authentication_messages_follow_the_errors_table(
    sandbox: Sandbox, merchant: Merchant, connect: Connect, api: Api
) -> None:
    """Cash-out lists "401 `Invalid HMAC signature` ..., 401 `Invalid API Key`, 403
    `permission 'transfer:write' required`, 403 `IP not whitelisted`", while the Errors
    table words the same refusals "Invalid API key credentials", "API key lacks
    permission: <permission>" and "Request IP not in API key whitelist". The spec
    conflicts; the engine answers every endpoint with the Errors table (one front door),
    and "Synchronous rejections send no webhook" nor write anything."""
    body = {"amount": 100, "pix_key": SETTLE_KEY}
    key = api.key
    assert key is not None
    wrong_secret = f"ApiKey {key.client_id}:{key.client_secret}x"
    invalid = api("POST", "/pix/cash-out", body, headers={"authorization": wrong_secret})
    assert json_of(invalid) == {"error": {"status": 401, "message": "Invalid API key credentials"}}
    forged = api("POST", "/pix/cash-out", body, headers={"hmac": "0" * 128})
    assert json_of(forged) == {"worked": False, "detail": "Invalid HMAC signature"}
    reader = sandbox.issue_api_key(merchant.id, permissions=["transfer:read"])
    denied = connect(sandbox, reader)("POST", "/pix/cash-out", body)
    assert json_of(denied) == {
        "error": "forbidden",
        "message": "API key lacks permission: transfer:write",
    }
    elsewhere = sandbox.issue_api_key(merchant.id, ip_whitelist=["10.9.9.9"])
    outside = connect(sandbox, elsewhere)("POST", "/pix/cash-out", body)
    assert json_of(outside) == {
        "error": {"status": 403, "message": "Request IP not in API key whitelist"}
    }
    assert [r.status_code for r in (invalid, forged, denied, outside)] == [401, 401, 403, 403]
    sandbox.advance(60)
    assert transactions_count(sandbox, merchant.id) == 0
    assert sandbox.events(merchant.id) == []


@pytest.mark.parametrize(
    "end_to_end_id",
    [
        "E99999999202613991299abcdefghijk",  # month 13, minute 99: not a timestamp
        "E12345678202601051200abcdefghijk",  # another institution's code
    ],
)
def test_explicit_end_to_end_id_must_be_in_central_bank_format(
    sandbox: Sandbox, merchant: Merchant, api: Api, end_to_end_id: str
) -> None:
    """Cash-out body: `end_to_end_id` "central-bank format: letter E, institution code,
    timestamp digits (year to minute), entropy"; Cash-out response: `end_to_end_id`
    "letter E followed by the institution code and more characters". An ID outside that
    format is either refused at once (Format B) or never settles."""
    response = cash_out(api, SETTLE_KEY, end_to_end_id=end_to_end_id)
    if response.status_code == 400:
        assert json_of(response) == {
            "worked": False,
            "errors": {"bad_request": "invalid end_to_end_id"},
        }
        assert transactions_count(sandbox, merchant.id) == 0
        return
    assert response.status_code == 202, response.text
    sandbox.advance(2)
    shown = data(api, f"/transactions/{response.json()['transaction_id']}")
    assert shown["status"] != "settled", shown


# -- POST /pix/refund and GET /statement: the 401 -----------------------------------------


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [("POST", "/pix/refund", {"original_transaction_id": "x"}), ("GET", "/statement", None)],
)
def test_missing_credentials_on_refund_and_statement(
    api: Api, method: str, path: str, body: dict[str, Any] | None
) -> None:
    """Refund errors: "401 | `errors.unauthorized` | missing credentials"; Statement rule 3:
    "Error 401: body `{worked: false, errors: {unauthorized: <message>}}`". The Errors
    section says the key checks (401/403) use `{error: {status, message}}` and
    GET /transactions/:id says "Missing credentials: HTTP 401 with the `error` object
    shape". The spec conflicts; the engine answers the credential step the same way on
    every route (step 3 of the Order of validation runs before any route)."""
    response = api(method, path, body, key=None)
    assert (response.status_code, json_of(response)) == (401, MISSING_CREDENTIALS)


# -- Other endpoints: CPF validation, MED defense -----------------------------------------


@pytest.mark.parametrize(("cpf", "valid"), [(VALID_CPF, True), ("52998224724", False)])
def test_cpf_validate_answers_a_boolean(api: Api, cpf: str, valid: bool) -> None:
    """Endpoints: for `POST /cpf/validate` "the request body carries a string field `cpf`
    and the response carries `data.valid` (boolean)"."""
    response = api("POST", "/cpf/validate", {"cpf": cpf})
    assert response.status_code == 200
    assert response.json()["data"]["valid"] is valid


def test_med_defense_is_hmac_signed(sandbox: Sandbox, merchant: Merchant, api: Api) -> None:
    """Endpoints: "The defense endpoint takes HMAC-signed JSON"."""
    case = sandbox.open_med_case(sandbox.receive_pix(merchant.id, amount_centavos=1_000))
    unsigned = api("POST", f"/med/{case.id}/defense", {"defense": "ok"}, sign=False)
    assert (unsigned.status_code, json_of(unsigned)) == (
        401,
        {"worked": False, "detail": "Missing HMAC header"},
    )
    assert sandbox.med_case(case.id).status == "OPEN"
    signed = api("POST", f"/med/{case.id}/defense", {"defense": "ok"})
    assert signed.status_code == 200


# -- Authentication ------------------------------------------------------------------------


def test_multipart_passes_the_content_type_step(api: Api, key: ApiKey) -> None:
    """Order of validation, step 1: "for POST/PUT/PATCH it must be `application/json` or
    `multipart/form-data`, else HTTP 415"; step 5 then needs a JSON body: "invalid or
    missing body 400"."""
    body = b'{"cpf":"52998224725"}'
    multipart = {"content-type": "multipart/form-data; boundary=xyz"}
    accepted = api("POST", "/cpf/validate", body, headers=multipart)
    assert accepted.status_code == 200
    assert accepted.json()["data"]["valid"] is True
    form = b'--xyz\r\nContent-Disposition: form-data; name="cpf"\r\n\r\n52998224725\r\n--xyz--'
    not_json = api(
        "POST",
        "/cpf/validate",
        form,
        headers={**multipart, "hmac": wire.sign(form, key.client_secret)},
    )
    assert (not_json.status_code, json_of(not_json)) == (
        400,
        {"worked": False, "detail": "Request body must be valid JSON for HMAC validation"},
    )


@pytest.mark.parametrize("method", ["PUT", "PATCH"])
def test_put_and_patch_need_json_before_anything_else(api: Api, method: str) -> None:
    """Order of validation, step 1: "for POST/PUT/PATCH it must be `application/json` or
    `multipart/form-data`, else HTTP 415 (for example a form-urlencoded default)";
    Errors: 415 "plus `hint`"."""
    form = {"content-type": "application/x-www-form-urlencoded"}
    for path in ("/balance", "/webhooks/wh_1"):
        response = api(method, path, b"a=1", key=None, headers=form)
        assert response.status_code == 415
        error = json_of(response)["error"]
        assert error["message"] == "Unsupported Media Type. Expected Content-Type: application/json"
        assert error["status"] == 415
        assert "hint" in error


def test_get_and_delete_skip_hmac(sandbox: Sandbox, api: Api) -> None:
    """Order of validation: "Other GET and DELETE run 1, 2, 3, 4, 6, 8" (no HMAC);
    Headers: `hmac` "required for POST"."""
    assert api("GET", "/statement", headers={"hmac": "not-a-signature"}).status_code == 200
    url = sandbox.add_webhook_receiver(lambda headers, body: 200)
    webhook_id = api("POST", "/webhooks", {"url": url}).json()["data"]["id"]
    deleted = api("DELETE", f"/webhooks/{webhook_id}", headers={"hmac": "0" * 128})
    assert deleted.status_code == 200


def test_recommended_permission_sets_are_enough(
    sandbox: Sandbox, merchant: Merchant, connect: Connect
) -> None:
    """Permissions: "Recommended sets: receive = `pix:write` + `transfer:read`; send =
    `transfer:write` + `transfer:read`; queries = `transfer:read` + `account:read` +
    `statement:read`; webhooks = `account:write` + `account:read`"."""

    def holder(*permissions: str) -> Api:
        return connect(sandbox, sandbox.issue_api_key(merchant.id, permissions=list(permissions)))

    receive = holder("pix:write", "transfer:read")
    charge = receive("POST", "/pix/cash-in", {"amount": 100})
    assert charge.status_code == 201
    assert receive("GET", f"/transactions/{charge.json()['data']['transaction_id']}").is_success
    assert receive("POST", "/pix/cash-out", {"amount": 1, "pix_key": SETTLE_KEY}).status_code == 403

    send = holder("transfer:write", "transfer:read")
    payout = send("POST", "/pix/cash-out", {"amount": 100, "pix_key": SETTLE_KEY})
    assert payout.status_code == 202
    assert send("GET", f"/transactions/{payout.json()['transaction_id']}").is_success
    assert send("POST", "/pix/cash-in", {"amount": 100}).status_code == 403

    queries = holder("transfer:read", "account:read", "statement:read")
    for path in ("/balance", "/statement", "/transactions"):
        assert queries("GET", path).status_code == 200, path
    assert queries("POST", "/cpf/validate", {"cpf": VALID_CPF}).status_code == 200
    assert queries("GET", "/webhooks").status_code == 200  # account:read lists webhooks

    hooks = holder("account:write", "account:read")
    url = sandbox.add_webhook_receiver(lambda headers, body: 200)
    created = hooks("POST", "/webhooks", {"url": url})
    assert created.status_code == 201
    assert hooks("GET", "/webhooks").status_code == 200
    assert hooks("DELETE", f"/webhooks/{created.json()['data']['id']}").status_code == 200
    assert hooks("GET", "/statement").status_code == 403


# -- Limits ----------------------------------------------------------------------------------


def test_default_rate_limit_is_90000_per_minute(api: Api) -> None:
    """Limits: "Request rate | 90,000 per minute (1,500 per second) per IP, fixed
    60-second windows"; `x-ratelimit-remaining` "integer, requests left in the current
    window, on 2xx responses that passed the limiter"; `GET /balance` has no limit."""
    first = api("GET", "/statement")
    second = api("POST", "/cpf/validate", {"cpf": VALID_CPF})
    assert first.headers["x-ratelimit-remaining"] == "89999"
    assert second.headers["x-ratelimit-remaining"] == "89998"
    assert "x-ratelimit-remaining" not in api("GET", "/balance").headers


# -- Events: the spec's table and docs/engine-internals.md's -------------------------------


def documented_event_fields() -> dict[str, dict[str, str | None]]:
    """docs/engine-internals.md's event table: type -> {field: documented literal value}."""
    section = INTERNALS.read_text(encoding="utf-8").split("## Events", 1)[1]
    section = section.split("\n## ", 1)[0]
    table: dict[str, dict[str, str | None]] = {}
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        types_cell, data_cell = (cell.strip() for cell in line.strip().strip("|").split("|"))
        fields: dict[str, str | None] = {}
        for part in data_cell.split(","):
            literal = re.search(r"`([^`]+)`", part)
            fields[part.split()[0]] = literal.group(1) if literal else None
        for event_type in re.findall(r"`(pix\.[a-z.]+)`", types_cell):
            table[event_type] = fields
    return table


def test_internals_event_table_parses() -> None:
    """The table the next test reads names the spec's nine event kinds."""
    assert sorted(documented_event_fields()) == sorted(
        [
            "pix.charge.paid",
            "pix.payout.queued",
            "pix.payout.confirmed",
            "pix.payout.rejected",
            "pix.payout.failed",
            "pix.payout.returned",
            "pix.refund.completed",
            "pix.return.received",
            "pix.refund.requested",
        ]
    )


def test_emitted_events_match_the_spec_and_the_internals_table(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    """Spec Events table ("Fields known") and docs/engine-internals.md: "Events (outbox
    rows; `data` carries merchant-facing ids only, money in base units)" with each type's
    data fields; `pix.refund.completed` and `pix.payout.returned` "(both, same data)".
    Spec: "cash-out emits `queued`, `confirmed`, `rejected`, `failed`; refund emits
    `refund.completed`/`payout.returned` and, on late rejection, `payout.failed`"."""
    charge = api("POST", "/pix/cash-in", {"amount": 10_000}).json()["data"]
    credit = sandbox.pay_charge(charge["transaction_id"])
    confirmed = cash_out(api, SETTLE_KEY, 20_000).json()["transaction_id"]
    queued = cash_out(api, "queue.client@sandbox.pixops.dev", 1_100).json()["transaction_id"]
    rejected = cash_out(api, AC03_KEY, 1_200, pix_key_type="cpf").json()["transaction_id"]
    orphan = cash_out(api, "orphan@sandbox.pixops.dev", 1_300).json()["transaction_id"]
    refund_body = {"original_transaction_id": credit, "amount": 3_000}
    refunded = api("POST", "/pix/refund", refund_body).json()["transaction_id"]
    refused_body = {"original_transaction_id": credit, "amount": 1_000, "reason": "XX99"}
    refused = api("POST", "/pix/refund", refused_body).json()["transaction_id"]
    sandbox.advance(60)
    returned = sandbox.receive_return(confirmed, amount_centavos=5_000)
    disputed = sandbox.receive_pix(merchant.id, amount_centavos=4_000)
    case = sandbox.open_med_case(disputed)
    sandbox.advance(minutes=31)

    documented = documented_event_fields()
    emitted = sandbox.events(merchant.id)
    with sandbox.engine.store.lock:
        rows = sandbox.engine.store.conn.execute(
            "SELECT id, hold_id FROM transactions WHERE merchant_id = ?", (merchant.id,)
        ).fetchall()
    internal_ids = {merchant.id} | {value for row in rows for value in row if value}
    assert len(internal_ids) > len(rows)  # the rows' internal ids and their holds
    assert {event.type for event in emitted} == set(documented)
    for event in emitted:
        fields = documented[event.type]
        expected = set(fields)
        if event.type == "pix.payout.failed" and event.transaction_id == refused:
            # docs/decisions.md: "A refund's `pix.payout.failed` also carries
            # `original_transaction_id`" (the internals table lists the cash-out form).
            expected.add("original_transaction_id")
        assert set(event.data) == expected, (event.type, sorted(event.data))
        for name, literal in fields.items():
            if literal is not None:
                assert event.data[name] == literal, (event.type, name)
        assert_wire_conventions(event.data)
        assert event.transaction_id == event.data["transaction_id"]
        for _, value in entries(event.data):
            assert value not in internal_ids, (event.type, value)

    def one(event_type: str, transaction_id: str) -> dict[str, Any]:
        (found,) = [
            e.data for e in emitted
            if e.type == event_type and e.data["transaction_id"] == transaction_id
        ]  # fmt: skip
        return found

    assert one("pix.charge.paid", credit)["amount"] == 1_000_000  # base units
    assert one("pix.payout.confirmed", confirmed)["amount"] == 2_000_000
    assert one("pix.payout.queued", queued)["reason_code"] in (
        "DICT_CLIENT_RATE_LIMITED",
        "DICT_BUCKET_EXHAUSTED",
    )
    assert one("pix.payout.confirmed", queued)["amount"] == 110_000
    rejection = one("pix.payout.rejected", rejected)
    assert (rejection["reason_code"], rejection["reason_description"]) == (
        "AC03",
        "Account missing or invalid",
    )
    assert one("pix.payout.failed", orphan)["reason_code"] == "orphan_force_voided"
    assert one("pix.payout.failed", refused)["reason_code"] == "AG03"
    completed = one("pix.refund.completed", refunded)
    assert one("pix.payout.returned", refunded) == completed
    assert (completed["total_refunded"], completed["remaining_refundable"]) == (300_000, 700_000)
    assert completed["is_partial"] is True
    back = one("pix.return.received", returned)
    assert (back["total_refunded"], back["remaining_refundable"]) == (500_000, 1_500_000)
    assert back["is_partial"] is True
    assert one("pix.refund.requested", disputed)["med_case_id"] == case.id
    # What each operation emits, and nothing else.
    by_transaction: dict[str | None, list[str]] = {}
    for event in emitted:
        by_transaction.setdefault(event.transaction_id, []).append(event.type)
    assert by_transaction[confirmed] == ["pix.payout.confirmed"]
    assert by_transaction[queued] == ["pix.payout.queued", "pix.payout.confirmed"]
    assert by_transaction[rejected] == ["pix.payout.rejected"]
    assert by_transaction[orphan] == ["pix.payout.failed"]
    assert by_transaction[refunded] == ["pix.refund.completed", "pix.payout.returned"]
    assert by_transaction[refused] == ["pix.payout.failed"]


def test_internals_transaction_ids_types_and_directions(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    """docs/engine-internals.md, the transactions table: "`transaction_id`: `PIXIN<e2e>`
    for cash_in, `PIXOUT<e2e>` for cash_out, `PIXRET<D-id>` for refund/med_refund,
    `PIXIN<D-id>` for return_received"; "`type`: `pix`; `pix_return` for
    return_received"; "`direction`: `inbound` (cash_in, return_received) or `outbound`
    (cash_out, refund, med_refund)"."""
    credit = sandbox.receive_pix(merchant.id, amount_centavos=8_000)
    payout = cash_out(api, "instant@sandbox.pixops.dev", 2_000).json()["transaction_id"]
    refund_body = {"original_transaction_id": credit, "amount": 1_000}
    refund = api("POST", "/pix/refund", refund_body).json()["transaction_id"]
    returned = sandbox.receive_return(payout, amount_centavos=500)
    case = sandbox.open_med_case(credit, amount_centavos=2_000)
    med_refund = sandbox.resolve_med_case(case.id, "AGREED").refund_transaction_id
    assert med_refund is not None
    sandbox.advance(2)
    expected = {
        credit: ("PIXIN", "E", "pix", "inbound"),
        payout: ("PIXOUT", "E", "pix", "outbound"),
        refund: ("PIXRET", "D", "pix", "outbound"),
        med_refund: ("PIXRET", "D", "pix", "outbound"),
        returned: ("PIXIN", "D", "pix_return", "inbound"),
    }
    for transaction_id, (prefix, letter, kind, direction) in expected.items():
        record = data(api, f"/transactions/{transaction_id}")
        assert record["status"] == "settled", transaction_id
        assert record["transaction_id"] == prefix + record["end_to_end_id"]
        assert record["end_to_end_id"].startswith(letter)
        assert (record["type"], record["direction"]) == (kind, direction)
