"""Panels on `Sandbox.client(...)` judge deadlines on the sandbox's clock, not this
machine's: the refund panel refused every refund as too late, the MED panel said every
deadline had passed (the machine in November, the sandbox in February)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import httpx

from pixops.client import Client
from pixops.widgets import MedDefensePanel, RefundPanel, TransactionInspector
from pixops.widgets._base import clock_for
from tests.widgets.conftest import Desk
from tests.widgets.test_med import two_cases
from tests.widgets.test_refund import PAYMENT


def test_the_refund_panel_keeps_the_sandbox_s_deadlines(desk: Desk) -> None:
    panel = RefundPanel(desk.client)  # no now=: the clock comes from the client
    assert abs(panel._now() - desk.now()) < timedelta(seconds=2)
    panel.search.value = PAYMENT
    panel.find_button.click()
    panel.reason.value = "MD06"
    assert "(78 days left)" in panel.reason_help.value  # the sandbox's 12/02/2026
    panel.amount.value = "R$ 1,00"
    panel.review_button.click()
    assert "Too late" not in panel.status.value
    assert not panel.confirm_button.disabled


def test_the_med_panel_keeps_the_sandbox_s_deadlines(desk: Desk) -> None:
    two_cases(desk)
    panel = MedDefensePanel(desk.client)
    assert "Open, past deadline" not in panel.table.value
    # Five days to go by the sandbox (the served clock runs on by the milliseconds since).
    assert re.search(r"Open: [45] days left", panel.table.value)
    assert not panel.submit_button.disabled
    desk.month.sandbox.advance(days=6)
    panel.refresh_button.click()  # read again: the service's answers move the clock on
    assert "No defense sent" in panel.table.value  # the first: its deadline passed
    assert "Open: 23 h left" in panel.table.value


def test_the_inspector_and_a_plain_client_take_the_service_s_time(desk: Desk) -> None:
    assert abs(TransactionInspector(desk.client)._now() - desk.now()) < timedelta(seconds=2)


def test_an_unreachable_service_leaves_the_machine_s_clock_to_the_panel() -> None:
    def down(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    client = Client("http://svc", "id", "secret", transport=httpx.MockTransport(down))
    from pixops.client import NO_RETRY

    clock = clock_for(client.with_options(retry=NO_RETRY), None)
    before = datetime.now(UTC)
    assert before <= clock() <= datetime.now(UTC)
