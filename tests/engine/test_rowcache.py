"""Key and merchant rows kept in memory: used while nothing changed, never after.

A revoked key, a deactivated account or a changed merchant answer differently from the
very next request, whether this connection or another one (another process on the
file) made the change; a row read by a transaction that wrote is never kept."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from pixops.engine import rowcache
from pixops.engine.core import Engine
from pixops.sandbox import ApiKey, Sandbox
from pixops.server import ServeOptions, build_engine


class RollbackError(Exception):
    """Raised inside a unit of work to roll it back."""


def balance(engine: Engine, key: ApiKey) -> int:
    answer = engine.handle(
        "GET",
        "/api/external/balance",
        [("authorization", f"ApiKey {key.client_id}:{key.client_secret}")],
        b"",
        "127.0.0.1",
    )
    return answer.status


@pytest.fixture(params=["memory", "file"])
def sandbox(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Sandbox]:
    """In memory, and on a file in server mode (group commit: versions are known)."""
    if request.param == "memory":
        yield Sandbox(seed=2)
        return
    engine = build_engine(ServeOptions(port=0, db=tmp_path / "pix.db"))
    try:
        yield Sandbox.over(engine)
    finally:
        engine.store.close()


def key_queries(engine: Engine, key: ApiKey) -> int:
    """How many times one balance request read the key's row from the database."""
    traced: list[str] = []
    engine.store.conn.set_trace_callback(traced.append)
    try:
        assert balance(engine, key) == 200
    finally:
        engine.store.conn.set_trace_callback(None)
    return sum("FROM api_keys" in sql for sql in traced)


def test_a_kept_row_spares_the_query_until_a_change(sandbox: Sandbox) -> None:
    merchant = sandbox.create_merchant("Loja", balance_centavos=100)
    key = sandbox.issue_api_key(merchant.id, ip_whitelist=["127.0.0.1"])
    engine = sandbox.engine
    key_queries(engine, key)
    assert key_queries(engine, key) == 0
    sandbox.issue_api_key(merchant.id, ip_whitelist=["127.0.0.1"])  # any change to keys
    assert key_queries(engine, key) == 1
    assert key_queries(engine, key) == 0


def test_a_revoked_key_and_a_deactivated_account_refuse_the_next_request(
    sandbox: Sandbox,
) -> None:
    merchant = sandbox.create_merchant("Loja", balance_centavos=100)
    key = sandbox.issue_api_key(merchant.id, ip_whitelist=["127.0.0.1"])
    other = sandbox.issue_api_key(merchant.id, ip_whitelist=["127.0.0.1"])
    engine = sandbox.engine
    assert balance(engine, key) == 200
    assert balance(engine, other) == 200
    sandbox.revoke_api_key(key.client_id)
    assert balance(engine, key) == 401
    assert balance(engine, other) == 200
    sandbox.set_account_active(merchant.id, False)
    assert balance(engine, other) == 403
    sandbox.set_account_active(merchant.id, True)
    assert balance(engine, other) == 200


def test_a_change_by_another_connection_is_seen_at_once(tmp_path: Path) -> None:
    path = tmp_path / "pix.db"
    engine = build_engine(ServeOptions(port=0, db=path))
    try:
        sandbox = Sandbox.over(engine)
        merchant = sandbox.create_merchant("Loja", balance_centavos=100)
        key = sandbox.issue_api_key(merchant.id, ip_whitelist=["127.0.0.1"])
        assert balance(engine, key) == 200
        assert balance(engine, key) == 200  # now from memory
        with sqlite3.connect(path, isolation_level=None) as other:
            other.execute("UPDATE api_keys SET active = 0 WHERE client_id = ?", (key.client_id,))
        other.close()
        assert balance(engine, key) == 401
        with sqlite3.connect(path, isolation_level=None) as other:
            other.execute("UPDATE api_keys SET active = 1 WHERE client_id = ?", (key.client_id,))
            other.execute("UPDATE merchants SET active = 0 WHERE id = ?", (merchant.id,))
        other.close()
        assert balance(engine, key) == 403
    finally:
        engine.store.close()


def test_a_row_read_by_a_transaction_that_wrote_is_not_kept(sandbox: Sandbox) -> None:
    merchant = sandbox.create_merchant("Loja", balance_centavos=100)
    key = sandbox.issue_api_key(merchant.id, ip_whitelist=["127.0.0.1"])
    engine = sandbox.engine
    store = engine.store

    def deactivate_read_and_fail() -> None:
        with store.transaction() as conn:
            conn.execute("UPDATE merchants SET active = 0 WHERE id = ?", (merchant.id,))
            conn.read_version = 0 if not conn.private else None
            try:
                row = rowcache.key_row(conn, key.client_id)
                assert row is not None
                assert not row["account_active"]
                found = rowcache.merchant_row(conn, merchant.id)
                assert found is not None
                assert not found.active
            finally:
                conn.read_version = None
            raise RollbackError

    with pytest.raises(RollbackError):
        deactivate_read_and_fail()
    assert balance(engine, key) == 200
    found = rowcache.merchant_row(store.conn, merchant.id)
    assert found is not None
    assert found.active


def test_outside_a_request_a_file_is_read_every_time(tmp_path: Path) -> None:
    """No version known (a file read outside `Engine.handle`): nothing is kept."""
    sandbox = Sandbox(path=tmp_path / "pix.db", seed=2)
    try:
        merchant = sandbox.create_merchant("Loja", balance_centavos=100)
        conn = sandbox.engine.store.conn
        with sandbox.engine.store.lock:
            assert rowcache.merchant_row(conn, merchant.id) is not None
            assert conn.row_cache is None
    finally:
        sandbox.engine.store.close()
