"""The scheduler's memo of the earliest due time: skipping the query never skips a timer."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from pixops.engine import scheduler
from pixops.engine.core import Engine
from pixops.sandbox import Sandbox

KIND = "test.scheduler_tick"
RAN: list[str] = []


def _tick(engine: Engine, conn: sqlite3.Connection, ref: str, payload: dict[str, Any]) -> None:
    RAN.append(ref)


@pytest.fixture(autouse=True)
def _forget_runs() -> Iterator[None]:
    RAN.clear()
    yield
    RAN.clear()


def new_sandbox(path: Path | None = None) -> Sandbox:
    """A sandbox whose engine (and only it) knows this module's timer kinds."""
    sandbox = Sandbox(path)
    sandbox.engine.timers.register(KIND, _tick)
    sandbox.engine.timers.register(FLAKY, _flaky)
    return sandbox


def schedule(sandbox: Sandbox, seconds: int, ref: str) -> None:
    """A timer due `seconds` after the sandbox's current time, written like any other."""
    with sandbox.engine.store.transaction() as conn:
        scheduler.schedule(conn, sandbox.now() + timedelta(seconds=seconds), KIND, ref)


def test_a_timer_scheduled_after_an_empty_look_still_runs_on_time() -> None:
    sandbox = new_sandbox()
    assert sandbox.advance(10) == 0
    assert sandbox.engine.store.conn.timers_due_floor is not None  # the memo is in use
    schedule(sandbox, 5, "a")
    assert sandbox.advance(4) == 0
    assert RAN == []
    assert sandbox.advance(1) == 1
    assert RAN == ["a"]


def test_a_timer_earlier_than_the_remembered_one_runs_first() -> None:
    sandbox = new_sandbox()
    schedule(sandbox, 100, "late")
    assert sandbox.advance(10) == 0  # remembers when "late" is due
    schedule(sandbox, 20, "early")
    assert sandbox.advance(19) == 0
    assert sandbox.advance(1) == 1
    assert RAN == ["early"]
    assert sandbox.advance(70) == 1
    assert RAN == ["early", "late"]


class RolledBackError(Exception):
    """Raised inside a transaction to roll it back."""


def test_a_look_inside_an_open_transaction_is_not_remembered() -> None:
    """A rollback can bring back a timer that the open transaction had deleted."""
    sandbox = new_sandbox()
    schedule(sandbox, 5, "a")

    def delete_look_and_roll_back() -> None:
        with sandbox.engine.store.transaction() as conn:
            conn.execute("DELETE FROM timers")
            later = sandbox.now() + timedelta(seconds=60)
            assert scheduler.run_due(sandbox.engine, later) == 0
            raise RolledBackError

    with pytest.raises(RolledBackError):
        delete_look_and_roll_back()
    assert sandbox.advance(5) == 1
    assert RAN == ["a"]


def test_a_rolled_back_timer_leaves_nothing_to_run() -> None:
    sandbox = new_sandbox()

    def schedule_and_roll_back() -> None:
        with sandbox.engine.store.transaction() as conn:
            scheduler.schedule(conn, sandbox.now() + timedelta(seconds=5), KIND, "gone")
            raise RolledBackError

    with pytest.raises(RolledBackError):
        schedule_and_roll_back()
    assert sandbox.advance(60) == 0
    assert RAN == []


def test_two_engines_on_one_file_run_each_others_timers(tmp_path: Path) -> None:
    """A file can be shared, so nothing is remembered about it between looks."""
    path = tmp_path / "shared.db"
    first, second = new_sandbox(path), new_sandbox(path)
    try:
        assert first.advance(10) == 0
        schedule(second, 20, "from-second")  # the second engine's clock is 10 s behind
        assert first.advance(9) == 0
        assert first.advance(1) == 1
        assert RAN == ["from-second"]
        assert second.advance(30) == 0  # already run, and removed, by the first engine
    finally:
        first.engine.store.close()
        second.engine.store.close()


# -- a timer that raises is retried, then set aside (issue 9.7) ---------------------------

FLAKY = "test.scheduler_flaky"
#: ref -> how many more times the flaky timer raises before it works.
FAILURES_LEFT: dict[str, int] = {}


