"""The MED panel shows the selected case's state only, and Check outcome says what is true
of a case nobody defended (notebook 05 after ``sandbox.advance(days=10)``)."""

from __future__ import annotations

from pixops.widgets import MedDefensePanel
from tests.widgets.conftest import Desk
from tests.widgets.test_med import two_cases


def test_a_receipt_stays_with_its_case_and_an_undefended_case_reads_true(desk: Desk) -> None:
    defended, undefended = two_cases(desk)
    panel = MedDefensePanel(desk.client)  # the sandbox's clock, read from its answers
    panel.case_picker.value = defended
    panel.defense.value = "Produto entregue em 02/01; nota fiscal 123."
    panel.submit_button.click()
    assert "Defense received" in str(panel.output.outputs)
    assert f"Defense of {defended} received" in panel.status.value

    desk.month.sandbox.advance(days=10)
    panel.case_picker.value = undefended
    assert panel.output.outputs == ()  # the other case's receipt went with it
    assert panel.status.value == ""
    assert "No defense was sent: the deadline passed on" in panel.details.value
    assert "Deadline passed without a defense" in panel.details.value
    assert panel.submit_button.disabled

    panel.outcome_button.click()
    assert "has your defense" not in panel.status.value
    assert f"Case {undefended}: no defense was sent, and the deadline passed on" in (
        panel.status.value
    )
    assert "(São Paulo time)" in panel.status.value
    assert "if it agrees with the payer" in panel.status.value

    panel.case_picker.value = defended  # back: its own state, read again, no old receipt
    assert panel.output.outputs == ()
    panel.outcome_button.click()
    assert f"Case {defended} has your defense, sent on" in panel.status.value
