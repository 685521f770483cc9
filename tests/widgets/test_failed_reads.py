"""A payment, case or transaction the service could not read: the panel shows nothing of
the one shown before it, so no action can reach the wrong one."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pixops.client import Client
from pixops.widgets import MedDefensePanel, RefundPanel, TransactionInspector
from pixops.widgets._format import text_of
from tests.widgets.conftest import Desk, Failing, failing_client

Reading = tuple[Desk, Client, Failing]


@pytest.fixture(scope="module")
def module_failing(worker_desk: Desk) -> tuple[Client, Failing]:
    return failing_client(worker_desk)


@pytest.fixture
def reading(reading_desk: Desk, module_failing: tuple[Client, Failing]) -> Iterator[Reading]:
    """The shared desk and a failing client on it (answering again), for a test
    whose requests fail before any write: the month's days are read once for names."""
    client, transport = module_failing
    transport.answer, transport.where = None, "/"
    yield reading_desk, client, transport
    transport.answer, transport.where = None, "/"


def _on_mariana(desk: Desk, client: Client) -> RefundPanel:
    """A refund panel listing Mariana's payments, the first one picked."""
    panel = RefundPanel(client, now=desk.now)
    panel.search.value = "Mariana"
    panel.find()
    return panel


def test_a_payment_that_could_not_be_read_is_not_refunded_in_place_of_another(
    reading: Reading,
) -> None:
    desk, client, transport = reading
    panel = _on_mariana(desk, client)
    first, second = panel.results.options[0][1], panel.results.options[1][1]
    assert panel.selected is not None
    assert panel.selected.transaction_id == first
    transport.answer, transport.where = 500, "/transactions/"
    panel.results.value = second  # the service fails to read the payment picked
    assert f"Could not read payment {second}" in panel.status_text
    assert "problem on its side" in panel.status_text
    assert panel.selected is None
    assert first not in panel.details.value
    panel.amount.value = "1,00"
    panel.review_button.click()  # still failing: nothing offered, of either payment
    assert panel.confirm_button.disabled
    assert "Refund R$ 1,00" not in panel.status_text
    transport.answer = None
    panel.review_button.click()  # the service is back: Review reads the payment picked
    assert panel.selected is not None
    assert panel.selected.transaction_id == second
    assert "Refund R$ 1,00 to" in panel.status_text
    assert not panel.confirm_button.disabled


def test_a_case_that_could_not_be_read_takes_no_defense_meant_for_another(
    desk: Desk, failing: tuple[Client, Failing]
) -> None:
    sandbox = desk.month.sandbox
    first = sandbox.open_med_case("PIXINE22896431202601010338c5WPLwFSeVb", reason="FRAUD").id
    sandbox.advance(days=2)
    second = sandbox.open_med_case("PIXINE00360305202601311304fBxrSVuhd7C", reason="FRAUD").id
    client, transport = failing
    panel = MedDefensePanel(client, now=desk.now)
    assert panel.case is not None
    assert panel.case.id == first
    panel.defense.value = "Produto entregue."
    transport.answer, transport.where = "down", "/med/"
    panel.case_picker.value = second
    status = text_of(panel.status.value)
    assert f"Could not read case {second}" in status
    assert "could not be reached" in status
    assert panel.case is None
    assert first not in panel.details.value
    assert panel.submit_button.disabled
    panel.submit()  # no defense of the first case from the second one's row
    assert desk.client.med.get(first).defense is None
    transport.answer = None
    panel.refresh_button.click()  # Refresh reads the case picked, and its draft is kept
    assert panel.case is not None
    assert panel.case.id == second
    panel.case_picker.value = first
    assert panel.defense.value == "Produto entregue."


def test_a_transaction_that_could_not_be_read_leaves_no_other_in_the_tabs(
    reading: Reading,
) -> None:
    desk, client, transport = reading
    inspector = TransactionInspector(client, now=desk.now)
    inspector.inspect("Mariana")
    first, second = inspector.matches.options[0][1], inspector.matches.options[1][1]
    assert first in inspector.summary.value
    transport.answer, transport.where = 429, "/transactions/"
    inspector.matches.value = second
    status = text_of(inspector.status.value)
    assert f"Could not read {second}" in status
    assert "too many requests" in status
    assert inspector.record is None
    assert first not in inspector.summary.value
    assert inspector.refunds_view.value == ""
    assert [value for _, value in inspector.matches.options][:2] == [first, second]


def test_a_refund_held_back_by_the_rate_limit_is_not_called_refused(reading: Reading) -> None:
    desk, client, transport = reading
    panel = _on_mariana(desk, client)
    panel.amount.value = "1,00"
    panel.review_button.click()
    transport.answer, transport.where = 429, "/pix/refund"
    panel.confirm_button.click()
    assert panel.status_text.startswith("The service did not make the refund.")
    assert "refused" not in panel.status_text
    assert panel.last_refund is None
