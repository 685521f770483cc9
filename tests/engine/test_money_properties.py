"""Property tests: random cash-outs to the test keys, inbound credits, refunds and time
advances never make a balance negative, never refund more than was received, and keep
the ledger equal to what the transactions say happened."""

from __future__ import annotations

import json
from typing import Any

import httpx
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, initialize, invariant, rule

from pixops import wire
from pixops.engine.pix import refunds
from pixops.sandbox import Sandbox

BASE_URL = "http://sandbox/api/external"

#: Keys with every outcome except the 7200-second queue (tested on its own: its 2400
#: retries would dominate the run time here).
KEYS: list[dict[str, str]] = [
    {"pix_key": "maria.silva@sandbox.pixops.dev"},
    {"pix_key": "11144477735", "pix_key_type": "cpf"},
    {"pix_key": "+5511987654321"},
    {"pix_key": "instant@sandbox.pixops.dev"},
    {"pix_key": "12345678909", "pix_key_type": "cpf"},
    {"pix_key": "reject.ed05@sandbox.pixops.dev"},
    {"pix_key": "queue.client@sandbox.pixops.dev"},
    {"pix_key": "queue.bucket@sandbox.pixops.dev"},
    {"pix_key": "orphan@sandbox.pixops.dev"},
    {"pix_key": "blocked@sandbox.pixops.dev"},
    {"pix_key": "nobody@example.com"},
    {"pix_key": "provider.unknown@sandbox.pixops.dev"},
    {"pix_key": "11144477735"},
]
REASONS = ["MD06", "BE08", "SL02", "XX99"]
TERMINAL_EVENTS = {"pix.payout.confirmed", "pix.payout.rejected", "pix.payout.failed"}


