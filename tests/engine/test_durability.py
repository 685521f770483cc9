"""Group commit: nothing is acknowledged before the fsync that covers it, one fsync covers
many commits, and a power loss at any moment keeps every acknowledged write.

The fsync is replaced by a gate (to hold it) or by a recorder that copies the database
and its log as they stand when each fsync starts: that copy is what a power cut right
after the fsync would leave on the disk, so reopening it shows what survives.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pixops import wire
from pixops.engine.core import Engine
from pixops.engine.durability import DurabilityError, GroupCommit
from pixops.engine.http import Response
from pixops.engine.merchants import ApiKey
from pixops.engine.store import Store
from pixops.sandbox import Sandbox

SETTLING_KEY = "maria.silva@sandbox.pixops.dev"
#: How long a test lets a request run before concluding that it is held (a negative
#: check: a slow machine can only make it pass for the wrong reason, never fail).
HELD_S = 0.3
DONE_S = 30.0


class Gate:
    """An fsync that can be held shut; counts its calls."""

    def __init__(self) -> None:
        self.open = threading.Event()
        self.open.set()
        self.calls = 0
        self.entered = threading.Event()

    def __call__(self, fd: int) -> None:
        self.calls += 1
        self.entered.set()
        assert self.open.wait(DONE_S), "gate never opened"
        os.fsync(fd)

    def hold(self) -> None:
        self.entered.clear()
        self.open.clear()

    def release(self) -> None:
        self.open.set()


@dataclass
class Recorder:
    """An fsync that first copies the database and its log: the disk after a power cut."""

    database: Path
    snapshots: list[tuple[bytes, bytes]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, fd: int) -> None:
        taken = (self.database.read_bytes(), Path(f"{self.database}-wal").read_bytes())
        os.fsync(fd)
        with self.lock:
            self.snapshots.append(taken)

    def count(self) -> int:
        with self.lock:
            return len(self.snapshots)


@dataclass
class Setup:
    sandbox: Sandbox
    key: ApiKey
    db: Path

    @property
    def engine(self) -> Engine:
        return self.sandbox.engine

    def cash_out(self, amount_centavos: int) -> Response:
        body = wire.canonical_json({"amount": amount_centavos, "pix_key": SETTLING_KEY})
        return self.engine.handle(
            "POST", "/api/external/pix/cash-out", self.headers(body), body, "127.0.0.1"
        )

    def balance(self) -> Response:
        return self.engine.handle("GET", "/api/external/balance", self.headers(), b"", "127.0.0.1")

    def headers(self, body: bytes | None = None) -> list[tuple[str, str]]:
        written = [("authorization", f"ApiKey {self.key.client_id}:{self.key.client_secret}")]
        if body is not None:
            written += [
                ("content-type", "application/json"),
                ("hmac", wire.sign(body, self.key.client_secret)),
            ]
        return written


def build(db: Path, flusher: GroupCommit) -> Setup:
    engine = Engine(store=Store(db, group_commit=flusher), seed=1)
    sandbox = Sandbox.over(engine)
    merchant = sandbox.create_merchant("Loja", balance_centavos=10_000_000)
    key = sandbox.issue_api_key(merchant.id, ip_whitelist=["127.0.0.1"])
    return Setup(sandbox, key, db)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "pix.db"


@pytest.fixture
def gate() -> Gate:
    return Gate()


@pytest.fixture
def gated(db: Path, gate: Gate) -> Iterator[Setup]:
    setup = build(db, GroupCommit(db, sync=gate, checkpoint_interval_s=None))
    try:
        yield setup
    finally:
        gate.release()
        setup.engine.store.close()


def in_thread(work: list[Response], call: object) -> threading.Thread:
    assert callable(call)
    thread = threading.Thread(target=lambda: work.append(call()))
    thread.start()
    return thread


def committed_cash_outs(db: Path) -> int:
    with contextlib.closing(sqlite3.connect(db)) as conn:
        return int(
            conn.execute("SELECT COUNT(*) FROM transactions WHERE kind = 'cash_out'").fetchone()[0]
        )


def test_a_write_is_not_acknowledged_before_its_fsync(gated: Setup, gate: Gate) -> None:
    gate.hold()
    answers: list[Response] = []
    thread = in_thread(answers, lambda: gated.cash_out(1_000))
    thread.join(HELD_S)
    assert thread.is_alive()
    assert answers == []
    # Committed (another connection sees it) but not acknowledged.
    assert committed_cash_outs(gated.db) == 1
    gate.release()
    thread.join(DONE_S)
    assert [answer.status for answer in answers] == [202]


def test_the_async_path_waits_without_blocking_the_loop(gated: Setup, gate: Gate) -> None:
    body = wire.canonical_json({"amount": 1_000, "pix_key": SETTLING_KEY})

    async def scenario() -> tuple[bool, int]:
        task = asyncio.create_task(
            gated.engine.handle_async(
                "POST", "/api/external/pix/cash-out", gated.headers(body), body, "127.0.0.1"
            )
        )
        await asyncio.sleep(HELD_S)  # the loop keeps running meanwhile
        held = not task.done()
        gate.release()
        return held, (await asyncio.wait_for(task, DONE_S)).status

    gate.hold()
    held, status = asyncio.run(scenario())
    assert held
    assert status == 202


def test_a_read_waits_for_the_commits_it_may_have_seen(gated: Setup, gate: Gate) -> None:
    gate.hold()
    answers: list[Response] = []
    writer = in_thread(answers, lambda: gated.cash_out(1_000))
    assert gate.entered.wait(DONE_S)
    reader = in_thread(answers, gated.balance)
    reader.join(HELD_S)
    assert reader.is_alive(), "a balance showing an unsynced hold was sent"
    gate.release()
    writer.join(DONE_S)
    reader.join(DONE_S)
    assert sorted(answer.status for answer in answers) == [200, 202]


def test_concurrent_writers_share_one_fsync(gated: Setup, gate: Gate) -> None:
    writers = 8
    gate.hold()
    before = gate.calls
    answers: list[Response] = []
    threads = [in_thread(answers, lambda n=n: gated.cash_out(1_000 + n)) for n in range(writers)]
    # Every writer commits while the first fsync is held...
    for _ in range(int(DONE_S / 0.01)):
        if committed_cash_outs(gated.db) == writers:
            break
        threading.Event().wait(0.01)
    assert committed_cash_outs(gated.db) == writers
    assert answers == []
    gate.release()
    for thread in threads:
        thread.join(DONE_S)
    # ...then at most two fsyncs acknowledge all eight: the held one, and one for the rest.
    assert [answer.status for answer in answers] == [202] * writers
    assert gate.calls - before <= 2


def test_a_power_loss_at_any_fsync_keeps_every_acknowledged_write(db: Path) -> None:
    recorder = Recorder(db)
    setup = build(db, GroupCommit(db, sync=recorder, checkpoint_interval_s=None))
    acknowledged: list[tuple[str, int]] = []
    lock = threading.Lock()

    def writer(first: int) -> None:
        for amount in range(first, first + 12):
            answer = setup.cash_out(amount)
            assert answer.status == 202
            durable_at = recorder.count()  # the fsync that released it has been recorded
            with lock:
                acknowledged.append((wire.parse_strict(answer.body)["transaction_id"], durable_at))

    try:
        threads = [threading.Thread(target=writer, args=(1_000 * n,)) for n in range(1, 5)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(DONE_S)
    finally:
        setup.engine.store.close()
    assert len(acknowledged) == 48

    def survivors(index: int, directory: Path) -> set[str]:
        database_bytes, log_bytes = recorder.snapshots[index]
        copy = directory / f"cut-{index}.db"
        copy.write_bytes(database_bytes)
        Path(f"{copy}-wal").write_bytes(log_bytes)
        with contextlib.closing(sqlite3.connect(copy)) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            rows = conn.execute("SELECT transaction_id FROM transactions WHERE kind = 'cash_out'")
            return {row[0] for row in rows}

    directory = db.parent / "cuts"
    directory.mkdir()
    by_cut: dict[int, set[str]] = {}
    for transaction_id, durable_at in acknowledged:
        by_cut.setdefault(durable_at - 1, set()).add(transaction_id)
    for cut, written in sorted(by_cut.items()):
        assert written <= survivors(cut, directory), f"acknowledged writes lost at cut {cut}"
    # The check has teeth: the disk at the first fsync (the schema's) held no cash-out.
    assert survivors(0, directory) == set()


@pytest.mark.expect_engine_errors
def test_a_failed_fsync_answers_outcome_unknown_from_then_on(db: Path) -> None:
    failing = threading.Event()

    def sync(fd: int) -> None:
        if failing.is_set():
            raise OSError(5, "Input/output error")
        os.fsync(fd)

    setup = build(db, GroupCommit(db, sync=sync, checkpoint_interval_s=None))
    try:
        failing.set()
        first = setup.cash_out(1_000)
        assert first.status == 503
        assert b"outcome of this request is unknown" in first.body
        assert ("retry-after", "30") in first.headers
        assert setup.engine.store.failed
        later = setup.balance()
        assert later.status == 503
        with pytest.raises(DurabilityError):
            setup.engine.store.wait_all_durable()
    finally:
        setup.engine.store.close()


def test_a_read_after_another_connections_commit_waits_for_a_flush(
    gated: Setup, gate: Gate
) -> None:
    store = gated.engine.store
    with store.lock:
        before = store.commit_point()
    other = Store(gated.db)  # another process's connection, one fsync per commit
    try:
        with other.transaction() as conn:
            conn.execute("UPDATE merchants SET name = 'Loja B'")
    finally:
        other.close()
    gate.hold()
    with store.lock:
        after = store.commit_point()
    assert after > before
    waiting = threading.Thread(target=lambda: store.wait_durable(after))
    waiting.start()
    waiting.join(HELD_S)
    assert waiting.is_alive()
    gate.release()
    waiting.join(DONE_S)
    assert not waiting.is_alive()


def test_closing_flushes_what_is_committed(db: Path, gate: Gate) -> None:
    store = Store(db, group_commit=GroupCommit(db, sync=gate, checkpoint_interval_s=None))

    def commit(ref: str) -> int:
        with store.transaction() as conn:
            conn.execute("INSERT INTO timers (due_at, kind, ref) VALUES ('2030', 'k', ?)", (ref,))
        with store.lock:
            return store.commit_point()

    gate.hold()
    commit("first")
    assert gate.entered.wait(DONE_S)  # the flush of the first commit is under way
    before = gate.calls
    last = commit("second")
    closing = threading.Thread(target=store.close)
    closing.start()
    gate.release()
    closing.join(DONE_S)
    assert not closing.is_alive()
    assert gate.calls == before + 1  # the second commit was flushed before stopping
    assert store.flusher is not None
    store.flusher.wait(last)


def test_a_replaced_log_file_is_reopened_before_its_fsync(tmp_path: Path) -> None:
    database = tmp_path / "plain.db"
    with contextlib.closing(sqlite3.connect(database)) as conn:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("CREATE TABLE t (x)")
    synced: list[int] = []

    def sync(fd: int) -> None:
        synced.append(os.fstat(fd).st_ino)

    flusher = GroupCommit(database, sync=sync, checkpoint_interval_s=None)
    log_path = Path(f"{database}-wal")
    log_path.write_bytes(b"")
    flusher.start()
    try:
        flusher.wait(flusher.committed())
        log_path.unlink()
        log_path.write_bytes(b"")
        flusher.wait(flusher.committed())
    finally:
        flusher.close()
    assert len(synced) == 2
    assert synced[0] != synced[1] == log_path.stat().st_ino


def test_checkpoints_run_on_their_own_thread(db: Path) -> None:
    flusher = GroupCommit(db, checkpoint_interval_s=0.01)
    store = Store(db, group_commit=flusher)
    try:
        for n in range(3):
            with store.transaction() as conn:
                conn.execute(
                    "INSERT INTO timers (due_at, kind, ref) VALUES (?, 'k', 'r')", (f"2030-{n}",)
                )
            store.wait_all_durable()
        for _ in range(int(DONE_S / 0.01)):
            if flusher.checkpoints:
                break
            threading.Event().wait(0.01)
        assert flusher.checkpoints >= 1
    finally:
        store.close()


def test_group_commit_refuses_what_it_cannot_serve(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="database file"):
        Store(None, group_commit=True)
    with pytest.raises(TypeError):
        Store(tmp_path / "a.db", group_commit="yes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="another database"):
        Store(tmp_path / "a.db", group_commit=GroupCommit(tmp_path / "b.db"))
    with pytest.raises(TypeError):
        GroupCommit(str(tmp_path / "a.db"))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="positive"):
        GroupCommit(tmp_path / "a.db", checkpoint_interval_s=0)
    with pytest.raises(TypeError):
        GroupCommit(tmp_path / "a.db", sync=5)  # type: ignore[arg-type]


def test_an_in_memory_or_fully_synced_store_acknowledges_at_once(tmp_path: Path) -> None:
    for store in (Store(), Store(tmp_path / "full.db")):
        with store.transaction() as conn:
            conn.execute("INSERT INTO timers (due_at, kind, ref) VALUES ('2030', 'k', 'r')")
        with store.lock:
            assert store.commit_point() == 0
        store.wait_all_durable()
        assert store.flusher is None
        assert not store.failed
        store.close()
