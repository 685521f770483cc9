"""The front door, step by step: every message of the spec's Errors table, the order of
the eight steps, key casing and the HMAC over the canonical body.

Every test here runs twice: in-process (httpx transport) and through the ASGI app under
a real uvicorn on loopback, with the same assertions.
"""

from __future__ import annotations

import base64
import json
import re
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pixops import wire
from pixops.engine.config import EngineConfig
from pixops.engine.routing import Policy
from pixops.sandbox import ApiKey, Merchant, Sandbox

if TYPE_CHECKING:
    from tests.conftest import Api, Connect

VALID_CPF = "52998224725"
CPF_BODY = {"cpf": VALID_CPF}
CPF_OK = {"worked": True, "data": {"cpf": VALID_CPF, "valid": True}}
ONE_MIB = 1_048_576


@pytest.fixture(params=["in-process", "uvicorn"])
def connect(request: pytest.FixtureRequest, connect: Connect) -> Connect:
    """The way in: the in-process transport, or a real HTTP server on loopback."""
    if request.param == "uvicorn":
        live: Connect = request.getfixturevalue("live_connect")
        return live
    return connect


def error(status: int, message: str) -> dict[str, object]:
    return {"error": {"status": status, "message": message}}


def detail(message: str) -> dict[str, object]:
    return {"worked": False, "detail": message}


MISSING = error(
    401, "Missing API key credentials. Use Authorization: ApiKey <client_id>:<client_secret>"
)
INVALID = error(401, "Invalid API key credentials")
INACTIVE_KEY = error(401, "API key is inactive")
EXPIRED = error(401, "API key has expired")
EMPTY_WHITELIST = error(
    403, "IP whitelist required. Configure at least one allowed IP to use this API key."
)
IP_NOT_LISTED = error(403, "Request IP not in API key whitelist")
INACTIVE_ACCOUNT = error(403, "Account is not active")
TOO_MANY = error(429, "Too many requests. Please try again later.")
KEY_TOO_LONG = error(400, "Idempotency-Key must be at most 256 characters")
UNSUPPORTED = "Unsupported Media Type. Expected Content-Type: application/json"


def forbidden(permission: str) -> dict[str, object]:
    return {"error": "forbidden", "message": f"API key lacks permission: {permission}"}


def assert_reply(response: httpx.Response, status: int, body: object) -> None:
    assert (response.status_code, response.json()) == (status, body)
    assert response.headers["content-type"] == "application/json"


# -- step 1: content type -----------------------------------------------------


@pytest.mark.parametrize("content_type", ["application/x-www-form-urlencoded", "text/plain"])
def test_post_with_another_content_type_is_415_with_a_hint(api: Api, content_type: str) -> None:
    response = api(
        "POST", "/cpf/validate", b"cpf=52998224725", headers={"content-type": content_type}
    )
    assert response.status_code == 415
    body = response.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"status", "message", "hint"}
    assert body["error"]["status"] == 415
    assert body["error"]["message"] == UNSUPPORTED
    assert content_type in body["error"]["hint"]
    assert "application/json" in body["error"]["hint"]


def test_post_without_content_type_is_415(api: Api) -> None:
    response = api("POST", "/cpf/validate", CPF_BODY, headers={"content-type": None})
    assert response.status_code == 415
    assert response.json()["error"]["message"] == UNSUPPORTED
    assert "none" in response.json()["error"]["hint"]


@pytest.mark.parametrize(
    "content_type", ["application/json; charset=utf-8", "Application/JSON", "application/json;v=1"]
)
def test_json_content_type_is_read_loosely(api: Api, content_type: str) -> None:
    body = json.dumps(CPF_BODY).encode()
    response = api("POST", "/cpf/validate", body, headers={"content-type": content_type})
    assert_reply(response, 200, CPF_OK)


def test_get_and_delete_need_no_content_type(api: Api) -> None:
    assert api("GET", "/balance").status_code == 200
    response = api("DELETE", "/webhooks/wh_x", headers={"content-type": "text/plain"})
    assert response.status_code != 415


