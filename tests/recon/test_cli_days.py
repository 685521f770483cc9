"""`pixops recon` on a day that has not happened, or that has nothing on it: the log's
last word says so, instead of "everything reconciled"."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from pixops._cli_recon import _run as _cli
from pixops._cli_recon._run import EXIT_ATTENTION, EXIT_BAD_INPUT, EXIT_CLEAN
from pixops.sandbox import Sandbox
from tests.recon.test_cli import DATA, recon


def test_a_day_after_today_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo month's clock is at 12/02/2026: 15/03/2026 read "everything reconciled",
    exit 0, in a scheduler's log (the dashboard refuses such a day)."""
    monkeypatch.delenv("PIXOPS_BASE_URL", raising=False)
    out = tmp_path / "out"
    status, stdout, err = recon(
        "--date", "2026-03-15", "--ledger", str(DATA / "sample_ledger.csv"),
        "--out", str(out), "--quiet",
    )  # fmt: skip
    assert (status, stdout, out.exists()) == (EXIT_BAD_INPUT, "", False)
    assert err.startswith(
        "pixops recon: --date 2026-03-15 has not happened yet on the demo month on the"
        " embedded sandbox (today is 2026-02-"
    )
    assert err.endswith(" there): give a day up to today\n")
    status, _, err = recon(
        "--from", "2026-02-10", "--to", "2026-02-28", "--ledger", str(DATA / "sample_ledger.csv"),
        "--out", str(out), "--quiet",
    )  # fmt: skip
    assert status == EXIT_BAD_INPUT
    assert "--to 2026-02-28 has not happened yet" in err


def test_a_day_with_nothing_on_it_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before the demo month: no movement and no ledger entry, which is not the same news
    as a day whose every movement paired with its entry."""
    monkeypatch.delenv("PIXOPS_BASE_URL", raising=False)
    status, stdout, err = recon(
        "--date", "2025-12-01", "--ledger", str(DATA / "sample_ledger.csv"),
        "--out", str(tmp_path / "out"), "--quiet",
    )  # fmt: skip
    assert (status, err) == (EXIT_CLEAN, "")
    assert stdout.splitlines()[-1] == (
        "nothing to reconcile (no movement in the statement, no entry in the ledger);"
        f" results in {tmp_path / 'out'}"
    )
    assert "everything reconciled" not in stdout


def test_a_key_that_may_not_read_the_balance_still_reconciles(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Today comes from the balance's ``as_of``; a key without that permission (403) takes
    the service's today from the refusal's ``Date``, as the local store does, instead of
    stopping the run."""
    sandbox = Sandbox(start=datetime(2026, 1, 20, 12, 0, tzinfo=UTC))
    merchant = sandbox.create_merchant("Loja", balance_centavos=1_000_000)
    sandbox.receive_pix(merchant.id, amount_centavos=2_500)
    sandbox.advance(minutes=5)
    key = sandbox.issue_api_key(merchant.id, permissions=["statement:read"])
    monkeypatch.setattr(_cli, "_client", lambda: (sandbox.client(key), "a statement-only key"))
    status, stdout, err = recon(
        "--date", "2026-01-20", "--ledger", str(DATA / "sample_ledger.csv"),
        "--out", str(tmp_path / "out"), "--quiet",
    )  # fmt: skip
    assert status in (EXIT_CLEAN, EXIT_ATTENTION), err
    assert "pixops recon 2026-01-20 (America/Sao_Paulo) against a statement-only key" in stdout
