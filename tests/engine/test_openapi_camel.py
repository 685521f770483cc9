"""The camelCase mode's OpenAPI document: served, linked from the main one, built from the
same models by `wire.to_camel`, and true of what the service answers in that mode."""

from __future__ import annotations

from typing import Any

import httpx
import jsonschema
import pytest

from pixops import wire
from pixops.engine.openapi import build_openapi, camel_case_document_bytes
from pixops.engine.openapi_camel import CAMEL_QUERY, camel_case_document
from pixops.sandbox import Sandbox

SNAKE = build_openapi()
CAMEL = camel_case_document(build_openapi())


def property_names(node: Any) -> set[str]:
    """Every property name of every schema under `node`."""
    found: set[str] = set()
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict):
                found |= set(value)
                for sub in value.values():
                    found |= property_names(sub)
            else:
                found |= property_names(value)
    elif isinstance(node, list):
        for item in node:
            found |= property_names(item)
    return found


def test_the_camel_document_is_valid_openapi_and_linked_both_ways() -> None:
    # Imported here: only this test reads it, and an xdist worker that never runs it
    # need not load it at collection.
    from openapi_spec_validator import validate

    validate(CAMEL)
    assert SNAKE["info"]["x-key-case-documents"]["camelCase"] == CAMEL_QUERY
    assert CAMEL_QUERY in SNAKE["info"]["description"]
    assert CAMEL["info"]["x-key-case-documents"]["snake_case"] == "openapi.json"
    assert CAMEL_QUERY not in CAMEL["info"]["description"].split("`openapi.json`.")[1]
    assert set(CAMEL["paths"]) == set(SNAKE["paths"])  # the merchant API, no test helpers


def test_every_name_is_the_snake_document_s_in_camel_case() -> None:
    snake_names = property_names(SNAKE)
    camel_names = property_names(CAMEL)
    assert "end_to_end_id" in snake_names
    assert "endToEndId" in camel_names
    assert camel_names == {wire.to_camel(name) for name in snake_names}
    assert not any("_" in name for name in camel_names)
    med = CAMEL["components"]["schemas"]["MedCase"]
    assert "transactionId" in med["required"]
    queries = {p["name"] for p in CAMEL["components"]["parameters"].values() if p["in"] == "query"}
    assert {"dateFrom", "dateTo", "perPage", "transactionId"} <= queries
    key_case = CAMEL["components"]["parameters"]["XKeyCase"]
    assert key_case["required"] is True
    assert key_case["schema"] == {"type": "string", "const": "camelCase"}
    assert build_openapi() == SNAKE  # the snake_case document is left as it was


def test_two_names_becoming_one_are_refused() -> None:
    clash = {
        "info": {"description": "", "title": "t"},
        "paths": {},
        "tags": [],
        "components": {
            "schemas": {"X": {"properties": {"a_b": {}, "aB": {}}}},
            "responses": {},
            "headers": {},
            "securitySchemes": {},
            "parameters": {},
        },
    }
    with pytest.raises(ValueError, match="two properties become one"):
        camel_case_document(clash)


@pytest.fixture(scope="module")
def client() -> httpx.Client:
    sandbox = Sandbox()
    merchant = sandbox.create_merchant("Loja", balance_centavos=50_000)
    key = sandbox.issue_api_key(merchant.id)
    received = sandbox.receive_pix(merchant.id, amount_centavos=1_000, payer_name="Ana")
    sandbox.open_med_case(received, reason="FRAUD")
    return httpx.Client(
        transport=sandbox.transport(),
        base_url="http://sandbox/api/external",
        headers={
            "authorization": f"ApiKey {key.client_id}:{key.client_secret}",
            "x-key-case": "camelCase",
        },
    )


def test_it_is_served_beside_the_main_one(client: httpx.Client) -> None:
    served = client.get("/openapi.json", params={"key_case": "camelCase"})
    assert served.status_code == 200
    assert served.content == camel_case_document_bytes()
    assert client.get("/openapi.json", params={"key_case": "snake_case"}).json() == (
        client.get("/openapi.json").json()
    )
    wrong = client.get("/openapi.json", params={"key_case": "kebab-case"})
    assert wrong.status_code == 400
    assert wrong.json() == {
        "error": {"status": 400, "message": "key_case must be snake_case or camelCase (once)"}
    }


def fits(document: dict[str, Any], template: str, status: str, body: Any) -> bool:
    """Whether `body` is inside the document's schema of that answer."""
    response = document["paths"][template]["get"]["responses"][status]
    if "$ref" in response:
        response = document["components"]["responses"][response["$ref"].rsplit("/", 1)[1]]
    schema = {
        **response["content"]["application/json"]["schema"],
        "components": document["components"],
    }
    return jsonschema.Draft202012Validator(schema).is_valid(body)


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/balance", "200"),
        ("/med", "200"),
        ("/statement?perPage=5", "200"),
        ("/transactions?perPage=5", "200"),
        ("/pix/keys", "200"),
        ("/webhooks", "200"),
        ("/transactions/nope", "404"),
        ("/statement?dateFrom=2026-02-01&dateTo=2026-01-01", "400"),
    ],
)
def test_camel_answers_fit_the_camel_document(client: httpx.Client, path: str, status: str) -> None:
    """The snake_case document described none of these answers (schemathesis found 11)."""
    answer = client.get(path)
    assert str(answer.status_code) == status, answer.text
    template = "/transactions/{id}" if path.startswith("/transactions/nope") else path
    template = template.split("?")[0]
    assert fits(CAMEL, template, status, answer.json())
    snake = client.get(path, headers={"x-key-case": "snake_case"})
    assert fits(SNAKE, template, status, snake.json())


def test_the_snake_document_does_not_describe_camel_answers(client: httpx.Client) -> None:
    """Why the camelCase document is needed: a camelCase balance is outside the other."""
    answer = client.get("/balance").json()
    assert "availableBalance" in answer["data"]
    assert not fits(SNAKE, "/balance", "200", answer)
