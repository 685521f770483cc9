"""What readers see: reais in pt-BR, São Paulo times, escaped text."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pandas as pd
import pytest

from pixops.widgets import brl, local_time
from pixops.widgets._format import (
    HtmlBlock,
    count_text,
    event_label,
    frame_table,
    html_table,
    label,
    mask_document,
    message,
    pairs,
    plural,
    readable,
    wire_json,
)


def test_money_is_shown_in_reais() -> None:
    assert brl(123_456_789) == "R$ 12.345,6789"  # no non-zero digit hidden
    assert brl(123_456_700) == "R$ 12.345,67"
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
    # Values read left-aligned even where a notebook's CSS right-aligns table cells.
    assert '<td style="text-align:left;overflow-wrap:anywhere">C</td>' in pairs([("A", "C")])


def test_pairs_fit_a_narrow_notebook_and_keep_their_reais() -> None:
    """At 800 px beside the file browser a payment id ran past the panel's edge, a
    wrapped label stood a widget row (28 px) apart, and two R$ in one card are TeX's $."""
    table = pairs([("Payment", "PIXINE60746948202601011419i3rKpF8aczs"), ("Fee", "R$ 0,13")])
    assert "overflow-wrap:anywhere" in table
    assert "line-height:1.45" in table
    assert 'class="tex2jax_ignore mathjax_ignore"' in table


def test_html_blocks_render_as_html_and_read_as_text() -> None:
    block = HtmlBlock("<b>Total</b> <i>R$ 1,00</i>")
    assert block._repr_html_() == "<b>Total</b> <i>R$ 1,00</i>"
    assert "Total" in repr(block)
    assert "<b>" not in repr(block)
    rows = [{"a": "x y", "b": "<z>"}, {"a": "w", "b": "v"}]
    table = HtmlBlock(html_table(rows, [("a", "A"), ("b", "B")]))
    assert repr(table) == "A  B\nx y  <z>\nw  v"  # a row per line, as a notebook prints it


def test_wire_json_shows_every_money_field_in_reais_only() -> None:
    shown = wire_json(
        {
            "amount": 50_000,
            "feeAmount": 2_475,
            "status": "accepted",
            "data": {"net_amount": -1, "items": [{"total_refunded": 656_700}]},
            "count": 12_345,
            "is_partial": True,
        }
    )
    lines = shown.splitlines()
    assert '  "amount": "R$ 5,00",' in lines
    assert '  "feeAmount": "R$ 0,2475",' in lines
    assert '    "net_amount": "-R$ 0,0001",' in lines
    assert '        "total_refunded": "R$ 65,67"' in lines
    assert '  "status": "accepted",' in lines
    assert '  "count": 12345,' in lines  # not money: left alone
    assert '  "is_partial": true' in lines
    assert not re.search(r": (50000|2475|656700)\b", shown)  # no raw base units


def test_documents_are_masked_like_the_receipt() -> None:
    assert mask_document("39300374834") == "***.003.748-**"
    assert mask_document("393.003.748-34") == "***.003.748-**"
    assert mask_document("***.003.748-**") == "***.003.748-**"
    assert mask_document("12345678000190") == "12345678000190"  # a CNPJ is public
    shown = readable(
        {
            "payer_document": "39300374834",
            "payerDocument": "39300374834",
            "recipient": {"document": "39300374834", "name": "Ana"},
            "recipient_document": None,
        }
    )
    assert "39300374834" not in str(shown)
    assert shown["payerDocument"] == "***.003.748-**"
    assert shown["recipient"] == {"document": "***.003.748-**", "name": "Ana"}
    assert shown["recipient_document"] is None


def test_counts_and_codes_read_the_pt_br_and_plain_english_way() -> None:
    assert count_text(8820) == "8.820"
    assert count_text(1_234_567) == "1.234.567"
    assert count_text(92) == "92"
    assert count_text(-1429) == "-1.429"
    assert label("OPEN") == "Open"
    assert label("REFUND_REQUEST") == "Refund request"
    assert label("settled") == "Settled"
    assert label(None) == "—"
    assert event_label("pix.refund.requested") == "MED case notified by the central bank"
    assert event_label("pix.payout.returned") == "Refund completed"
    assert event_label("pix.payout.confirmed") == "Payment delivered"
    assert event_label("pix.something.new") == "Something new"


