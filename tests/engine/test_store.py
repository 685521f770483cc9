"""The store's unit of work and the ledger's multi-entry posting."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from pixops.engine import ledger
from pixops.engine.rowcache import merchant_row
from pixops.engine.store import MIGRATIONS, Store
from pixops.sandbox import Sandbox


class FailedError(Exception):
    """Raised inside a unit of work to abandon it."""


def count_journal(store: Store) -> int:
    with store.lock:
        return int(store.conn.execute("SELECT COUNT(*) FROM journal").fetchone()[0])


def lock_is_free(store: Store) -> bool:
    """Whether another thread can take the store's (re-entrant) lock right now."""
    result: list[bool] = []

    def probe() -> None:
        taken = store.lock.acquire(blocking=False)
        if taken:
            store.lock.release()
        result.append(taken)

    thread = threading.Thread(target=probe)
    thread.start()
    thread.join()
    return result[0]


@pytest.fixture
def sandbox() -> Sandbox:
    return Sandbox()


@pytest.fixture
def merchant_id(sandbox: Sandbox) -> str:
    return sandbox.create_merchant("Loja", balance_centavos=1_000).id


def test_a_transaction_commits_and_frees_the_lock(sandbox: Sandbox, merchant_id: str) -> None:
    store = sandbox.engine.store
    before = count_journal(store)
    with store.transaction() as conn:
        ledger.post(conn, merchant_id, 5, "adjustment", sandbox.now())
        assert not lock_is_free(store)
    assert lock_is_free(store)
    assert not store.conn.in_transaction
    assert count_journal(store) == before + 1


def test_an_exception_rolls_everything_back(sandbox: Sandbox, merchant_id: str) -> None:
    store = sandbox.engine.store
    before = count_journal(store)

    def post_and_fail() -> None:
        with store.transaction() as conn:
            ledger.post(conn, merchant_id, 5, "adjustment", sandbox.now())
            raise FailedError

    with pytest.raises(FailedError):
        post_and_fail()
    assert lock_is_free(store)
    assert not store.conn.in_transaction
    assert count_journal(store) == before


def test_a_nested_transaction_joins_the_outer_one(sandbox: Sandbox, merchant_id: str) -> None:
    store = sandbox.engine.store
    before = count_journal(store)

    def post_twice_and_fail() -> None:
        with store.transaction() as outer:
            ledger.post(outer, merchant_id, 5, "adjustment", sandbox.now())
            with store.transaction() as inner:
                assert inner is outer
                ledger.post(inner, merchant_id, 7, "adjustment", sandbox.now())
            assert outer.in_transaction  # the inner exit did not commit
            raise FailedError

    with pytest.raises(FailedError):
        post_twice_and_fail()
    assert count_journal(store) == before  # both entries rolled back with the outer one


def test_an_inner_exception_caught_outside_it_keeps_the_outer_work(
    sandbox: Sandbox, merchant_id: str
) -> None:
    store = sandbox.engine.store
    before = count_journal(store)

    def fail_inside() -> None:
        with store.transaction():
            raise FailedError

    with store.transaction() as outer:
        ledger.post(outer, merchant_id, 5, "adjustment", sandbox.now())
        with pytest.raises(FailedError):
            fail_inside()
    assert count_journal(store) == before + 1
    assert lock_is_free(store)


def test_a_failed_begin_frees_the_lock() -> None:
    store = Store()
    store.close()
    with pytest.raises(Exception, match="closed"), store.transaction():
        pass
    assert lock_is_free(store)