# -- step 2: X-Key-Case ---------------------------------------------------------


def test_camel_case_response_keys(api: Api) -> None:
    snake = api("GET", "/balance").json()
    camel = api("GET", "/balance", headers={"x-key-case": "camelCase"}).json()
    assert "available_balance" in snake["data"]
    assert camel == wire.camelize_keys(snake)
    assert "availableBalance" in camel["data"]
    assert all("_" not in name for name in camel["data"])


def test_camel_case_body_is_signed_as_sent(api: Api, key: ApiKey) -> None:
    sent = json.dumps({"cpf": VALID_CPF, "payerDocument": "x"}).encode()
    response = api("POST", "/cpf/validate", sent, headers={"x-key-case": "camelCase"})
    assert_reply(response, 200, CPF_OK)
    as_snake = json.dumps({"cpf": VALID_CPF, "payer_document": "x"}).encode()
    refused = api(
        "POST",
        "/cpf/validate",
        sent,
        headers={"x-key-case": "camelCase", "hmac": wire.sign(as_snake, key.client_secret)},
    )
    assert_reply(refused, 401, detail("Invalid HMAC signature"))


def test_snake_case_value_is_the_default(api: Api) -> None:
    plain = api("GET", "/balance").json()
    assert api("GET", "/balance", headers={"x-key-case": "snake_case"}).json() == plain


@pytest.mark.parametrize("value", ["camelcase", "CamelCase", "kebab-case", "true"])
def test_unknown_key_case_is_a_clear_400(api: Api, value: str) -> None:
    response = api("GET", "/balance", headers={"x-key-case": value})
    assert_reply(response, 400, error(400, "X-Key-Case must be camelCase or snake_case"))


def test_business_errors_are_camel_cased_too(api: Api) -> None:
    response = api("POST", "/cpf/validate", {}, headers={"x-key-case": "camelCase"})
    assert_reply(
        response, 400, {"worked": False, "errors": {"badRequest": {"cpf": ["is required"]}}}
    )


def test_camel_keys_colliding_in_snake_case_are_a_400(api: Api) -> None:
    body = {"cpf": VALID_CPF, "endToEndId": "a", "end_to_end_id": "b"}
    response = api("POST", "/cpf/validate", body, headers={"x-key-case": "camelCase"})
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["badRequest"]


# -- step 3: credentials ---------------------------------------------------------


def test_missing_credentials(api: Api) -> None:
    assert_reply(api("GET", "/balance", key=None), 401, MISSING)
    assert_reply(api("POST", "/cpf/validate", CPF_BODY, key=None), 401, MISSING)


@pytest.mark.parametrize("header", ["", "Bearer abc", "Token cli_x:sk_y", "cli_x:sk_y"])
def test_other_authorization_schemes_count_as_missing(api: Api, header: str) -> None:
    assert_reply(api("GET", "/balance", key=None, headers={"authorization": header}), 401, MISSING)


def test_invalid_secret_and_unknown_client(api: Api, key: ApiKey) -> None:
    wrong_secret = f"ApiKey {key.client_id}:{key.client_secret}x"
    unknown = f"ApiKey cli_000000000000000000000000:{key.client_secret}"
    for header in (wrong_secret, unknown):
        response = api("GET", "/balance", headers={"authorization": header})
        assert_reply(response, 401, INVALID)


@pytest.mark.parametrize(
    "header",
    [
        "ApiKey",
        "ApiKey cli_only",
        "ApiKey :sk_only",
        "ApiKey cli_x:",
        "Basic",
        "Basic !!!not-base64!!!",
        "Basic " + base64.b64encode(b"no-colon").decode(),
        "Basic " + base64.b64encode(b"\xff\xfe:\xff").decode(),
        "Basic Y2xpXzE6c2s",  # missing padding
    ],
)
def test_malformed_authorization_is_invalid(api: Api, header: str) -> None:
    assert_reply(api("GET", "/balance", key=None, headers={"authorization": header}), 401, INVALID)