def test_counts_with_nouns_are_singular_for_one() -> None:
    assert plural(1, "day") == "1 day"
    assert plural(47, "day") == "47 days"
    assert plural(0, "case") == "0 cases"
    assert plural(8820, "received payment") == "8.820 received payments"
    assert plural(2, "entry", "entries") == "2 entries"


def test_codes_read_as_words_with_the_code_in_the_tooltip() -> None:
    table = html_table([{"status": "OPEN"}], [("status", "Status")], code_columns={"status"})
    assert 'title="OPEN">Open</td>' in table


def test_short_phrases_stay_on_one_line_without_a_wide_minimum() -> None:
    table = html_table([{"left": "5 days left"}], [("left", "Time left")])
    assert "white-space:nowrap" in table
    assert "min-width:16em" not in table


def test_frames_show_without_index_text_left_counts_and_money_right() -> None:
    frame = pd.DataFrame({"Weekday": ["Monday"], "Payments": [1138], "Received": [11_185_717_100]})
    block = frame_table(frame, money_columns={"Received"}, number_columns={"Payments"})
    shown = block._repr_html_()
    assert "1.138" in shown
    assert "R$ 1.118.571,71" in shown
    assert '<td style="text-align:left;padding:2px 8px;white-space:nowrap;' in shown
    assert ">0<" not in shown  # no index column
    assert re.search(r"Monday\s+1\.138\s+R\$ 1\.118\.571,71", repr(block))


def test_frame_codes_read_as_words_with_the_code_in_the_tooltip() -> None:
    frame = pd.DataFrame({"Case": ["med_1"], "Status": ["OPEN"], "Reason": ["REFUND_REQUEST"]})
    shown = frame_table(frame, code_columns={"Status", "Reason"})._repr_html_()
    assert ">Open<" in shown
    assert 'title="OPEN"' in shown
    assert ">OPEN<" not in shown
    assert ">Refund request<" in shown


def test_tables_keep_math_typesetting_off() -> None:
    """Two amounts in reais in one table are not a LaTeX formula between dollar signs."""
    table = html_table([{"a": 100, "b": 200}], [("a", "A"), ("b", "B")], money_columns={"a", "b"})
    assert 'class="tex2jax_ignore mathjax_ignore"' in table


def test_one_state_reads_as_one_word() -> None:
    """The statement's `completed` and the transaction's `settled` are the same state."""
    assert label("completed") == "Settled"
    assert label("settled") == "Settled"
    assert label("OPEN") == "Open"


def test_problems_read_as_plain_sentences() -> None:
    from pixops.client import (
        AuthenticationError,
        PermissionDeniedError,
        RateLimitError,
        ServerError,
        TransportError,
        UnprocessableEntityError,
    )
    from pixops.widgets._format import problem

    def api(kind: type[Exception], status: int, code: str, text: str) -> Exception:
        return kind(text, status=status, code=code)

    cases = {
        TransportError("GET /med: ConnectError after 4 attempt(s)"): "could not be reached",
        api(AuthenticationError, 401, "unauthorized", "Invalid API key credentials"): (
            "did not accept this account's credentials"
        ),
        api(PermissionDeniedError, 403, "forbidden", "IP address not allowed"): (
            "refused access: IP address not allowed."
        ),
        api(RateLimitError, 429, "rate_limited", "Too many requests"): "wait a minute",
        api(ServerError, 503, "service_unavailable", "outcome unknown"): "try again in a few",
        api(UnprocessableEntityError, 422, "errors.refund_exceeds", "refund exceeds it"): (
            "Refund exceeds it."
        ),
        ValueError("type an identifier first"): "Type an identifier first.",
    }
    for error, words in cases.items():
        text = problem(error)
        assert words in text, (error, text)
        for raw in ("HTTP", "401", "403", "422", "429", "503", "ConnectError", "errors."):
            assert raw not in text, (error, text)
        assert "\n" not in text


