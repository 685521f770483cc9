"""Idempotency-Key on POST: replays, scope, 24-hour expiry, errors not cached, reuse with
another body, and concurrent duplicates executing once."""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

from pixops.engine.http import Reply
from pixops.engine.routing import Context, Handler, Router
from pixops.engine.store import MIGRATIONS, Store
from pixops.sandbox import ApiKey, Merchant, Sandbox

if TYPE_CHECKING:
    from tests.conftest import Api, Connect

VALID_CPF = "52998224725"
OTHER_CPF = "11144477735"
REPLAY = "x-idempotent-replay"


def validate(api: Api, cpf: str, key: str, **options: Any) -> httpx.Response:
    return api("POST", "/cpf/validate", {"cpf": cpf}, headers={"idempotency-key": key}, **options)


def test_replay_is_byte_identical_with_the_same_status(api: Api) -> None:
    first = validate(api, VALID_CPF, "order-1")
    again = validate(api, VALID_CPF, "order-1")
    assert first.status_code == again.status_code == 200
    assert again.content == first.content
    assert REPLAY not in first.headers
    assert again.headers[REPLAY] == "true"
    assert first.headers["idempotency-key"] == again.headers["idempotency-key"] == "order-1"


def test_replay_survives_a_different_formatting_of_the_same_body(api: Api) -> None:
    first = validate(api, VALID_CPF, "order-1")
    reformatted = b'{ "cpf" : "52998224725" }'
    again = api("POST", "/cpf/validate", reformatted, headers={"idempotency-key": "order-1"})
    assert again.headers[REPLAY] == "true"
    assert again.content == first.content


def test_without_a_key_nothing_is_replayed(api: Api) -> None:
    for _ in range(2):
        response = api("POST", "/cpf/validate", {"cpf": VALID_CPF})
        assert REPLAY not in response.headers
        assert "idempotency-key" not in response.headers


def test_reuse_with_another_body_is_422(api: Api) -> None:
    validate(api, VALID_CPF, "order-1")
    response = validate(api, OTHER_CPF, "order-1")
    assert response.status_code == 422
    assert response.json() == {
        "error": {
            "status": 422,
            "message": "Idempotency-Key was already used with a different request body",
        }
    }
    assert response.headers["idempotency-key"] == "order-1"
    assert validate(api, VALID_CPF, "order-1").headers[REPLAY] == "true"


def test_same_key_on_another_path_does_not_collide(api: Api) -> None:
    validate(api, VALID_CPF, "shared")
    other = api("POST", "/pix/cash-in", {"cpf": VALID_CPF}, headers={"idempotency-key": "shared"})
    assert REPLAY not in other.headers
    assert other.status_code != 422
    assert b'"valid"' not in other.content


def test_two_merchants_never_share(connect: Connect, sandbox: Sandbox, merchant: Merchant) -> None:
    second_merchant = sandbox.create_merchant("Outra Loja")
    mine = connect(sandbox, sandbox.issue_api_key(merchant.id))
    theirs = connect(sandbox, sandbox.issue_api_key(second_merchant.id))
    first = validate(mine, VALID_CPF, "same-key")
    other = validate(theirs, OTHER_CPF, "same-key")
    assert other.status_code == 200
    assert REPLAY not in other.headers
    assert other.json()["data"]["cpf"] == OTHER_CPF
    assert first.json()["data"]["cpf"] == VALID_CPF
    # Same body from the other merchant: executed for it, not served from mine.
    assert REPLAY not in validate(theirs, VALID_CPF, "other-key").headers
    assert REPLAY not in validate(mine, VALID_CPF, "other-key").headers


def test_two_keys_of_one_merchant_share_the_scope(
    connect: Connect, sandbox: Sandbox, merchant: Merchant
) -> None:
    """Issue 8.3: the scope is (merchant, method, path, key), so one Idempotency-Key sent
    by two keys of one merchant creates one payout, and the second gets the replay."""
    one = connect(sandbox, sandbox.issue_api_key(merchant.id))
    two = connect(sandbox, sandbox.issue_api_key(merchant.id))
    body = {"amount": 1_000, "pix_key": "maria.silva@sandbox.pixops.dev"}
    first = one("POST", "/pix/cash-out", body, headers={"idempotency-key": "pay-1"})
    second = two("POST", "/pix/cash-out", body, headers={"idempotency-key": "pay-1"})
    assert first.status_code == second.status_code == 202
    assert second.headers[REPLAY] == "true"
    assert second.content == first.content
    with sandbox.engine.store.lock:
        payouts = sandbox.engine.store.conn.execute(
            "SELECT COUNT(*) FROM transactions WHERE merchant_id = ? AND kind = 'cash_out'",
            (merchant.id,),
        ).fetchone()[0]
    assert payouts == 1
    other_body = validate(two, OTHER_CPF, "pay-1")
    assert (other_body.status_code, REPLAY in other_body.headers) == (200, False)


def test_a_database_from_before_the_merchant_scope_keeps_its_entries(tmp_path: Path) -> None:
    """Migration 6 rescopes stored entries by the owner of the key that wrote them."""
    path = tmp_path / "old.db"
    old = sqlite3.connect(path, isolation_level=None)
    for number, script in enumerate(MIGRATIONS[:5], start=1):
        old.executescript(f"BEGIN; {script}; PRAGMA user_version = {number}; COMMIT;")
    old.executescript(
        "INSERT INTO merchants VALUES ('m1', 'Loja', NULL, 1, '2026-01-05', 3600, 0, '{}', 1, 1);"
        "INSERT INTO api_keys VALUES ('cli_1', 'm1', 'h', 1, NULL, '[]', '[]', 1, '2026');"
        "INSERT INTO idempotency VALUES ('cli_1', 'POST', '/p', 'k', 'f', 200, x'7b7d',"
        " '2026-01-05');"
    )
    old.close()
    migrated = Store(path)
    with migrated.lock:
        rows = migrated.conn.execute("SELECT merchant_id, key, body FROM idempotency").fetchall()
    assert [tuple(row) for row in rows] == [("m1", "k", b"{}")]
    migrated.close()