class MoneyMachine(RuleBasedStateMachine):
    originals = Bundle("originals")

    def __init__(self) -> None:
        super().__init__()
        self.sb = Sandbox()
        self.merchant = self.sb.create_merchant("Propriedades", balance_centavos=20_000)
        self.opening_base = 2_000_000
        with self.sb.engine.store.transaction() as conn:
            conn.execute(
                "UPDATE merchants SET dict_lookups_per_minute = 4 WHERE id = ?",
                (self.merchant.id,),
            )
        self.key = self.sb.issue_api_key(self.merchant.id)
        self.client = httpx.Client(transport=self.sb.transport(), base_url=BASE_URL)

    def teardown(self) -> None:
        self.client.close()

    def post(self, path: str, body: dict[str, Any]) -> httpx.Response:
        raw = json.dumps(body).encode()
        headers = {
            "authorization": f"ApiKey {self.key.client_id}:{self.key.client_secret}",
            "content-type": "application/json",
            "hmac": wire.sign(raw, self.key.client_secret),
        }
        return self.client.post(path, content=raw, headers=headers)

    @initialize(target=originals, amount_centavos=st.integers(1, 15_000))
    def first_credit(self, amount_centavos: int) -> str:
        return self.credit(amount_centavos)

    @rule(target=originals, amount_centavos=st.integers(1, 15_000))
    def receive(self, amount_centavos: int) -> str:
        return self.credit(amount_centavos)

    def credit(self, amount_centavos: int) -> str:
        return self.sb.receive_pix(self.merchant.id, amount_centavos=amount_centavos)

    @rule(key=st.sampled_from(KEYS), amount_centavos=st.integers(1, 25_000))
    def cash_out(self, key: dict[str, str], amount_centavos: int) -> None:
        before = self.sb.balance(self.merchant.id)
        response = self.post("/pix/cash-out", {"amount": amount_centavos, **key})
        assert response.status_code in (200, 202, 400, 422), response.text
        event(f"cash-out {response.status_code} {response.json().get('status')}")
        if response.status_code >= 400:
            assert response.json()["worked"] is False
            assert self.sb.balance(self.merchant.id) == before
            return
        body = response.json()
        assert body["net_amount"] == body["amount"] + body["fee_amount"]
        assert before.safe_base >= body["net_amount"]
        assert body["status"] in ("accepted", "settled", "queued")

    @rule(
        original=originals,
        amount_centavos=st.none() | st.integers(1, 15_000),
        reason=st.sampled_from(REASONS),
    )
    def refund(self, original: str, amount_centavos: int | None, reason: str) -> None:
        conn = self.sb.engine.store.conn
        received_base = self.amount_of(original)
        committed_base = refunds.committed_total_base(conn, original)
        safe_base = self.sb.balance(self.merchant.id).safe_base
        body: dict[str, Any] = {"original_transaction_id": original, "reason": reason}
        if amount_centavos is not None:
            body["amount"] = amount_centavos
        response = self.post("/pix/refund", body)
        wanted_base = received_base if amount_centavos is None else amount_centavos * 100
        fits = committed_base + wanted_base <= received_base and wanted_base <= safe_base
        event(f"refund {response.status_code}")
        assert response.status_code == (202 if fits else 422), response.text

    @rule(seconds=st.sampled_from([1, 2, 3, 10, 45, 60, 600, 1800, 86_400]))
    def advance(self, seconds: int) -> None:
        self.sb.advance(seconds)

    def amount_of(self, transaction_id: str) -> int:
        row = self.sb.engine.store.conn.execute(
            "SELECT amount_base FROM transactions WHERE transaction_id = ?", (transaction_id,)
        ).fetchone()
        return int(row[0])

    @invariant()
    def balances_never_negative(self) -> None:
        balance = self.sb.balance(self.merchant.id)
        assert balance.ledger_base >= 0
        assert balance.held_base >= 0
        assert balance.available_base >= 0
        assert balance.safe_base >= 0
        assert self.sb.audit(self.merchant.id).consistent

    @invariant()
    def refunds_never_exceed_what_was_received(self) -> None:
        conn = self.sb.engine.store.conn
        rows = conn.execute(
            "SELECT transaction_id, amount_base FROM transactions"
            " WHERE merchant_id = ? AND kind = 'cash_in'",
            (self.merchant.id,),
        ).fetchall()
        for transaction_id, amount_base in rows:
            settled = refunds.refunded_total_base(conn, transaction_id)
            assert settled <= refunds.committed_total_base(conn, transaction_id) <= amount_base

    @invariant()
    def ledger_matches_the_transactions(self) -> None:
        conn = self.sb.engine.store.conn
        (credits,) = conn.execute(
            "SELECT COALESCE(SUM(amount_base - fee_base), 0) FROM transactions"
            " WHERE merchant_id = ? AND kind = 'cash_in' AND status = 'settled'",
            (self.merchant.id,),
        ).fetchone()
        (debits,) = conn.execute(
            "SELECT COALESCE(SUM(amount_base + fee_base), 0) FROM transactions"
            " WHERE merchant_id = ? AND direction = 'outbound' AND status = 'settled'",
            (self.merchant.id,),
        ).fetchone()
        (in_flight,) = conn.execute(
            "SELECT COALESCE(SUM(amount_base + fee_base), 0) FROM transactions"
            " WHERE merchant_id = ? AND direction = 'outbound' AND stage < 3",
            (self.merchant.id,),
        ).fetchone()
        balance = self.sb.balance(self.merchant.id)
        assert balance.ledger_base == self.opening_base + credits - debits
        assert balance.held_base == in_flight

    @invariant()
    def one_terminal_event_per_payout(self) -> None:
        ended: dict[str | None, int] = {}
        for emitted in self.sb.events(self.merchant.id):
            if emitted.type in TERMINAL_EVENTS:
                ended[emitted.transaction_id] = ended.get(emitted.transaction_id, 0) + 1
        assert all(count == 1 for count in ended.values())
        conn = self.sb.engine.store.conn
        (terminal,) = conn.execute(
            "SELECT COUNT(*) FROM transactions WHERE merchant_id = ?"
            " AND direction = 'outbound' AND status IN ('rejected', 'failed')"
            " OR (merchant_id = ? AND kind = 'cash_out' AND status = 'settled')",
            (self.merchant.id, self.merchant.id),
        ).fetchone()
        assert terminal == len(ended)


MoneyMachine.TestCase.settings = settings(
    max_examples=30,
    stateful_step_count=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestMoney = MoneyMachine.TestCase
