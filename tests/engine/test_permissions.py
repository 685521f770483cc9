"""The permission matrix: all 19 routes of the spec's Endpoints table.

For every route, a key holding every permission but the route's gets the `forbidden`
shape naming that permission, and a key holding only that permission passes the
permission step (whatever the route itself then answers).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from pixops.engine.permissions import PERMISSIONS
from pixops.engine.routes import ROUTES
from pixops.sandbox import Merchant, Sandbox
from tests.conftest import SPEC_ENDPOINTS

if TYPE_CHECKING:
    from tests.conftest import Connect

SAMPLE_PARAMS = {
    ":id": "PIXINE99999999202601051200abcdefghijk",
    ":e2e_id": "E99999999202601051200abcdefghijk",
    ":tag": "order-1",
    ":external_id": "ref-1",
}


def concrete(pattern: str) -> str:
    return "/".join(SAMPLE_PARAMS.get(part, part) for part in pattern.split("/"))


def test_the_route_table_is_the_spec_table() -> None:
    table = [(route.method, route.pattern, route.permission) for route in ROUTES]
    assert sorted(table) == sorted(SPEC_ENDPOINTS)
    assert len(table) == 19
    assert {permission for _, _, permission in SPEC_ENDPOINTS} == PERMISSIONS


@pytest.fixture
def owner(sandbox: Sandbox) -> Merchant:
    return sandbox.create_merchant("Loja Permissoes", balance_centavos=1_000_000)


@pytest.mark.parametrize(
    ("method", "pattern", "permission"),
    SPEC_ENDPOINTS,
    ids=[f"{m} {p}" for m, p, _ in SPEC_ENDPOINTS],
)
def test_every_permission_but_the_routes_is_forbidden(
    connect: Connect, sandbox: Sandbox, owner: Merchant, method: str, pattern: str, permission: str
) -> None:
    others = sorted(PERMISSIONS - {permission})
    api = connect(sandbox, sandbox.issue_api_key(owner.id, permissions=others))
    body = {"amount": 100} if method == "POST" else None
    response = api(method, concrete(pattern), body)
    assert response.status_code == 403
    assert response.json() == {
        "error": "forbidden",
        "message": f"API key lacks permission: {permission}",
    }


@pytest.mark.parametrize(
    ("method", "pattern", "permission"),
    SPEC_ENDPOINTS,
    ids=[f"{m} {p}" for m, p, _ in SPEC_ENDPOINTS],
)
def test_only_the_routes_permission_passes_the_permission_step(
    connect: Connect, sandbox: Sandbox, owner: Merchant, method: str, pattern: str, permission: str
) -> None:
    api = connect(sandbox, sandbox.issue_api_key(owner.id, permissions=[permission]))
    body = {"amount": 100} if method == "POST" else None
    response = api(method, concrete(pattern), body)
    assert response.status_code not in (401, 403, 405, 415, 429), response.text
    assert response.status_code < 500, response.text
    parsed = response.json()
    assert parsed.get("error") is None, parsed


def test_no_permission_at_all(connect: Connect, sandbox: Sandbox, owner: Merchant) -> None:
    api = connect(sandbox, sandbox.issue_api_key(owner.id, permissions=[]))
    for method, pattern, permission in SPEC_ENDPOINTS:
        body = {"amount": 100} if method == "POST" else None
        response = api(method, concrete(pattern), body)
        assert (response.status_code, response.json()["message"]) == (
            403,
            f"API key lacks permission: {permission}",
        )