def test_basic_and_api_key_are_equivalent(api: Api) -> None:
    by_api_key = api("POST", "/cpf/validate", CPF_BODY)
    by_basic = api("POST", "/cpf/validate", CPF_BODY, scheme="Basic")
    assert by_api_key.status_code == by_basic.status_code == 200
    assert by_api_key.content == by_basic.content
    assert api("GET", "/balance", scheme="Basic").content == api("GET", "/balance").content


def test_scheme_name_is_case_insensitive(api: Api, key: ApiKey) -> None:
    header = f"apikey {key.client_id}:{key.client_secret}"
    assert api("GET", "/balance", headers={"authorization": header}).status_code == 200
    assert api("GET", "/balance", scheme="BASIC").status_code == 401  # not base64


def test_revoked_key_is_inactive(api: Api, sandbox: Sandbox, key: ApiKey) -> None:
    assert api("GET", "/balance").status_code == 200
    sandbox.revoke_api_key(key.client_id)
    assert_reply(api("GET", "/balance"), 401, INACTIVE_KEY)
    assert_reply(api("GET", "/balance", scheme="Basic"), 401, INACTIVE_KEY)


def test_wrong_secret_of_a_revoked_key_is_invalid_not_inactive(
    api: Api, sandbox: Sandbox, key: ApiKey
) -> None:
    sandbox.revoke_api_key(key.client_id)
    header = f"ApiKey {key.client_id}:sk_guess"
    assert_reply(api("GET", "/balance", headers={"authorization": header}), 401, INVALID)


def test_expired_key(connect: Connect, sandbox: Sandbox, merchant: Merchant) -> None:
    past = sandbox.issue_api_key(merchant.id, expires_at=sandbox.now() - timedelta(seconds=1))
    assert_reply(connect(sandbox, past)("GET", "/balance"), 401, EXPIRED)
    soon = sandbox.issue_api_key(merchant.id, expires_at=sandbox.now() + timedelta(seconds=10))
    api = connect(sandbox, soon)
    assert api("GET", "/balance").status_code == 200
    sandbox.advance(10)
    assert_reply(api("GET", "/balance"), 401, EXPIRED)


# -- step 4: IP whitelist and account --------------------------------------------


def test_empty_whitelist(connect: Connect, sandbox: Sandbox, merchant: Merchant) -> None:
    api = connect(sandbox, sandbox.issue_api_key(merchant.id, ip_whitelist=[]))
    assert_reply(api("GET", "/balance"), 403, EMPTY_WHITELIST)
    assert_reply(api("POST", "/cpf/validate", CPF_BODY), 403, EMPTY_WHITELIST)


def test_ip_not_listed(connect: Connect, sandbox: Sandbox, merchant: Merchant) -> None:
    api = connect(sandbox, sandbox.issue_api_key(merchant.id, ip_whitelist=["10.1.2.3"]))
    assert_reply(api("GET", "/balance"), 403, IP_NOT_LISTED)


def test_inactive_account(api: Api, sandbox: Sandbox, merchant: Merchant) -> None:
    sandbox.set_account_active(merchant.id, False)
    assert_reply(api("GET", "/balance"), 403, INACTIVE_ACCOUNT)
    assert_reply(api("POST", "/cpf/validate", CPF_BODY), 403, INACTIVE_ACCOUNT)
    sandbox.set_account_active(merchant.id, True)
    assert api("GET", "/balance").status_code == 200


# -- step 5: HMAC ------------------------------------------------------------------


def test_missing_hmac_header(api: Api) -> None:
    assert_reply(
        api("POST", "/cpf/validate", CPF_BODY, sign=False), 401, detail("Missing HMAC header")
    )


@pytest.mark.parametrize(
    "signature",
    [
        "00" * 64,
        "not-hex",
        wire.sign(b'{"cpf":"52998224725"}', "sk_another_secret"),
        wire.sign(b'{"cpf":"52998224725"}', "sk_another_secret").upper(),
    ],
)
def test_invalid_hmac(api: Api, signature: str) -> None:
    response = api("POST", "/cpf/validate", CPF_BODY, headers={"hmac": signature})
    assert_reply(response, 401, detail("Invalid HMAC signature"))


