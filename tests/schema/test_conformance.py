"""The endpoint table of the schema equals the engine's, and `check_answer` bites."""

from __future__ import annotations

import json

import httpx
import pytest

from pixops.engine.routes import ROUTES
from pixops.sandbox import Sandbox
from pixops.schema import ENDPOINTS, check_answer, success_model
from tests.conftest import check_against_schema


def test_the_schema_knows_every_route_of_the_engine() -> None:
    assert set(ENDPOINTS) == {(route.method, route.pattern) for route in ROUTES}


def test_path_patterns_resolve_to_the_right_model() -> None:
    assert success_model("GET", "/transactions/abc/receipt").__name__ == "ReceiptResponse"
    assert success_model("GET", "/transactions/e2e/E123").__name__ == "TransactionResponse"
    assert success_model("GET", "/transactions").__name__ == "StatementPage"
    assert success_model("PUT", "/balance") is None


def test_a_real_answer_fits_and_a_broken_one_is_named() -> None:
    sandbox = Sandbox()
    merchant = sandbox.create_merchant("Loja", balance_centavos=10_000)
    client = sandbox.client(sandbox.issue_api_key(merchant.id))
    answer = client.request("GET", "/balance")
    assert check_answer("GET", "/api/external/balance", 200, answer.content) is None
    body = json.loads(answer.content)
    body["data"]["balance"] = 1.5  # money as a float: never allowed
    problem = check_answer("GET", "/api/external/balance", 200, json.dumps(body).encode())
    assert problem is not None
    assert "data.balance" in problem
    del body["data"]["safe_balance"]
    assert check_answer("GET", "/balance", 200, json.dumps(body).encode()) is not None
    assert check_answer("GET", "/balance", 401, b'{"oops": 1}') is not None
    assert check_answer("GET", "/balance", 401, b"<html>") is not None
    camel = client.with_options(key_case="camelCase").request("GET", "/statement")
    assert b"transactionId" in camel.content or b'"data":[]' in camel.content
    assert check_answer("GET", "/statement", 200, camel.content) is None


def test_the_shared_fixture_hook_fails_a_test_on_a_bad_body() -> None:
    def broken(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"worked": True, "data": {"balance": "10"}})

    client = httpx.Client(
        transport=httpx.MockTransport(broken),
        base_url="http://sandbox/api/external",
        event_hooks={"response": [check_against_schema]},
    )
    with pytest.raises(AssertionError, match="outside the wire schema"):
        client.get("/balance")


def test_filter_values_agree_with_the_engine() -> None:
    from pixops.engine import queries
    from pixops.schema import STATUS_FILTERS, TYPE_FILTERS

    assert tuple(queries.STATUS_FILTERS) == STATUS_FILTERS
    assert tuple(queries.TYPE_FILTERS) == TYPE_FILTERS
