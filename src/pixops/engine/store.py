"""SQLite storage: one connection, one lock, schema migrations by `user_version`.

In memory by default; a file path gives a WAL database. By default every COMMIT is
fsynced (`synchronous = FULL`), so a write acknowledged by a 2xx survives a crash or a
power loss. With `group_commit=True` (the server's mode) COMMIT only appends to the log
and a flusher thread fsyncs it for many commits at once (`pixops.engine.durability`):
callers take `commit_point()` after their transaction and acknowledge only once
`wait_durable(point)` (or `await durable(point)`) returns, so the guarantee is the same.
"""

from __future__ import annotations

import sqlite3
import threading
from datetime import datetime
from pathlib import Path
from types import TracebackType

from pixops.engine.durability import GroupCommit
from pixops.engine.migrations import MIGRATIONS

__all__ = ["MIGRATIONS", "ChangeCount", "ChangedRows", "Connection", "Store", "Transaction"]

#: Group commit: the request connection leaves checkpoints to the flusher's thread and
#: checkpoints itself only when the log passes this many pages (a backstop).
_BACKSTOP_CHECKPOINT_PAGES = 8000


def migrate(conn: sqlite3.Connection) -> None:
    """Run the migrations `conn`'s database has not had yet, each in its transaction."""
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
        conn.executescript(f"BEGIN; {script}; PRAGMA user_version = {number}; COMMIT;")


_TEMPLATE_LOCK = threading.Lock()
_template: sqlite3.Connection | None = None


def _copy_migrated(target: sqlite3.Connection) -> None:
    """Fill a new in-memory database with every migration's result: a page copy (SQLite's
    backup, ~1 ms) of a template migrated once per process, instead of running the
    migrations' DDL again for each store (~10 ms a sandbox)."""
    global _template
    with _TEMPLATE_LOCK:
        if _template is None:
            template = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
            migrate(template)
            _template = template
        _template.backup(target)


class Connection(sqlite3.Connection):
    """sqlite3's connection, with what the engine remembers about its database.

    `private` is True for an in-memory database: no other connection can ever see it,
    so a fact this process remembers about its rows cannot change behind its back.
    """

    private = False
    #: The scheduler's memo on a private database: no timer is due before this moment;
    #: None when unknown (see `scheduler.run_due`).
    timers_due_floor: datetime | None = None
    #: Rendered statement items, by (with_tag, camel) then (seq, version): `queries._pages`.
    rendered: dict[tuple[bool, bool], dict[tuple[int, int], bytes]]
    #: `total_changes` when the open transaction began (equal now: it changed nothing).
    changes_at_begin = 0
    #: The `transactions` rows this connection has written (see `ChangedRows`).
    changed_transactions: ChangedRows
    #: Page 1's in-flight rows per merchant (`queries._inflight.InFlight`), made on first use.
    in_flight: object | None = None
    #: Grows with every write this connection makes to `api_keys` or `merchants`
    #: (temporary triggers), rolled back or not: `rowcache` forgets its rows when it moves.
    credential_changes: ChangeCount
    #: `PRAGMA data_version` of the snapshot the open request reads, set by the engine
    #: around each request (None: not known here); `rowcache` keeps rows of one version.
    read_version: int | None = None
    #: Rows remembered by `rowcache`, made on first use.
    row_cache: object | None = None


class ChangeCount:
    """A count that temporary triggers bump (`pixops_credentials_changed()`)."""

    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0

    def bump(self) -> None:
        self.count += 1


class ChangedRows:
    """The `seq` of every `transactions` row this connection inserts, updates or deletes,
    noted by temporary triggers (this connection's own, never stored in the file), for
    readers that keep a view of some rows and refresh it by changes instead of re-reading
    (`queries._inflight`). Writes that other connections commit are not seen here: those
    readers also watch `PRAGMA data_version`.

    An UPDATE is noted through `version`, which every UPDATE of a row sets (the trigger
    `transactions_version` of migration 8 bumps it when the statement did not): so each
    UPDATE is noted once, not once for the statement and again for the bump.

    Noted only while someone `watching`; past `LIMIT` rows it gives up naming them and
    says `overflowed` (the reader starts over). Rows of a transaction that rolls back stay
    noted: reading them again is always right."""

    LIMIT = 4_096

    __slots__ = ("overflowed", "seqs", "watching")

    def __init__(self) -> None:
        self.seqs: set[int] = set()
        self.overflowed = False
        self.watching = False

    def note(self, seq: int) -> None:
        if not self.watching:
            return
        if len(self.seqs) < self.LIMIT:
            self.seqs.add(seq)
        else:
            self.overflowed = True

    def take(self) -> tuple[set[int], bool]:
        """What was noted since the last `take` (and whether it overflowed); then forget it."""
        seqs, overflowed = self.seqs, self.overflowed
        self.seqs, self.overflowed = set(), False
        return seqs, overflowed


