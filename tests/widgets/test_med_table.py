"""The MED cases table fits beside JupyterLab's file browser at 1024 px (about 590 px):
five short columns, the long case id last and free to wrap."""

from __future__ import annotations

import re
from datetime import timedelta

from pixops.widgets import MedDefensePanel
from tests.widgets.conftest import Desk
from tests.widgets.test_med import two_cases


def _cells(table: str) -> list[list[str]]:
    rows = re.findall(r"<tr>(.*?)</tr>", table)
    return [re.findall(r"<td [^>]*>([^<]*)</td>", row) for row in rows[1:]]


def test_the_case_id_comes_last_and_wraps(desk: Desk) -> None:
    """Six columns with the 28-character id in the middle hid the amounts, the reason and
    the status past the right edge at 1024 px."""
    two_cases(desk)
    panel = MedDefensePanel(desk.client, now=desk.now)
    headers = re.findall(r"<th [^>]*>([^<]*)</th>", panel.table.value)
    assert headers == ["Due, or decided", "Status", "Disputed", "Reason", "Case"]
    last_cells = re.findall(r'<td style="([^"]*)"[^>]*>med_', panel.table.value)
    assert last_cells
    assert all("break-all" in style for style in last_cells)


def test_the_status_says_time_left_or_decision_in_one_short_cell(desk: Desk) -> None:
    two_cases(desk)
    panel = MedDefensePanel(desk.client, now=desk.now)
    assert [row[1] for row in _cells(panel.table.value)] == [
        "Open: 5 days left",
        "Open: 7 days left",
    ]
    panel.defense.value = "Produto entregue."
    panel.submit_button.click()
    panel.show.value = "all"
    statuses = {row[1] for row in _cells(panel.table.value)}
    assert {"Awaiting decision", "Open: 7 days left", "Payer refunded", "Money kept"} == statuses
    assert all(len(text) <= 20 for text in statuses)  # each stays on one short line
    assert "min-width:16em" not in panel.table.value


def test_an_open_case_past_its_deadline_says_so_briefly(desk: Desk) -> None:
    two_cases(desk)
    later = desk.now() + timedelta(days=8)
    panel = MedDefensePanel(desk.client, now=lambda: later)
    statuses = [row[1] for row in _cells(panel.table.value)]
    assert statuses == ["Open, past deadline", "Open, past deadline"]


def test_check_outcome_after_a_defense_says_what_acknowledged_means(desk: Desk) -> None:
    """The status said "is Acknowledged: no decision yet": acknowledged by whom?"""
    two_cases(desk)
    panel = MedDefensePanel(desk.client, now=desk.now)
    panel.defense.value = "Produto entregue."
    panel.submit_button.click()
    panel.outcome_button.click()
    assert "has your defense: no decision yet from the central bank" in panel.status.value
    assert "Acknowledged" not in panel.status.value


def test_a_closed_case_shows_when_it_was_decided(desk: Desk) -> None:
    """All cases showed a closed case's defense deadline, long past; its decision's date
    is what a support person is asked about."""
    from pixops.widgets import local_time

    two_cases(desk)
    panel = MedDefensePanel(desk.client, now=desk.now)
    panel.show.value = "all"
    closed = [c for c in panel.cases if c.get("closed_at")]
    shown = {row[4]: row[0] for row in _cells(panel.table.value)}
    for case in closed:
        assert shown[case["id"]] == local_time(case["closed_at"])
    # Some were decided before their deadline (a defense answered early), so it shows.
    early = [c for c in closed if local_time(c["closed_at"]) != local_time(c["defense_deadline"])]
    assert early


def test_closed_cases_come_latest_decision_first(desk: Desk) -> None:
    """Sorted by their long-past deadlines, the decisions read out of order."""
    from pixops.widgets._api import time_key

    two_cases(desk)
    panel = MedDefensePanel(desk.client, now=desk.now)
    panel.show.value = "all"
    decided = [time_key(c["closed_at"]) for c in panel.cases if c.get("closed_at")]
    assert len(decided) > 2
    assert decided == sorted(decided, reverse=True)
