"""ReconFlow, the reconciliation dashboard's steps without ipywidgets: run, choose a
category, filter, review, export, read through its state, its drawings and the requests
its client sent. On the planted day of the sample ledger (data/README.md): 2026-01-15."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import httpx
import pytest

from pixops.demo import demo_month
from pixops.widgets._base import Stopped
from pixops.widgets._findings_table import summary_table
from pixops.widgets._recon_flow import ReconFlow
from pixops.widgets._recon_html import day_figures, table_html
from tests.recon.builders import foreign_ledger
from tests.widgets.conftest import Desk, Recorder

ROOT = Path(__file__).resolve().parents[2]
LEDGER = ROOT / "data" / "sample_ledger.csv"
SAMPLE_NAME = LEDGER.name
BALANCES = ROOT / "data" / "balances.csv"
DAY = date(2026, 1, 15)
TZ = "America/Sao_Paulo"
SALE = "PIXINE60746948202601150318w030URi21n4"  # R$ 13,18 received on 15/01/2026


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> tuple[ReconFlow, Recorder]:
    """One reconciliation of 2026-01-15 with balances, shared by the read-only tests."""
    month = demo_month()
    recorder = Recorder(month.sandbox.transport())
    client = month.sandbox.client(month.api_key, http_client=httpx.Client(transport=recorder))
    out = tmp_path_factory.mktemp("recon-flow-out")
    flow = ReconFlow.open(client, LEDGER, month.sandbox.now, balances=BALANCES, out_dir=out)
    assert flow.run(DAY, DAY, TZ)
    return flow, recorder


@pytest.fixture
def desk(reading_desk: Desk) -> Desk:
    """The flow only reads the service: every test shares the module's desk."""
    return reading_desk


def flow_on(desk: Desk, ledger: object = LEDGER, **given: object) -> ReconFlow:
    return ReconFlow.open(desk.client, ledger, desk.now, **given)  # type: ignore[arg-type]


def table(flow: ReconFlow) -> str:
    """The chosen category's table as the dashboard draws it."""
    return table_html(flow.page())


def shown_after(flow: ReconFlow, typed: str) -> list[dict[str, object]]:
    flow.filter(typed)
    return flow.rows()


def test_the_planted_day_shows_every_finding(ran: tuple[ReconFlow, Recorder]) -> None:
    flow, _ = ran
    assert flow.result is not None
    assert flow.status.tone == "warn"
    assert "15/01/2026 (São Paulo time): 291 matched, 13 findings to check." in flow.status_text
    assert "pairs with any" not in flow.status_text  # the demo month's own ledger pairs
    assert flow.findings == 13
    summary = summary_table(flow.result).markup
    assert "R$ 352.943,47" in summary  # matched, both sides
    assert "-R$ 250,00" in summary  # the order whose payment never came
    assert "3531032200" not in summary
    values = [value for _, value in flow.categories()]
    assert values[0] == "matched"
    assert "unit_error" in values
    assert flow.category == "missing_in_statement"
    assert "pedido-20260115-9001" in table(flow)
    assert flow.can_export
    assert flow.ledger_line.startswith("sample_ledger.csv ")


def test_findings_are_filtered_by_category_and_text(ran: tuple[ReconFlow, Recorder]) -> None:
    flow, _ = ran
    flow.choose("unit_error")
    assert [row["reference"] for row in flow.rows()] == ["PIXINE90400888202601151238RUp1VkThbbf"]
    assert "R$ 1,07" in table(flow)
    assert "R$ 107,00" in table(flow)
    flow.choose("missing_in_statement")
    # Columns with nothing to say for these rows (no statement side) are left out.
    assert "Statement" not in table(flow)
    assert "Ledger reference" in table(flow)
    assert "pedido-20260115-9001" in table(flow)
    flow.choose("matched")
    assert len(flow.rows()) == 291
    assert "more rows" in table(flow)  # only the first 200 are drawn
    assert flow.page().more == 91
    rows = shown_after(flow, "payout-")
    assert 0 < len(rows) < 291
    assert all(any("payout-" in str(v) for v in row.values()) for row in rows)
    assert shown_after(flow, "no such text anywhere") == []
    # The filter is what hides them, and the table says so and how to see them again.
    assert (
        "No rows. None of the 291 rows of Matched contains “no such text anywhere”:"
        " change or clear the Filter." in table(flow)
    )
    flow.filter("")


