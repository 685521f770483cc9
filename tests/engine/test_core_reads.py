"""GET requests run in read transactions: a writer elsewhere on the same file (another
server process) never makes them wait, and they never write."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

from pixops import wire
from pixops.sandbox import Sandbox

GETS = (
    "/balance",
    "/statement",
    "/transactions",
    "/webhooks",
    "/med",
    "/pix/keys",
)


def test_a_get_answers_while_another_process_holds_the_write_lock(tmp_path: Path) -> None:
    db = tmp_path / "pix.db"
    sandbox = Sandbox(path=db, seed=3)
    merchant = sandbox.create_merchant("Loja", balance_centavos=100_000)
    key = sandbox.issue_api_key(merchant.id, ip_whitelist=["127.0.0.1"])
    sandbox.receive_pix(merchant.id, amount_centavos=5_000)
    auth = [("authorization", f"ApiKey {key.client_id}:{key.client_secret}")]
    with contextlib.closing(sqlite3.connect(db, isolation_level=None)) as other:
        other.execute("BEGIN IMMEDIATE")  # another writer, mid-transaction
        try:
            for path in GETS:
                answer = sandbox.engine.handle(
                    "GET", "/api/external" + path, auth, b"", "127.0.0.1"
                )
                assert answer.status == 200, (path, answer.body)
        finally:
            other.execute("ROLLBACK")
    sandbox.engine.store.close()


def test_no_get_route_writes() -> None:
    sandbox = Sandbox(seed=3)
    merchant = sandbox.create_merchant("Loja", balance_centavos=100_000)
    key = sandbox.issue_api_key(merchant.id, ip_whitelist=["127.0.0.1"])
    credit = sandbox.receive_pix(merchant.id, amount_centavos=5_000)
    auth = [("authorization", f"ApiKey {key.client_id}:{key.client_secret}")]
    body = wire.canonical_json({"amount": 1_500, "description": "Pedido"})
    charge = sandbox.engine.handle(
        "POST",
        "/api/external/pix/cash-in",
        [*auth, ("content-type", "application/json"), ("hmac", wire.sign(body, key.client_secret))],
        body,
        "127.0.0.1",
    )
    assert charge.status in (200, 201), charge.body
    qr_id = wire.parse_strict(charge.body)["data"]["transaction_id"]
    sandbox.advance(7_200)  # the QR expires: reads must not be the ones to record it
    conn = sandbox.engine.store.conn
    paths = [
        *GETS,
        f"/transactions/{credit}",
        f"/transactions/{credit}/receipt",
        f"/transactions/{qr_id}",
    ]
    for path in paths:
        before = conn.total_changes
        answer = sandbox.engine.handle("GET", "/api/external" + path, auth, b"", "127.0.0.1")
        assert answer.status == 200, (path, answer.body)
        assert conn.total_changes == before, path
