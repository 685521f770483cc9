"""The result object: frames without float, exports, and figures in pt-BR."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pixops.recon import CATEGORIES, ReconResult, reconcile
from pixops.recon._result import EXCEL_HEADERS
from tests.recon.builders import DAY, ledger_row, ledger_table, statement_row, statement_table

MONEY = pd.ArrowDtype(pa.int64())


@pytest.fixture(scope="module")
def result() -> ReconResult:
    stmt = [statement_row(n, amount_base=12_345_600 + n) for n in range(4)]
    ledger = [ledger_row(f"L{n}", f"PIXIN{n:06d}", amount_base=12_345_600 + n) for n in range(3)]
    ledger.append(ledger_row("L-x", "pedido-1", amount_base=5_000_000))
    return reconcile(statement_table(stmt), ledger_table(ledger), start=DAY, end=DAY)


def test_no_float_in_any_frame(result: ReconResult) -> None:
    for name, frame in result.frames().items():
        for column in frame.columns:
            dtype = frame[column].dtype
            assert isinstance(dtype, pd.ArrowDtype), (name, column, dtype)
            assert not pa.types.is_floating(dtype.pyarrow_dtype), (name, column)
            if str(column).endswith("_base"):
                assert dtype == MONEY, (name, column)


def test_needs_attention_and_counts(result: ReconResult) -> None:
    assert result.needs_attention
    assert list(result.counts) == list(CATEGORIES)
    assert result.counts["missing_in_ledger"] == 1
    assert result.counts["missing_in_statement"] == 1


def test_parquet_and_csv_round_trip_exact_integers(result: ReconResult, tmp_path: Path) -> None:
    written = result.write(tmp_path)
    names = {path.name for path in written}
    for frame in ("matched", "discrepancies", "refunds", "rollforward", "summary"):
        assert {f"{frame}.parquet", f"{frame}.csv"} <= names
    table = pq.read_table(tmp_path / "matched.parquet")
    assert table.schema.field("amount_base").type == pa.int64()
    assert table.column("amount_base").to_pylist() == [12_345_600, 12_345_601, 12_345_602]
    with (tmp_path / "matched.csv").open() as handle:
        assert [row["amount_base"] for row in csv.DictReader(handle)] == [
            "12345600",
            "12345601",
            "12345602",
        ]


def test_excel_file_is_pt_br(result: ReconResult, tmp_path: Path) -> None:
    path = result.to_excel_csv(tmp_path / "excel.csv")
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    rows = list(csv.DictReader(raw.decode("utf-8-sig").splitlines(), delimiter=";"))
    # every column of the discrepancies, in words (the matched rows' rule and tolerance
    # have words too, but are not in this file)
    assert list(rows[0]) == [EXCEL_HEADERS[name] for name in result.discrepancies.columns]
    ghost = next(row for row in rows if row["Category"] == "In the ledger, not in the statement")
    assert ghost["Ledger amount (R$)"] == "500,00"
    assert ghost["Difference (R$)"] == "-500,00"
    assert ghost["Booked on"] == f"{DAY:%d/%m/%Y}"
    assert ghost["Ledger status"] == "Settled"  # a status as a word
    missing = next(row for row in rows if row["Category"] == "In the statement, not in the ledger")
    assert missing["Statement amount (R$)"] == "1.234,5603"  # exact: a sub-centavo amount


def test_summary_text_and_figures_show_reais(result: ReconResult) -> None:
    text = result.summary_text()
    assert "R$ 500,00" in text
    figure = result.summary_figure()
    payload = json.loads(figure.to_json())
    bar = payload["data"][0]
    assert "R$ 500,00" in " ".join(bar["hovertext"])
    assert payload["layout"]["separators"] == ",."
    assert all(isinstance(value, int) for value in bar["y"])
    waterfall = result.rollforward_figure()
    assert waterfall.layout.annotations[0].text == "no balance snapshots given"


def test_rollforward_figure_in_reais() -> None:
    from datetime import UTC, datetime

    stmt = statement_table([statement_row(0, amount_base=1_000_000, fee_base=9_900)])
    balances = [
        (datetime(2026, 1, 15, 3, tzinfo=UTC), 100_000_000),
        (datetime(2026, 1, 16, 3, tzinfo=UTC), 100_990_100),
    ]
    result = reconcile(stmt, ledger_table([ledger_row("L0", "PIXIN000000")]), balances=balances)
    assert not result.needs_attention
    figure = json.loads(result.rollforward_figure().to_json())
    trace = figure["data"][0]
    assert figure["layout"]["xaxis"]["ticktext"][0] == "<b>Opening</b><br>R$ 10.000,00"
    assert trace["y"] == [10_000, 100, 0, -1, 10_099, 10_099]


def test_repr_is_one_line_and_the_notebook_card_shows_reais(result: ReconResult) -> None:
    line = repr(result)
    assert "\n" not in line
    assert line.startswith(f"<ReconResult {DAY:%d/%m/%Y} (America/Sao_Paulo): 3 matched, ")
    assert line.endswith("needs attention>")
    card = result._repr_html_()
    assert "In the ledger, not in the statement" in card  # categories in words
    assert "R$ 500,00" in card  # the ledger's R$ 500,00 with no statement movement
    assert "5000000" not in card  # never raw base units
    assert card.count("<tr>") == len(CATEGORIES)  # no rounding row: a base-unit ledger


def test_rollforward_figure_shows_the_reconciled_days_not_the_live_period() -> None:
    from datetime import UTC, datetime

    stmt = statement_table([statement_row(0, amount_base=1_000_000, fee_base=9_900)])
    balances = [
        (datetime(2026, 1, 15, 3, tzinfo=UTC), 100_000_000),
        (datetime(2026, 1, 16, 3, tzinfo=UTC), 100_990_100 - 1_500_000),  # R$ 150,00 short
        (datetime(2026, 2, 13, 20, tzinfo=UTC), 100_990_100),  # the live balance
    ]
    result = reconcile(
        stmt,
        ledger_table([ledger_row("L0", "PIXIN000000")]),
        balances=balances,
        start=DAY,
        end=DAY,
    )
    figure = result.rollforward_figure()
    # The title says the treasury's closing is short, never "opening + movements = closing".
    assert figure.layout.title.text == (
        "Balance 15/01/2026 00:00 to 16/01/2026 00:00"
        "<br>Reported closing is R$ 150,00 short of<br>opening + movements"
    )
    trace = json.loads(figure.to_json())["data"][0]
    assert trace["x"] == ["Opening", "In", "Out", "Fees", "Expected", "Reported"]
    amounts = [text.split("<br>")[1] for text in figure.layout.xaxis.ticktext]
    assert amounts[0] == "R$ 10.000,00"
    assert amounts[-2:] == ["R$ 10.099,01", "R$ 9.949,01"]
    # The axis starts near the lowest level, so R$ 100 of movements is seen beside R$ 10.000.
    low, high = figure.layout.yaxis.range
    assert 9_000 < low < 9_949 < 10_099 < high < 11_000


def test_rollforward_figure_of_days_that_close_names_a_reported_balance_off_inside() -> None:
    """Over the 15th and 16th the balance closes, but the treasury's closing of the 15th
    (R$ 150,00 short, made up by the 16th) is a finding: the title says so."""
    from datetime import UTC, datetime, timedelta

    stmt = statement_table([statement_row(0, amount_base=1_000_000, fee_base=9_900)])
    balances = [
        (datetime(2026, 1, 15, 3, tzinfo=UTC), 100_000_000),
        (datetime(2026, 1, 16, 3, tzinfo=UTC), 100_990_100 - 1_500_000),  # R$ 150,00 short
        (datetime(2026, 1, 17, 3, tzinfo=UTC), 100_990_100),
    ]
    result = reconcile(
        stmt,
        ledger_table([ledger_row("L0", "PIXIN000000")]),
        balances=balances,
        start=DAY,
        end=DAY + timedelta(days=1),
    )
    assert result.counts["balance_difference"] >= 1
    assert result.rollforward_figure().layout.title.text == (
        "Balance 15/01/2026 00:00 to 17/01/2026 00:00<br>Opening + movements = closing"
        "<br>Inside: the balance reported at 16/01/2026 00:00"
        "<br>is R$ 150,00 short of opening + movements"
    )


def test_rollforward_figure_starts_at_the_opening_snapshot_before_the_days() -> None:
    from datetime import UTC, datetime

    stmt = statement_table([statement_row(0, amount_base=1_000_000, fee_base=9_900)])
    balances = [
        (datetime(2026, 1, 14, 3, tzinfo=UTC), 100_000_000),  # no snapshot on the 15th
        (datetime(2026, 1, 16, 3, tzinfo=UTC), 100_990_100),
        (datetime(2026, 2, 13, 20, tzinfo=UTC), 100_990_100),  # the live balance
    ]
    result = reconcile(
        stmt, ledger_table([ledger_row("L0", "PIXIN000000")]), balances=balances, start=DAY, end=DAY
    )
    assert result.rollforward_figure().layout.title.text == (
        "Balance 14/01/2026 00:00 to 16/01/2026 00:00<br>Opening + movements = closing"
    )


def test_a_failed_write_leaves_the_folder_as_it_was(
    result: ReconResult, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "matched.csv").write_text("the last good run\n", encoding="utf-8")

    def disk_full(self: ReconResult, path: str | Path) -> Path:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(ReconResult, "to_excel_csv", disk_full)
    with pytest.raises(OSError, match="No space left"):
        result.write(out)
    # Nothing of the failed run: no new Parquet beside an old CSV, no staging folder.
    assert sorted(path.name for path in tmp_path.iterdir()) == ["out"]
    assert [path.name for path in out.iterdir()] == ["matched.csv"]
    assert (out / "matched.csv").read_text(encoding="utf-8") == "the last good run\n"


def test_a_folder_in_the_way_is_refused_before_anything_moves(
    result: ReconResult, tmp_path: Path
) -> None:
    (tmp_path / "summary.parquet").mkdir()
    with pytest.raises(IsADirectoryError, match=r"summary\.parquet"):
        result.write(tmp_path)
    assert [path.name for path in tmp_path.iterdir()] == ["summary.parquet"]


def test_write_answers_the_paths_in_the_folder(result: ReconResult, tmp_path: Path) -> None:
    written = result.write(tmp_path / "new" / "out")
    assert all(path.parent == tmp_path / "new" / "out" and path.is_file() for path in written)
    assert sorted(path.name for path in (tmp_path / "new").iterdir()) == ["out"]
