"""What readers see: reais in pt-BR, São Paulo times, escaped text."""

from __future__ import annotations

import re
from datetime import date

from pixops.widgets import brl, local_time
from pixops.widgets._format import HtmlBlock, html_table, message, pairs, wire_json


def test_money_is_shown_in_reais() -> None:
    assert brl(123_456_789) == "R$ 12.345,68"  # to the centavo, as a statement shows it
    assert brl(40) == "R$ 0,0040"  # never reads as zero
    assert brl(1_000_000) == "R$ 100,00"
    assert brl(-500) == "-R$ 0,05"
    assert brl(None) == "—"


def test_times_are_shown_in_sao_paulo() -> None:
    assert local_time("2026-01-15T03:00:00.000Z") == "15/01/2026 00:00"
    assert local_time("2026-01-15T02:59:59Z", seconds=True) == "14/01/2026 23:59:59"
    assert local_time(None) == "—"


def test_tables_escape_text_and_format_money_and_times() -> None:
    rows = [{"who": "<script>alert(1)</script>", "amount": 12_3400, "at": "2026-01-15T12:00:00Z"}]
    table = html_table(
        rows,
        [("who", "Who"), ("amount", "Amount"), ("at", "When")],
        money_columns={"amount"},
        time_columns={"at"},
    )
    assert "<script>" not in table
    assert "&lt;script&gt;" in table
    assert "R$ 12,34" in table
    assert "15/01/2026 09:00" in table
    assert "123400" not in table
    assert "Nothing here" in html_table([], [("who", "Who")], empty="Nothing here")


def test_table_cells_read_whole_and_dates_are_pt_br() -> None:
    rows = [
        {
            "ref": "pedido-20260115-9001",
            "day": date(2026, 1, 15),
            "amount": 2_500_000,
            "detail": "no statement movement carries this reference",
        }
    ]
    columns = [("ref", "Reference"), ("day", "Day"), ("amount", "Amount"), ("detail", "Detail")]
    table = html_table(rows, columns, money_columns={"amount"})
    styles = re.findall(r"<td style=\"([^\"]*)\">", table)
    cells = dict(zip([k for k, _ in columns], styles, strict=True))
    assert "15/01/2026" in table
    assert "2026-01-15" not in table
    assert "white-space:nowrap" in cells["ref"]  # an id never breaks across lines
    assert "white-space:nowrap" in cells["day"]
    assert "white-space:nowrap" in cells["amount"]
    assert "white-space:normal" in cells["detail"]  # prose wraps, at a readable width
    assert "min-width" in cells["detail"]
    # The table adds no width to the panel around it, and scrolls sideways instead.
    assert "overflow-x:auto;width:0;min-width:100%" in table


def test_messages_and_pairs_escape_their_text() -> None:
    assert "&lt;b&gt;" in message("<b>", "error")
    assert "#b00020" in message("x", "error")
    assert "&amp;" in pairs([("A & B", "C")])


def test_html_blocks_render_as_html_and_read_as_text() -> None:
    block = HtmlBlock("<b>Total</b> <i>R$ 1,00</i>")
    assert block._repr_html_() == "<b>Total</b> <i>R$ 1,00</i>"
    assert "Total" in repr(block)
    assert "<b>" not in repr(block)


def test_wire_json_shows_reais_beside_every_money_field() -> None:
    shown = wire_json(
        {"amount": 50_000, "feeAmount": 2_475, "status": "accepted", "data": {"net_amount": -1}}
    ).splitlines()
    assert '  "amount": 50000,   ← R$ 5,00' in shown
    assert '  "feeAmount": 2475,   ← R$ 0,25' in shown
    assert '    "net_amount": -1   ← -R$ 0,0001' in shown
    assert '  "status": "accepted",' in shown
