"""The test helpers' OpenAPI fragment: valid 3.1, complete against their route table, served."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pixops.engine.admin import PREFIX, ROUTES, TAG, add_to_openapi, openapi_fragment
from pixops.engine.openapi import document_bytes


def minimal_document() -> dict[str, Any]:
    return {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {}}


def test_the_fragment_makes_a_valid_openapi_3_1_document() -> None:
    # Imported here: only this test reads it, and an xdist worker that never runs it
    # need not load it at collection.
    from openapi_spec_validator import validate

    validate(add_to_openapi(minimal_document()))


def test_every_helper_is_documented_with_its_fields_and_the_admin_token() -> None:
    paths = openapi_fragment()["paths"]
    for route in ROUTES:
        template = PREFIX + "/".join(
            "{" + part[1:] + "}" if part.startswith(":") else part
            for part in route.pattern.split("/")
        )
        operation = paths[template][route.method.lower()]
        assert operation["tags"] == [TAG]
        assert operation["security"] == [{"sandboxAdminToken": []}]
        assert paths[template]["servers"] == [
            {"url": "/", "description": "the server's root, not /api/external"}
        ]
        if route.method == "POST":
            schema = operation["requestBody"]["content"]["application/json"]["schema"]
            assert set(schema["properties"]) == set(route.fields)
            assert schema["additionalProperties"] is False
            assert operation["requestBody"]["required"] is True
            assert set(schema.get("required", [])) == set(route.required)
    operations = sum(len([m for m in item if m != "servers"]) for item in paths.values())
    assert operations == len(ROUTES)


def test_the_served_document_carries_the_helpers_under_their_own_tag() -> None:
    served = json.loads(document_bytes())
    assert TAG in [tag["name"] for tag in served["tags"]]
    assert served["components"]["securitySchemes"]["sandboxAdminToken"]["scheme"] == "bearer"
    assert f"{PREFIX}/charges/{{transaction_id}}/pay" in served["paths"]
    assert not any(path.startswith("/api/external") for path in served["paths"])


def test_merging_twice_adds_the_tag_once() -> None:
    document = add_to_openapi(add_to_openapi(minimal_document()))
    assert [tag["name"] for tag in document["tags"]] == [TAG]


def test_only_a_document_can_be_merged_into() -> None:
    with pytest.raises(TypeError, match="OpenAPI document"):
        add_to_openapi([])  # type: ignore[arg-type]