def _flaky(engine: Engine, conn: sqlite3.Connection, ref: str, payload: dict[str, Any]) -> None:
    conn.execute("INSERT INTO journal (merchant_id, at, amount_base, kind) VALUES ('m', 'x', 1, ?)",
                 (ref,))  # fmt: skip
    if FAILURES_LEFT.get(ref, 0) > 0:
        FAILURES_LEFT[ref] -= 1
        raise RuntimeError(f"flaky {ref}")
    RAN.append(ref)


def _journal_rows(sandbox: Sandbox, ref: str) -> int:
    with sandbox.engine.store.lock:
        count: int = sandbox.engine.store.conn.execute(
            "SELECT COUNT(*) FROM journal WHERE kind = ?", (ref,)
        ).fetchone()[0]
    return count


def test_a_failing_timer_is_retried_with_backoff(caplog: pytest.LogCaptureFixture) -> None:
    sandbox = new_sandbox()
    FAILURES_LEFT["twice"] = 2
    with sandbox.engine.store.transaction() as conn:
        scheduler.schedule(conn, sandbox.now(), FLAKY, "twice")
    sandbox.advance(0)
    assert RAN == []
    assert _journal_rows(sandbox, "twice") == 0  # the failed attempt rolled back
    with sandbox.engine.store.lock:
        pending = sandbox.engine.store.conn.execute(
            "SELECT attempts, last_error FROM timers WHERE kind = ?", (FLAKY,)
        ).fetchone()
    assert tuple(pending) == (1, "RuntimeError: flaky twice")
    sandbox.advance(1)  # second attempt, 1 s later: fails again
    assert RAN == []
    sandbox.advance(4)
    assert RAN == []
    sandbox.advance(1)  # third attempt, 5 s after the second: works
    assert RAN == ["twice"]
    assert _journal_rows(sandbox, "twice") == 1
    assert sandbox.failed_timers() == []
    warnings = [r for r in caplog.records if r.name == "pixops.engine"]
    assert [r.levelname for r in warnings] == ["WARNING", "WARNING"]


@pytest.mark.expect_engine_errors
def test_a_timer_failing_every_attempt_is_set_aside_and_can_be_retried(
    caplog: pytest.LogCaptureFixture,
) -> None:
    sandbox = new_sandbox()
    FAILURES_LEFT["always"] = scheduler.MAX_ATTEMPTS
    start = sandbox.now()
    with sandbox.engine.store.transaction() as conn:
        scheduler.schedule(conn, start, FLAKY, "always", {"n": 1})
    sandbox.advance(sum(scheduler.RETRY_DELAYS_SECONDS) - 1)
    assert sandbox.failed_timers() == []  # the last attempt is not due yet
    sandbox.advance(1)
    [failed] = sandbox.failed_timers()
    assert (failed.kind, failed.ref, failed.payload) == (FLAKY, "always", {"n": 1})
    assert (failed.attempts, failed.last_error) == (5, "RuntimeError: flaky always")
    assert failed.last_due_at == start + timedelta(seconds=sum(scheduler.RETRY_DELAYS_SECONDS))
    errors = [r for r in caplog.records if r.levelname == "ERROR"]
    assert [r.getMessage() for r in errors] == [
        f"timer {FLAKY} always failed 5 times; set aside in failed_timers"
    ]
    sandbox.advance(hours=1)
    assert RAN == []
    sandbox.retry_failed_timer(failed.seq)
    sandbox.advance(0)
    assert RAN == ["always"]
    assert sandbox.failed_timers() == []
    with pytest.raises(LookupError):
        sandbox.retry_failed_timer(failed.seq)


# -- timer kinds belong to one engine (issue 9.3) ------------------------------------------


def test_a_kind_registered_on_one_engine_is_unknown_to_another() -> None:
    mine, theirs = new_sandbox(), Sandbox()
    assert KIND in mine.engine.timers
    assert KIND not in theirs.engine.timers
    assert "refund.answer" in theirs.engine.timers  # the standard kinds are everyone's


@pytest.mark.expect_engine_errors
def test_a_timer_of_a_kind_this_engine_lacks_is_set_aside_not_dropped() -> None:
    sandbox = Sandbox()
    with sandbox.engine.store.transaction() as conn:
        scheduler.schedule(conn, sandbox.now(), "test.nobody_knows", "r1")
    sandbox.advance(hours=1)
    [failed] = sandbox.failed_timers()
    assert (failed.kind, failed.ref) == ("test.nobody_knows", "r1")
    assert failed.last_error == "LookupError: no timer kind 'test.nobody_knows' on this engine"


