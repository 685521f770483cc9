"""ReconDashboard, the view over ReconFlow, on the planted day of the sample ledger
(data/README.md): 2026-01-15. What only the widgets show is here: the pickers, the
drawn status, summary, table and charts, the traitlets; the steps themselves are
tested on the plain class (test_recon_flow.py)."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from pathlib import Path

import httpx
import pytest

from pixops.demo import demo_month
from pixops.widgets import ReconDashboard, read_balance_snapshots
from tests.widgets.conftest import Desk, Recorder

ROOT = Path(__file__).resolve().parents[2]
LEDGER = ROOT / "data" / "sample_ledger.csv"
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
    assert board.result is board.flow.result
    assert "15/01/2026 (São Paulo time): 291 matched, 13 findings to check." in (board.status.value)
    assert "R$ 352.943,47" in board.summary.value  # matched, both sides
    assert "-R$ 250,00" in board.summary.value  # the order whose payment never came
    values = [value for _, value in board.category.options]
    assert values[0] == "matched"
    assert "unit_error" in values
    assert board.category.value == "missing_in_statement"
    assert "pedido-20260115-9001" in board.table.value
    assert "sample_ledger.csv read as:" in board.ledger_line.value
    assert not board.export_button.disabled
    # The planted tie: its two candidates in the Pairs to review panel, from the flow's queue.
    assert board.review.queue is board.flow.queue
    assert len(board.review.pick.options) == 2
    assert board.review.layout.display is None
    # The flow's state, as traitlets a notebook can observe.
    assert board.status_text == board.flow.status_text
    assert board.findings == 13
    assert board.category_shown == "missing_in_statement"
    assert board.can_export


def test_findings_are_filtered_by_category_and_text(ran: tuple[ReconDashboard, Recorder]) -> None:
    """The Show dropdown and the Filter box pass to the flow and redraw the table."""
    board, _ = ran
    board.category.value = "unit_error"
    assert board.flow.category == board.category_shown == "unit_error"
    assert [row["reference"] for row in board.rows()] == ["PIXINE90400888202601151238RUp1VkThbbf"]
    assert "R$ 107,00" in board.table.value
    board.category.value = "matched"
    assert "more rows" in board.table.value  # only the first 200 are drawn
    board.filter.value = "no such text anywhere"
    assert board.flow.filter_text == "no such text anywhere"
    assert board.rows() == []
    assert (
        "No rows. None of the 291 rows of Matched contains “no such text anywhere”:"
        " change or clear the Filter." in board.table.value
    )
    board.filter.value = ""
    assert ">sent<" in board.table.value


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


def test_export_writes_the_result(ran: tuple[ReconDashboard, Recorder]) -> None:
    board, _ = ran
    board.export_button.click()
    assert board.written == board.flow.written
    assert "discrepancies_excel.csv" in {path.name for path in board.written}
    # Said beside the button; the reconciliation's headline stays.
    assert re.search(
        r"Exported 11 files at \d\d:\d\d:\d\d \(São Paulo time\) to ", board.export_status.value
    )
    assert board.export_text.startswith("Exported 11 files at ")
    assert "13 findings to check" in board.status.value


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
    assert board.export_text == "Reconcile first."
    assert not board.can_export
    assert board.export_button.disabled


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
