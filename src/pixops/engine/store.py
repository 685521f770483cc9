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

MIGRATIONS: tuple[str, ...] = (
    # 1: the whole first schema.
    """
    CREATE TABLE merchants (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        document TEXT,
        active INTEGER NOT NULL DEFAULT 1,
        created_at TEXT NOT NULL,
        qr_lifetime_seconds INTEGER NOT NULL,
        dual_control INTEGER NOT NULL DEFAULT 0,
        fees TEXT NOT NULL,
        ceiling_base INTEGER NOT NULL,
        dict_lookups_per_minute INTEGER NOT NULL
    );
    CREATE TABLE api_keys (
        client_id TEXT PRIMARY KEY,
        merchant_id TEXT NOT NULL REFERENCES merchants(id),
        secret_sha256 TEXT NOT NULL,
        active INTEGER NOT NULL DEFAULT 1,
        expires_at TEXT,
        permissions TEXT NOT NULL,
        ip_whitelist TEXT NOT NULL,
        hmac_enabled INTEGER NOT NULL DEFAULT 1,
        created_at TEXT NOT NULL
    );
    CREATE TABLE accounts (
        merchant_id TEXT PRIMARY KEY REFERENCES merchants(id),
        ledger_base INTEGER NOT NULL DEFAULT 0,
        held_base INTEGER NOT NULL DEFAULT 0,
        blocked_base INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE journal (
        seq INTEGER PRIMARY KEY,
        merchant_id TEXT NOT NULL,
        at TEXT NOT NULL,
        amount_base INTEGER NOT NULL,
        kind TEXT NOT NULL,
        transaction_id TEXT,
        memo TEXT
    );
    CREATE INDEX journal_merchant ON journal (merchant_id, seq);
    CREATE TABLE holds (
        id TEXT PRIMARY KEY,
        merchant_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        amount_base INTEGER NOT NULL,
        transaction_id TEXT NOT NULL,
        status TEXT NOT NULL,
        created_at TEXT NOT NULL,
        closed_at TEXT
    );
    CREATE INDEX holds_active ON holds (merchant_id, status);
    CREATE TABLE charges (
        id TEXT PRIMARY KEY,
        merchant_id TEXT NOT NULL,
        txid TEXT NOT NULL UNIQUE,
        amount_base INTEGER NOT NULL,
        description TEXT,
        external_id TEXT,
        tag TEXT,
        pix_key TEXT NOT NULL,
        status TEXT NOT NULL,
        brcode TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        paid_at TEXT,
        cancelled_at TEXT,
        end_to_end_id TEXT,
        transaction_id TEXT,
        payer_name TEXT,
        payer_document TEXT,
        payer_ispb TEXT
    );
    CREATE INDEX charges_merchant ON charges (merchant_id, created_at);
    CREATE TABLE transactions (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        merchant_id TEXT NOT NULL,
        transaction_id TEXT NOT NULL UNIQUE,
        end_to_end_id TEXT NOT NULL,
        external_id TEXT,
        tag TEXT,
        type TEXT NOT NULL,
        direction TEXT NOT NULL,
        kind TEXT NOT NULL,
        status TEXT NOT NULL,
        stage INTEGER NOT NULL,
        amount_base INTEGER NOT NULL,
        fee_base INTEGER NOT NULL,
        description TEXT,
        counterparty_name TEXT,
        payer_document TEXT,
        recipient_document TEXT,
        recipient_key TEXT,
        recipient_key_type TEXT,
        payer_ispb TEXT,
        recipient_ispb TEXT,
        reason_code TEXT,
        reason_description TEXT,
        failure_reason TEXT,
        charge_txid TEXT,
        original_transaction_id TEXT,
        refund_reason TEXT,
        outbound_request_id TEXT,
        purpose TEXT,
        hold_id TEXT,
        attempts INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        completed_at TEXT,
        failed_at TEXT
    );
    CREATE INDEX transactions_statement ON transactions (merchant_id, created_at, seq);
    CREATE INDEX transactions_e2e ON transactions (end_to_end_id);
    CREATE INDEX transactions_external ON transactions (merchant_id, external_id);
    CREATE INDEX transactions_tag ON transactions (merchant_id, tag);
    CREATE INDEX transactions_original ON transactions (original_transaction_id);
    CREATE TABLE events (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        merchant_id TEXT NOT NULL,
        type TEXT NOT NULL,
        created_at TEXT NOT NULL,
        transaction_id TEXT,
        data TEXT NOT NULL
    );
    CREATE INDEX events_merchant ON events (merchant_id, seq);
    CREATE TABLE idempotency (
        client_id TEXT NOT NULL,
        method TEXT NOT NULL,
        path TEXT NOT NULL,
        key TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        status INTEGER NOT NULL,
        body BLOB NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (client_id, method, path, key)
    );
    CREATE TABLE timers (
        seq INTEGER PRIMARY KEY,
        due_at TEXT NOT NULL,
        kind TEXT NOT NULL,
        ref TEXT NOT NULL,
        payload TEXT NOT NULL DEFAULT '{}'
    );
    CREATE INDEX timers_due ON timers (due_at, seq);
    CREATE TABLE dict_keys (
        key TEXT PRIMARY KEY,
        key_type TEXT NOT NULL,
        owner_name TEXT NOT NULL,
        owner_document TEXT,
        ispb TEXT NOT NULL,
        behavior TEXT NOT NULL DEFAULT 'settle',
        merchant_id TEXT,
        created_at TEXT NOT NULL
    );
    CREATE TABLE dict_lookups (
        merchant_id TEXT NOT NULL,
        minute TEXT NOT NULL,
        count INTEGER NOT NULL,
        PRIMARY KEY (merchant_id, minute)
    );
    CREATE TABLE webhooks (
        id TEXT PRIMARY KEY,
        merchant_id TEXT NOT NULL,
        url TEXT NOT NULL,
        event_types TEXT NOT NULL,
        secret TEXT NOT NULL,
        active INTEGER NOT NULL DEFAULT 1,
        description TEXT,
        consecutive_failures INTEGER NOT NULL DEFAULT 0,
        disabled_at TEXT,
        deleted_at TEXT,
        created_at TEXT NOT NULL
    );
    CREATE TABLE webhook_deliveries (
        seq INTEGER PRIMARY KEY,
        event_id TEXT NOT NULL,
        webhook_id TEXT NOT NULL,
        state TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at TEXT,
        last_status INTEGER,
        last_error TEXT,
        created_at TEXT NOT NULL,
        UNIQUE (event_id, webhook_id)
    );
    CREATE TABLE webhook_attempts (
        seq INTEGER PRIMARY KEY,
        delivery_seq INTEGER NOT NULL,
        attempt INTEGER NOT NULL,
        at TEXT NOT NULL,
        status_code INTEGER,
        latency_ms INTEGER NOT NULL,
        error TEXT
    );
    CREATE TABLE med_cases (
        id TEXT PRIMARY KEY,
        merchant_id TEXT NOT NULL,
        transaction_id TEXT NOT NULL,
        end_to_end_id TEXT NOT NULL,
        amount_base INTEGER NOT NULL,
        reason TEXT NOT NULL,
        details TEXT,
        status TEXT NOT NULL,
        opened_at TEXT NOT NULL,
        defense_deadline TEXT NOT NULL,
        defense TEXT,
        defended_at TEXT,
        analysis_result TEXT,
        analysis_details TEXT,
        closed_at TEXT,
        refund_transaction_id TEXT
    );
    CREATE INDEX med_merchant ON med_cases (merchant_id, opened_at);
    """,
    # 2: charges name their expected payer (the cob API's `devedor`) and are found by
    # tag, external id and the credit's transaction id.
    """
    ALTER TABLE charges ADD COLUMN debtor_name TEXT;
    ALTER TABLE charges ADD COLUMN debtor_document TEXT;
    CREATE INDEX charges_tag ON charges (merchant_id, tag);
    CREATE INDEX charges_external ON charges (merchant_id, external_id);
    CREATE INDEX charges_transaction ON charges (transaction_id);
    CREATE INDEX charges_end_to_end ON charges (end_to_end_id);
    """,
    # 3: webhook deliveries know their transaction (per-transaction ordering); MED cases
    # remember the precautionary block they placed.
    """
    ALTER TABLE webhook_deliveries ADD COLUMN transaction_id TEXT;
    CREATE INDEX webhook_deliveries_order ON webhook_deliveries (webhook_id, transaction_id, state);
    CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_seq, attempt);
    CREATE INDEX webhooks_merchant ON webhooks (merchant_id, created_at);
    ALTER TABLE med_cases ADD COLUMN blocked_base INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX med_transaction ON med_cases (transaction_id);
    """,
    # 4: lookups the engine makes on every request and timer.
    """
    CREATE INDEX timers_ref ON timers (kind, ref);
    CREATE INDEX holds_transaction ON holds (transaction_id);
    """,
    # 5: a merchant's keys in directory order; every charge reads the oldest one.
    """
    CREATE INDEX dict_keys_merchant ON dict_keys (merchant_id, created_at, key);
    """,
    # 6: idempotency entries are scoped by merchant, not by API key (issue 8.3): two keys
    # of one merchant sending one Idempotency-Key create one payout, never two.
    """
    CREATE TABLE idempotency_by_merchant (
        merchant_id TEXT NOT NULL,
        method TEXT NOT NULL,
        path TEXT NOT NULL,
        key TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        status INTEGER NOT NULL,
        body BLOB NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (merchant_id, method, path, key)
    );
    INSERT OR IGNORE INTO idempotency_by_merchant
        SELECT k.merchant_id, i.method, i.path, i.key, i.fingerprint, i.status, i.body,
            i.created_at
        FROM idempotency AS i JOIN api_keys AS k ON k.client_id = i.client_id
        ORDER BY i.created_at DESC;
    DROP TABLE idempotency;
    ALTER TABLE idempotency_by_merchant RENAME TO idempotency;
    """,
    # 7: a timer that raises is retried with backoff, then set aside where it can be seen
    # (issue 9.7): never silently dropped.
    """
    ALTER TABLE timers ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE timers ADD COLUMN last_error TEXT;
    CREATE TABLE failed_timers (
        seq INTEGER PRIMARY KEY,
        kind TEXT NOT NULL,
        ref TEXT NOT NULL,
        payload TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        last_error TEXT NOT NULL,
        last_due_at TEXT NOT NULL,
        failed_at TEXT NOT NULL
    );
    """,
    # 8: a transaction row's version grows with every change to it (a trigger, so no
    # writer can forget), which lets the statement reuse a row's rendering until it
    # changes; in-flight rows (read by every statement's page 1) get a small covering index.
    """
    ALTER TABLE transactions ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
    CREATE TRIGGER transactions_version AFTER UPDATE ON transactions
        FOR EACH ROW WHEN NEW.version = OLD.version
        BEGIN UPDATE transactions SET version = OLD.version + 1 WHERE seq = NEW.seq; END;
    CREATE INDEX transactions_in_flight
        ON transactions (merchant_id, created_at, seq, stage, direction, type, version)
        WHERE stage < 3;
    """,
    # 9: the statement's terminal rows without stepping over the in-flight ones at the top
    # (a busy account has hundreds), and refund totals summed from the index alone (an
    # original refunded in many parts sums many rows).
    """
    CREATE INDEX transactions_terminal
        ON transactions (merchant_id, created_at, seq, stage, type, status, version)
        WHERE stage >= 3;
    DROP INDEX transactions_original;
    CREATE INDEX transactions_original
        ON transactions (original_transaction_id, kind, status, amount_base);
    """,
)