def test_upper_case_hex_of_the_right_signature_is_refused(api: Api, key: ApiKey) -> None:
    body = json.dumps(CPF_BODY).encode()
    signature = wire.sign(body, key.client_secret).upper()
    response = api("POST", "/cpf/validate", body, headers={"hmac": signature})
    assert_reply(response, 401, detail("Invalid HMAC signature"))


@pytest.mark.parametrize("body", [b"", b"   "])
def test_empty_body(api: Api, body: bytes) -> None:
    response = api("POST", "/cpf/validate", body)
    assert_reply(response, 400, detail("Request body is required for HMAC validation"))


@pytest.mark.parametrize(
    "body",
    [
        b"cpf=52998224725",
        b'{"cpf": ',
        b'{"cpf":"\xff\xfe"}',  # invalid UTF-8
        b'\xef\xbb\xbf{"cpf":"52998224725"}',  # a BOM
        b'{"cpf":"1","cpf":"2"}',  # duplicate key: one document, one meaning
        b'{"amount":NaN}',
    ],
)
def test_body_that_is_not_json(api: Api, body: bytes) -> None:
    response = api("POST", "/cpf/validate", body)
    assert_reply(response, 400, detail("Request body must be valid JSON for HMAC validation"))


def test_key_without_hmac_secret(connect: Connect, sandbox: Sandbox, merchant: Merchant) -> None:
    api = connect(sandbox, sandbox.issue_api_key(merchant.id, hmac=False))
    forbidden_hmac = detail("HMAC secret not configured for this API key")
    assert_reply(api("POST", "/cpf/validate", CPF_BODY), 403, forbidden_hmac)
    assert_reply(api("POST", "/cpf/validate", CPF_BODY, sign=False), 403, forbidden_hmac)
    assert api("GET", "/balance").status_code == 200


def test_hmac_over_the_canonical_form(api: Api, key: ApiKey) -> None:
    canonical = b'{"cpf":"52998224725","note":"S\xc3\xa3o Paulo","z":{"a":[2,1],"b":1}}'
    signature = wire.sign(canonical, key.client_secret)
    variants = [
        b'{"z": {"a": [2, 1], "b": 1}, "note": "S\\u00e3o Paulo", "cpf": "52998224725"}',
        b'\n{ "note" : "S\xc3\xa3o Paulo" ,\t"cpf":"52998224725", "z":{"b":1,"a":[2,1]} }\n',
        canonical,
    ]
    for body in variants:
        response = api("POST", "/cpf/validate", body, headers={"hmac": signature})
        assert_reply(response, 200, CPF_OK)


def test_hmac_over_the_bytes_as_sent(api: Api) -> None:
    body = b'{ "z": 1,  "cpf": "52998224725" }'
    assert_reply(api("POST", "/cpf/validate", body), 200, CPF_OK)


def test_hmac_does_not_survive_a_changed_value(api: Api, key: ApiKey) -> None:
    signature = wire.sign(b'{"cpf":"52998224725"}', key.client_secret)
    tampered = b'{"cpf":"11144477735"}'
    response = api("POST", "/cpf/validate", tampered, headers={"hmac": signature})
    assert_reply(response, 401, detail("Invalid HMAC signature"))


# -- step 7: idempotency key format ----------------------------------------------


def test_idempotency_key_length(api: Api) -> None:
    ok = api("POST", "/cpf/validate", CPF_BODY, headers={"idempotency-key": "k" * 256})
    assert ok.status_code == 200
    assert ok.headers["idempotency-key"] == "k" * 256
    long = api("POST", "/cpf/validate", CPF_BODY, headers={"idempotency-key": "k" * 257})
    assert_reply(long, 400, KEY_TOO_LONG)


def test_empty_idempotency_key_is_a_clear_400(api: Api) -> None:
    response = api("POST", "/cpf/validate", CPF_BODY, headers={"idempotency-key": ""})
    assert_reply(response, 400, error(400, "Idempotency-Key must not be empty"))


# -- step 8: permission ----------------------------------------------------------


