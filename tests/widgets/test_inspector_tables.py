"""The inspector's Timeline and Refunds tabs on a phone: nothing keeps a table wider
than about 350 px (the Voilà desk at 420 px), and the tab labels are never cut."""

from __future__ import annotations

import re

from pixops.widgets import TransactionInspector
from pixops.widgets._inspector_tables import TAB_STYLE, TABS_CLASS
from tests.widgets.conftest import Desk

#: Refunded in part, then in full by a MED case: a refund with its completion time.
DISPUTED = "med_3nsx8tsxeqkjyripn85qsg57"


def _cells(table: str) -> list[tuple[str, str]]:
    """(style, content) of every body cell."""
    return re.findall(r'<td style="([^"]*)">(.*?)</td>', table)


def test_a_timeline_time_may_put_its_hour_under_its_date(desk: Desk) -> None:
    """html_table kept "14/01/2026 21:18" on one line and the step's prose at least 16em
    wide: on a phone the timeline came out 500 px wide, its steps hidden sideways."""
    panel = TransactionInspector(desk.client, now=desk.now)
    panel.inspect(DISPUTED)
    table = panel.timeline_view.value
    assert re.findall(r"<th [^>]*>([^<]*)</th>", table) == ["When (São Paulo)", "Source", "What"]
    for style, content in _cells(table):
        assert "min-width" not in style  # no column claims room it cannot give back
        if content.startswith("<span"):  # the time: date and hour break apart, never inside
            assert "nowrap" not in style
            assert re.fullmatch(
                r'<span style="white-space:nowrap">\d\d/\d\d/\d{4}</span> '
                r'<span style="white-space:nowrap">\d\d:\d\d</span>',
                content,
            )
        else:
            assert "white-space:normal" in style
            assert "R$ " not in content  # an amount never breaks after its "R$"
    assert "Created (R$\N{NO-BREAK SPACE}17.636,83)" in table


def test_a_refund_completes_under_its_status_not_in_a_column_of_its_own(desk: Desk) -> None:
    """Five columns with two nowrap times made the refunds table 536 px on a phone, the
    amount and status cut off; four, the completion under the status, fit in 350 px."""
    panel = TransactionInspector(desk.client, now=desk.now)
    panel.inspect(DISPUTED)
    table = panel.refunds_view.value
    headers = re.findall(r"<th [^>]*>([^<]*)</th>", table)
    assert headers == ["Requested (São Paulo)", "Amount", "Status", "Refund"]
    refund = panel.refunds[0]
    row = _cells(table)[:4]
    assert row[1][1] == "R$ 17.636,83"
    assert row[2][1].startswith("Settled<div")
    assert re.search(r"\d\d/\d\d/\d{4}</span> <span[^>]*>\d\d:\d\d", row[2][1])
    assert row[3][1] == refund.transaction_id
    assert "break-all" in row[3][0]


def test_the_tab_labels_wrap_onto_rows_rather_than_be_cut(desk: Desk) -> None:
    """Six tabs of a fixed 144 px share shrank to "Summa", "Timelin" on a phone and at
    800 px in Lab: the tab bar carries a class whose style lets the tabs wrap."""
    panel = TransactionInspector(desk.client, now=desk.now)
    assert TABS_CLASS in panel.tabs._dom_classes
    header = panel.children[0].value
    assert header.startswith(TAB_STYLE)
    assert f".{TABS_CLASS} .lm-TabBar-content{{flex-wrap:wrap}}" in header
