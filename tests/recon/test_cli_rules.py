"""`pixops recon` and `pixops report daily` with the rules beyond identifiers: tolerances
from the mapping file's ``[tolerances]`` and the flags, the review file; bad ones refused
in one line naming the entry, before the service is read."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from pixops._cli_recon._run import EXIT_BAD_INPUT, run
from pixops.cli import build_parser
from pixops.recon import LedgerError, Tolerances, read_mapping, read_tolerances, write_mapping
from pixops.report._cli import _mapping

DATA = Path(__file__).resolve().parents[2] / "data"
LEDGER = DATA / "sample_ledger.csv"


def recon(*argv: str) -> tuple[int, str, str]:
    args = build_parser().parse_args(["recon", *argv])
    out, err = io.StringIO(), io.StringIO()
    status = run(args, out, err)
    return status, out.getvalue(), err.getvalue()


def mapping_file(tmp_path: Path, tolerances: str) -> Path:
    path = tmp_path / "books.mapping.toml"
    # The sample ledger's rules columns (data/sample_ledger.mapping.toml), other tolerances.
    columns = '[columns]\nbooked_at = "booked_at"\ndocument = "document"\nname = "name"\n'
    text = f"version = 1\n{columns}\n[tolerances]\n{tolerances}\n"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_flags_win_over_the_file_and_the_summary_prints_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PIXOPS_BASE_URL", raising=False)
    ledger_map = mapping_file(tmp_path, "amount_base = 100\nfee_base = 7\ndays = 1")
    out = tmp_path / "out"
    status, stdout, err = recon(
        "--date", "2026-01-20", "--ledger", str(LEDGER), "--out", str(out), "--quiet",
        "--ledger-map", str(ledger_map), "--tolerance-amount", "500",
        "--tolerance-amount", "0,5%", "--time-window", "5min", "--groups",
    )  # fmt: skip
    assert err == "", err
    assert status in (0, 1)
    words = (
        "amount ± R$ 0,05 or 0,5 % of the amount; fee ± R$ 0,0007; ± 1 day;"
        " inferred within 5 min; groups by reference"
    )
    assert f"Tolerances: {words}" in stdout
    assert f"Tolerances: {words}" in (out / "summary.txt").read_text(encoding="utf-8")
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["tolerances"] == {
        "amount_base": 500, "amount_bp": 50, "fee_base": 7, "days": 1,
        "inferred_seconds": 300, "groups": True,
    }  # fmt: skip


@pytest.mark.parametrize(
    ("tolerances", "words"),
    [
        ("amount_base = -5", "tolerances] tolerance amount_base must not be negative: -5"),
        ("amount_base = 0.5", "amount_base must be a whole number of base units, not 0.5"),
        ("days = 9", "tolerance days must be 0 to 7, not 9"),
        ("groups = 1", "groups must be True or False, not 1"),
        ("amount = 5", "unknown key tolerances.amount (known in [tolerances]: amount_base"),
    ],
)
def test_a_bad_tolerance_in_the_mapping_file_names_it(
    tmp_path: Path, tolerances: str, words: str
) -> None:
    ledger_map = mapping_file(tmp_path, tolerances)
    status, stdout, err = recon(
        "--date", "2026-01-20", "--ledger", str(LEDGER), "--out", str(tmp_path / "out"),
        "--ledger-map", str(ledger_map),
    )  # fmt: skip
    assert (status, stdout) == (EXIT_BAD_INPUT, "")
    assert err.startswith("pixops recon: --ledger-map: ")
    assert str(ledger_map) in err
    assert words in err
    assert err.count("\n") == 1
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("flag", "value", "words"),
    [
        ("--tolerance-amount", "0.05", "--tolerance-amount takes a whole number, not '0.05'"),
        ("--tolerance-amount", "0.125%", "a percentage with at most two decimals"),
        ("--tolerance-fee", "-1", "--tolerance-fee takes a whole number, not '-1'"),
        ("--time-window", "5 minutes", "--time-window takes seconds (300) or 5min, 1h"),
    ],
)
def test_a_bad_rule_flag_is_refused_naming_it(
    flag: str, value: str, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        build_parser().parse_args(["recon", "--date", "2026-01-20", "--ledger", "l.csv",
                                   "--out", "o", flag, value])  # fmt: skip
    assert stopped.value.code == 2
    assert words in capsys.readouterr().err


def test_a_flag_out_of_range_is_refused_naming_the_flag(tmp_path: Path) -> None:
    status, _, err = recon(
        "--date", "2026-01-20", "--ledger", str(LEDGER), "--out", str(tmp_path / "o"),
        "--day-window", "8",
    )  # fmt: skip
    assert status == EXIT_BAD_INPUT
    assert err == "pixops recon: --day-window: tolerance days must be 0 to 7, not 8\n"


def test_a_review_file_edited_into_nonsense_stops_before_the_service(tmp_path: Path) -> None:
    review = tmp_path / "books.review.csv"
    review.write_text("entry_id,statement_id,decision\nLED-1,abc,maybe\n", encoding="utf-8")
    status, stdout, err = recon(
        "--date", "2026-01-20", "--ledger", str(LEDGER), "--out", str(tmp_path / "o"),
        "--review-file", str(review),
    )  # fmt: skip
    assert (status, stdout) == (EXIT_BAD_INPUT, "")
    assert err.startswith("pixops recon: --review-file: ")
    assert str(review) in err


def test_the_mapping_file_names_the_rules_columns_and_saves_its_tolerances(
    tmp_path: Path,
) -> None:
    path = tmp_path / "books.mapping.toml"
    path.write_text(
        'version = 1\n[columns]\nsettlement = "lote"\nkind = "tipo"\ndocument = false\n'
        "[tolerances]\ninferred_seconds = 600\namount_bp = 10\n",
        encoding="utf-8",
    )
    mapping = read_mapping(path)
    assert (mapping.settlement, mapping.kind, mapping.document) == ("lote", "tipo", None)
    assert read_tolerances(path) == Tolerances(inferred_seconds=600, amount_bp=10)
    # The dashboard's panel saving the columns keeps the file's tolerances.
    write_mapping(mapping.updated(name="cliente"), path)
    assert read_mapping(path).name == "cliente"
    assert read_tolerances(path) == Tolerances(inferred_seconds=600, amount_bp=10)
    path.write_text("version = 1\n[columns]\nsettlement = 5\n", encoding="utf-8")
    with pytest.raises(LedgerError, match=r"columns.settlement must be text or false"):
        read_mapping(path)


def test_report_daily_hands_the_notebook_the_tolerances(tmp_path: Path) -> None:
    """`pixops report daily`'s flags become the run's mapping file's [tolerances]."""
    args = build_parser().parse_args(
        ["report", "daily", "--date", "2026-01-15", "--ledger", str(LEDGER),
         "--html", str(tmp_path / "d.html"), "--time-window", "1h", "--tolerance-fee", "3"]
    )  # fmt: skip
    mapping, tolerances = _mapping(args)
    assert mapping is not None
    assert tolerances == Tolerances(fee_base=3, inferred_seconds=3600)
    plain = build_parser().parse_args(
        ["report", "daily", "--date", "2026-01-15", "--html", str(tmp_path / "d.html")]
    )
    assert _mapping(plain) == (None, None)