def test_register_checks_its_arguments() -> None:
    timers = Sandbox().engine.timers
    with pytest.raises(ValueError, match="non-empty string"):
        timers.register("", _tick)
    with pytest.raises(TypeError, match="callable"):
        timers.register("test.x", "not a function")  # type: ignore[arg-type]


def test_timers_due_together_commit_together_and_a_failing_one_rolls_back_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One batch: a timer that raises between two others undoes only its own writes
    (and is booked for a retry) while the others' writes commit, in due order. The
    batch's time cap is lifted: on a loaded machine the failing timer's logged traceback
    alone could pass 4 ms and end the batch early (two COMMITs, a correct split)."""
    monkeypatch.setattr(scheduler, "BATCH_SECONDS", 60.0)
    sandbox = new_sandbox()
    FAILURES_LEFT["middle"] = 1
    with sandbox.engine.store.transaction() as conn:
        scheduler.schedule(conn, sandbox.now(), FLAKY, "first")
        scheduler.schedule(conn, sandbox.now(), FLAKY, "middle")
        scheduler.schedule(conn, sandbox.now(), FLAKY, "last")
    traced: list[str] = []
    sandbox.engine.store.conn.set_trace_callback(traced.append)
    try:
        assert sandbox.advance(0) == 3
    finally:
        sandbox.engine.store.conn.set_trace_callback(None)
    assert traced.count("COMMIT") == 1
    assert RAN == ["first", "last"]
    assert [_journal_rows(sandbox, ref) for ref in ("first", "middle", "last")] == [1, 0, 1]
    with sandbox.engine.store.lock:
        left = sandbox.engine.store.conn.execute("SELECT ref, attempts FROM timers").fetchall()
    assert [tuple(row) for row in left] == [("middle", 1)]
    sandbox.advance(1)
    assert RAN == ["first", "last", "middle"]
    assert [_journal_rows(sandbox, ref) for ref in ("first", "middle", "last")] == [1, 1, 1]


def test_a_timer_scheduled_by_a_timer_of_the_batch_runs_in_due_order() -> None:
    """The next timer is looked up after each one runs: one that a timer schedules due
    before the rest of the batch runs before them, as it would one at a time."""
    sandbox = new_sandbox()
    kind = "test.scheduler_chain"

    def chain(engine: Engine, conn: sqlite3.Connection, ref: str, payload: dict[str, Any]) -> None:
        RAN.append(ref)
        if ref == "a":
            scheduler.schedule(conn, engine.now(), KIND, "a-child")

    sandbox.engine.timers.register(kind, chain)
    with sandbox.engine.store.transaction() as conn:
        scheduler.schedule(conn, sandbox.now(), kind, "a")
        scheduler.schedule(conn, sandbox.now() + timedelta(seconds=1), KIND, "b")
    assert sandbox.advance(2) == 3
    assert RAN == ["a", "a-child", "b"]


def test_a_non_atomic_timer_is_leased_and_runs_again_if_nothing_took_its_work_over() -> None:
    """The process may die between the lease's commit and the work's own transaction:
    the lease then runs out and the work runs again, instead of being lost."""
    sandbox = Sandbox()
    kind = "test.scheduler_leased"
    sandbox.engine.timers.register(kind, _tick, atomic=False)
    with sandbox.engine.store.transaction() as conn:
        scheduler.schedule(conn, sandbox.now() + timedelta(seconds=1), kind, "lost")
    sandbox.advance(1)
    assert RAN == ["lost"]
    sandbox.advance(scheduler.LEASE_SECONDS - 1)
    assert RAN == ["lost"], "not before the lease runs out"
    sandbox.advance(1)
    assert RAN == ["lost", "lost"]


def test_a_non_atomic_timer_whose_work_cancels_it_runs_once() -> None:
    sandbox = Sandbox()
    kind = "test.scheduler_taken_over"

    def take_over(engine: Engine, conn: sqlite3.Connection, ref: str, _: dict[str, Any]) -> None:
        with engine.store.transaction() as work:
            scheduler.cancel(work, kind, ref)
        RAN.append(ref)

    sandbox.engine.timers.register(kind, take_over, atomic=False)
    with sandbox.engine.store.transaction() as conn:
        scheduler.schedule(conn, sandbox.now() + timedelta(seconds=1), kind, "once")
    sandbox.advance(scheduler.LEASE_SECONDS * 10)
    assert RAN == ["once"]
