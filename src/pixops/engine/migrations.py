"""The store's schema, as the migrations that build it (by `PRAGMA user_version`).

A migration is appended, never edited once released: a database at version N runs the
scripts after N, each in its own transaction.
"""

from __future__ import annotations

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
    # 10: each original's refund totals, kept by triggers (no writer can forget them), so
    # a refund reads two numbers instead of summing every earlier refund of its original.
    # Committed: refunds not failed or rejected (they may still complete); refunded: settled.
    """
    CREATE TABLE refund_totals (
        original_transaction_id TEXT PRIMARY KEY,
        committed_base INTEGER NOT NULL DEFAULT 0,
        refunded_base INTEGER NOT NULL DEFAULT 0
    );
    INSERT INTO refund_totals (original_transaction_id, committed_base, refunded_base)
        SELECT original_transaction_id,
            SUM(CASE WHEN status NOT IN ('failed', 'rejected') THEN amount_base ELSE 0 END),
            SUM(CASE WHEN status = 'settled' THEN amount_base ELSE 0 END)
        FROM transactions
        WHERE kind IN ('refund', 'med_refund') AND original_transaction_id IS NOT NULL
        GROUP BY original_transaction_id;
    CREATE TRIGGER refund_totals_insert AFTER INSERT ON transactions
        FOR EACH ROW
        WHEN NEW.kind IN ('refund', 'med_refund') AND NEW.original_transaction_id IS NOT NULL
    BEGIN
        INSERT OR IGNORE INTO refund_totals (original_transaction_id)
            VALUES (NEW.original_transaction_id);
        UPDATE refund_totals SET
            committed_base = committed_base + CASE WHEN NEW.status NOT IN ('failed', 'rejected')
                THEN NEW.amount_base ELSE 0 END,
            refunded_base = refunded_base + CASE WHEN NEW.status = 'settled'
                THEN NEW.amount_base ELSE 0 END
        WHERE original_transaction_id = NEW.original_transaction_id;
    END;
    CREATE TRIGGER refund_totals_update_old
        AFTER UPDATE OF kind, status, amount_base, original_transaction_id ON transactions
        FOR EACH ROW
        WHEN OLD.kind IN ('refund', 'med_refund') AND OLD.original_transaction_id IS NOT NULL
    BEGIN
        UPDATE refund_totals SET
            committed_base = committed_base - CASE WHEN OLD.status NOT IN ('failed', 'rejected')
                THEN OLD.amount_base ELSE 0 END,
            refunded_base = refunded_base - CASE WHEN OLD.status = 'settled'
                THEN OLD.amount_base ELSE 0 END
        WHERE original_transaction_id = OLD.original_transaction_id;
    END;
    CREATE TRIGGER refund_totals_update_new
        AFTER UPDATE OF kind, status, amount_base, original_transaction_id ON transactions
        FOR EACH ROW
        WHEN NEW.kind IN ('refund', 'med_refund') AND NEW.original_transaction_id IS NOT NULL
    BEGIN
        INSERT OR IGNORE INTO refund_totals (original_transaction_id)
            VALUES (NEW.original_transaction_id);
        UPDATE refund_totals SET
            committed_base = committed_base + CASE WHEN NEW.status NOT IN ('failed', 'rejected')
                THEN NEW.amount_base ELSE 0 END,
            refunded_base = refunded_base + CASE WHEN NEW.status = 'settled'
                THEN NEW.amount_base ELSE 0 END
        WHERE original_transaction_id = NEW.original_transaction_id;
    END;
    CREATE TRIGGER refund_totals_delete AFTER DELETE ON transactions
        FOR EACH ROW
        WHEN OLD.kind IN ('refund', 'med_refund') AND OLD.original_transaction_id IS NOT NULL
    BEGIN
        UPDATE refund_totals SET
            committed_base = committed_base - CASE WHEN OLD.status NOT IN ('failed', 'rejected')
                THEN OLD.amount_base ELSE 0 END,
            refunded_base = refunded_base - CASE WHEN OLD.status = 'settled'
                THEN OLD.amount_base ELSE 0 END
        WHERE original_transaction_id = OLD.original_transaction_id;
    END;
    """,
)
