"""`pixops recon --statement PARQUET` on DuckDB, and the engine flags' bad input (no Java)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pixops._cli_recon._run import EXIT_ATTENTION, EXIT_BAD_INPUT
from tests.recon.cli_statement import DATA, day_args, recon, statement_folder


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return statement_folder(tmp_path_factory.mktemp("store") / "statement")


def test_the_store_writes_one_folder_per_business_day(folder: Path) -> None:
    assert sorted(path.name for path in folder.iterdir()) == [
        "business_date=2026-01-14",
        "business_date=2026-01-15",
        "business_date=2026-01-16",
    ]
    table = pq.read_table(folder / "business_date=2026-01-15")
    assert str(table.schema.field("amount_base").type) == "int64"


def test_a_statement_from_parquet_gives_the_service_runs_findings(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PIXOPS_BASE_URL", raising=False)
    status, out, err = recon(*day_args(folder, tmp_path / "file"))
    assert (status, err) == (EXIT_ATTENTION, "")
    assert "against the statement in" in out
    from_file = json.loads((tmp_path / "file" / "summary.json").read_text())
    from tests.recon.test_cli import recon as service_recon

    service = service_recon(
        "--date",
        "2026-01-15",
        "--ledger",
        str(DATA / "sample_ledger.csv"),
        "--out",
        str(tmp_path / "service"),
        "--quiet",
    )
    assert service[0] == status
    from_service = json.loads((tmp_path / "service" / "summary.json").read_text())
    assert from_file["counts"] == from_service["counts"]
    assert from_file["counts"]["unit_error"] == 1


@pytest.mark.parametrize(
    ("more", "said"),
    [
        (["--spark-master", "local[2]"], "go with --engine spark"),
        (["--store", "x.duckdb"], "leave out --store"),
        (["--engine", "spark", "--spark-remote", "http://host"], "sc://HOST"),
        (["--engine", "spark", "--html", "r.html"], "leave it out with --engine spark"),
    ],
)
def test_engine_flags_that_do_not_go_together_are_refused_in_one_line(
    folder: Path, tmp_path: Path, more: list[str], said: str
) -> None:
    status, out, err = recon(*day_args(folder, tmp_path, *more))
    assert status == EXIT_BAD_INPUT
    assert out == ""
    assert said in err
    assert err.count("\n") == 1


def test_a_missing_statement_file_is_bad_input(tmp_path: Path) -> None:
    status, _, err = recon(*day_args(tmp_path / "nowhere", tmp_path / "out"))
    assert status == EXIT_BAD_INPUT
    assert "no such file or folder" in err