def test_a_long_message_wraps_at_a_reading_line_height() -> None:
    # Inside an ipywidgets HTML widget every line is otherwise a 28 px widget row.
    assert "line-height:1.45" in message("x " * 200, "error")


def test_a_long_word_in_prose_breaks_rather_than_widen_the_table() -> None:
    from pixops.widgets._format import html_table

    what = "Refund PIXRETD99999999202601040839Obh57ATZYyJ requested, R$ 3,49"
    table = html_table([{"what": what}], [("what", "What")])
    assert "overflow-wrap:anywhere" in table
    assert "min-width:16em" in table
    assert "min-width:9em" in html_table([{"what": what}], [("what", "What")], prose_width="9em")


def test_an_id_column_breaks_anywhere_and_selects_whole() -> None:
    from pixops.widgets._format import ID_STYLE, html_table

    refund = "PIXRETD99999999202601040839Obh57ATZYyJ"
    rows = [{"id": refund, "who": "Maria"}]
    table = html_table(rows, [("id", "Refund"), ("who", "Who")], id_columns={"id"})
    cell = re.search(r"<td style=\"([^\"]*)\"[^>]*>" + refund, table)
    assert cell is not None
    assert ID_STYLE in cell[1]
    assert "white-space:nowrap" not in cell[1]
    # Without it an id is one word: it stays on one line and widens the table.
    plain = html_table(rows, [("id", "Refund"), ("who", "Who")])
    assert ID_STYLE not in plain


def test_a_wrapped_cell_reads_at_a_text_line_height() -> None:
    from pixops.widgets._format import html_table

    # Inside an ipywidgets HTML widget each wrapped line was otherwise a 28 px widget row.
    table = html_table([{"label": "In the ledger, not in the statement"}], [("label", "L")])
    assert "line-height:1.45" in table


def test_a_frame_table_passes_its_id_columns_on() -> None:
    import pandas as pd

    from pixops.widgets import frame_table
    from pixops.widgets._format import ID_STYLE

    frame = pd.DataFrame({"Case": ["med_98kc7yqmuh9xp5npi9n9o4dq"], "Amount": [100]})
    assert ID_STYLE in frame_table(frame, id_columns={"Case"})._repr_html_()
    assert ID_STYLE not in frame_table(frame)._repr_html_()


