"""The kit in-process against the sandbox: every check passes, so a change to the engine
that breaks the spec fails here with the rule's name, not only in an engine unit test."""

from __future__ import annotations

import pytest

from pixops.conformance import CHECK_NAMES, Report, Target, run_conformance, select_checks
from pixops.sandbox import Sandbox
from tests.conformance._world import fresh_sandbox

pytestmark = pytest.mark.timeout(60)

API_ROOT = "http://sandbox/api/external"


def run_against(sandbox: Sandbox, client_id: str, secret: str, *, write: bool = True) -> Report:
    return run_conformance(
        Target(API_ROOT, client_id, secret),
        checks=select_checks(write=write),
        transport=sandbox.transport(),
    )


def verdicts(report: Report) -> dict[str, str]:
    return {result.name: result.verdict for result in report.results}


def test_every_check_passes_against_the_sandbox() -> None:
    sandbox, key = fresh_sandbox()
    report = run_against(sandbox, key.client_id, key.client_secret)
    failing = {r.name: r.got for r in report.results if r.verdict != "pass"}
    assert failing == {}
    assert report.passed
    assert [r.name for r in report.results] == list(CHECK_NAMES)


def probes_stored(sandbox: Sandbox, merchant_id: str) -> list[tuple[str, int, str]]:
    """Every charge or transaction the kit's probes left: (table, amount_base, status)."""
    conn = sandbox.engine.store.conn
    found = []
    for table, amount in (("charges", "amount_base"), ("transactions", "amount_base")):
        rows = conn.execute(
            f"SELECT {amount}, status FROM {table} WHERE merchant_id = ?"
            " AND external_id LIKE 'pixops-conformance-%'",
            (merchant_id,),
        ).fetchall()
        found += [(table, int(row[0]), str(row[1])) for row in rows]
    return found


def test_the_write_checks_leave_one_charge_that_expires_and_move_no_money() -> None:
    sandbox, key = fresh_sandbox()
    merchant_id = key.merchant_id
    before = sandbox.balance(merchant_id)
    report = run_against(sandbox, key.client_id, key.client_secret)
    assert report.passed
    assert sandbox.balance(merchant_id) == before
    assert probes_stored(sandbox, merchant_id) == [("charges", 100, "pending")]
    sandbox.advance(seconds=61)
    assert probes_stored(sandbox, merchant_id) == [("charges", 100, "expired")]
    assert sandbox.balance(merchant_id) == before


def test_read_only_by_default_creates_no_transaction() -> None:
    sandbox, key = fresh_sandbox()
    before = sandbox.balance(key.merchant_id)
    report = run_against(sandbox, key.client_id, key.client_secret, write=False)
    assert report.passed
    assert not any(r.name.startswith("qr-charge") for r in report.results)
    assert probes_stored(sandbox, key.merchant_id) == []
    assert sandbox.balance(key.merchant_id) == before


def test_a_broken_engine_fails_the_check_naming_the_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """An engine whose permission refusal drifts from the spec's shape is caught by the
    `permission-refused` check, whose rule points at the spec's section."""
    from pixops.engine import pipeline
    from pixops.engine.http import ApiError

    def drifted(permission: str) -> ApiError:
        return ApiError(403, {"error": "forbidden", "message": f"missing permission {permission}"})

    monkeypatch.setattr(pipeline, "forbidden", drifted)
    sandbox, key = fresh_sandbox()
    report = run_against(sandbox, key.client_id, key.client_secret, write=False)
    failed = [r for r in report.results if r.verdict == "fail"]
    assert [r.name for r in failed] == ["permission-refused"]
    assert failed[0].rule.startswith("Endpoints / permission")
    assert "missing permission account:write" in failed[0].got


def test_a_key_holding_every_permission_leaves_that_rule_unchecked() -> None:
    sandbox, _ = fresh_sandbox()
    merchant = sandbox.create_merchant("Outra Loja", balance_centavos=10_000)
    full = sandbox.issue_api_key(merchant.id)
    report = run_conformance(
        Target(API_ROOT, full.client_id, full.client_secret),
        checks=select_checks(only=["permission-refused", "balance"]),
        transport=sandbox.transport(),
    )
    assert verdicts(report) == {"permission-refused": "unchecked", "balance": "pass"}
    assert "holds every permission" in report.results[0].got
    assert not report.passed