def test_missing_permission(connect: Connect, sandbox: Sandbox, merchant: Merchant) -> None:
    api = connect(sandbox, sandbox.issue_api_key(merchant.id, permissions=["statement:read"]))
    assert_reply(api("GET", "/balance"), 403, forbidden("account:read"))
    assert_reply(api("POST", "/cpf/validate", CPF_BODY), 403, forbidden("account:read"))


# -- the order between steps -------------------------------------------------------


def test_content_type_before_credentials(api: Api) -> None:
    response = api("POST", "/cpf/validate", b"x", key=None, headers={"content-type": "text/plain"})
    assert response.status_code == 415


def test_content_type_before_key_case(api: Api) -> None:
    response = api(
        "POST", "/cpf/validate", b"x", headers={"content-type": "text/plain", "x-key-case": "bad"}
    )
    assert response.status_code == 415


def test_key_case_before_credentials(api: Api) -> None:
    response = api("GET", "/balance", key=None, headers={"x-key-case": "bad"})
    assert response.status_code == 400


def test_pipeline_errors_keep_their_shape_under_camel_case(api: Api) -> None:
    response = api("GET", "/balance", key=None, headers={"x-key-case": "camelCase"})
    assert_reply(response, 401, MISSING)


def test_credentials_before_ip(connect: Connect, sandbox: Sandbox, merchant: Merchant) -> None:
    elsewhere = sandbox.issue_api_key(merchant.id, ip_whitelist=["10.9.9.9"])
    api = connect(sandbox, elsewhere)
    bad_secret = f"ApiKey {elsewhere.client_id}:sk_wrong"
    assert_reply(api("GET", "/balance", headers={"authorization": bad_secret}), 401, INVALID)
    sandbox.revoke_api_key(elsewhere.client_id)
    assert_reply(api("GET", "/balance"), 401, INACTIVE_KEY)


def test_expiry_before_ip_and_account(
    connect: Connect, sandbox: Sandbox, merchant: Merchant
) -> None:
    expired = sandbox.issue_api_key(
        merchant.id, ip_whitelist=[], expires_at=sandbox.now() - timedelta(days=1)
    )
    sandbox.set_account_active(merchant.id, False)
    assert_reply(connect(sandbox, expired)("GET", "/balance"), 401, EXPIRED)


def test_ip_before_account(connect: Connect, sandbox: Sandbox, merchant: Merchant) -> None:
    elsewhere = sandbox.issue_api_key(merchant.id, ip_whitelist=["10.9.9.9"])
    sandbox.set_account_active(merchant.id, False)
    assert_reply(connect(sandbox, elsewhere)("GET", "/balance"), 403, IP_NOT_LISTED)


def test_ip_and_account_before_hmac(connect: Connect, sandbox: Sandbox, merchant: Merchant) -> None:
    elsewhere = sandbox.issue_api_key(merchant.id, ip_whitelist=["10.9.9.9"])
    api = connect(sandbox, elsewhere)
    assert_reply(api("POST", "/cpf/validate", CPF_BODY, sign=False), 403, IP_NOT_LISTED)
    sandbox.set_account_active(merchant.id, False)
    here = connect(sandbox, sandbox.issue_api_key(merchant.id, hmac=False))
    assert_reply(here("POST", "/cpf/validate", b""), 403, INACTIVE_ACCOUNT)


def test_hmac_before_permission(connect: Connect, sandbox: Sandbox, merchant: Merchant) -> None:
    api = connect(sandbox, sandbox.issue_api_key(merchant.id, permissions=["statement:read"]))
    assert_reply(
        api("POST", "/cpf/validate", CPF_BODY, sign=False), 401, detail("Missing HMAC header")
    )
    assert_reply(
        api("POST", "/cpf/validate", b"[", sign=True),
        400,
        detail("Request body must be valid JSON for HMAC validation"),
    )


