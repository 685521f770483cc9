"""A storage fault (disk full, read-only, locked) is a 503 that writes nothing and heals."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import httpx

from pixops.engine.core import storage_unavailable
from pixops.sandbox import Sandbox
from tests.conftest import send

CASH_OUT = {"amount": 1_000, "pix_key": "maria.silva@sandbox.pixops.dev"}


def _journal_rows(sandbox: Sandbox) -> int:
    return int(sandbox.engine.store.conn.execute("SELECT count(*) FROM journal").fetchone()[0])


def test_a_read_only_database_answers_503_and_recovers(tmp_path: Path) -> None:
    sandbox = Sandbox(path=tmp_path / "pix.db")
    merchant = sandbox.create_merchant("Loja Exemplo", balance_centavos=1_000_000)
    key = sandbox.issue_api_key(merchant.id)
    client = httpx.Client(transport=sandbox.transport(), base_url="http://sandbox/api/external")
    before = _journal_rows(sandbox)

    sandbox.engine.store.conn.execute("PRAGMA query_only = ON")
    refused = send(client, "POST", "/pix/cash-out", key=key, body=CASH_OUT)
    assert refused.status_code == 503
    assert refused.headers["retry-after"] == "30"
    assert refused.json() == {
        "error": {
            "status": 503,
            "message": "Storage temporarily unavailable; nothing was written. Retry later.",
        }
    }
    assert _journal_rows(sandbox) == before
    assert not sandbox.engine.store.conn.in_transaction

    sandbox.engine.store.conn.execute("PRAGMA query_only = OFF")
    accepted = send(client, "POST", "/pix/cash-out", key=key, body=CASH_OUT)
    assert accepted.status_code in (200, 202)
    assert sandbox.audit(merchant.id).consistent


def test_only_storage_faults_count_as_unavailable() -> None:
    full = sqlite3.OperationalError("database or disk is full")
    full.sqlite_errorname = "SQLITE_FULL"
    io = sqlite3.OperationalError("disk I/O error")
    io.sqlite_errorname = "SQLITE_IOERR_WRITE"
    syntax = sqlite3.OperationalError("near SELEC: syntax error")
    syntax.sqlite_errorname = "SQLITE_ERROR"
    assert storage_unavailable(full)
    assert storage_unavailable(io)
    assert not storage_unavailable(syntax)
    assert not storage_unavailable(sqlite3.OperationalError("no code"))