def test_each_movement_says_money_in_or_out(ran: tuple[ReconFlow, Recorder]) -> None:
    """Matched amounts add up sales and payouts: each row says which it is."""
    flow, _ = ran
    flow.choose("matched")
    flow.filter("payout-1254184-14382")  # a payout matched on 15/01
    assert "Direction" in table(flow).split("</thead>")[0]  # under the transaction's id
    assert ">sent<" in table(flow)
    assert ">received<" not in table(flow)
    flow.filter("PIXINE00000000202601150403qY0bBc4Tlef")  # a sale
    assert ">received<" in table(flow)
    flow.filter("")
    flow.choose("missing_in_statement")  # no movement: no direction column
    assert "Direction" not in table(flow)


def test_each_category_shows_its_own_figures(ran: tuple[ReconFlow, Recorder]) -> None:
    flow, _ = ran
    flow.choose("fee_mismatch")
    drawn = table(flow)
    assert "Ledger fee" in drawn
    assert "Statement fee" in drawn
    assert ">R$ 0,40<" in drawn
    assert ">R$ 0,50<" in drawn
    assert ">R$ 0,10<" in drawn  # the fee difference, statement minus ledger
    assert "Booked on" not in drawn
    flow.choose("status_mismatch")
    assert "ledger expects failed, statement shows settled" in table(flow)
    assert "Ledger status" not in table(flow)  # the detail says whose status it is
    flow.choose("amount_mismatch")
    # The ledger wrote the transaction id down: it is not shown twice.
    assert table(flow).count("PIXINE60746948202601151028LVTQ5HUdag3") == 1
    assert ">the transaction id<" in table(flow)  # the reference used, said once
    flow.choose("balance_difference")
    assert "At the close of 15/01/2026" in table(flow)
    assert "Opening + movements" in table(flow)
    assert not flow.page().ids_wrap  # a balance's "Transaction" is words, not an id


def test_the_filter_finds_an_amount_as_the_table_shows_it(
    ran: tuple[ReconFlow, Recorder],
) -> None:
    flow, _ = ran
    flow.choose("matched")
    for typed in ("R$ 13,18", "13,18", " r$ 13,18 "):
        assert SALE in [row["transaction_id"] for row in shown_after(flow, typed)], typed
        assert SALE in table(flow)
    # The base units are never shown, so never matched.
    assert SALE not in [row["transaction_id"] for row in shown_after(flow, "131800")]
    flow.filter("R$ 250,00")  # a finding's ledger amount, in another category
    flow.choose("missing_in_statement")
    assert [row["reference"] for row in flow.rows()] == ["pedido-20260115-9001"]
    flow.filter("")


def test_the_filter_finds_days_and_directions_as_shown(ran: tuple[ReconFlow, Recorder]) -> None:
    flow, _ = ran
    flow.choose("matched")
    assert len(shown_after(flow, "15/01/2026")) == 291
    assert len(shown_after(flow, "2026-01-15")) == 291  # the ISO day, as exported, still works
    sent = shown_after(flow, "sent")  # payouts and refunds: the money that went out
    assert 0 < len(sent) < 291
    assert ">sent<" in table(flow)
    assert ">received<" not in table(flow)
    assert shown_after(flow, "(*[") == []  # regex characters are plain text
    assert "No rows." in table(flow)
    flow.filter("")


def test_the_summary_wraps_its_categories_narrowly(ran: tuple[ReconFlow, Recorder]) -> None:
    """At 1024 px with the file browser open, the category names wrap so that the
    amounts beside them fit (a 16em category pushed the differences out of view)."""
    flow, _ = ran
    assert flow.result is not None
    summary = summary_table(flow.result).markup
    # The category cell is at most 9em wide (the stacked summary gives it 7em at 800 px).
    widths = [int(em) for em in re.findall(r"min-width:(\d+)em", summary)]
    assert widths, summary
    assert max(widths) <= 9
    assert "min-width:16em" not in summary


def test_the_flow_only_reads(ran: tuple[ReconFlow, Recorder]) -> None:
    _, recorder = ran
    assert {method for method, _, _, _ in recorder.calls} == {"GET"}
    paths = {path for _, path, _, _ in recorder.calls}
    assert {"/statement", "/balance"} <= paths
    # The rest: refunds and returns read one by one to link them to their originals.
    assert all(p.startswith("/transactions/PIX") for p in paths - {"/statement", "/balance"})


