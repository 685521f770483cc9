"""Abuse at the front door: each attack gets the documented answer (docs/decisions.md,
the spec's Errors table), leaks nothing, and writes nothing.

"Writes nothing" is checked by counting the rows of every table that a request could
touch before and after (`footprint`).
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from pixops import wire
from pixops.sandbox import AdminError, ApiKey, Merchant, Sandbox
from tests.stress._harness import SETTLING_KEY, invariant_violations, leaks

if TYPE_CHECKING:
    from tests.conftest import Api, Connect

WRITTEN_TABLES = (
    "transactions",
    "journal",
    "holds",
    "charges",
    "events",
    "idempotency",
    "webhooks",
    "webhook_deliveries",
    "med_cases",
    "timers",
)
SQL_METACHARACTERS = (
    "' OR '1'='1",
    '"; DROP TABLE transactions; --',
    "1; DELETE FROM journal",
    "%' AND 1=1 --",
    "\\'; SELECT * FROM api_keys; --",
    "Robert'); DROP TABLE merchants;--",
)


def footprint(sb: Sandbox) -> dict[str, int]:
    with sb.engine.store.lock:
        conn = sb.engine.store.conn
        return {
            table: int(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
            for table in WRITTEN_TABLES
        }


def assert_clean(response: httpx.Response, key: ApiKey) -> None:
    assert response.status_code < 500, response.text
    assert leaks(response.text, (key.client_secret,)) == []
    assert all(key.client_secret not in value for value in response.headers.values())


def cash_out_body(**extra: Any) -> dict[str, Any]:
    return {"amount": 1_000, "pix_key": SETTLING_KEY, **extra}


# -- signatures -------------------------------------------------------------------


def test_forged_signature_is_401_and_writes_nothing(
    sandbox: Sandbox, api: Api, key: ApiKey
) -> None:
    before = footprint(sandbox)
    body = json.dumps(cash_out_body()).encode()
    forged = wire.sign(body, "sk_not_the_secret")
    response = api("POST", "/pix/cash-out", body, headers={"hmac": forged})
    assert response.status_code == 401
    assert response.json() == {"worked": False, "detail": "Invalid HMAC signature"}
    assert_clean(response, key)
    assert footprint(sandbox) == before


def test_a_signature_replayed_on_another_body_is_401(
    sandbox: Sandbox, api: Api, key: ApiKey
) -> None:
    signed = json.dumps(cash_out_body()).encode()
    captured = wire.sign(signed, key.client_secret)
    assert api("POST", "/pix/cash-out", signed, headers={"hmac": captured}).status_code == 202
    before = footprint(sandbox)
    tampered = json.dumps(cash_out_body(amount=999_999)).encode()
    response = api("POST", "/pix/cash-out", tampered, headers={"hmac": captured})
    assert response.status_code == 401
    assert footprint(sandbox) == before


def test_a_replayed_request_with_its_idempotency_key_is_the_first_answer(
    sandbox: Sandbox, api: Api, key: ApiKey
) -> None:
    body = json.dumps(cash_out_body(external_id="replayed")).encode()
    headers = {"idempotency-key": "replay-1"}
    first = api("POST", "/pix/cash-out", body, headers=headers)
    before = footprint(sandbox)
    again = api("POST", "/pix/cash-out", body, headers=headers)
    assert (again.status_code, again.content) == (first.status_code, first.content)
    assert again.headers["x-idempotent-replay"] == "true"
    assert footprint(sandbox) == before


# -- addresses ----------------------------------------------------------------------


def test_spoofed_forwarded_for_from_an_untrusted_peer_is_ignored(
    sandbox: Sandbox, merchant: Merchant, connect: Connect
) -> None:
    office_only = sandbox.issue_api_key(merchant.id, ip_whitelist=["203.0.113.7"])
    api = connect(sandbox, office_only)
    for forwarded in ("203.0.113.7", "203.0.113.7, 127.0.0.1", "127.0.0.1, 203.0.113.7"):
        response = api("GET", "/balance", headers={"x-forwarded-for": forwarded})
        assert response.status_code == 403, forwarded
        assert response.json()["error"]["message"] == "Request IP not in API key whitelist"


@pytest.mark.parametrize(
    ("peer", "whitelist", "status"),
    [
        ("::ffff:127.0.0.1", "127.0.0.1", 200),  # normalised to plain IPv4 (the spec)
        ("::ffff:10.0.0.9", "127.0.0.1", 403),
        ("::ffff:7f00:1", "127.0.0.1", 200),  # the same address written in hex
        ("::1", "127.0.0.1", 403),
        ("0:0:0:0:0:ffff:0a00:0009", "127.0.0.1", 403),
    ],
)
def test_ipv4_mapped_ipv6_cannot_slip_past_the_whitelist(
    sandbox: Sandbox, merchant: Merchant, connect: Connect, peer: str, whitelist: str, status: int
) -> None:
    key = sandbox.issue_api_key(merchant.id, ip_whitelist=[whitelist])
    response = connect(sandbox, key, client_ip=peer)("GET", "/balance")
    assert response.status_code == status, response.text


def test_a_mapped_address_is_not_a_whitelist_entry(sandbox: Sandbox, merchant: Merchant) -> None:
    """Entries are plain IPv4, IPv4 CIDR or IPv6 in standard form; a mapped form never
    matches anything, so issuing it is refused instead of silently locking the key out."""
    with pytest.raises(AdminError):
        sandbox.issue_api_key(merchant.id, ip_whitelist=["::ffff:127.0.0.1"])


# -- keys that stop working mid-session ---------------------------------------------


def test_a_key_expiring_mid_session_is_refused_from_that_instant(
    sandbox: Sandbox, merchant: Merchant, connect: Connect
) -> None:
    key = sandbox.issue_api_key(merchant.id, expires_at=sandbox.now() + timedelta(seconds=60))
    api = connect(sandbox, key)
    assert api("GET", "/balance").status_code == 200
    sandbox.advance(60)
    before = footprint(sandbox)
    for method, path, body in (
        ("GET", "/balance", None),
        ("POST", "/pix/cash-out", cash_out_body()),
    ):
        response = api(method, path, body)
        assert response.status_code == 401
        assert response.json()["error"]["message"] == "API key has expired"
    assert footprint(sandbox) == before


def test_a_key_revoked_mid_session_is_refused_at_once(
    sandbox: Sandbox, api: Api, key: ApiKey
) -> None:
    assert api("GET", "/balance").status_code == 200
    sandbox.revoke_api_key(key.client_id)
    before = footprint(sandbox)
    response = api("POST", "/pix/cash-out", cash_out_body())
    assert response.status_code == 401
    assert response.json()["error"]["message"] == "API key is inactive"
    assert footprint(sandbox) == before


# -- bodies ---------------------------------------------------------------------------


def test_a_huge_body_is_413(sandbox: Sandbox, api: Api, key: ApiKey) -> None:
    before = footprint(sandbox)
    body = json.dumps(cash_out_body(description="x" * 2_000_000)).encode()
    response = api("POST", "/pix/cash-out", body)
    assert response.status_code == 413
    assert_clean(response, key)
    assert footprint(sandbox) == before


@pytest.mark.parametrize("depth", [65, 1_000, 100_000])
def test_a_deeply_nested_body_is_400(sandbox: Sandbox, api: Api, key: ApiKey, depth: int) -> None:
    before = footprint(sandbox)
    nested = "[" * depth + "]" * depth
    body = ('{"amount": 1000, "pix_key": "' + SETTLING_KEY + '", "x": ' + nested + "}").encode()
    response = api("POST", "/pix/cash-out", body)
    assert response.status_code == 400
    assert_clean(response, key)
    assert footprint(sandbox) == before


@pytest.mark.parametrize(
    "raw",
    [
        b'{"amount": 1000, "pix_key": "\xff\xfe"}',
        b'{"amount": 1000, "pix_key": "\xc3\x28"}',
        b'{"amount": 1000, "pix_key": "\xed\xa0\x80"}',  # a surrogate encoded in UTF-8
        b"\xef\xbb\xbf{}",
    ],
)
def test_invalid_utf8_is_400(sandbox: Sandbox, api: Api, key: ApiKey, raw: bytes) -> None:
    before = footprint(sandbox)
    response = api("POST", "/pix/cash-out", raw)
    assert response.status_code == 400
    assert_clean(response, key)
    assert footprint(sandbox) == before


def test_header_injection_never_reaches_a_response_header(sandbox: Sandbox, key: ApiKey) -> None:
    before = footprint(sandbox)
    body = json.dumps(cash_out_body()).encode()
    headers = [
        ("authorization", f"ApiKey {key.client_id}:{key.client_secret}"),
        ("content-type", "application/json"),
        ("hmac", wire.sign(body, key.client_secret)),
        ("idempotency-key", "abc\r\nSet-Cookie: session=stolen"),
    ]
    response = sandbox.engine.handle(
        "POST", "/api/external/pix/cash-out", headers, body, "127.0.0.1"
    )
    assert response.status == 400
    for name, value in response.headers:
        assert "\r" not in value
        assert "\n" not in value
        assert name.lower() != "set-cookie"
    assert footprint(sandbox) == before


@pytest.mark.parametrize(
    "target",
    [
        "/api/external/transactions/..%2F..%2Fbalance",
        "/api/external/transactions/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
        "/api/external/transactions/..%5C..%5Cwindows",
        "/api/external/transactions/e2e/..%2F..%2Fstatement",
        "/api/external/med/..%2F..%2Fbalance",
        "/api/external/webhooks/..%2F..%2Fbalance",
        "/api/external/transactions/%00",
    ],
)
def test_path_traversal_in_ids_finds_nothing(sandbox: Sandbox, key: ApiKey, target: str) -> None:
    auth = [("authorization", f"ApiKey {key.client_id}:{key.client_secret}")]
    method = "DELETE" if "/webhooks/" in target else "GET"
    before = footprint(sandbox)
    response = sandbox.engine.handle(method, target, auth, b"", "127.0.0.1")
    assert response.status in (400, 404)
    text = response.body.decode()
    assert "balance" not in json.loads(text).get("data", {})
    assert leaks(text, (key.client_secret,)) == []
    assert footprint(sandbox) == before


@pytest.mark.parametrize("payload", SQL_METACHARACTERS)
def test_sql_metacharacters_in_every_string_field_are_data(
    sandbox: Sandbox, api: Api, key: ApiKey, payload: str
) -> None:
    fields = {
        "/pix/cash-out": [
            cash_out_body(description=payload, external_id=payload),
            {"amount": 1_000, "pix_key": payload},
            cash_out_body(pix_key_type=payload),
            cash_out_body(end_to_end_id=payload),
            cash_out_body(recipient_ispb=payload),
            cash_out_body(purpose=payload),
        ],
        "/pix/cash-in": [
            {"amount": 500, "description": payload},
            {"amount": 500, "external_id": payload},
            {"amount": 500, "tag": payload},
            {"amount": 500, "payer": {"name": payload, "document": "52998224725"}},
        ],
        "/pix/refund": [
            {"original_transaction_id": payload},
            {"original_transaction_id": "x", "reason": payload, "description": payload},
        ],
        "/cpf/validate": [{"cpf": payload}],
        "/webhooks": [{"url": f"https://example.com/{payload}", "event_types": [payload]}],
    }
    for path, bodies in fields.items():
        for body in bodies:
            response = api("POST", path, body)
            assert_clean(response, key)
    for path in (f"/transactions/{payload}", f"/transactions/ref/{payload}", f"/med/{payload}"):
        assert_clean(api("GET", path), key)
    assert_clean(api("GET", "/statement", headers=None, body=None), key)
    with sandbox.engine.store.lock:
        conn = sandbox.engine.store.conn
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("SELECT COUNT(*) FROM merchants").fetchone()[0] == 1
        assert invariant_violations(conn) == []
    stored = [
        row[0]
        for row in sandbox.engine.store.conn.execute(
            "SELECT description FROM transactions WHERE description IS NOT NULL"
        )
    ]
    assert all(text == payload for text in stored if "'" in text or ";" in text)


@pytest.mark.parametrize(("length", "status"), [(256, 202), (257, 400)])
def test_idempotency_key_length_limit(
    sandbox: Sandbox, api: Api, key: ApiKey, length: int, status: int
) -> None:
    before = footprint(sandbox)
    response = api(
        "POST", "/pix/cash-out", cash_out_body(), headers={"idempotency-key": "k" * length}
    )
    assert response.status_code == status
    if status == 400:
        assert response.json() == {
            "error": {"status": 400, "message": "Idempotency-Key must be at most 256 characters"}
        }
        assert footprint(sandbox) == before
    else:
        assert response.headers["idempotency-key"] == "k" * length


# -- a webhook receiver that never answers -------------------------------------------


@pytest.fixture
def silent_receiver() -> Iterator[tuple[str, threading.Event]]:
    """A loopback listener that accepts connections and never writes a byte."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    accepted = threading.Event()
    held: list[socket.socket] = []
    stop = threading.Event()

    def serve() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except OSError:
                continue
            held.append(connection)
            accepted.set()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/hook", accepted
    finally:
        stop.set()
        thread.join(5)
        for connection in held:
            connection.close()
        listener.close()