def test_a_problem_that_starts_with_a_path_keeps_its_letters(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pixops.widgets._format import problem

    monkeypatch.chdir(tmp_path)
    (tmp_path / "data").mkdir()
    assert problem(ValueError("data is a folder, not a ledger file")) == (
        "data is a folder, not a ledger file."
    )
    assert problem(ValueError("ledger.csv has no header row")) == "ledger.csv has no header row."
    assert problem(ValueError("out/x: cannot write")) == "out/x: cannot write."
    # A word that names nothing here is a word: the sentence starts with a capital.
    assert problem(ValueError("ledger has no column 'entry_id'")) == (
        "Ledger has no column 'entry_id'."
    )


def test_a_long_problem_is_whole_or_cut_after_a_word_and_marked() -> None:
    """The dashboard cut a ledger's 211-character error to "...is no real amount:.": a
    message is whole up to 600 characters (200 for the service's own), else cut after
    its last whole word, with "…"."""
    from pixops.client import ApiError
    from pixops.recon import LedgerError
    from pixops.widgets._format import problem

    own = (
        "line 7: column 'amount_base': the amounts add up past the 64-bit range a"
        " reconciliation sums in (R$ 922.337.203.685.477,5807); the largest,"
        " 9223372036854775807 base units on line 7, is no real amount: correct it"
    )
    assert problem(LedgerError(own)) == "L" + own[1:] + "."
    huge = problem(LedgerError("column 'status': " + "palavra " * 200 + "is not one of"))
    assert huge.endswith("palavra…")
    assert len(huge) <= 600
    refused = ApiError("regra " * 60, status=422, code="x")
    said = problem(refused)
    assert said.endswith("regra…")
    assert len(said) <= 200


def test_a_med_decision_reads_as_what_it_did_to_the_money() -> None:
    from pixops.widgets import decision_label

    assert decision_label("AGREED") == "Payer refunded"
    assert decision_label("DISAGREED") == "Money kept"
    assert decision_label("PARTIALLY_ACCEPTED") == "Partially accepted"
    assert decision_label(None) == "—"


def test_a_stacked_column_goes_under_its_neighbour_not_beside_it() -> None:
    """At 800 px beside JupyterLab's file browser six columns hid Net and Status."""
    rows = [{"what": "PIX from Ana", "amount": 499_000, "fee": 4_940, "status": "settled"}]
    columns = [("what", "Movement"), ("amount", "Amount"), ("fee", "Fee"), ("status", "Status")]
    markup = html_table(
        rows,
        columns,
        money_columns={"amount", "fee"},
        code_columns={"status"},
        under={"fee": "amount", "status": "what"},
    )
    heads = re.findall(r"<th[^>]*>(.*?)</th>", markup)
    assert [re.sub(r"<[^>]+>", " ", head).split() for head in heads] == [
        ["Movement", "Status"],
        ["Amount", "Fee"],
    ]
    cells = re.findall(r"<td[^>]*>(.*?)</td>", markup)
    assert [re.sub(r"<[^>]+>", "|", cell) for cell in cells] == [
        "PIX from Ana||Settled|",
        "R$ 49,90||R$ 0,4940|",
    ]
    with pytest.raises(ValueError, match="'net'"):
        html_table(rows, columns, under={"net": "amount"})


def test_columns_stack_in_order_and_the_detail_takes_a_line_of_its_own() -> None:
    """The dashboard's rows at 800 px beside the file browser: seven columns side by side
    were ~810 px wide; stacked, with the detail under its row, they fit ~360 px."""
    rows = [
        {
            "id": "PIX1",
            "ref": "<b>r1</b>",
            "way": "received",
            "led": 150_190_0,
            "stmt": 140_190_0,
            "diff": -10_000_0,
            "detail": "amounts <differ>",
        },
        {"id": "PIX2", "ref": "r2", "way": "sent", "led": 1, "stmt": 1, "diff": 0, "detail": None},
    ]
    columns = [
        ("id", "Transaction"), ("ref", "Ledger reference"), ("way", "Direction"),
        ("led", "Ledger"), ("stmt", "Statement"), ("diff", "Difference"), ("detail", "Detail"),
    ]  # fmt: skip
    under = {"ref": "id", "way": "id", "stmt": "led", "diff": "led"}
    markup = html_table(
        rows, columns, money_columns={"led", "stmt", "diff"}, under=under, detail="detail"
    )
    heads = re.findall(r"<th[^>]*>(.*?)</th>", markup)
    assert [re.sub(r"<[^>]+>", " ", head).split() for head in heads] == [
        ["Transaction", "Ledger", "reference", "Direction"],
        ["Ledger", "Statement", "Difference"],
    ]
    lines = re.findall(r"<tr[^>]*>(.*?)</tr>", markup)
    cells = [re.findall(r"<td([^>]*)>(.*?)</td>", line) for line in lines[1:]]
    assert [len(row) for row in cells] == [2, 1, 2]  # the second row has no detail line
    assert "&lt;b&gt;r1&lt;/b&gt;" in cells[0][0][1]
    assert 'colspan="2"' in cells[1][0][0]
    assert cells[1][0][1] == "amounts &lt;differ&gt;"
    assert re.sub(r"<[^>]+>", "|", cells[0][1][1]) == "R$ 150,19||R$ 140,19|||-R$ 10,00|"
    with pytest.raises(ValueError, match="'note'"):
        html_table(rows, columns, detail="note")
