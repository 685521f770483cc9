"""The refund panel's deadlines are the central bank's: calendar days in São Paulo, the
last one to its very end (a payment at 22:00 is a day earlier there than in UTC)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from pixops.engine.world.central_bank import refund_deadline_passed
from pixops.widgets import RefundPanel
from pixops.widgets._refund_words import REASONS, deadline_passed, nothing_found, reason_help
from tests.widgets.conftest import Desk

SAO_PAULO = ZoneInfo("America/Sao_Paulo")
#: 31/01/2026 22:00 in São Paulo, as the API gives it (UTC: already 01/02).
LATE_EVENING = datetime(2026, 1, 31, 22, tzinfo=SAO_PAULO).astimezone(UTC)
#: 31/01/2026 10:00 in São Paulo.
MORNING = datetime(2026, 1, 31, 10, tzinfo=SAO_PAULO).astimezone(UTC)


def test_the_day_after_the_last_day_is_too_late_for_a_late_evening_payment() -> None:
    """AM09's last day for a payment at 22:00 on 31/01 is 02/03 (São Paulo): on 03/03 the
    central bank refuses it, so the panel must not offer it (it counted UTC days)."""
    now = datetime(2026, 3, 3, 10, tzinfo=SAO_PAULO)
    assert deadline_passed(REASONS["AM09"], LATE_EVENING, now)


def test_the_last_evening_is_still_in_time() -> None:
    """At 22:30 on the last day (01:30 UTC the day after) the refund is still accepted."""
    now = datetime(2026, 3, 2, 22, 30, tzinfo=SAO_PAULO)
    assert not deadline_passed(REASONS["AM09"], MORNING, now)


@pytest.mark.parametrize("settled", [MORNING, LATE_EVENING])
@pytest.mark.parametrize("code", sorted(REASONS))
def test_the_panel_and_the_central_bank_agree_hour_by_hour(settled: datetime, code: str) -> None:
    reason = REASONS[code]
    start = settled + timedelta(days=reason.deadline_days - 1)
    for hour in range(72):
        now = (start + timedelta(hours=hour)).astimezone(UTC)
        assert deadline_passed(reason, settled, now) == refund_deadline_passed(
            reason.deadline_days, settled, now
        ), f"{code} settled {settled}, asked {now}"


def test_the_help_names_the_last_day_not_an_hour_of_it() -> None:
    """The help said "until 02/03/2026 22:00", read as a cut-off; the whole day counts."""
    now = datetime(2026, 2, 12, 9, tzinfo=SAO_PAULO)
    text, tone = reason_help(REASONS["AM09"], LATE_EVENING, now, 100)
    assert "up to and including 02/03/2026" in text
    assert "22:00" not in text
    assert "(18 days left)" in text
    assert tone == "info"


def test_on_the_last_day_the_help_says_today() -> None:
    now = datetime(2026, 3, 2, 23, 30, tzinfo=SAO_PAULO)
    text, tone = reason_help(REASONS["AM09"], LATE_EVENING, now, 100)
    assert "(today is the last day)" in text
    assert tone == "warn"


def test_nothing_found_says_where_it_looked_and_what_to_try() -> None:
    """ "No received payment matches that search." left support guessing: a typo, or a
    payment older than the From date?"""
    text = nothing_found("  Joao   Sliva ", date(2026, 1, 1), date(2026, 1, 31))
    assert text == (
        "No received payment from 01/01/2026 to 31/01/2026 matches “Joao Sliva”: "
        "check the spelling, or choose an earlier From date."
    )


def test_the_search_dates_start_on_today_in_sao_paulo(desk: Desk) -> None:
    """At 22:30 in São Paulo it is 01:30 tomorrow in UTC: To is still today."""
    evening = datetime(2026, 2, 11, 1, 30, tzinfo=UTC)  # 10/02 22:30 in São Paulo
    panel = RefundPanel(desk.client, now=lambda: evening)
    assert panel.date_to.value == date(2026, 2, 10)
    assert panel.date_from.value == date(2026, 2, 10) - timedelta(days=90)
