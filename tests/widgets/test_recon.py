"""ReconDashboard on the planted day of the sample ledger (data/README.md): 2026-01-15."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import httpx
import pytest

from pixops.demo import demo_month
from pixops.widgets import ReconDashboard, read_balance_snapshots
from tests.recon.builders import foreign_ledger
from tests.widgets.conftest import Desk, Recorder

ROOT = Path(__file__).resolve().parents[2]
LEDGER = ROOT / "data" / "sample_ledger.csv"
SAMPLE_NAME = LEDGER.name
BALANCES = ROOT / "data" / "balances.csv"
PLOTLY = "application/vnd.plotly.v1+json"


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> tuple[ReconDashboard, Recorder]:
    """One reconciliation of 2026-01-15 with balances, shared by the read-only tests."""
    month = demo_month()
    recorder = Recorder(month.sandbox.transport())
    client = month.sandbox.client(month.api_key, http_client=httpx.Client(transport=recorder))
    out = tmp_path_factory.mktemp("recon-out")
    board = ReconDashboard(
        client, LEDGER, day="2026-01-15", balances=BALANCES, out_dir=out, now=month.sandbox.now
    )
    board.run_button.click()
    return board, recorder


def test_the_planted_day_shows_every_finding(ran: tuple[ReconDashboard, Recorder]) -> None:
    board, _ = ran
    assert board.result is not None
    assert "15/01/2026 (São Paulo time): 291 matched, 13 findings to check." in (board.status.value)
    assert "pairs with any" not in board.status.value  # the demo month's own ledger pairs
    assert "R$ 352.943,47" in board.summary.value  # matched, both sides
    assert "-R$ 250,00" in board.summary.value  # the order whose payment never came
    assert "3531032200" not in board.summary.value
    values = [value for _, value in board.category.options]
    assert values[0] == "matched"
    assert "unit_error" in values
    assert board.category.value == "missing_in_statement"
    assert "pedido-20260115-9001" in board.table.value
    assert not board.export_button.disabled


def test_findings_are_filtered_by_category_and_text(ran: tuple[ReconDashboard, Recorder]) -> None:
    board, _ = ran
    board.category.value = "unit_error"
    assert [row["reference"] for row in board.rows()] == ["PIXINE90400888202601151238RUp1VkThbbf"]
    assert "R$ 1,07" in board.table.value
    assert "R$ 107,00" in board.table.value
    board.category.value = "missing_in_statement"
    # Columns with nothing to say for these rows (no statement side) are left out.
    assert "Statement" not in board.table.value
    assert "Ledger reference" in board.table.value
    assert "pedido-20260115-9001" in board.table.value
    board.category.value = "matched"
    assert len(board.rows()) == 291
    assert "more rows" in board.table.value  # only the first 200 are drawn
    board.filter.value = "payout-"
    assert 0 < len(board.rows()) < 291
    assert all(any("payout-" in str(v) for v in row.values()) for row in board.rows())
    board.filter.value = "no such text anywhere"
    assert board.rows() == []
    # The filter is what hides them, and the table says so and how to see them again.
    assert (
        "No rows. None of the 291 rows of Matched contains “no such text anywhere”:"
        " change or clear the Filter." in board.table.value
    )
    board.filter.value = ""


def test_each_movement_says_money_in_or_out(ran: tuple[ReconDashboard, Recorder]) -> None:
    """Matched amounts add up sales and payouts: each row says which it is."""
    board, _ = ran
    board.category.value = "matched"
    board.filter.value = "payout-1254184-14382"  # a payout matched on 15/01
    assert ">Direction</th>" in board.table.value
    assert ">sent<" in board.table.value
    assert ">received<" not in board.table.value
    board.filter.value = "PIXINE00000000202601150403qY0bBc4Tlef"  # a sale
    assert ">received<" in board.table.value
    board.filter.value = ""
    board.category.value = "missing_in_statement"  # no movement: no direction column
    assert "Direction" not in board.table.value


def test_charts_are_in_reais_and_by_day(ran: tuple[ReconDashboard, Recorder]) -> None:
    board, _ = ran
    figures = [o["data"][PLOTLY] for o in board.charts.outputs]
    assert len(figures) == 5  # findings, volumes, fees, statuses, balance roll-forward
    titles = [f["layout"]["title"]["text"] for f in figures]
    assert titles[0] == "Findings to check (291 items matched)"
    assert sum(figures[0]["data"][0]["x"]) == 13
    # Across, a kind of finding a row, its name on at most two lines of 20 characters:
    # ten names under upright bars were turned and ran into each other when narrow.
    assert figures[0]["data"][0]["orientation"] == "h"
    names = figures[0]["data"][0]["y"]
    assert names[0] == "In the ledger, not<br>in the statement"
    assert all(len(line) <= 20 for name in names for line in name.split("<br>"))
    # The balance over the day reconciled (the treasury's closing is R$ 150,00 short),
    # not the period from it to the live balance.
    assert titles[4] == (
        "Balance 15/01/2026 00:00 to 16/01/2026 00:00<br>Reported closing is R$ 150,00 short"
        " of<br>opening + movements"
    )
    assert figures[4]["layout"]["xaxis"]["ticktext"][0] == "<b>Opening</b><br>R$ 8.103.577,7854"
    assert figures[4]["layout"]["xaxis"]["ticktext"][-1] == "<b>Reported</b><br>R$ 8.399.589,0198"
    assert titles[1:4] == [
        "Money received and sent per day",
        "Fees per day",
        "Movements per day by status",
    ]
    volumes = figures[1]
    assert volumes["layout"]["separators"] == ",."
    assert [trace["x"] for trace in volumes["data"]] == [["15/01"], ["15/01"]]
    for trace, series in zip(volumes["data"], ("received", "sent"), strict=True):
        assert all(isinstance(y, int) for y in trace["y"])
        # The hover names its bar's series: a day and an amount alone do not say which.
        assert all(text.startswith(f"15/01/2026: {series} R$ ") for text in trace["hovertext"]), (
            trace["hovertext"]
        )


def test_the_dashboard_only_reads(ran: tuple[ReconDashboard, Recorder]) -> None:
    _, recorder = ran
    assert {method for method, _, _, _ in recorder.calls} == {"GET"}
    paths = {path for _, path, _, _ in recorder.calls}
    assert {"/statement", "/balance"} <= paths
    # The rest: refunds and returns read one by one to link them to their originals.
    assert all(p.startswith("/transactions/PIX") for p in paths - {"/statement", "/balance"})


def test_export_writes_the_result(ran: tuple[ReconDashboard, Recorder]) -> None:
    board, _ = ran
    board.export_button.click()
    names = sorted(path.name for path in board.written)
    assert "discrepancies_excel.csv" in names
    assert "discrepancies.parquet" in names
    assert all(path.is_file() for path in board.written)
    # Said beside the button; the reconciliation's headline stays.
    # At São Paulo's time, said: the machine's clock (UTC here) read three hours ahead.
    said = re.search(
        r"Exported 11 files at (\d\d):(\d\d):\d\d \(São Paulo time\) to ",
        board.export_status.value,
    )
    assert said is not None
    now = datetime.now(ZoneInfo("America/Sao_Paulo"))
    recent = {f"{now - timedelta(minutes=back):%H:%M}" for back in range(3)}
    assert f"{said[1]}:{said[2]}" in recent
    assert "13 findings to check" in board.status.value


def test_without_balances_there_is_no_roll_forward(desk: Desk) -> None:
    board = ReconDashboard(desk.client, LEDGER, day=date(2026, 1, 31), now=desk.now)
    board.run()
    assert board.result is not None
    assert board.result.counts["missing_in_ledger"] == 1
    assert board.result.counts["amount_mismatch"] == 1
    assert board.result.counts["balance_difference"] == 0
    assert len(board.charts.outputs) == 4


def test_the_day_defaults_to_yesterday_on_the_service_clock(desk: Desk) -> None:
    board = ReconDashboard(desk.client, LEDGER, now=desk.now)
    assert board.first_day.value == date(2026, 2, 11)
    assert board.last_day.value == date(2026, 2, 11)


def test_bad_choices_are_explained_without_calling_the_api(desk: Desk, tmp_path: Path) -> None:
    board = ReconDashboard(desk.client, LEDGER, day="2026-01-15", now=desk.now)
    mark = desk.mark()
    board.last_day.value = date(2026, 1, 10)
    board.run()
    assert "The last day is before the first one" in board.status.value
    board.last_day.value = date(2026, 1, 15)
    board.tz.value = "Mars/Olympus"
    board.run()
    assert "Unknown time zone “Mars/Olympus”" in board.status.value
    assert desk.calls_since(mark) == []
    board.export()
    assert "Reconcile first" in board.export_status.value


def test_a_bad_ledger_or_balances_file_is_explained(desk: Desk, tmp_path: Path) -> None:
    missing = ReconDashboard(desk.client, tmp_path / "nope.csv", day="2026-01-15", now=desk.now)
    missing.run()
    assert "could not run" in missing.status.value
    bad = tmp_path / "balances.csv"
    bad.write_text("as_of,balance_base\n2026-01-01T03:00:00Z,12.5\n")
    board = ReconDashboard(desk.client, LEDGER, day="2026-01-15", balances=bad, now=desk.now)
    board.run()
    assert "line 2: balance_base must be a whole number of base units" in board.status.value
    assert board.result is None


def test_balance_snapshots_are_read_exactly(tmp_path: Path) -> None:
    snapshots = read_balance_snapshots(BALANCES)
    assert snapshots[0][0].isoformat() == "2026-01-01T03:00:00+00:00"
    assert all(isinstance(amount, int) for _, amount in snapshots)
    naive = tmp_path / "naive.csv"
    naive.write_text("as_of,balance_base\n2026-01-01T03:00:00,100\n")
    with pytest.raises(ValueError, match="needs a time zone"):
        read_balance_snapshots(naive)
    wrong = tmp_path / "wrong.csv"
    wrong.write_text("when,amount\n")
    with pytest.raises(ValueError, match="as_of and balance_base"):
        read_balance_snapshots(wrong)
    underscored = tmp_path / "underscored.csv"  # int() takes 5_000; a balance must not
    underscored.write_text("as_of,balance_base\n2026-01-01T03:00:00Z,5_000\n")
    with pytest.raises(ValueError, match="line 2: balance_base must be a whole number"):
        read_balance_snapshots(underscored)


def test_bad_arguments_are_refused(desk: Desk) -> None:
    with pytest.raises(TypeError, match=r"pixops\.Client"):
        ReconDashboard(None, LEDGER)
    with pytest.raises(ValueError, match="Mars"):
        ReconDashboard(desk.client, LEDGER, tz="Mars/Olympus")
    with pytest.raises(TypeError, match="ledger"):
        ReconDashboard(desk.client, 42)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="balances"):
        ReconDashboard(desk.client, LEDGER, balances=3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="out_dir"):
        ReconDashboard(desk.client, LEDGER, out_dir=None)  # type: ignore[arg-type]


def test_a_range_of_business_days(desk: Desk, tmp_path: Path) -> None:
    board = ReconDashboard(desk.client, LEDGER, day="2026-01-30", out_dir=tmp_path, now=desk.now)
    board.last_day.value = date(2026, 1, 31)
    board.run_button.click()
    assert "30/01/2026 to 31/01/2026" in board.status.value
    assert board.result is not None
    assert board.result.counts["missing_in_ledger"] == 1  # planted on the 31st
    volumes = board.charts.outputs[1]["data"]["application/vnd.plotly.v1+json"]
    assert volumes["data"][0]["x"] == ["30/01", "31/01"]
    board.export_button.click()
    assert any(path.parent.name == "recon-2026-01-30-to-2026-01-31" for path in board.written)


def test_each_category_shows_its_own_figures(ran: tuple[ReconDashboard, Recorder]) -> None:
    board, _ = ran
    board.category.value = "fee_mismatch"
    table = board.table.value
    assert "Ledger fee" in table
    assert "Statement fee" in table
    assert ">R$ 0,40<" in table
    assert ">R$ 0,50<" in table
    assert ">R$ 0,10<" in table  # the fee difference, statement minus ledger
    assert "Booked on" not in table
    board.category.value = "status_mismatch"
    assert "ledger expects failed, statement shows settled" in board.table.value
    assert "Ledger status" not in board.table.value  # the detail says whose status it is
    board.category.value = "amount_mismatch"
    # The ledger wrote the transaction id down: it is not shown twice.
    assert board.table.value.count("PIXINE60746948202601151028LVTQ5HUdag3") == 1
    assert ">the transaction id<" in board.table.value  # the reference used, said once
    board.category.value = "balance_difference"
    assert "At the close of 15/01/2026" in board.table.value
    assert "Opening + movements" in board.table.value


# -- what a hurried person picks -----------------------------------------------------------


def test_a_day_with_no_data_says_so_without_a_traceback(desk: Desk) -> None:
    board = ReconDashboard(desk.client, LEDGER, day="2025-12-01", now=desk.now)
    board.run()
    assert "01/12/2025 (São Paulo time): no movement in the statement and no entry" in (
        board.status.value
    )
    assert board.charts.outputs == ()  # no empty charts
    assert board.category.value is not None
    assert "No rows." in board.table.value


def test_a_day_with_no_data_and_balances_says_so(desk: Desk, tmp_path: Path) -> None:
    balances = tmp_path / "balances.csv"
    balances.write_text("as_of,balance_base\n2025-11-01T03:00:00Z,50000000000\n")
    board = ReconDashboard(desk.client, LEDGER, day="2025-12-01", balances=balances, now=desk.now)
    board.run()
    assert "could not run" not in board.status.value
    assert board.result is not None
    assert board.category.value in {value for _, value in board.category.options}


def test_a_ledger_of_other_books_says_so_first(desk: Desk, tmp_path: Path) -> None:
    """A real account's statement against the demo ledger: hundreds of findings, and the
    status line says in one sentence why, naming the setting given."""
    ledger = foreign_ledger(tmp_path / SAMPLE_NAME)  # the demo month's file name
    board = ReconDashboard(
        desk.client, ledger, day="2026-01-15", now=desk.now, ledger_setting="ledger_path"
    )
    board.run()
    assert board.result is not None
    assert board.result.counts["matched"] == 0
    assert "#b00020" in board.status.value  # in the error tone, not the usual warning
    assert board.status_text.endswith(
        "None of the 301 ledger entries pairs with any of the 298 statement movements of"
        " 15/01/2026: sample_ledger.csv is the demo month's ledger, most likely not this"
        " account's; set ledger_path to your account's ledger file."
    )
    with pytest.raises(TypeError, match="ledger_setting must be text"):
        ReconDashboard(desk.client, LEDGER, ledger_setting=None)  # type: ignore[arg-type]


def test_a_day_in_the_future_is_refused_without_calling_the_api(desk: Desk) -> None:
    board = ReconDashboard(desk.client, LEDGER, day="2026-01-15", now=desk.now)
    mark = desk.mark()
    board.last_day.value = date(2026, 3, 1)
    board.run()
    assert "01/03/2026 has not happened yet (today is 12/02/2026)" in board.status.value
    assert desk.calls_since(mark) == []


def test_file_problems_read_as_words(desk: Desk, tmp_path: Path) -> None:
    board = ReconDashboard(
        desk.client, LEDGER, day="2026-01-15", balances=tmp_path / "nope.csv", now=desk.now
    )
    board.run()
    assert "There is no balance snapshots file at" in board.status.value
    assert "Errno" not in board.status.value
    # 0x81: neither UTF-8 nor Windows-1252 (Excel's plain "CSV" in Brazil, which is read).
    garbled = tmp_path / "ledger.csv"
    garbled.write_bytes(LEDGER.read_bytes().replace(b"venda PIX", b"venda \x81 vista"))
    board = ReconDashboard(desk.client, garbled, day="2026-01-15", now=desk.now)
    board.run()
    assert "The file ledger.csv is not text in UTF-8 or in Excel&#x27;s own encoding" in (
        board.status.value
    )
    assert "codec" not in board.status.value
    board = ReconDashboard(desk.client, LEDGER, day="2026-01-15", balances=garbled, now=desk.now)
    board.run()
    assert "The file ledger.csv is not text in UTF-8" in board.status.value


def test_a_ledger_saved_by_excel_as_plain_csv_reconciles(desk: Desk, tmp_path: Path) -> None:
    excel = tmp_path / "ledger.csv"
    text = LEDGER.read_text(encoding="utf-8").replace("venda PIX", "venda à vista")
    excel.write_bytes(text.replace(",", ";").encode("cp1252"))
    # Its mapping beside it, as the sample's (the rules columns; the format is detected).
    mapping = LEDGER.with_name("sample_ledger.mapping.toml").read_text(encoding="utf-8")
    (tmp_path / "ledger.mapping.toml").write_text(mapping, encoding="utf-8")
    board = ReconDashboard(desk.client, excel, day="2026-01-15", now=desk.now)
    board.run()
    assert "291 matched" in board.status.value


def test_a_day_before_the_first_balance_says_which_is_first(desk: Desk) -> None:
    board = ReconDashboard(desk.client, LEDGER, day="2025-12-01", balances=BALANCES, now=desk.now)
    board.run()
    assert "no balance at the start of 01/12/2025" in board.status.value
    assert "its first is at 01/01/2026 00:00 (São Paulo time)" in board.status.value
    assert "03:00Z" not in board.status.value


def test_each_date_picker_says_its_date_the_brazilian_way(desk: Desk) -> None:
    board = ReconDashboard(desk.client, LEDGER, day="2026-01-15", now=desk.now)
    board.last_day.value = date(2026, 2, 1)
    pairs = board.children[1].children  # each picker with its echo, wrapping as one
    echoes = [c.value for p in pairs for c in p.children if "pixops-date-echo" in c._dom_classes]
    assert len(echoes) == 2
    assert "15/01/2026 (Thu, 15 Jan)" in echoes[0]
    assert "01/02/2026 (Sun, 1 Feb)" in echoes[1]


def test_a_refused_run_keeps_the_result_shown_and_says_whose_it_is(
    desk: Desk, tmp_path: Path
) -> None:
    board = ReconDashboard(desk.client, LEDGER, day="2026-01-15", out_dir=tmp_path, now=desk.now)
    board.run()
    shown = board.summary.value
    board.first_day.value = board.last_day.value = date(2026, 3, 1)
    board.run()
    assert "has not happened yet" in board.status.value
    assert "Below: still 15/01/2026." in board.status.value
    assert board.summary.value == shown
    # Export names the files by the result's day, not by the day now in the picker.
    board.export()
    assert (tmp_path / "recon-2026-01-15").is_dir()
    assert not (tmp_path / "recon-2026-03-01").exists()


def test_an_export_that_cannot_write_says_why_without_an_errno(desk: Desk, tmp_path: Path) -> None:
    blocker = tmp_path / "out"
    blocker.write_text("a file where the folder should be")
    board = ReconDashboard(desk.client, LEDGER, day="2026-01-15", out_dir=blocker, now=desk.now)
    board.run()
    board.export()
    assert "Could not write the files in" in board.export_status.value
    assert "Errno" not in board.export_status.value


def test_a_notebook_stops_on_one_plain_line_when_there_is_no_result(
    desk: Desk, tmp_path: Path
) -> None:
    from pixops.widgets._base import Stopped

    board = ReconDashboard(desk.client, tmp_path / "nope.csv", day="2026-01-15", now=desk.now)
    board.run()
    with pytest.raises(Stopped) as stopped:
        board.require_result()
    # IPython shows `_render_traceback_` in place of a traceback: the status line alone.
    lines = stopped.value._render_traceback_()
    assert lines == [board.status_text]
    assert lines[0].startswith("The reconciliation could not run. No such ledger file")
    assert "<" not in lines[0]


@pytest.mark.parametrize(
    ("typed", "words"),
    [
        ("", "Type the time zone the days are counted in, like America/Sao_Paulo."),
        ("sao paulo", "Unknown time zone “sao paulo”: did you mean America/Sao_Paulo?"),
        ("america/sao_paolo", "“america/sao_paolo”: did you mean America/Sao_Paulo?"),
        ("America/Sao Paulo", "“America/Sao Paulo”: did you mean America/Sao_Paulo?"),
        ("Mars/Olympus", "“Mars/Olympus”: type it like America/Sao_Paulo."),
    ],
)
def test_a_time_zone_typo_says_how_to_type_it(desk: Desk, typed: str, words: str) -> None:
    board = ReconDashboard(desk.client, LEDGER, day="2026-01-15", now=desk.now)
    mark = desk.mark()
    board.tz.value = typed
    board.run()
    assert words in board.status.value
    assert "Tz must" not in board.status.value
    assert desk.calls_since(mark) == []


def test_what_to_check_lists_every_finding_in_the_summarys_order(
    ran: tuple[ReconDashboard, Recorder],
) -> None:
    from pixops.recon import ATTENTION_CATEGORIES, CATEGORY_LABELS
    from pixops.widgets import findings_table

    board, _ = ran
    assert board.result is not None
    markup = findings_table(board.result)._repr_html_()
    rows = re.findall(r"<tr>(.*?)</tr>", markup, flags=re.DOTALL)
    cells = [re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, flags=re.DOTALL) for row in rows]

    def texts(cell: str) -> list[str]:
        return [part for part in re.split(r"<[^>]+>", cell) if part.strip()]

    # The ledger's figure above the statement's: the difference fits at 800 px.
    assert [text for cell in cells[0] for text in texts(cell)] == [
        "Finding",
        "Ledger",
        "Statement",
        "Difference",
    ]
    findings = [texts(row[0]) for row in cells[1:]]
    labels = [finding[0] for finding in findings]
    wanted = [CATEGORY_LABELS[c] for c in ATTENTION_CATEGORIES if board.result.counts[c]]
    # Each planted category, in the summary's order (two amount findings: one is the fees line).
    assert list(dict.fromkeys(labels)) == wanted
    amounts = {
        label: texts(row[1]) + texts(row[2]) for label, row in zip(labels, cells[1:], strict=True)
    }
    # A fee finding shows its fees, as the summary's row does; the amount agrees.
    assert amounts["Fee differs"] == ["R$ 0,40", "R$ 0,50", "R$ 0,10"]
    assert "the amount, R$\u00a03.477,32, agrees" in cells[1 + labels.index("Fee differs")][0]
    # A balance: what it should be, then what was reported, reported minus expected.
    assert "At the close of 15/01/2026" in " ".join(
        findings[labels.index("Balance does not close")]
    )
    assert amounts["Balance does not close"][2] == "-R$ 150,00"
    for shown in amounts.values():  # reais or a dash, never base units
        assert len(shown) == 3
        assert all(re.fullmatch(r"-?R\$ [\d.]+,(\d\d){1,2}|—", amount) for amount in shown), shown


def test_what_to_check_says_so_when_there_is_nothing() -> None:
    from types import SimpleNamespace

    import pandas as pd

    from pixops.widgets import findings_table

    empty = SimpleNamespace(discrepancies=pd.DataFrame(columns=["category"]))
    assert "Nothing to check" in repr(findings_table(empty))


def test_without_a_day_it_offers_yesterday_in_sao_paulo(desk: Desk) -> None:
    """At 22:30 on 10/02 in São Paulo it is already the 11th in UTC: yesterday is the 9th."""
    evening = datetime(2026, 2, 11, 1, 30, tzinfo=UTC)
    board = ReconDashboard(desk.client, LEDGER, now=lambda: evening)
    assert board.first_day.value == board.last_day.value == date(2026, 2, 9)


def test_a_day_with_nothing_to_check_says_so_in_its_findings_chart(desk: Desk) -> None:
    """The findings chart of a clean day was ten empty rows, which read as a chart that
    failed to draw."""
    board = ReconDashboard(desk.client, LEDGER, day="2026-01-20", now=desk.now)
    board.run()
    assert board.result is not None
    assert not board.result.needs_attention
    findings = board.charts.outputs[0]["data"][PLOTLY]
    assert findings["layout"]["title"]["text"].startswith("Findings to check (")
    notes = [note["text"] for note in findings["layout"]["annotations"]]
    assert notes == ["Nothing to check: every item matched."]