def test_post_entries_writes_each_entry_in_order_and_the_sum_once(
    sandbox: Sandbox, merchant_id: str
) -> None:
    store = sandbox.engine.store
    start = sandbox.balance(merchant_id).ledger_base
    with store.transaction() as conn:
        entries = [(10_000, "cash_in"), (-99, "cash_in_fee")]
        ledger.post_entries(conn, merchant_id, entries, sandbox.now(), transaction_id="PIXINx")
        rows = conn.execute(
            "SELECT amount_base, kind, transaction_id, memo FROM journal"
            " WHERE transaction_id = 'PIXINx' ORDER BY seq"
        ).fetchall()
    assert [tuple(row) for row in rows] == [
        (10_000, "cash_in", "PIXINx", None),
        (-99, "cash_in_fee", "PIXINx", None),
    ]
    assert sandbox.balance(merchant_id).ledger_base == start + 10_000 - 99
    assert sandbox.audit(merchant_id).consistent


@pytest.mark.parametrize("amount", [True, 1.5, "100", None])
def test_post_entries_refuses_a_non_integer_amount_and_writes_nothing(
    sandbox: Sandbox, merchant_id: str, amount: Any
) -> None:
    store = sandbox.engine.store
    before = count_journal(store)
    start = sandbox.balance(merchant_id).ledger_base
    with store.transaction() as conn, pytest.raises(ledger.LedgerError, match="integers"):
        ledger.post_entries(conn, merchant_id, [(1, "cash_in"), (amount, "x")], sandbox.now())
    assert count_journal(store) == before
    assert sandbox.balance(merchant_id).ledger_base == start


def test_post_entries_refuses_an_unknown_account(sandbox: Sandbox) -> None:
    store = sandbox.engine.store
    before = count_journal(store)
    with store.transaction() as conn, pytest.raises(ledger.LedgerError, match="no account"):
        ledger.post_entries(conn, "mer_unknown", [(1, "cash_in")], sandbox.now())
    assert count_journal(store) == before


def test_a_restore_forgets_what_the_connection_remembered() -> None:
    first = Sandbox(seed=5)
    merchant = first.create_merchant("Loja", balance_centavos=100)
    with first.engine.store.transaction(write=False) as conn:
        remembered = merchant_row(conn, merchant.id)
        assert remembered is not None
        assert remembered.active
    second = Sandbox(seed=5)
    assert second.create_merchant("Loja", balance_centavos=100).id == merchant.id
    second.set_account_active(merchant.id, False)

    first.engine.store.restore_from(second.engine.store.conn)

    with first.engine.store.transaction(write=False) as conn:
        restored = merchant_row(conn, merchant.id)
        assert restored is not None
        assert not restored.active


def test_a_restore_inside_a_transaction_is_refused() -> None:
    sandbox = Sandbox(seed=5)
    with sandbox.engine.store.transaction() as conn:
        conn.execute("SELECT 1")
        with pytest.raises(RuntimeError, match="inside one of its transactions"):
            sandbox.engine.store.restore_from(Sandbox(seed=6).engine.store.conn)


def _schema(conn: Any) -> list[tuple[Any, ...]]:
    rows = conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name")
    return [tuple(row) for row in rows]


def test_an_in_memory_store_is_the_migrated_schema_and_its_own_database(tmp_path: Any) -> None:
    """A new in-memory store copies a template migrated once per process: the same
    tables, indexes, triggers and user_version as a file store that ran the migrations,
    the connection's own settings and change triggers on top, and no row shared."""
    on_file = Store(tmp_path / "migrated.db")
    first, second = Store(), Store()
    try:
        assert _schema(first.conn) == _schema(on_file.conn)
        version = "PRAGMA user_version"
        assert first.conn.execute(version).fetchone()[0] == len(MIGRATIONS)
        assert on_file.conn.execute(version).fetchone()[0] == len(MIGRATIONS)
        assert first.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        temp = "SELECT COUNT(*) FROM sqlite_temp_schema WHERE type = 'trigger'"
        assert first.conn.execute(temp).fetchone()[0] >= 3
        with first.transaction() as conn:
            conn.execute("CREATE TABLE scratch (n INTEGER)")
            conn.execute("INSERT INTO scratch VALUES (1)")
        assert _schema(second.conn) == _schema(on_file.conn)
        third = Store()
        assert _schema(third.conn) == _schema(on_file.conn)
        third.close()
    finally:
        for store in (on_file, first, second):
            store.close()
