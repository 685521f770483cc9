"""API key credentials: the Authorization header's two forms, secrets kept only as
hashes, and the inactive / expired rules."""

from __future__ import annotations

import base64
import hashlib
from datetime import timedelta
from typing import TYPE_CHECKING

import pytest

from pixops.engine import credentials
from pixops.sandbox import Merchant, Sandbox

if TYPE_CHECKING:
    from tests.conftest import Connect


def basic(pair: bytes) -> str:
    return "Basic " + base64.b64encode(pair).decode("ascii")


@pytest.mark.parametrize(
    ("header", "pair"),
    [
        ("ApiKey cli_a:sk_b", ("cli_a", "sk_b")),
        ("apikey cli_a:sk_b", ("cli_a", "sk_b")),
        ("APIKEY   cli_a:sk_b  ", ("cli_a", "sk_b")),
        ("ApiKey cli_a:sk:with:colons", ("cli_a", "sk:with:colons")),
        (basic(b"cli_a:sk_b"), ("cli_a", "sk_b")),
        ("basic " + base64.b64encode(b"cli_a:sk_b").decode(), ("cli_a", "sk_b")),
        (basic("cli_a:sk_ção".encode()), ("cli_a", "sk_ção")),
    ],
)
def test_parse_authorization(header: str, pair: tuple[str, str]) -> None:
    assert credentials.parse_authorization(header) == pair


@pytest.mark.parametrize("header", [None, "", "   ", "Bearer x", "Digest a=b", "cli_a:sk_b"])
def test_missing_credentials(header: str | None) -> None:
    with pytest.raises(credentials.MissingCredentialsError):
        credentials.parse_authorization(header)


@pytest.mark.parametrize(
    "header",
    [
        "ApiKey",
        "ApiKey cli_a",
        "ApiKey :sk_b",
        "ApiKey cli_a:",
        "Basic",
        "Basic ***",
        "Basic Y2xpX2E6c2tfYg",  # padding missing
        "Basic Y2xp X2E6c2tfYg==",  # whitespace inside
        basic(b"no-colon"),
        basic(b"\xff:\xfe"),  # not UTF-8
        basic(b":sk_b"),
    ],
)
def test_malformed_credentials(header: str) -> None:
    with pytest.raises(credentials.MalformedCredentialsError):
        credentials.parse_authorization(header)


def test_new_credentials_have_their_prefixes_and_are_unique() -> None:
    ids = {credentials.new_client_id() for _ in range(50)}
    secrets = {credentials.new_client_secret() for _ in range(50)}
    assert len(ids) == len(secrets) == 50
    assert all(value.startswith("cli_") for value in ids)
    assert all(value.startswith("sk_") and len(value) > 40 for value in secrets)


def test_secret_matches_only_its_hash() -> None:
    stored = credentials.hash_secret("sk_right")
    assert stored == hashlib.sha256(b"sk_right").hexdigest()
    assert credentials.secret_matches("sk_right", stored)
    assert not credentials.secret_matches("sk_wrong", stored)
    assert not credentials.secret_matches("sk_right", None)
    assert not credentials.secret_matches("pixops-dummy-secret", None)


def test_only_the_hash_of_the_secret_is_stored(sandbox: Sandbox, merchant: Merchant) -> None:
    key = sandbox.issue_api_key(merchant.id)
    with sandbox.engine.store.lock:
        row = sandbox.engine.store.conn.execute(
            "SELECT * FROM api_keys WHERE client_id = ?", (key.client_id,)
        ).fetchone()
    assert key.client_secret not in [str(value) for value in tuple(row)]
    assert row["secret_sha256"] == credentials.hash_secret(key.client_secret)
    assert key.client_secret not in repr(key)


EXPIRED = {"error": {"status": 401, "message": "API key has expired"}}


def test_a_key_expires_at_its_instant(
    connect: Connect, sandbox: Sandbox, merchant: Merchant
) -> None:
    key = sandbox.issue_api_key(merchant.id, expires_at=sandbox.now() + timedelta(seconds=5))
    api = connect(sandbox, key)
    sandbox.advance(4)
    assert api("GET", "/balance").status_code == 200
    sandbox.advance(1)
    response = api("GET", "/balance")
    assert (response.status_code, response.json()) == (401, EXPIRED)


def test_one_revoked_key_leaves_the_others_working(
    connect: Connect, sandbox: Sandbox, merchant: Merchant
) -> None:
    first = sandbox.issue_api_key(merchant.id)
    second = sandbox.issue_api_key(merchant.id)
    sandbox.revoke_api_key(first.client_id)
    assert connect(sandbox, first)("GET", "/balance").status_code == 401
    assert connect(sandbox, second)("GET", "/balance").status_code == 200


def test_a_key_works_only_for_its_own_merchant(
    connect: Connect, sandbox: Sandbox, merchant: Merchant
) -> None:
    other = sandbox.create_merchant("Outra", balance_centavos=7)
    mine = connect(sandbox, sandbox.issue_api_key(merchant.id))("GET", "/balance").json()
    theirs = connect(sandbox, sandbox.issue_api_key(other.id))("GET", "/balance").json()
    assert 1_000_000 * 100 in mine["data"].values()
    assert 7 * 100 in theirs["data"].values()
    assert 7 * 100 not in mine["data"].values()