def test_export_writes_the_result(ran: tuple[ReconFlow, Recorder]) -> None:
    flow, _ = ran
    assert flow.export()
    names = sorted(path.name for path in flow.written)
    assert "discrepancies_excel.csv" in names
    assert "discrepancies.parquet" in names
    assert all(path.is_file() for path in flow.written)
    # Said apart from the status line; the reconciliation's headline stays.
    # At São Paulo's time, said: the machine's clock (UTC here) read three hours ahead.
    said = re.search(
        r"Exported 11 files at (\d\d):(\d\d):\d\d \(São Paulo time\) to ", flow.export_line.text
    )
    assert said is not None
    assert flow.export_line.tone == "ok"
    now = datetime.now(ZoneInfo(TZ))
    recent = {f"{now - timedelta(minutes=back):%H:%M}" for back in range(3)}
    assert f"{said[1]}:{said[2]}" in recent
    assert "13 findings to check" in flow.status_text


def test_without_balances_there_is_no_roll_forward(desk: Desk) -> None:
    flow = flow_on(desk)
    assert flow.run(date(2026, 1, 31), date(2026, 1, 31), TZ)
    assert flow.result is not None
    assert flow.result.counts["missing_in_ledger"] == 1
    assert flow.result.counts["amount_mismatch"] == 1
    assert flow.result.counts["balance_difference"] == 0
    assert len(day_figures(flow)) == 4


def test_the_day_offered_is_yesterday_on_the_service_clock(desk: Desk) -> None:
    assert flow_on(desk).yesterday() == date(2026, 2, 11)


def test_bad_choices_are_explained_without_calling_the_api(desk: Desk) -> None:
    flow = flow_on(desk)
    mark = desk.mark()
    assert not flow.run(DAY, date(2026, 1, 10), TZ)
    assert "The last day is before the first one" in flow.status_text
    assert flow.status.tone == "error"
    assert not flow.run(DAY, DAY, "Mars/Olympus")
    assert "Unknown time zone “Mars/Olympus”" in flow.status_text
    assert not flow.run(None, DAY, TZ)
    assert flow.status_text == "Choose the first and the last business day."
    assert desk.calls_since(mark) == []
    assert not flow.export()
    assert "Reconcile first" in flow.export_line.text
    assert not flow.can_export


def test_a_bad_ledger_or_balances_file_is_explained(desk: Desk, tmp_path: Path) -> None:
    missing = flow_on(desk, tmp_path / "nope.csv")
    assert not missing.run(DAY, DAY, TZ)
    assert "could not run" in missing.status_text
    bad = tmp_path / "balances.csv"
    bad.write_text("as_of,balance_base\n2026-01-01T03:00:00Z,12.5\n")
    flow = flow_on(desk, balances=bad)
    assert not flow.run(DAY, DAY, TZ)
    assert "line 2: balance_base must be a whole number of base units" in flow.status_text
    assert flow.result is None


def test_bad_arguments_are_refused(desk: Desk) -> None:
    with pytest.raises(TypeError, match=r"pixops\.Client"):
        ReconFlow.open(None, LEDGER)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="ledger"):
        flow_on(desk, 42)
    with pytest.raises(TypeError, match="balances"):
        flow_on(desk, balances=3)
    with pytest.raises(TypeError, match="out_dir"):
        flow_on(desk, out_dir=None)
    with pytest.raises(TypeError, match="ledger_setting must be text"):
        flow_on(desk, ledger_setting=None)
    with pytest.raises(TypeError, match="mapping must be"):
        flow_on(desk, mapping=3)
    with pytest.raises(TypeError, match="tolerances must be"):
        flow_on(desk, tolerances="exact")
    with pytest.raises(TypeError, match="review_file must be"):
        flow_on(desk, review_file=3)


def test_a_range_of_business_days(desk: Desk, tmp_path: Path) -> None:
    flow = flow_on(desk, out_dir=tmp_path)
    assert flow.run(date(2026, 1, 30), date(2026, 1, 31), TZ)
    assert "30/01/2026 to 31/01/2026" in flow.status_text
    assert flow.result is not None
    assert flow.result.counts["missing_in_ledger"] == 1  # planted on the 31st
    volumes = day_figures(flow)[1]
    assert list(volumes.data[0].x) == ["30/01", "31/01"]
    assert flow.export()
    assert any(path.parent.name == "recon-2026-01-30-to-2026-01-31" for path in flow.written)


# -- what a hurried person picks -----------------------------------------------------------


def test_a_day_with_no_data_says_so_without_a_traceback(desk: Desk) -> None:
    flow = flow_on(desk)
    assert flow.run(date(2025, 12, 1), date(2025, 12, 1), TZ)
    assert "01/12/2025 (São Paulo time): no movement in the statement and no entry" in (
        flow.status_text
    )
    assert flow.nothing
    assert day_figures(flow) == []  # no empty charts
    assert flow.category is not None
    assert "No rows." in table(flow)
    # No balances given: the picker says the balance was not checked, not "(0)".
    assert (
        "Balance does not close: not checked (no balances given)",
        "balance_difference",
    ) in flow.categories()


