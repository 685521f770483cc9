"""Every support panel says, under its title, the zone its times are in: "Received
31/01/2026 10:04" or "due 19/02/2026 01:09" read as the reader's own clock otherwise."""

from __future__ import annotations

import re
from typing import Any

import pytest

from pixops.widgets import MedDefensePanel, RefundPanel, TransactionInspector
from pixops.widgets._format import text_of
from tests.widgets.conftest import Desk


@pytest.mark.parametrize(
    ("panel_class", "title"),
    [
        (RefundPanel, "Refund a received PIX"),
        (MedDefensePanel, "MED disputes"),
        (TransactionInspector, "Transaction inspector"),
    ],
)
def test_the_panel_names_the_zone_of_its_times(desk: Desk, panel_class: Any, title: str) -> None:
    panel = panel_class(desk.client, now=desk.now)
    heading = text_of(re.sub(r"<style>.*?</style>", "", panel.children[0].value))
    assert heading.startswith(title)
    assert heading.endswith("Times are São Paulo time.")
