"""`pixops recon` from the shell: outputs, exit status, bad input."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from pixops.cli import build_parser
from pixops.recon._cli import EXIT_ATTENTION, EXIT_BAD_INPUT, EXIT_CLEAN, run

DATA = Path(__file__).resolve().parents[2] / "data"


def recon(*argv: str) -> tuple[int, str, str]:
    args = build_parser().parse_args(["recon", *argv])
    out, err = io.StringIO(), io.StringIO()
    status = run(args, out, err)
    return status, out.getvalue(), err.getvalue()


def test_the_planted_day_needs_attention(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PIXOPS_BASE_URL", raising=False)
    status, out, err = recon(
        "--date",
        "2026-01-15",
        "--ledger",
        str(DATA / "sample_ledger.csv"),
        "--balances",
        str(DATA / "balances.csv"),
        "--out",
        str(tmp_path),
        "--quiet",
        "--store",
        str(tmp_path / "pix.duckdb"),
    )
    assert (status, err) == (EXIT_ATTENTION, "")
    assert "needs attention" in out
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["exit_status"] == EXIT_ATTENTION
    assert summary["counts"]["unit_error"] == 1
    assert summary["counts"]["balance_difference"] == 1
    for name in (
        "discrepancies.parquet",
        "discrepancies.csv",
        "discrepancies_excel.csv",
        "summary.txt",
    ):
        assert (tmp_path / name).is_file()


def test_a_clean_day_exits_zero(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PIXOPS_BASE_URL", raising=False)
    status, out, _ = recon(
        "--from",
        "2026-01-20",
        "--to",
        "2026-01-21",
        "--ledger",
        str(DATA / "sample_ledger.csv"),
        "--out",
        str(tmp_path),
        "--quiet",
    )
    assert status == EXIT_CLEAN
    assert "everything reconciled" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--date", "2026-02-30"], "--date must be a date"),
        (["--from", "2026-01-02"], "--from needs --to"),
        (["--date", "2026-01-02", "--to", "2026-01-03"], "--to goes with --from"),
        (["--date", "2026-01-02", "--tz", "Nowhere/Land"], "unknown time zone"),
        (["--date", "2026-01-02", "--balances", "/nonexistent.csv"], "no such file"),
    ],
)
def test_bad_arguments_exit_two(tmp_path: Path, argv: list[str], message: str) -> None:
    status, _, err = recon(
        *argv, "--ledger", str(DATA / "sample_ledger.csv"), "--out", str(tmp_path)
    )
    assert status == EXIT_BAD_INPUT
    assert message in err


def test_a_broken_ledger_exits_two(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PIXOPS_BASE_URL", raising=False)
    ledger = tmp_path / "ledger.csv"
    ledger.write_text("entry_id,reference\nL1,x\n", encoding="utf-8")
    status, _, err = recon("--date", "2026-01-15", "--ledger", str(ledger), "--out", str(tmp_path))
    assert status == EXIT_BAD_INPUT
    assert "no column 'amount_base'" in err
