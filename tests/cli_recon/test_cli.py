"""`pixops recon` from the shell: outputs, exit status, bad input."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from pixops._cli_recon._run import EXIT_ATTENTION, EXIT_BAD_INPUT, EXIT_CLEAN, run
from pixops.cli import build_parser
from tests.recon.builders import foreign_ledger

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


def test_a_ledger_of_other_books_is_named_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not one of its entries pairs with the day's statement: the run still needs
    attention, and one line on stderr says the ledger is most likely not this account's."""
    monkeypatch.delenv("PIXOPS_BASE_URL", raising=False)
    ledger = foreign_ledger(tmp_path / "books.csv")
    out = tmp_path / "out"
    status, stdout, err = recon(
        "--date", "2026-01-15", "--ledger", str(ledger), "--out", str(out), "--quiet"
    )  # fmt: skip
    assert status == EXIT_ATTENTION
    assert "needs attention" in stdout
    lines = err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("pixops recon: None of the 301 ledger entries pairs with any of")
    assert "the ledger file books.csv is most likely not this account's" in lines[0]
    assert lines[0].endswith("set --ledger to your account's ledger file.")


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


def test_a_log_that_is_not_a_terminal_gets_no_progress_bars(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("PIXOPS_BASE_URL", raising=False)
    status, _, err = recon(
        "--date", "2026-01-20", "--ledger", str(DATA / "sample_ledger.csv"), "--out", str(tmp_path)
    )  # fmt: skip
    assert (status, err) == (EXIT_CLEAN, "")
    assert "pages" not in capfd.readouterr().err


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


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        # int() alone took these as 5000 and 5: a balance silently read.
        ("2026-01-01T03:00:00Z,5_000\n", "balance_base must be a whole number of base units"),
        ("2026-01-01T03:00:00Z,\u0665\n", "balance_base must be a whole number of base units"),
        ("2026-01-01T03:00:00Z,5.0\n", "balance_base must be a whole number of base units"),
        # Two snapshots at one instant: one was silently dropped.
        ("2026-01-01T03:00:00Z,5\n2026-01-01T00:00:00-03:00,6\n", "a second snapshot at"),
        # Exited 3, 'cannot read the service'.
        ("2026-01-01T03:00:00Z,99999999999999999999\n", "outside the signed 64-bit range"),
        ("2026-01-01T03:00:00,5\n", "as_of needs a time zone"),
    ],
)
def test_a_bad_balances_file_exits_two_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rows: str, message: str
) -> None:
    monkeypatch.delenv("PIXOPS_BASE_URL", raising=False)
    balances = tmp_path / "balances.csv"
    balances.write_text("as_of,balance_base\n" + rows, encoding="utf-8")
    out = tmp_path / "out"
    status, _, err = recon(
        "--date", "2026-01-15", "--ledger", str(DATA / "sample_ledger.csv"),
        "--balances", str(balances), "--out", str(out), "--quiet",
    )  # fmt: skip
    assert (status, out.exists()) == (EXIT_BAD_INPUT, False)
    assert message in err


def test_a_balances_file_in_no_known_text_encoding_exits_two(tmp_path: Path) -> None:
    balances = tmp_path / "balances.csv"
    # Neither UTF-8 nor Windows-1252: 0x81 is undefined there.
    balances.write_bytes(b"as_of,balance_base,memo\n2026-01-01T03:00:00Z,5,abertura \x81\n")
    status, _, err = recon(
        "--date", "2026-01-15", "--ledger", str(DATA / "sample_ledger.csv"),
        "--balances", str(balances), "--out", str(tmp_path / "out"),
    )  # fmt: skip
    assert status == EXIT_BAD_INPUT
    assert "not UTF-8 or Windows-1252 text" in err


@pytest.mark.parametrize("store", ["folder", "not-duckdb"])
def test_a_store_that_cannot_be_opened_exits_two(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, store: str
) -> None:
    monkeypatch.delenv("PIXOPS_BASE_URL", raising=False)
    path = tmp_path / store
    if store == "folder":
        path.mkdir()
    else:
        path.write_bytes(b"not a database" * 100)
    status, _, err = recon(
        "--date", "2026-01-15", "--ledger", str(DATA / "sample_ledger.csv"),
        "--store", str(path), "--out", str(tmp_path / "out"), "--quiet",
    )  # fmt: skip
    assert status == EXIT_BAD_INPUT
    assert f"--store: cannot open the store {path}" in err


@pytest.mark.parametrize(
    ("days", "html", "message"),
    [
        (["--from", "2026-01-14", "--to", "2026-01-15"], "r.html", "covers one business day"),
        (["--date", "2026-01-15"], "r.txt", "give a .html path"),
        (["--date", "2026-01-15"], "blocker/r.html", "is under a file"),
    ],
)
def test_an_html_report_that_cannot_be_made_is_refused_before_the_run(
    tmp_path: Path, days: list[str], html: str, message: str
) -> None:
    out = tmp_path / "out"
    (tmp_path / "blocker").write_text("a file where a folder should be")
    status, _, err = recon(
        *days, "--ledger", str(DATA / "sample_ledger.csv"), "--out", str(out),
        "--html", str(tmp_path / html), "--quiet",
    )  # fmt: skip
    assert (status, out.exists()) == (EXIT_BAD_INPUT, False)
    assert message in err


@pytest.mark.parametrize(("inside", "message"), [("", "is a file"), ("sub", "is under a file")])
def test_an_out_that_is_a_file_is_refused_before_the_service_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, inside: str, message: str
) -> None:
    # An unreachable service would exit 3: refused first, the run never reads it.
    monkeypatch.setenv("PIXOPS_BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("PIXOPS_CLIENT_ID", "id")
    monkeypatch.setenv("PIXOPS_CLIENT_SECRET", "secret")
    blocker = tmp_path / "results"
    blocker.write_text("not a folder")
    out = blocker / inside if inside else blocker
    status, _, err = recon(
        "--date", "2026-01-15", "--ledger", str(DATA / "sample_ledger.csv"),
        "--out", str(out), "--quiet",
    )  # fmt: skip
    assert status == EXIT_BAD_INPUT
    assert message in err
    assert "give a folder" in err
    assert blocker.read_text() == "not a folder"


def test_without_balances_the_balance_is_not_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It printed "Balance does not close 0 … R$ 0,00" (read as a balance that closes)
    while nothing was checked: one run, one set of inputs, one verdict."""
    monkeypatch.delenv("PIXOPS_BASE_URL", raising=False)
    ledger = str(DATA / "sample_ledger.csv")
    status, out, _ = recon(
        "--date", "2026-01-15", "--ledger", ledger, "--out", str(tmp_path), "--quiet"
    )  # fmt: skip
    assert status == EXIT_ATTENTION
    line = next(line for line in out.splitlines() if line.startswith("Balance does not close"))
    assert line.endswith("not checked (no balances given)")
    assert "R$" not in line
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["balances_checked"] is False
    assert summary["counts"]["balance_difference"] == 0
    assert "not checked (no balances given)" in (tmp_path / "summary.txt").read_text()
