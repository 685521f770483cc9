"""A manual clock reopened on a database file goes on from its newest record, never back."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

from pixops.engine import Engine
from pixops.engine.clock import ManualClock, from_db, last_recorded
from pixops.engine.store import Store
from pixops.sandbox import Sandbox

START = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


def reopen(path: Path, start: datetime = START) -> Engine:
    return Engine(store=Store(path), clock=ManualClock(start), seed=None)


def newest_event_at(sandbox: Sandbox) -> datetime:
    with sandbox.engine.store.lock:
        row = sandbox.engine.store.conn.execute(
            "SELECT created_at FROM events ORDER BY seq DESC LIMIT 1"
        ).fetchone()
    return from_db(row[0])


def test_a_reopened_sandbox_goes_on_from_its_newest_record(tmp_path: Path) -> None:
    path = tmp_path / "pix.db"
    first = Sandbox(path, start=START)
    merchant = first.create_merchant("Loja do Relógio", balance_centavos=100_000)
    client = first.client(first.issue_api_key(merchant.id))
    first.advance(days=3)
    client.pix.cash_out(pix_key="maria.silva@sandbox.pixops.dev", amount_centavos=1_000)
    first.advance(60)  # the central bank settles it: an event a few seconds on
    settled = newest_event_at(first)
    first.engine.store.close()

    again = Sandbox(path)  # no start given: the default start is weeks earlier
    assert START + timedelta(days=3) < settled == again.now() < START + timedelta(days=3, minutes=1)
    again.receive_pix(merchant.id, amount_centavos=500)
    assert newest_event_at(again) >= settled


def test_a_later_start_wins(tmp_path: Path) -> None:
    path = tmp_path / "pix.db"
    Sandbox(path, start=START).create_merchant("Loja A")
    later = START + timedelta(days=10)  # e.g. a `--manual-clock` server started days after
    assert reopen(path, start=later).now() == later


def test_every_kind_of_record_counts(tmp_path: Path) -> None:
    """A charge alone (no transaction, no event yet) still holds the clock back from going
    back before it."""
    path = tmp_path / "pix.db"
    sandbox = Sandbox(path, start=START)
    merchant = sandbox.create_merchant("Loja A")
    client = sandbox.client(sandbox.issue_api_key(merchant.id))
    sandbox.advance(hours=5)
    client.pix.cash_in(amount=Decimal("10.00"))
    sandbox.engine.store.close()
    assert reopen(path).now() == START + timedelta(hours=5)


def test_a_fresh_database_starts_at_the_given_start(tmp_path: Path) -> None:
    engine = reopen(tmp_path / "pix.db")
    assert engine.now() == START
    with engine.store.lock:
        assert last_recorded(engine.store.conn) is None
    assert Sandbox(start=START).now() == START


def test_an_engine_given_no_clock_resumes_too(tmp_path: Path) -> None:
    path = tmp_path / "pix.db"
    Sandbox(path, start=datetime(2099, 1, 1, tzinfo=UTC)).create_merchant("Loja A")
    engine = Engine(store=Store(path), seed=None)  # a manual clock at its default start
    assert engine.now() == datetime(2099, 1, 1, tzinfo=UTC)


def test_a_reopened_sandbox_with_the_same_seed_makes_new_ids(tmp_path: Path) -> None:
    """The seed fixes a fresh database's ids; over rows it made before, it would repeat them."""
    path = tmp_path / "pix.db"
    first = Sandbox(path)
    made = {first.create_merchant("Loja A").id}
    first.engine.store.close()
    made.add(Sandbox(path).create_merchant("Loja B").id)  # seed 0 again
    assert len(made) == 2
    assert Sandbox(seed=0).create_merchant("Loja A").id in made  # a fresh one repeats
