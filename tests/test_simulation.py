"""Sandbox.simulate: a seeded, realistic, reproducible stretch of activity."""

from __future__ import annotations

import httpx
import pytest

from pixops.sandbox import Sandbox
from pixops.simulation import SimulationSummary


def transactions(sb: Sandbox) -> list[tuple[str, ...]]:
    rows = sb.engine.store.conn.execute(
        "SELECT transaction_id, kind, status, amount_base FROM transactions ORDER BY seq"
    ).fetchall()
    return [tuple(row) for row in rows]


@pytest.fixture(scope="module")
def simulated() -> tuple[Sandbox, SimulationSummary]:
    sb = Sandbox(seed=3)
    summary = sb.simulate(days=3, seed=11, charges_per_day=120)
    return sb, summary


def test_same_seeds_give_the_same_month_id_for_id(
    simulated: tuple[Sandbox, SimulationSummary],
) -> None:
    first, _ = simulated
    again = Sandbox(seed=3)
    again.simulate(days=3, seed=11, charges_per_day=120)
    assert transactions(again) == transactions(first)


def test_another_seed_gives_another_month(simulated: tuple[Sandbox, SimulationSummary]) -> None:
    first, _ = simulated
    other = Sandbox(seed=3)
    other.simulate(days=3, seed=12, charges_per_day=120)
    assert transactions(other) != transactions(first)


def test_the_ledger_stays_consistent(simulated: tuple[Sandbox, SimulationSummary]) -> None:
    sb, summary = simulated
    audit = sb.audit(summary.merchant.id)
    assert audit.consistent
    assert audit.balance.held_base == 0  # three hours after the last action nothing is in flight


def test_the_month_has_every_kind_of_movement(simulated: tuple[Sandbox, SimulationSummary]) -> None:
    sb, summary = simulated
    kinds = {(kind, status) for _, kind, status, _ in transactions(sb)}
    assert ("cash_in", "settled") in kinds
    assert ("cash_in", "failed") in kinds or summary.counts["pix_failed"] == 0
    assert ("cash_out", "settled") in kinds
    assert ("cash_out", "rejected") in kinds
    assert ("cash_out", "failed") in kinds  # the queue timeout
    assert any(kind == "refund" for kind, _ in kinds)
    charges = sb.engine.store.conn.execute(
        "SELECT status, COUNT(*) FROM charges GROUP BY status"
    ).fetchall()
    by_status = dict(charges)
    assert by_status["paid"] > by_status["expired"] > 0


def test_counts_match_what_was_stored(simulated: tuple[Sandbox, SimulationSummary]) -> None:
    sb, summary = simulated
    counts = summary.counts
    assert counts["charges_created"] == 3 * 120
    stored = sb.engine.store.conn.execute("SELECT COUNT(*) FROM charges").fetchone()[0]
    assert stored == counts["charges_created"]
    paid = sb.engine.store.conn.execute(
        "SELECT COUNT(*) FROM charges WHERE status = 'paid'"
    ).fetchone()[0]
    assert paid == counts["charges_paid"]
    assert "Loja Simulada" in str(summary)


def test_the_summary_key_reads_the_month_back(simulated: tuple[Sandbox, SimulationSummary]) -> None:
    sb, summary = simulated
    key = summary.api_key
    with httpx.Client(transport=sb.transport(), base_url="http://sandbox/api/external") as http:
        response = http.get(
            "/statement",
            params={"per_page": 100},
            headers={"Authorization": f"ApiKey {key.client_id}:{key.client_secret}"},
        )
    assert response.status_code == 200
    assert len(response.json()["data"]) == 100


@pytest.mark.parametrize("bad", [-1, True, "3"])
def test_bad_arguments_are_refused(bad: object) -> None:
    with pytest.raises(ValueError, match="days"):
        Sandbox().simulate(days=bad)  # type: ignore[arg-type]


def test_an_existing_merchant_can_be_simulated() -> None:
    sb = Sandbox()
    merchant = sb.create_merchant("Padaria", balance_centavos=10_000_000)
    summary = sb.simulate(merchant.id, days=1, charges_per_day=20)
    assert summary.merchant.id == merchant.id
    assert sb.audit(merchant.id).consistent