_NOTE_CHANGES = """
CREATE TEMP TRIGGER IF NOT EXISTS pixops_changed_insert AFTER INSERT ON main.transactions
    BEGIN SELECT pixops_changed(NEW.seq); END;
CREATE TEMP TRIGGER IF NOT EXISTS pixops_changed_update AFTER UPDATE OF version
    ON main.transactions BEGIN SELECT pixops_changed(NEW.seq); END;
CREATE TEMP TRIGGER IF NOT EXISTS pixops_changed_delete AFTER DELETE ON main.transactions
    BEGIN SELECT pixops_changed(OLD.seq); END;
CREATE TEMP TRIGGER IF NOT EXISTS pixops_keys_insert AFTER INSERT ON main.api_keys
    BEGIN SELECT pixops_credentials_changed(); END;
CREATE TEMP TRIGGER IF NOT EXISTS pixops_keys_update AFTER UPDATE ON main.api_keys
    BEGIN SELECT pixops_credentials_changed(); END;
CREATE TEMP TRIGGER IF NOT EXISTS pixops_keys_delete AFTER DELETE ON main.api_keys
    BEGIN SELECT pixops_credentials_changed(); END;
CREATE TEMP TRIGGER IF NOT EXISTS pixops_merchants_insert AFTER INSERT ON main.merchants
    BEGIN SELECT pixops_credentials_changed(); END;
CREATE TEMP TRIGGER IF NOT EXISTS pixops_merchants_update AFTER UPDATE ON main.merchants
    BEGIN SELECT pixops_credentials_changed(); END;
CREATE TEMP TRIGGER IF NOT EXISTS pixops_merchants_delete AFTER DELETE ON main.merchants
    BEGIN SELECT pixops_credentials_changed(); END;
"""