def test_a_day_with_no_data_and_balances_says_so(desk: Desk, tmp_path: Path) -> None:
    balances = tmp_path / "balances.csv"
    balances.write_text("as_of,balance_base\n2025-11-01T03:00:00Z,50000000000\n")
    flow = flow_on(desk, balances=balances)
    assert flow.run(date(2025, 12, 1), date(2025, 12, 1), TZ)
    assert "could not run" not in flow.status_text
    assert flow.result is not None
    assert flow.category in {value for _, value in flow.categories()}


def test_a_ledger_of_other_books_says_so_first(desk: Desk, tmp_path: Path) -> None:
    """A real account's statement against the demo ledger: hundreds of findings, and the
    status line says in one sentence why, naming the setting given."""
    ledger = foreign_ledger(tmp_path / SAMPLE_NAME)  # the demo month's file name
    flow = flow_on(desk, ledger, ledger_setting="ledger_path")
    assert flow.run(DAY, DAY, TZ)
    assert flow.result is not None
    assert flow.result.counts["matched"] == 0
    assert flow.status.tone == "error"  # not the usual warning
    assert flow.status_text.endswith(
        "None of the 301 ledger entries pairs with any of the 298 statement movements of"
        " 15/01/2026: sample_ledger.csv is the demo month's ledger, most likely not this"
        " account's; set ledger_path to your account's ledger file."
    )


def test_a_day_in_the_future_is_refused_without_calling_the_api(desk: Desk) -> None:
    flow = flow_on(desk)
    mark = desk.mark()
    assert not flow.run(DAY, date(2026, 3, 1), TZ)
    assert "01/03/2026 has not happened yet (today is 12/02/2026)" in flow.status_text
    assert desk.calls_since(mark) == []


def test_file_problems_read_as_words(desk: Desk, tmp_path: Path) -> None:
    flow = flow_on(desk, balances=tmp_path / "nope.csv")
    assert not flow.run(DAY, DAY, TZ)
    assert "There is no balance snapshots file at" in flow.status_text
    assert "Errno" not in flow.status_text
    # 0x81: neither UTF-8 nor Windows-1252 (Excel's plain "CSV" in Brazil, which is read).
    garbled = tmp_path / "ledger.csv"
    garbled.write_bytes(LEDGER.read_bytes().replace(b"venda PIX", b"venda \x81 vista"))
    flow = flow_on(desk, garbled)
    assert not flow.run(DAY, DAY, TZ)
    assert "The file ledger.csv is not text in UTF-8 or in Excel's own encoding" in (
        flow.status_text
    )
    assert "codec" not in flow.status_text
    flow = flow_on(desk, balances=garbled)
    assert not flow.run(DAY, DAY, TZ)
    assert "The file ledger.csv is not text in UTF-8" in flow.status_text


def test_a_ledger_saved_by_excel_as_plain_csv_reconciles(desk: Desk, tmp_path: Path) -> None:
    excel = tmp_path / "ledger.csv"
    text = LEDGER.read_text(encoding="utf-8").replace("venda PIX", "venda à vista")
    excel.write_bytes(text.replace(",", ";").encode("cp1252"))
    # Its mapping beside it, as the sample's (the rules columns; the format is detected).
    mapping = LEDGER.with_name("sample_ledger.mapping.toml").read_text(encoding="utf-8")
    (tmp_path / "ledger.mapping.toml").write_text(mapping, encoding="utf-8")
    flow = flow_on(desk, excel)
    assert flow.run(DAY, DAY, TZ)
    assert "291 matched" in flow.status_text


def test_a_day_before_the_first_balance_says_which_is_first(desk: Desk) -> None:
    flow = flow_on(desk, balances=BALANCES)
    assert not flow.run(date(2025, 12, 1), date(2025, 12, 1), TZ)
    assert "no balance at the start of 01/12/2025" in flow.status_text
    assert "its first is at 01/01/2026 00:00 (São Paulo time)" in flow.status_text
    assert "03:00Z" not in flow.status_text


def test_a_refused_run_keeps_the_result_and_says_whose_it_is(desk: Desk, tmp_path: Path) -> None:
    flow = flow_on(desk, out_dir=tmp_path)
    assert flow.run(DAY, DAY, TZ)
    held = flow.result
    assert not flow.run(date(2026, 3, 1), date(2026, 3, 1), TZ)
    assert "has not happened yet" in flow.status_text
    assert "Below: still 15/01/2026." in flow.status_text
    assert flow.result is held
    assert flow.days == (DAY, DAY)
    # Export names the files by the result's day, not by the day of the refused run.
    assert flow.export()
    assert (tmp_path / "recon-2026-01-15").is_dir()
    assert not (tmp_path / "recon-2026-03-01").exists()


