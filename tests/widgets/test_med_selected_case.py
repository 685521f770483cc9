"""The MED panel shows the selected case's state only (the flow's side is tested in
test_med_flow.py): another case picked, the receipt and the status line go."""

from __future__ import annotations

from pixops.widgets import MedDefensePanel
from tests.widgets.conftest import Desk
from tests.widgets.test_med import two_cases


def test_a_receipt_stays_with_its_case(desk: Desk) -> None:
    defended, undefended = two_cases(desk)
    panel = MedDefensePanel(desk.client)  # the sandbox's clock, read from its answers
    panel.case_picker.value = defended
    panel.defense.value = "Produto entregue em 02/01; nota fiscal 123."
    panel.submit_button.click()
    assert "Defense received" in str(panel.output.outputs)
    assert f"Defense of {defended} received" in panel.status.value
    panel.case_picker.value = undefended
    assert panel.output.outputs == ()  # the other case's receipt went with it
    assert panel.status.value == ""
    panel.case_picker.value = defended  # back: its own state, read again, no old receipt
    assert panel.output.outputs == ()