def test_hmac_before_rate_limit_and_idempotency(connect: Connect) -> None:
    sandbox = Sandbox(rate_limit_per_minute=1)
    owner = sandbox.create_merchant("Loja")
    api = connect(sandbox, sandbox.issue_api_key(owner.id))
    assert api("POST", "/cpf/validate", CPF_BODY).status_code == 200
    assert_reply(api("POST", "/cpf/validate", CPF_BODY), 429, TOO_MANY)
    unsigned = api(
        "POST", "/cpf/validate", CPF_BODY, sign=False, headers={"idempotency-key": "k" * 300}
    )
    assert_reply(unsigned, 401, detail("Missing HMAC header"))


def test_rate_limit_before_idempotency_and_permission(connect: Connect) -> None:
    sandbox = Sandbox(rate_limit_per_minute=1)
    owner = sandbox.create_merchant("Loja")
    api = connect(sandbox, sandbox.issue_api_key(owner.id, permissions=["pix:read"]))
    assert_reply(api("POST", "/cpf/validate", CPF_BODY), 403, forbidden("account:read"))
    limited = api("POST", "/cpf/validate", CPF_BODY, headers={"idempotency-key": "k" * 300})
    assert_reply(limited, 429, TOO_MANY)
    assert limited.headers["retry-after"] == "60"


def test_idempotency_key_before_permission(
    connect: Connect, sandbox: Sandbox, merchant: Merchant
) -> None:
    api = connect(sandbox, sandbox.issue_api_key(merchant.id, permissions=["pix:read"]))
    response = api("POST", "/cpf/validate", CPF_BODY, headers={"idempotency-key": "k" * 257})
    assert_reply(response, 400, KEY_TOO_LONG)


def test_refusals_before_the_limiter_are_not_counted(connect: Connect) -> None:
    sandbox = Sandbox(rate_limit_per_minute=2)
    owner = sandbox.create_merchant("Loja")
    key = sandbox.issue_api_key(owner.id)
    api = connect(sandbox, key)
    for _ in range(5):
        assert api("GET", "/webhooks", key=None).status_code == 401
        assert api("POST", "/cpf/validate", CPF_BODY, sign=False).status_code == 401
    first = api("POST", "/cpf/validate", CPF_BODY)
    assert first.headers["x-ratelimit-remaining"] == "1"


# -- which steps each method runs --------------------------------------------------


def test_balance_skips_rate_limiter_hmac_and_idempotency(connect: Connect) -> None:
    sandbox = Sandbox(rate_limit_per_minute=2)
    owner = sandbox.create_merchant("Loja")
    api = connect(sandbox, sandbox.issue_api_key(owner.id, hmac=False))
    for _ in range(6):
        response = api("GET", "/balance", headers={"idempotency-key": "k" * 400})
        assert response.status_code == 200
        assert "x-ratelimit-remaining" not in response.headers
        assert "idempotency-key" not in response.headers
        assert "x-idempotent-replay" not in response.headers
    assert api("GET", "/webhooks").status_code != 429
    assert api("GET", "/webhooks").status_code != 429
    assert_reply(api("GET", "/webhooks"), 429, TOO_MANY)
    assert api("GET", "/balance").status_code == 200


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/webhooks"),
        ("GET", "/statement"),
        ("GET", "/transactions/x"),
        ("DELETE", "/webhooks/wh_x"),
    ],
)
def test_other_gets_and_deletes_are_rate_limited(connect: Connect, method: str, path: str) -> None:
    sandbox = Sandbox(rate_limit_per_minute=1)
    owner = sandbox.create_merchant("Loja")
    api = connect(sandbox, sandbox.issue_api_key(owner.id, hmac=False))
    first = api(method, path, headers={"idempotency-key": "k" * 400})
    assert first.status_code not in (400, 403, 429)
    assert "idempotency-key" not in first.headers
    second = api(method, path)
    assert_reply(second, 429, TOO_MANY)
    assert second.headers["retry-after"] == "60"


@pytest.mark.parametrize("path", ["/webhooks", "/statement", "/transactions", "/pix/keys", "/med"])
def test_successful_gets_carry_the_remaining_count(connect: Connect, path: str) -> None:
    sandbox = Sandbox(rate_limit_per_minute=3)
    owner = sandbox.create_merchant("Loja")
    api = connect(sandbox, sandbox.issue_api_key(owner.id))
    counts = [api("GET", path).headers.get("x-ratelimit-remaining") for _ in range(3)]
    assert counts == ["2", "1", "0"]


