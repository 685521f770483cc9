"""Group commit: one fsync of the write-ahead log makes many commits durable.

A file store in group-commit mode commits with SQLite's `synchronous = NORMAL`: COMMIT
appends the transaction's frames to the `-wal` file (the operating system holds them,
so they survive the process being killed) and returns without an fsync. A 2xx must
still mean durable, so nothing is acknowledged until a later fsync of that file has
finished: the flusher thread here fsyncs the log whenever commits are waiting, and one
fsync covers every commit that returned before it started (SQLite's recovery replays
every frame whose checksums and salts are valid, up to the last commit frame).

Points and waiting: every commit (and every read that may have seen another process's
commit) takes a *point*, a number that grows with each commit; `wait(point)` blocks, and
`await durable(point)` suspends, until a flush that started after that commit has
finished. Callers wait outside the store's lock, so other requests keep committing and
share the next fsync.

Checkpoints (copying the log back into the database file) run passively on a thread
and connection of their own, so neither the request path nor the flusher waits for them.

A failed fsync leaves the state of the disk unknown: every waiter, and every later
wait, raises `DurabilityError`, and the store must be reopened (the server answers 503
until it is restarted, see docs/reliability.md).

    flusher = GroupCommit(Path("pix.db"))
    flusher.start()
    point = flusher.committed()          # after a COMMIT, under the store's lock
    flusher.wait(point)                  # then acknowledge
    flusher.close()
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

from pixops.engine.errors import DurabilityError

__all__ = ["DurabilityError", "GroupCommit", "SyncFunction"]

log = logging.getLogger("pixops.engine")

#: The syscall that makes the log durable: fdatasync flushes the data and the file size
#: (what recovery needs), as SQLite itself does on Linux.
SyncFunction = Callable[[int], None]
_DEFAULT_SYNC: SyncFunction = getattr(os, "fdatasync", os.fsync)

#: Seconds between the flusher's checkpoints while commits keep coming.
CHECKPOINT_INTERVAL_S = 0.25


class GroupCommit:
    """The flusher of one database file (see the module docstring)."""

    def __init__(
        self,
        database: Path,
        *,
        sync: SyncFunction = _DEFAULT_SYNC,
        checkpoint_interval_s: float | None = CHECKPOINT_INTERVAL_S,
    ) -> None:
        if not isinstance(database, Path):
            raise TypeError("database must be a pathlib.Path")
        if not callable(sync):
            raise TypeError("sync must be a callable taking a file descriptor")
        if checkpoint_interval_s is not None and not checkpoint_interval_s > 0:
            raise ValueError("checkpoint_interval_s must be positive (None: never checkpoint)")
        self.database = database
        self.log_path = Path(f"{database}-wal")
        self.checkpoint_interval_s = checkpoint_interval_s
        self._sync = sync
        self._changed = threading.Condition()
        #: Incremented by every commit; a flush that starts when it is N covers 1..N.
        self._committed = 0
        self._flushed = 0
        self._failure: DurabilityError | None = None
        self._closing = False
        self._waiters: list[tuple[int, asyncio.AbstractEventLoop, asyncio.Future[None]]] = []
        self._fd: int | None = None
        self._thread = threading.Thread(target=self._run, name="pixops-flusher", daemon=True)
        self._stop_checkpoints = threading.Event()
        self._checkpointer = threading.Thread(
            target=self._checkpoints, name="pixops-checkpoints", daemon=True
        )
        #: How many fsyncs of the log, and checkpoints, ran (tests and benchmarks read them).
        self.flushes = 0
        self.checkpoints = 0

    # -- the request side ------------------------------------------------------------

    def committed(self) -> int:
        """Record a commit that just returned; its point (what to wait for)."""
        with self._changed:
            self._committed += 1
            self._changed.notify_all()
            return self._committed

    def latest(self) -> int:
        """The point of the latest commit recorded (0: none yet)."""
        return self._committed

    @property
    def failed(self) -> bool:
        return self._failure is not None

    def wait(self, point: int) -> None:
        """Block until `point` is durable; DurabilityError if the flush failed."""
        with self._changed:
            while self._failure is None and point > self._flushed:
                self._changed.wait()
            if self._failure is not None:
                raise self._failure

    async def durable(self, point: int) -> None:
        """Suspend (the event loop keeps serving) until `point` is durable."""
        loop = asyncio.get_running_loop()
        with self._changed:
            if self._failure is not None:
                raise self._failure
            if point <= self._flushed:
                return
            future: asyncio.Future[None] = loop.create_future()
            self._waiters.append((point, loop, future))
        await future

    # -- the flusher -------------------------------------------------------------------

    def start(self) -> None:
        self._thread.start()
        if self.checkpoint_interval_s is not None:
            self._checkpointer.start()

    def close(self) -> None:
        """Flush what is committed, then stop the threads and close the log's descriptor."""
        with self._changed:
            self._closing = True
            self._changed.notify_all()
        self._stop_checkpoints.set()
        for thread in (self._thread, self._checkpointer):
            if thread.is_alive():
                thread.join()
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _run(self) -> None:
        while True:
            with self._changed:
                while self._committed == self._flushed and not self._closing:
                    self._changed.wait()
                if self._committed == self._flushed:
                    return
                target = self._committed
            try:
                self._flush()
            except OSError as error:
                self._fail(error)
                return
            self._release(target)

    def _flush(self) -> None:
        """fsync the log, reopening it if SQLite replaced the file since the last flush."""
        if self._fd is not None and not _same_file(self._fd, self.log_path):
            os.close(self._fd)
            self._fd = None
        if self._fd is None:
            # A new log's directory entry must reach the disk too, once.
            self._fd = os.open(self.log_path, os.O_RDONLY)
            _sync_directory(self.log_path.parent)
        self._sync(self._fd)
        self.flushes += 1

    def _release(self, target: int) -> None:
        ready: dict[asyncio.AbstractEventLoop, list[asyncio.Future[None]]] = {}
        with self._changed:
            self._flushed = target
            waiting = []
            for point, loop, future in self._waiters:
                if point <= target:
                    ready.setdefault(loop, []).append(future)
                else:
                    waiting.append((point, loop, future))
            self._waiters = waiting
            self._changed.notify_all()
        for loop, futures in ready.items():
            with contextlib.suppress(RuntimeError):  # a loop closed meanwhile
                loop.call_soon_threadsafe(_resolve, futures, None)

    def _fail(self, error: OSError) -> None:
        log.critical(
            "fsync of %s failed (%s): commits may not be durable; restart the server",
            self.log_path,
            error,
        )
        failure = DurabilityError(f"fsync of the write-ahead log failed: {error}")
        with self._changed:
            self._failure = failure
            waiters, self._waiters = self._waiters, []
            self._changed.notify_all()
        for _, loop, future in waiters:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(_resolve, [future], failure)

    def _checkpoints(self) -> None:
        """Passive checkpoints on a connection of their own, one an interval while commits
        come, so neither the request path nor the flusher ever waits for one.

        Passive: it never waits for readers or writers, and what it cannot copy now is
        copied next time. SQLite syncs the log before copying and the database file after,
        so the log is only reused once its pages are safe in the database file."""
        interval = self.checkpoint_interval_s
        assert interval is not None
        conn: sqlite3.Connection | None = None
        checkpointed_at = 0
        try:
            while not self._stop_checkpoints.wait(interval):
                if self._flushed == checkpointed_at:
                    continue
                checkpointed_at = self._flushed
                try:
                    if conn is None:
                        conn = sqlite3.connect(self.database, isolation_level=None)
                        conn.execute("PRAGMA busy_timeout = 0")
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                    self.checkpoints += 1
                except sqlite3.Error as error:
                    log.warning("checkpoint of %s skipped: %s", self.database, error)
        finally:
            if conn is not None:
                conn.close()


def _resolve(futures: list[asyncio.Future[None]], failure: BaseException | None) -> None:
    for future in futures:
        if future.done():
            continue
        if failure is None:
            future.set_result(None)
        else:
            future.set_exception(failure)


def _same_file(fd: int, path: Path) -> bool:
    try:
        on_disk = path.stat()
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (held.st_dev, held.st_ino) == (on_disk.st_dev, on_disk.st_ino)


def _sync_directory(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
