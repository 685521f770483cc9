"""MedDefensePanel: a defense typed belongs to its case; the status line follows a refresh."""

from __future__ import annotations

from pixops.widgets import MedDefensePanel
from tests.widgets.conftest import Desk
from tests.widgets.test_med import two_cases


def test_the_defense_box_shows_each_case_s_draft(desk: Desk) -> None:
    first, second = two_cases(desk)
    panel = MedDefensePanel(desk.client, now=desk.now)
    assert panel.case_picker.value == first
    panel.defense.value = "Entregue ao pagador do primeiro caso."
    panel.case_picker.value = second
    # The other case starts blank: the first case's defense is never sent for it.
    assert panel.defense.value == ""
    panel.case_picker.value = first  # back: each case's draft is where it was left
    assert panel.defense.value == "Entregue ao pagador do primeiro caso."


def test_a_draft_survives_a_refresh_of_the_list(desk: Desk) -> None:
    first, _ = two_cases(desk)
    panel = MedDefensePanel(desk.client, now=desk.now)
    panel.defense.value = "Rascunho"
    panel.refresh_button.click()
    assert panel.case_picker.value == first
    assert panel.defense.value == "Rascunho"


def test_refresh_replaces_a_status_line_about_an_older_reading(desk: Desk) -> None:
    first, _ = two_cases(desk)
    panel = MedDefensePanel(desk.client, now=desk.now)
    panel.outcome_button.click()
    assert "still takes your defense" in panel.status.value
    desk.month.sandbox.advance(days=6)  # its deadline passes: the case moves on
    panel.refresh_button.click()
    assert panel.case is not None
    assert panel.case.id == first
    assert "still takes your defense" not in panel.status.value
    assert panel.submit_button.disabled


def test_check_outcome_on_an_open_case_says_it_still_takes_a_defense(desk: Desk) -> None:
    two_cases(desk)
    panel = MedDefensePanel(desk.client, now=desk.now)
    panel.outcome_button.click()
    status = panel.status.value
    assert "no decision yet" in status
    assert "still takes your defense until 19/02/2026" in status