class Store:
    """The engine's database. Callers hold `lock` for every use of `conn`."""

    def __init__(
        self, path: str | Path | None = None, *, group_commit: bool | GroupCommit = False
    ) -> None:
        """`group_commit` (file stores only): True fsyncs many commits at once (see the
        module docstring); a `GroupCommit` built for this file does so with its settings
        (tests watch or replace its fsync)."""
        if not isinstance(group_commit, bool | GroupCommit):
            raise TypeError("group_commit must be True, False or a GroupCommit")
        if group_commit is not False and path is None:
            raise ValueError("group commit needs a database file (an in-memory store has no log)")
        if isinstance(group_commit, GroupCommit) and group_commit.database != Path(path or ""):
            raise ValueError("the GroupCommit was built for another database file")
        target = ":memory:" if path is None else str(path)
        self.path = None if path is None else Path(path)
        self.conn = sqlite3.connect(
            target, check_same_thread=False, isolation_level=None, factory=Connection
        )
        self.conn.private = path is None
        self.conn.row_factory = sqlite3.Row
        self.conn.rendered = {}
        self.lock = threading.RLock()
        self._depth = 0
        self._data_version = 0
        #: The flusher of a group-commit store; None when every COMMIT fsyncs (or in memory).
        self.flusher: GroupCommit | None = None
        self.conn.execute("PRAGMA foreign_keys = ON")
        # Savepoints' journals and sorts stay in memory (small), not in unlinked files.
        self.conn.execute("PRAGMA temp_store = MEMORY")
        if self.path is not None:
            self.conn.execute("PRAGMA journal_mode = WAL")
            self.conn.execute("PRAGMA busy_timeout = 5000")
            if group_commit is not False:
                self.conn.execute("PRAGMA synchronous = NORMAL")
                self.conn.execute(f"PRAGMA wal_autocheckpoint = {_BACKSTOP_CHECKPOINT_PAGES}")
            else:
                self.conn.execute("PRAGMA synchronous = FULL")
        self._migrate()
        self.conn.changed_transactions = ChangedRows()
        self.conn.create_function("pixops_changed", 1, self.conn.changed_transactions.note)
        self.conn.credential_changes = ChangeCount()
        self.conn.create_function(
            "pixops_credentials_changed", 0, self.conn.credential_changes.bump
        )
        self.conn.executescript(_NOTE_CHANGES)
        if group_commit is not False and self.path is not None:
            self.flusher = GroupCommit(self.path) if group_commit is True else group_commit
            self.flusher.start()
            # The schema (and whatever an earlier process left unsynced) durable first.
            self.flusher.wait(self.flusher.committed())
        self._data_version = self._read_data_version()

    def _migrate(self) -> None:
        with self.lock:
            if self.path is None:
                # A new in-memory database: a page copy of one built once per process.
                _copy_migrated(self.conn)
                return
            migrate(self.conn)

    def transaction(self, *, write: bool = True) -> Transaction:
        """One atomic unit of work; nested uses join the outer transaction.

        `write=False` begins a deferred (read) transaction: it takes the database's write
        lock only if it does write, so readers in other processes never wait for it."""
        return Transaction(self, write)

    def commit_point(self, seen_version: int | None = None) -> int:
        """What a caller must wait for before acknowledging what it just did or read.

        Call it under `lock`, after the transaction: the latest local commit, and, when
        another process has committed since the last call (a read may have seen its
        rows), a new point that the next flush covers (one fsync of the shared log
        covers that process's frames too). 0 when commits are synchronous.

        `seen_version` is `snapshot_version()` read inside the transaction: exactly the
        snapshot it read, and no second look at the log after it."""
        flusher = self.flusher
        if flusher is None:
            return 0
        version = self._read_data_version() if seen_version is None else seen_version
        if version != self._data_version:
            self._data_version = version
            return flusher.committed()
        return flusher.latest()

    def snapshot_version(self) -> int | None:
        """Inside a transaction (under `lock`): `PRAGMA data_version` of the snapshot it
        reads, for `commit_point`; None when commits are synchronous (nothing to wait)."""
        if self.flusher is None:
            return None
        return int(self.conn.execute("PRAGMA data_version").fetchone()[0])

    @property
    def failed(self) -> bool:
        """True once the group commit's fsync has failed (nothing can be acknowledged)."""
        return self.flusher is not None and self.flusher.failed

    def wait_durable(self, point: int) -> None:
        """Block until `point` (from `commit_point`) is on disk; never under `lock`."""
        if self.flusher is not None:
            self.flusher.wait(point)

    def wait_all_durable(self) -> None:
        """Block until everything committed so far (by any process) is on disk: before
        telling the outside world about it, as a webhook does."""
        if self.flusher is not None:
            with self.lock:
                point = self.commit_point()
            self.flusher.wait(point)

    async def durable(self, point: int) -> None:
        """`wait_durable` for an event loop: suspends, and the loop keeps serving."""
        if self.flusher is not None:
            await self.flusher.durable(point)

    def _read_data_version(self) -> int:
        with self.lock:
            return int(self.conn.execute("PRAGMA data_version").fetchone()[0])

    def _committed(self) -> None:
        """After an outermost COMMIT: a point for the flusher if rows changed."""
        if self.flusher is not None and self.conn.total_changes != self.conn.changes_at_begin:
            self.flusher.committed()

    def restore_from(self, source: sqlite3.Connection) -> None:
        """Replace this store's database with a copy of `source`'s (SQLite's backup).

        A backup writes the pages underneath every trigger, so everything the connection
        remembers about its rows (rendered items, page 1's in-flight views, key and
        merchant rows, the timers' floor) is forgotten with it.
        """
        with self.lock:
            if self.conn.in_transaction:
                raise RuntimeError("cannot restore a store inside one of its transactions")
            source.backup(self.conn)
            self.conn.rendered = {}
            self.conn.in_flight = None
            self.conn.row_cache = None
            self.conn.timers_due_floor = None
            self.conn.changed_transactions.take()
            self._data_version = self._read_data_version()

    def close(self) -> None:
        with self.lock:
            if self.flusher is not None:
                self.flusher.close()
            self.conn.close()


class Transaction:
    """What `Store.transaction()` returns: holds the lock for the unit of work, begins it
    at the outermost level, then commits, or rolls back on any exception.

    A plain context manager rather than a generator-based one: every request and every
    timer opens one, and this costs less than half as much around the SQL.
    """

    __slots__ = ("_begin", "_store")

    def __init__(self, store: Store, write: bool = True) -> None:
        self._store = store
        self._begin = "BEGIN IMMEDIATE" if write else "BEGIN"

    def __enter__(self) -> Connection:
        store = self._store
        store.lock.acquire()
        if not store._depth:
            try:
                store.conn.execute(self._begin)
            except BaseException:
                store.lock.release()
                raise
            store.conn.changes_at_begin = store.conn.total_changes
        store._depth += 1
        return store.conn

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        store = self._store
        try:
            store._depth -= 1
            if not store._depth:
                if exc_type is None:
                    store.conn.execute("COMMIT")
                    store._committed()
                else:
                    store.conn.execute("ROLLBACK")
        finally:
            store.lock.release()
