"""Hostile input at the front door, over raw HTTP (issue 8, items 7, 8, 10 and 11).

Lone surrogate escapes in any string or key, strings longer than their documented limit,
unknown query parameters on every route, and non-ASCII Idempotency-Keys: each is a
clear 400 that writes nothing, never a 500.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pixops import limits, wire
from pixops.sandbox import ApiKey, Sandbox

if TYPE_CHECKING:
    from tests.conftest import Api

INVALID_JSON = {"worked": False, "detail": "Request body must be valid JSON for HMAC validation"}
#: Every code point class, surrogates (Cs), private use and unassigned included.
EVERY_CLASS = st.text(alphabet=st.characters(exclude_categories=()), max_size=10)

#: Every POST route with the string fields it reads (a body template per route).
POST_FIELDS: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "/cpf/validate": ({"cpf": "52998224725"}, ("cpf",)),
    "/pix/cash-out": (
        {"amount": 1, "pix_key": "maria.silva@sandbox.pixops.dev"},
        ("pix_key", "description", "purpose", "external_id", "pix_key_type"),
    ),
    "/pix/refund": (
        {"original_transaction_id": "PIXIN-none"},
        ("original_transaction_id", "description", "reason", "return_code"),
    ),
    "/pix/cash-in": ({"amount": 100}, ("description", "external_id", "tag")),
    "/webhooks": ({"url": "https://example.com/h"}, ("url", "description")),
    "/med/MED-none/defense": ({"defense": "not mine"}, ("defense",)),
}


def _has_surrogate(text: str) -> bool:
    return any(0xD800 <= ord(ch) <= 0xDFFF for ch in text)


def _signed(key: ApiKey, body: bytes, extra: dict[str, str] | None = None) -> list[tuple[str, str]]:
    headers = {
        "authorization": f"ApiKey {key.client_id}:{key.client_secret}",
        "content-type": "application/json",
        "hmac": wire.sign(body, key.client_secret),
        **(extra or {}),
    }
    return list(headers.items())


def _rows(sandbox: Sandbox) -> tuple[int, ...]:
    tables = ("transactions", "charges", "webhooks", "idempotency", "events", "timers")
    with sandbox.engine.store.lock:
        conn = sandbox.engine.store.conn
        return tuple(conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in tables)


# -- item 7: lone surrogates ----------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/cpf/validate", rb'{"cpf":"\ud800"}'),
        ("/pix/cash-out", rb'{"amount":1,"pix_key":"a@b.co","description":"\udfff"}'),
        ("/pix/cash-out", rb'{"amount":1,"pix_key":"a@b.co","purpose":"x\ud800y"}'),
        ("/pix/refund", rb'{"original_transaction_id":"\ud800"}'),
        ("/pix/refund", rb'{"original_transaction_id":"PIXIN1","description":"\udc00"}'),
        ("/pix/cash-in", rb'{"amount":100,"description":"\ud83d"}'),
        ("/webhooks", rb'{"url":"https://example.com/","description":"\ud800"}'),
        ("/med/MED1/defense", rb'{"defense":"\ud800"}'),
        ("/cpf/validate", rb'{"cpf":"52998224725","\ud800":1}'),
        ("/pix/refund", rb'{"originalTransactionId":"\udbff"}'),
    ],
)
@pytest.mark.parametrize("camel", [False, True])
@pytest.mark.parametrize("idempotent", [False, True])
def test_a_lone_surrogate_is_the_invalid_json_400(
    sandbox: Sandbox, key: ApiKey, path: str, body: bytes, camel: bool, idempotent: bool
) -> None:
    extra = {}
    if camel:
        extra["x-key-case"] = "camelCase"
    if idempotent:
        extra["idempotency-key"] = "surrogate-1"
    before = _rows(sandbox)
    response = sandbox.engine.handle(
        "POST", "/api/external" + path, _signed(key, body, extra), body, "127.0.0.1"
    )
    assert response.status == 400, response.body
    expected = INVALID_JSON
    assert json.loads(response.body) == expected
    assert _rows(sandbox) == before


_WORLD: list[tuple[Sandbox, ApiKey]] = []


def _world() -> tuple[Sandbox, ApiKey]:
    """One sandbox for every example: building one each time would dominate the run."""
    if not _WORLD:
        sandbox = Sandbox()
        owner = sandbox.create_merchant("Loja", balance_centavos=1_000_000)
        _WORLD.append((sandbox, sandbox.issue_api_key(owner.id, ip_whitelist=["127.0.0.1"])))
    return _WORLD[0]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    route=st.sampled_from(sorted(POST_FIELDS)),
    data=st.data(),
    text=EVERY_CLASS,
    as_key=st.booleans(),
    camel=st.booleans(),
    idempotency=st.none() | st.text(alphabet="abc123", min_size=1, max_size=4),
)
def test_any_text_in_any_field_or_key_is_answered_without_a_500(
    route: str,
    data: st.DataObject,
    text: str,
    as_key: bool,
    camel: bool,
    idempotency: str | None,
) -> None:
    sandbox, key = _world()
    template, fields = POST_FIELDS[route]
    document = dict(template)
    if as_key:
        document[text] = "value"
    else:
        document[data.draw(st.sampled_from(fields))] = text
    body = json.dumps(document).encode("ascii")  # every non-ASCII code point escaped
    extra = {"x-key-case": "camelCase"} if camel else {}
    if idempotency is not None:
        extra["idempotency-key"] = idempotency
    before = _rows(sandbox)
    response = sandbox.engine.handle(
        "POST", "/api/external" + route, _signed(key, body, extra), body, "127.0.0.1"
    )
    assert response.status < 500, response.body
    answer = json.loads(response.body)
    assert isinstance(answer, dict)
    if _has_surrogate(text):
        assert (response.status, answer) == (400, INVALID_JSON)
        assert _rows(sandbox) == before


# -- item 8: every accepted string has a documented maximum ---------------------------


def _bad_request(response: httpx.Response) -> Any:
    assert response.status_code == 400, response.text
    return response.json()["errors"]["bad_request"]


def test_a_huge_refund_reason_is_refused(sandbox: Sandbox, api: Api, key: ApiKey) -> None:
    credit = sandbox.receive_pix(key.merchant_id, amount_centavos=1_000)
    reason = "R" * 1_000_000
    body = {"original_transaction_id": credit, "reason": reason}
    assert _bad_request(api("POST", "/pix/refund", body)) == (
        f"reason must be at most {limits.REFUND_REASON_MAX_CHARS} characters"
    )
    alias = {"original_transaction_id": credit, "return_code": "R" * 36}
    assert _bad_request(api("POST", "/pix/refund", alias)).startswith("reason must be at most")
    at_limit = {"original_transaction_id": credit, "reason": "R" * 35}
    assert api("POST", "/pix/refund", at_limit).status_code == 202


def test_a_huge_original_transaction_id_is_refused(api: Api) -> None:
    body = {"original_transaction_id": "P" * 65}
    assert _bad_request(api("POST", "/pix/refund", body)) == (
        f"original_transaction_id must be at most {limits.TRANSACTION_ID_MAX_CHARS} characters"
    )


def test_a_huge_cpf_is_refused_not_echoed(api: Api) -> None:
    response = api("POST", "/cpf/validate", {"cpf": "1" * 1_000_000})
    assert _bad_request(response) == {"cpf": ["must be at most 14 characters"]}
    assert len(response.content) < 200
    formatted = api("POST", "/cpf/validate", {"cpf": " 529.982.247-25 "})
    assert formatted.json()["data"] == {"cpf": "52998224725", "valid": True}


def test_a_huge_pix_key_is_refused(api: Api) -> None:
    body = {"amount": 100, "pix_key": "a" * 70 + "@x.co.br" + "m" * 1_000}
    assert _bad_request(api("POST", "/pix/cash-out", body)) == "invalid pix_key"


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/pix/cash-out", {"amount": 1, "pix_key": "a@b.co", "description": "d" * 141}, None),
        ("/pix/cash-out", {"amount": 1, "pix_key": "a@b.co", "purpose": "p" * 141}, None),
        ("/pix/refund", {"original_transaction_id": "X", "description": "d" * 141}, None),
        ("/pix/cash-in", {"amount": 1, "description": "d" * 141}, "description"),
        ("/pix/cash-in", {"amount": 1, "tag": "t" * 65}, "tag"),
        ("/pix/cash-in", {"amount": 1, "external_id": "e" * 129}, "external_id"),
        ("/pix/cash-in", {"amount": 1, "payer": {"name": "n" * 141, "document": "x"}}, None),
        ("/webhooks", {"url": "https://a.co/" + "u" * 2_048}, "url"),
        ("/webhooks", {"url": "https://a.co/", "description": "d" * 141}, "description"),
    ],
)
def test_every_free_text_field_has_its_limit(
    api: Api, path: str, body: dict[str, Any], field: str | None
) -> None:
    refusal = _bad_request(api("POST", path, body))
    if field is not None:
        assert field in refusal


def test_a_huge_med_filter_is_refused(api: Api) -> None:
    response = api("GET", "/med?transaction_id=" + "T" * 65)
    assert _bad_request(response) == {"transaction_id": ["must be at most 64 characters"]}


# -- item 10: unknown query parameters, on every route ---------------------------------

NO_QUERY_ROUTES = [
    ("GET", "/balance"),
    ("GET", "/webhooks"),
    ("GET", "/pix/keys"),
    ("DELETE", "/webhooks/wh_none"),
    ("GET", "/transactions/PIXIN1"),
    ("GET", "/transactions/PIXIN1/receipt"),
    ("GET", "/med/MED1"),
    ("POST", "/cpf/validate"),
    ("POST", "/pix/cash-in"),
]


@pytest.mark.parametrize(("method", "path"), NO_QUERY_ROUTES)
def test_routes_without_parameters_refuse_any(
    sandbox: Sandbox, api: Api, method: str, path: str
) -> None:
    body = {"cpf": "52998224725"} if method == "POST" else None
    before = _rows(sandbox)
    response = api(method, path + "?verbose=1&perPage=2", body)
    assert _bad_request(response) == {
        "perPage": ["is not a known parameter"],
        "verbose": ["is not a known parameter"],
    }
    assert _rows(sandbox) == before


@pytest.mark.parametrize("path", ["/statement", "/transactions", "/med", "/transactions/tag/a"])
def test_routes_with_parameters_still_name_the_known_ones(api: Api, path: str) -> None:
    refusal = _bad_request(api("GET", path + "?verbose=1"))
    assert list(refusal) == ["verbose"]
    assert refusal["verbose"][0].startswith("is not a known parameter; known parameters: ")


# -- item 11: Idempotency-Key is printable ASCII ----------------------------------------


@pytest.mark.parametrize("raw", ["clé-1".encode(), "ключ".encode(), b"caf\xe9", "\u00a0k".encode()])
def test_a_non_ascii_idempotency_key_is_refused(sandbox: Sandbox, api: Api, raw: bytes) -> None:
    before = _rows(sandbox)
    body = json.dumps({"cpf": "52998224725"}).encode()
    response = api.client.post(
        "/cpf/validate",
        content=body,
        headers=[
            (b"authorization", f"ApiKey {api.key.client_id}:{api.key.client_secret}".encode()),  # type: ignore[union-attr]
            (b"content-type", b"application/json"),
            (b"hmac", wire.sign(body, api.key.client_secret).encode()),  # type: ignore[union-attr]
            (b"idempotency-key", raw),
        ],
    )
    assert response.status_code == 400
    assert response.json() == {
        "error": {
            "status": 400,
            "message": "Idempotency-Key must be printable ASCII characters (space to tilde)",
        }
    }
    assert _rows(sandbox) == before


def test_the_limit_counts_ascii_characters(api: Api) -> None:
    body = {"cpf": "52998224725"}
    at_limit = api("POST", "/cpf/validate", body, headers={"idempotency-key": "k" * 256})
    assert at_limit.status_code == 200
    over = api("POST", "/cpf/validate", body, headers={"idempotency-key": "k" * 257})
    assert over.json()["error"]["message"] == "Idempotency-Key must be at most 256 characters"