def test_a_webhook_receiver_that_never_answers_times_out_and_blocks_no_request(
    sandbox: Sandbox,
    merchant: Merchant,
    api: Api,
    silent_receiver: tuple[str, threading.Event],
) -> None:
    url, accepted = silent_receiver
    created = api("POST", "/webhooks", {"url": url, "event_types": ["pix.payout.confirmed"]})
    assert created.status_code in (200, 201), created.text
    payout = api("POST", "/pix/cash-out", cash_out_body(pix_key="instant@sandbox.pixops.dev"))
    assert payout.status_code == 200, payout.text
    delivering = threading.Thread(target=sandbox.advance, args=(0,))
    delivering.start()
    try:
        assert accepted.wait(10), "the delivery connected to the receiver"
        # The receiver holds the connection; the API must still answer meanwhile.
        assert api("GET", "/balance").status_code == 200
        assert delivering.is_alive()
    finally:
        delivering.join(30)
    assert not delivering.is_alive()
    (delivery,) = sandbox.webhook_deliveries(merchant.id)
    assert delivery.state == "pending", "a timeout is retried later"
    assert delivery.next_attempt_at is not None
    (attempt,) = delivery.attempts
    assert attempt.status_code is None
    assert attempt.error is not None
    assert "timed out" in attempt.error


def test_another_merchants_ids_are_unknown_ids(
    sandbox: Sandbox, merchant: Merchant, connect: Connect
) -> None:
    """Every way to name merchant A's money, tried with merchant B's key: the ordinary
    404 of an unknown id, identical byte for byte, and nothing written."""
    theirs = sandbox.receive_pix(merchant.id, amount_centavos=5_000)
    other = sandbox.create_merchant("Outra Loja", balance_centavos=1_000_000)
    intruder = connect(sandbox, sandbox.issue_api_key(other.id))
    unknown = "PIXIN" + "E" + "0" * 31
    before = footprint(sandbox)
    for path in ("/transactions/{}", "/transactions/{}/receipt"):
        mine = intruder("GET", path.format(theirs))
        nobody = intruder("GET", path.format(unknown))
        assert mine.status_code == nobody.status_code == 404
        assert mine.content == nobody.content
    refund = intruder("POST", "/pix/refund", {"original_transaction_id": theirs})
    assert refund.status_code == 404
    assert (
        refund.json()
        == intruder("POST", "/pix/refund", {"original_transaction_id": unknown}).json()
    )
    assert footprint(sandbox) == before