def test_cache_lasts_24_hours(api: Api, sandbox: Sandbox) -> None:
    validate(api, VALID_CPF, "daily")
    sandbox.advance(86_399)
    assert validate(api, VALID_CPF, "daily").headers[REPLAY] == "true"
    sandbox.advance(2)
    fresh = validate(api, OTHER_CPF, "daily")
    assert fresh.status_code == 200
    assert REPLAY not in fresh.headers
    assert validate(api, OTHER_CPF, "daily").headers[REPLAY] == "true"


def test_expired_entry_is_not_replayed_for_the_same_body(api: Api, sandbox: Sandbox) -> None:
    validate(api, VALID_CPF, "daily")
    sandbox.advance(86_401)
    assert REPLAY not in validate(api, VALID_CPF, "daily").headers


def test_errors_are_not_cached(api: Api) -> None:
    refused = api("POST", "/cpf/validate", {}, headers={"idempotency-key": "retry-me"})
    assert refused.status_code == 400
    assert refused.headers["idempotency-key"] == "retry-me"
    again = api("POST", "/cpf/validate", {}, headers={"idempotency-key": "retry-me"})
    assert again.status_code == 400
    assert REPLAY not in again.headers
    fixed = validate(api, VALID_CPF, "retry-me")
    assert fixed.status_code == 200
    assert REPLAY not in fixed.headers


def test_pipeline_refusals_are_not_cached(api: Api, key: ApiKey) -> None:
    unsigned = validate(api, VALID_CPF, "k1", sign=False)
    assert unsigned.status_code == 401
    signed = validate(api, VALID_CPF, "k1")
    assert signed.status_code == 200
    assert REPLAY not in signed.headers


def test_replay_keeps_the_casing_of_the_first_response(api: Api) -> None:
    first = api(
        "POST", "/cpf/validate", {}, headers={"idempotency-key": "c", "x-key-case": "camelCase"}
    )
    assert first.status_code == 400
    ok = api("POST", "/cpf/validate", {"cpf": VALID_CPF}, headers={"idempotency-key": "c"})
    replay = api(
        "POST",
        "/cpf/validate",
        {"cpf": VALID_CPF},
        headers={"idempotency-key": "c", "x-key-case": "camelCase"},
    )
    assert replay.headers[REPLAY] == "true"
    assert replay.content == ok.content


def test_key_is_ignored_on_get_and_delete(api: Api) -> None:
    for method, path in (("GET", "/balance"), ("GET", "/webhooks"), ("DELETE", "/webhooks/wh_1")):
        for _ in range(2):
            response = api(method, path, headers={"idempotency-key": "g" * 300})
            assert REPLAY not in response.headers
            assert "idempotency-key" not in response.headers
            assert response.status_code != 400


# -- concurrency ----------------------------------------------------------------------


def in_parallel(apis: list[Api], *args: Any, **options: Any) -> list[httpx.Response]:
    """The same request from one thread per client, all released together."""
    count = len(apis)
    barrier = threading.Barrier(count)
    results: list[httpx.Response | None] = [None] * count

    def worker(index: int) -> None:
        barrier.wait()
        results[index] = apis[index](*args, **options)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert all(result is not None for result in results)
    return [result for result in results if result is not None]


def test_concurrent_duplicates_execute_once(
    connect: Connect, sandbox: Sandbox, key: ApiKey
) -> None:
    calls: list[str] = []
    engine = sandbox.engine

    def counted(handler: Handler) -> Handler:
        def wrapper(ctx: Context) -> Reply:
            calls.append(ctx.client_id)
            return handler(ctx)

        return wrapper

    engine.router = Router(
        [
            replace(route, handler=counted(route.handler))
            if route.pattern == "/cpf/validate"
            else route
            for route in engine.router.routes
        ]
    )

    apis = [connect(sandbox, key) for _ in range(8)]
    body = {"cpf": VALID_CPF}
    responses = in_parallel(
        apis, "POST", "/cpf/validate", body, headers={"idempotency-key": "once"}
    )
    assert len(calls) == 1
    assert {response.status_code for response in responses} == {200}
    assert len({response.content for response in responses}) == 1
    assert sorted(REPLAY in response.headers for response in responses) == [False] + [True] * 7


def charge_rows(sandbox: Sandbox) -> int:
    with sandbox.engine.store.lock:
        return int(sandbox.engine.store.conn.execute("SELECT COUNT(*) FROM charges").fetchone()[0])


def test_concurrent_duplicate_charges_create_at_most_one(
    connect: Connect, sandbox: Sandbox, key: ApiKey
) -> None:
    apis = [connect(sandbox, key) for _ in range(8)]
    body = {"amount": 1_000, "description": "pedido 42"}
    headers = {"idempotency-key": "charge-42"}
    responses = in_parallel(apis, "POST", "/pix/cash-in", body, headers=headers)
    assert len({(response.status_code, response.content) for response in responses}) == 1
    status = responses[0].status_code
    executed = 1 if 200 <= status < 300 else 0
    assert charge_rows(sandbox) == executed
    replays = sum(REPLAY in response.headers for response in responses)
    assert replays == (7 if executed else 0)
