"""Engine.handle's own duties: a fault is a generic 500 that leaks nothing and writes nothing."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import pytest

from pixops.engine.http import Reply
from pixops.engine.routing import Context, Route, Router
from pixops.sandbox import ApiKey, Merchant, Sandbox

if TYPE_CHECKING:
    from tests.conftest import Api


def breaking_route(ctx: Context) -> Reply:
    """Writes a row, then fails the way a bug would."""
    ctx.conn.execute(
        "INSERT INTO journal (merchant_id, at, amount_base, kind) VALUES (?, '', 1, 'bug')",
        (ctx.merchant_id,),
    )
    raise RuntimeError(f"boom with {ctx.client_id}")


@pytest.fixture
def broken(sandbox: Sandbox) -> Sandbox:
    route = Route.make("GET", "/balance", "account:read", breaking_route)
    sandbox.engine.router = Router([route])
    return sandbox


@pytest.mark.expect_engine_errors
def test_a_fault_is_a_generic_500(broken: Sandbox, api: Api) -> None:
    response = api("GET", "/balance")
    assert response.status_code == 500
    assert response.json() == {"error": {"status": 500, "message": "Internal server error"}}


@pytest.mark.expect_engine_errors
def test_a_fault_writes_nothing(broken: Sandbox, api: Api, merchant: Merchant) -> None:
    api("GET", "/balance")
    assert broken.audit(merchant.id).consistent
    kinds = broken.engine.store.conn.execute("SELECT kind FROM journal").fetchall()
    assert [row[0] for row in kinds] == ["opening_balance"]


@pytest.mark.expect_engine_errors
def test_secrets_never_reach_logs_or_responses(
    broken: Sandbox, api: Api, key: ApiKey, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.DEBUG):
        failed = api("GET", "/balance")
        refused = api("GET", "/balance", headers={"authorization": f"ApiKey {key.client_id}:x"})
    assert failed.status_code == 500
    assert refused.status_code == 401
    assert caplog.records, "the fault is logged"
    for text in (caplog.text, failed.text, refused.text, str(failed.headers)):
        assert key.client_secret not in text