#: Group commit: the request connection leaves checkpoints to the flusher's thread and
#: checkpoints itself only when the log passes this many pages (a backstop).
_BACKSTOP_CHECKPOINT_PAGES = 8000


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
        if self.path is not None:
            self.conn.execute("PRAGMA journal_mode = WAL")
            self.conn.execute("PRAGMA busy_timeout = 5000")
            if group_commit is not False:
                self.conn.execute("PRAGMA synchronous = NORMAL")
                self.conn.execute(f"PRAGMA wal_autocheckpoint = {_BACKSTOP_CHECKPOINT_PAGES}")
            else:
                self.conn.execute("PRAGMA synchronous = FULL")
        self._migrate()
        if group_commit is not False and self.path is not None:
            self.flusher = GroupCommit(self.path) if group_commit is True else group_commit
            self.flusher.start()
            # The schema (and whatever an earlier process left unsynced) durable first.
            self.flusher.wait(self.flusher.committed())
        self._data_version = self._read_data_version()

    def _migrate(self) -> None:
        with self.lock:
            version = int(self.conn.execute("PRAGMA user_version").fetchone()[0])
            for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
                self.conn.executescript(f"BEGIN; {script}; PRAGMA user_version = {number}; COMMIT;")

    def transaction(self, *, write: bool = True) -> Transaction:
        """One atomic unit of work; nested uses join the outer transaction.

        `write=False` begins a deferred (read) transaction: it takes the database's write
        lock only if it does write, so readers in other processes never wait for it."""
        return Transaction(self, write)

    def commit_point(self) -> int:
        """What a caller must wait for before acknowledging what it just did or read.

        Call it under `lock`, after the transaction: the latest local commit, and, when
        another process has committed since the last call (a read may have seen its
        rows), a new point that the next flush covers (one fsync of the shared log
        covers that process's frames too). 0 when commits are synchronous."""
        flusher = self.flusher
        if flusher is None:
            return 0
        version = self._read_data_version()
        if version != self._data_version:
            self._data_version = version
            return flusher.committed()
        return flusher.latest()

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