def test_unknown_paths_are_behind_the_credentials(api: Api) -> None:
    assert_reply(api("GET", "/nowhere", key=None), 401, MISSING)
    response = api("GET", "/nowhere")
    assert_reply(
        response,
        404,
        {"worked": False, "errors": {"not_found": "No route for GET /api/external/nowhere"}},
    )


def test_wrong_method_is_405_with_allow(api: Api) -> None:
    response = api("PATCH", "/balance", {"x": 1})
    assert response.status_code == 405
    assert response.headers["allow"] == "GET"
    assert response.json() == {
        "worked": False,
        "errors": {"method_not_allowed": "PATCH is not allowed on /api/external/balance"},
    }


# -- limits on the body --------------------------------------------------------------


def padded_cpf_body(size: int) -> bytes:
    skeleton = b'{"cpf":"52998224725","pad":""}'
    return skeleton[:-2] + b"x" * (size - len(skeleton)) + b'"}'


def test_body_of_exactly_one_mib_is_read(api: Api) -> None:
    body = padded_cpf_body(ONE_MIB)
    assert len(body) == ONE_MIB
    assert_reply(api("POST", "/cpf/validate", body), 200, CPF_OK)


def test_body_over_one_mib_is_413(api: Api) -> None:
    body = padded_cpf_body(ONE_MIB + 1)
    too_large = error(413, "Request body too large; the limit is 1048576 bytes")
    assert_reply(api("POST", "/cpf/validate", body), 413, too_large)
    assert_reply(api("POST", "/cpf/validate", body, key=None), 413, too_large)


def test_json_array_body_is_a_clear_400(api: Api) -> None:
    response = api("POST", "/cpf/validate", [CPF_BODY])
    assert_reply(
        response,
        400,
        {"worked": False, "errors": {"bad_request": "Request body must be a JSON object"}},
    )


@pytest.mark.parametrize("body", [b"null", b"42", b'"52998224725"', b"true"])
def test_json_scalar_body_is_a_clear_400(api: Api, body: bytes) -> None:
    response = api("POST", "/cpf/validate", body)
    assert_reply(
        response,
        400,
        {"worked": False, "errors": {"bad_request": "Request body must be a JSON object"}},
    )


@pytest.mark.parametrize("camel", [False, True])
def test_deeply_nested_body_is_a_clear_400(api: Api, camel: bool) -> None:
    depth = 900
    body = b'{"cpf":"52998224725","n":' + b"[" * depth + b"]" * depth + b"}"
    headers: dict[str, str | None] = {"x-key-case": "camelCase"} if camel else {}
    response = api("POST", "/cpf/validate", body, headers=headers)
    assert response.status_code == 400
    (atom,) = response.json()["errors"]
    assert response.json()["errors"][atom] == "Request body nests deeper than 64 levels"


# -- whatever arrives, a JSON answer and never a 500 ----------------------------------

_LATIN1 = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=255), max_size=40)
_HEADER_NAMES = [
    "authorization",
    "content-type",
    "x-key-case",
    "idempotency-key",
    "hmac",
    "x-forwarded-for",
]


