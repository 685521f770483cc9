"""A hypothesis state machine over charges, payments, cash-outs, refunds, MED cases and
clock advances on an in-process sandbox, checking the ledger and refund invariants after
every step and predicting each refund's answer from the stored totals.

Merchant actions go through the HTTP front door (signed raw requests on the sandbox's
transport); payers, the central bank and time go through the sandbox, as in production.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    consumes,
    initialize,
    invariant,
    multiple,
    rule,
)

from pixops import wire
from pixops.engine import ledger
from pixops.engine.pix import refunds
from pixops.sandbox import MedError, Sandbox, SimulationError
from tests.stress._harness import invariant_violations

#: Keys with each asynchronous outcome (docs/sandbox-test-keys.md).
PAYOUT_KEYS = (
    "maria.silva@sandbox.pixops.dev",  # accepted, then settled
    "instant@sandbox.pixops.dev",  # settled at once
    "reject.ac03@sandbox.pixops.dev",  # accepted, then rejected
    "orphan@sandbox.pixops.dev",  # no answer: failed after 30 minutes
    "queue.client@sandbox.pixops.dev",  # queued, then settled
)
REFUND_REASONS = ("MD06", "BE08", "FR01", "XX99")
centavos = st.integers(min_value=1, max_value=60_000)


class LedgerMachine(RuleBasedStateMachine):
    received = Bundle("received")
    charges = Bundle("charges")
    cases = Bundle("cases")

    def __init__(self) -> None:
        super().__init__()
        self.sb = Sandbox(seed=3)
        self.merchant = self.sb.create_merchant("Loja Estado", balance_centavos=200_000)
        self.key = self.sb.issue_api_key(self.merchant.id, ip_whitelist=["127.0.0.1"])
        self.http = httpx.Client(transport=self.sb.transport(), base_url="http://sb/api/external")
        self.payouts = 0

    def teardown(self) -> None:
        self.http.close()

    def post(self, path: str, payload: dict[str, Any]) -> httpx.Response:
        body = json.dumps(payload).encode()
        headers = {
            "authorization": f"ApiKey {self.key.client_id}:{self.key.client_secret}",
            "content-type": "application/json",
            "hmac": wire.sign(body, self.key.client_secret),
        }
        return self.http.post(path, content=body, headers=headers)

    def balance(self) -> ledger.Balance:
        return self.sb.balance(self.merchant.id)

    @initialize(target=received)
    def first_received(self) -> str:
        return self.sb.receive_pix(self.merchant.id, amount_centavos=10_000)

    @rule(target=charges, amount=centavos)
    def create_charge(self, amount: int) -> str:
        response = self.post("/pix/cash-in", {"amount": amount})
        assert response.status_code == 201, response.text
        return str(response.json()["data"]["transaction_id"])

    @rule(target=received, charge=consumes(charges))
    def pay_charge(self, charge: str) -> Any:
        try:
            return self.sb.pay_charge(charge)
        except SimulationError:  # expired meanwhile: paying it is a misuse, nothing changes
            return multiple()

    @rule(target=received, amount=centavos)
    def receive_pix(self, amount: int) -> str:
        return self.sb.receive_pix(self.merchant.id, amount_centavos=amount)

    @rule(amount=centavos, key=st.sampled_from(PAYOUT_KEYS))
    def cash_out(self, amount: int, key: str) -> None:
        self.payouts += 1
        before = self.balance()
        payload = {"amount": amount, "pix_key": key, "external_id": f"sm-{self.payouts}"}
        response = self.post("/pix/cash-out", payload)
        if response.status_code in (200, 202):
            debit = response.json()["net_amount"]
            assert debit <= before.safe_base, "a cash-out was accepted beyond the safe balance"
        else:
            assert response.status_code == 422, response.text
            error = response.json()["errors"][0]
            assert error["code"] == "insufficient_balance"
            assert error["params"]["required"] > before.safe_base

    @rule(
        original=received,
        amount=st.none() | centavos,
        reason=st.sampled_from(REFUND_REASONS),
    )
    def refund(self, original: str, amount: int | None, reason: str) -> None:
        with self.sb.engine.store.lock:
            conn = self.sb.engine.store.conn
            row = conn.execute(
                "SELECT amount_base, status FROM transactions WHERE transaction_id = ?",
                (original,),
            ).fetchone()
            committed = refunds.committed_total_base(conn, original)
        safe = self.balance().safe_base
        payload: dict[str, Any] = {"original_transaction_id": original, "reason": reason}
        if amount is not None:
            payload["amount"] = amount
        response = self.post("/pix/refund", payload)
        wanted = row["amount_base"] if amount is None else amount * 100
        if row["status"] != "settled":
            assert response.status_code == 422
        elif committed + wanted > row["amount_base"] or safe < wanted:
            assert response.status_code == 422, (committed, wanted, safe, response.text)
        else:
            assert response.status_code == 202, response.text

    @rule(target=cases, original=received, reason=st.sampled_from(["FRAUD", "OPERATIONAL_FLAW"]))
    def open_med_case(self, original: str, reason: str) -> Any:
        try:
            return self.sb.open_med_case(original, reason=reason).id
        except MedError:  # not disputable now (one active case, nothing left, failed)
            return multiple()

    @rule(case=consumes(cases), result=st.sampled_from(["AGREED", "DISAGREED"]))
    def resolve_med_case(self, case: str, result: str) -> None:
        try:
            self.sb.resolve_med_case(case, result=result)
        except MedError:  # already closed by its deadline path
            return

    @rule(seconds=st.sampled_from([1, 3, 30, 600, 1801, 7201, 86_400 * 8]))
    def advance(self, seconds: int) -> None:
        self.sb.advance(seconds)

    @invariant()
    def ledger_and_refunds_hold(self) -> None:
        with self.sb.engine.store.lock:
            assert invariant_violations(self.sb.engine.store.conn) == []

    @invariant()
    def api_balance_matches_the_ledger(self) -> None:
        response = self.http.get(
            "/balance",
            headers={"authorization": f"ApiKey {self.key.client_id}:{self.key.client_secret}"},
        )
        shown = response.json()["data"]
        assert shown["balance"] == self.balance().ledger_base
        assert isinstance(shown["balance"], int)


LedgerMachine.TestCase.settings = settings(
    max_examples=40,
    stateful_step_count=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestLedgerMachine = LedgerMachine.TestCase