def test_an_export_that_cannot_write_says_why_without_an_errno(desk: Desk, tmp_path: Path) -> None:
    blocker = tmp_path / "out"
    blocker.write_text("a file where the folder should be")
    flow = flow_on(desk, out_dir=blocker)
    assert flow.run(DAY, DAY, TZ)
    assert not flow.export()
    assert "Could not write the files in" in flow.export_line.text
    assert "Errno" not in flow.export_line.text


def test_a_notebook_stops_on_one_plain_line_when_there_is_no_result(
    desk: Desk, tmp_path: Path
) -> None:
    flow = flow_on(desk, tmp_path / "nope.csv")
    flow.run(DAY, DAY, TZ)
    with pytest.raises(Stopped) as stopped:
        flow.require_result()
    # IPython shows `_render_traceback_` in place of a traceback: the status line alone.
    lines = stopped.value._render_traceback_()
    assert lines == [flow.status_text]
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
        ("America/Sao_\ud800", "The time zone is not valid text"),
    ],
)
def test_a_time_zone_typo_says_how_to_type_it(desk: Desk, typed: str, words: str) -> None:
    flow = flow_on(desk)
    mark = desk.mark()
    assert not flow.run(DAY, DAY, typed)
    assert words in flow.status_text
    assert "Tz must" not in flow.status_text
    assert desk.calls_since(mark) == []


def test_a_day_with_nothing_to_check_says_so_in_its_findings_chart(desk: Desk) -> None:
    """The findings chart of a clean day was ten empty rows, which read as a chart that
    failed to draw."""
    flow = flow_on(desk)
    assert flow.run(date(2026, 1, 20), date(2026, 1, 20), TZ)
    assert flow.result is not None
    assert not flow.result.needs_attention
    assert flow.status.tone == "ok"
    findings = day_figures(flow)[0]
    assert findings.layout.title.text.startswith("Findings to check (")
    assert [note.text for note in findings.layout.annotations] == [
        "Nothing to check: every item matched."
    ]


def test_the_mapping_and_tolerances_come_from_the_file_beside_the_ledger(
    desk: Desk, tmp_path: Path
) -> None:
    """None given: the mapping saved beside a ledger file is read at each run; a
    DataFrame ledger has no file beside it, so no review file either."""
    flow = flow_on(desk)
    assert flow.ledger_mapping() is not None  # data/sample_ledger.mapping.toml
    assert flow.review_file == LEDGER.with_name("sample_ledger.review.csv")
    alone = tmp_path / "ledger.csv"
    alone.write_bytes(LEDGER.read_bytes())
    bare = flow_on(desk, alone)
    assert bare.ledger_mapping() is None
    assert bare.rule_tolerances() is None
    import pandas as pd

    framed = flow_on(desk, pd.read_csv(LEDGER))
    assert framed.review_file is None
    assert framed.ledger_mapping() is None


def test_a_pair_decided_applies_at_once(desk: Desk, tmp_path: Path) -> None:
    """The planted tie (one sale booked twice without a reference): confirmed through the
    flow's queue, saved with who, and the same day reconciled again without asking."""
    review = tmp_path / "review.csv"
    flow = flow_on(desk, review_file=review, reviewer="caio")
    assert flow.run(DAY, DAY, TZ)
    assert flow.result is not None
    assert flow.result.counts["needs_review"] == 2
    pair = flow.queue.pending[0]
    made = flow.decide(pair.entry_id, pair.statement_id, "confirmed", "recibo")
    assert made.decided_by == "caio"
    assert "caio" in review.read_text(encoding="utf-8")
    assert flow.result.counts["needs_review"] == 0  # the new run applied it
    assert flow.queue.pending == []
    assert flow.queue.decided == [made]
    assert flow.queue.headline() == "Every pair is decided."
    assert flow.days == (DAY, DAY)


def test_the_flow_and_its_drawings_need_no_ipywidgets() -> None:
    """The flow is a plain class: importing it (and what draws it) loads no widget."""
    import subprocess
    import sys

    code = (
        "import sys; import pixops.widgets._recon_flow, pixops.widgets._recon_html;"
        " print('ipywidgets' in sys.modules)"
    )
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert ran.stdout.strip() == "False"
