"""The MED cases table reads beside JupyterLab's file browser at 800 px (about 360 px
for the panel): three columns, where a case stands with its date under it, the amount
and the reason, and the whole case id across the row under them (people copy it);
words wrap between words, amounts, dates and ids never break."""

from __future__ import annotations

import re
from datetime import timedelta
from html.parser import HTMLParser

from pixops.widgets import MedDefensePanel
from tests.widgets.conftest import Desk
from tests.widgets.test_med import two_cases


class _Cells(HTMLParser):
    """The table's cells: per row, each cell's text, its attributes and the text of each
    element inside it by class."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[dict[str, str]]] = []
        self._cell: dict[str, str] | None = None
        self._inner: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {key: value or "" for key, value in attrs}
        if tag == "tr":
            self.rows.append([])
        elif tag == "td":
            self._cell = {"text": "", **{f"@{k}": v for k, v in found.items()}}
            self.rows[-1].append(self._cell)
        elif self._cell is not None and found.get("class", "").startswith("pixops-med-"):
            self._inner = found["class"].removeprefix("pixops-med-")
            self._cell[self._inner] = ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "td":
            self._cell = None
        elif tag == "div":
            self._inner = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell["text"] += data
            if self._inner is not None:
                self._cell[self._inner] += data


def _rows(table: str) -> list[list[dict[str, str]]]:
    """Each case's cells: its three columns, then its id's line."""
    parser = _Cells()
    parser.feed(table)
    rows = [row for row in parser.rows if row]  # the header row has no td
    return [columns + ids for columns, ids in zip(rows[::2], rows[1::2], strict=True)]


def test_three_columns_and_the_whole_case_id_under_them(desk: Desk) -> None:
    """Five columns with the 28-character id broke the id a letter a line at 800 px; a
    short form ("syn68…") could not be copied."""
    first, second = two_cases(desk)
    panel = MedDefensePanel(desk.client, now=desk.now)
    headers = re.findall(r"<th [^>]*>([^<]*)</th>", panel.table.value)
    assert headers == ["Status", "Disputed", "Reason"]
    cases = [row[3] for row in _rows(panel.table.value)]
    assert [cell["@data-case"] for cell in cases] == [first, second]
    for cell in cases:
        assert cell["text"] == f"Case {cell['@data-case']}"  # whole, never cut
        assert cell["@colspan"] == "3"
        assert "white-space:nowrap" in cell["@style"]
    assert '<code style="user-select:all">' in panel.table.value  # one click selects it
    assert "…" not in panel.table.value
    assert [value for _, value in panel.case_picker.options] == [first, second]


def test_words_wrap_between_words_and_amounts_never_break(desk: Desk) -> None:
    two_cases(desk)
    panel = MedDefensePanel(desk.client, now=desk.now)
    panel.show.value = "all"
    table = panel.table.value
    assert "break-all" not in table
    assert "anywhere" not in table
    for status, amount, reason, _ in _rows(table):
        assert "white-space:normal" in status["@style"]
        assert "white-space:normal" in reason["@style"]
        assert "white-space:nowrap" in amount["@style"]
        assert re.fullmatch(r"R\$ \d{1,3}(\.\d{3})*,\d{2}", amount["text"])
    # A date and a time each stay whole: the words around them may wrap, they do not.
    dates = re.findall(r'<span style="white-space:nowrap">([^<]*)</span>', table)
    assert any(re.fullmatch(r"\d{2}/\d{2}/\d{4}", text) for text in dates)
    assert any(re.fullmatch(r"\d{2}:\d{2}", text) for text in dates)


def test_the_status_says_time_left_or_decision_in_one_short_cell(desk: Desk) -> None:
    two_cases(desk)
    panel = MedDefensePanel(desk.client, now=desk.now)
    assert [row[0]["state"] for row in _rows(panel.table.value)] == [
        "Open: 5 days left",
        "Open: 7 days left",
    ]
    panel.defense.value = "Produto entregue."
    panel.submit_button.click()
    panel.show.value = "all"
    statuses = {row[0]["state"] for row in _rows(panel.table.value)}
    assert {"Awaiting decision", "Open: 7 days left", "Payer refunded", "Money kept"} == statuses
    assert all(len(text) <= 20 for text in statuses)  # each stays on one short line
    assert "min-width:16em" not in panel.table.value


def test_an_open_case_past_its_deadline_says_so_briefly(desk: Desk) -> None:
    two_cases(desk)
    later = desk.now() + timedelta(days=8)
    panel = MedDefensePanel(desk.client, now=lambda: later)
    statuses = [row[0]["state"] for row in _rows(panel.table.value)]
    assert statuses == ["Open, past deadline", "Open, past deadline"]


def test_check_outcome_after_a_defense_says_what_acknowledged_means(desk: Desk) -> None:
    """The status said "is Acknowledged: no decision yet": acknowledged by whom?"""
    two_cases(desk)
    panel = MedDefensePanel(desk.client, now=desk.now)
    panel.defense.value = "Produto entregue."
    panel.submit_button.click()
    panel.outcome_button.click()
    assert "has your defense, sent on" in panel.status.value
    assert "no decision yet. The central bank decides next" in panel.status.value
    assert "Acknowledged" not in panel.status.value


def test_a_closed_case_shows_when_it_was_decided(desk: Desk) -> None:
    """All cases showed a closed case's defense deadline, long past; its decision's date
    is what a support person is asked about."""
    from pixops.widgets import local_time

    two_cases(desk)
    panel = MedDefensePanel(desk.client, now=desk.now)
    panel.show.value = "all"
    closed = [c for c in panel.cases if c.closed_at]
    shown = {row[3]["@data-case"]: row[0]["when"] for row in _rows(panel.table.value)}
    for case in closed:
        assert shown[case.id] == f"decided {local_time(case.closed_at)}"
    opened = [c for c in panel.cases if not c.closed_at]
    assert opened
    for case in opened:
        assert shown[case.id] == f"due {local_time(case.defense_deadline)}"
    # Some were decided before their deadline (a defense answered early), so it shows.
    early = [c for c in closed if local_time(c.closed_at) != local_time(c.defense_deadline)]
    assert early


def test_closed_cases_come_latest_decision_first(desk: Desk) -> None:
    """Sorted by their long-past deadlines, the decisions read out of order."""
    from pixops.widgets._api import time_key

    two_cases(desk)
    panel = MedDefensePanel(desk.client, now=desk.now)
    panel.show.value = "all"
    decided = [time_key(c.closed_at) for c in panel.cases if c.closed_at]
    assert len(decided) > 2
    assert decided == sorted(decided, reverse=True)