@settings(max_examples=300, deadline=None)
@given(
    method=st.sampled_from(["GET", "POST", "DELETE", "PUT", "PATCH", "HEAD", "OPTIONS"]),
    path=st.sampled_from(
        ["/balance", "/cpf/validate", "/transactions/", "/webhooks", "/pix/cash-in"]
    ),
    suffix=st.text(alphabet="ab%/?=&#.;:+ \x00\xff~é", max_size=20),
    override=st.dictionaries(st.sampled_from(_HEADER_NAMES), _LATIN1, max_size=4),
    body=st.binary(max_size=60) | st.just(b'{"cpf":"52998224725"}') | st.just(b'{"amount":100}'),
    sign=st.booleans(),
    peer=st.sampled_from(["127.0.0.1", "::ffff:127.0.0.1", "", "garbage", "10.1.1.1", "::1"]),
)
def test_front_door_never_answers_500(
    method: str,
    path: str,
    suffix: str,
    override: dict[str, str],
    body: bytes,
    sign: bool,
    peer: str,
) -> None:
    sandbox, key = _fuzz_world()
    headers = {
        "authorization": f"ApiKey {key.client_id}:{key.client_secret}",
        "content-type": "application/json",
    }
    if sign:
        headers["hmac"] = wire.sign(body, key.client_secret)
    headers.update(override)
    target = "/api/external" + path + suffix
    response = sandbox.engine.handle(method, target, list(headers.items()), body, peer)
    assert response.status < 500, (response.status, response.body)
    assert isinstance(json.loads(response.body), dict)


_FUZZ: list[tuple[Sandbox, ApiKey]] = []


def _fuzz_world() -> tuple[Sandbox, ApiKey]:
    """One sandbox for all examples (building one per example would dominate the run)."""
    if not _FUZZ:
        sandbox = Sandbox(config=EngineConfig(trusted_proxies=frozenset({"127.0.0.1"})))
        owner = sandbox.create_merchant("Loja", balance_centavos=10_000)
        key = sandbox.issue_api_key(owner.id, ip_whitelist=["127.0.0.1", "10.0.0.0/8", "::1"])
        # Entries that issuance refuses today may still be stored: they must match nothing.
        stored = ["127.0.0.1", "10.0.0.0/8", "::1", "bad", "", "10.0.0.5/24"]
        with sandbox.engine.store.transaction() as conn:
            conn.execute(
                "UPDATE api_keys SET ip_whitelist = ? WHERE client_id = ?",
                (json.dumps(stored), key.client_id),
            )
        _FUZZ.append((sandbox, key))
    return _FUZZ[0]


# -- per-route policy in the route table (issue 9.3) ---------------------------------


def test_the_route_table_holds_each_routes_policy() -> None:
    from pixops.engine.routes import ROUTES

    policies = {(r.method, r.pattern): r.policy for r in ROUTES}
    assert policies[("GET", "/balance")] == Policy(
        signed=False, rate_limited=False, idempotent=False
    )
    for (method, pattern), policy in policies.items():
        if (method, pattern) == ("GET", "/balance"):
            continue
        assert policy == Policy.for_method(method), (method, pattern)


def test_a_route_exempted_from_the_limiter_is_exempt_by_its_policy(
    sandbox: Sandbox, merchant: Merchant, key: ApiKey
) -> None:
    """The exemption is read from the route, not from a path comparison: a route table
    that exempts /webhooks instead of /balance moves the exemption with it."""
    from dataclasses import replace as replaced

    from pixops.engine.routing import Router

    engine = sandbox.engine
    engine.router = Router(
        [
            replaced(r, policy=Policy.for_method(r.method))
            if r.pattern == "/balance"
            else replaced(r, policy=Policy(signed=False, rate_limited=False, idempotent=False))
            if (r.method, r.pattern) == ("GET", "/webhooks")
            else r
            for r in engine.router.routes
        ]
    )
    headers = [("authorization", f"ApiKey {key.client_id}:{key.client_secret}")]
    balance = engine.handle("GET", "/api/external/balance", headers, b"", "127.0.0.1")
    hooks = engine.handle("GET", "/api/external/webhooks", headers, b"", "127.0.0.1")
    assert ("x-ratelimit-remaining" in dict(balance.headers)) is True
    assert ("x-ratelimit-remaining" in dict(hooks.headers)) is False


def test_a_route_built_directly_gets_its_methods_policy() -> None:
    from pixops.engine.routing import Route

    def handler(ctx: Any) -> Any:
        raise AssertionError("not called")

    direct = Route("POST", "/x", "account:read", handler, re.compile("^/x$"))
    assert direct.policy == Policy(signed=True, rate_limited=True, idempotent=True)
    assert Route.make("GET", "/y", "account:read", handler).policy == Policy.for_method("GET")
