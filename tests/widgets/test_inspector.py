"""TransactionInspector: any identifier finds the transaction; every view is filled.

What is found and read is `InspectorFlow`'s, tested without widgets in
test_inspector_flow.py; here, what only the panel shows: its box, list and tabs."""

from __future__ import annotations

import pytest

from pixops.webhooks import Inbox
from pixops.widgets import TransactionInspector
from pixops.widgets._format import text_of
from pixops.widgets._inspector import TABS
from tests.widgets.conftest import Desk

# Demo-month facts: a R$ 103,73 payment disputed by MED (AGREED) and refunded by it.
DISPUTED = "PIXINE65697260202601302151JQBabS4YreE"
CASE = "med_98kc7yqmuh9xp5npi9n9o4dq"
PAYOUT = "PIXOUTE99999999202601011252581fXlRhkww"  # R$ 4.470,64 sent, external_id below
PAYOUT_REF = "payout-35563-10623"
FAILED_CREDIT = "PIXINE18236120202601011338dthOeloIx6t"  # refused with AC06
EXPIRED_QR = "gcTs09bGEFa2ivXvTxFrMhbUtdnPmZXc"


@pytest.fixture
def desk(reading_desk: Desk) -> Desk:
    """These tests only read the month: they share the module's desk."""
    return reading_desk


def month_inbox(desk: Desk) -> Inbox:
    """What a receiver subscribed all month would hold (as `pixops.connect` provides)."""
    inbox = Inbox()
    for event in desk.month.sandbox.events(desk.month.merchant.id):
        inbox.add_verified(event.id, event.envelope())
    return inbox


def inspector(desk: Desk, *, inbox: Inbox | None = None) -> TransactionInspector:
    return TransactionInspector(desk.client, now=desk.now, inbox=inbox)


def test_end_to_end_id_shows_the_whole_story(desk: Desk) -> None:
    panel = inspector(desk, inbox=month_inbox(desk))
    panel.identifier.value = DISPUTED.removeprefix("PIXIN")
    panel.inspect_button.click()
    assert panel.record is not None
    assert panel.record.transaction_id == DISPUTED
    assert panel.transaction_id == DISPUTED  # the panel's state, as traitlets
    assert panel.matches.value == DISPUTED
    assert [panel.tabs.get_title(i) for i in range(len(TABS))] == list(TABS)
    assert "R$ 103,73" in panel.summary.value
    assert CASE in panel.med_view.value
    assert "PIXRET" in panel.refunds_view.value
    # The case, opened 01:09 UTC (on a phone the hour may go under the date).
    assert "08/02/2026 22:09" in text_of(panel.timeline_view.value)
    assert "authentication" in panel.receipt_view.value.lower()
    assert DISPUTED in panel.shapes_view.value


def test_unknown_identifiers_say_nothing_was_found(desk: Desk) -> None:
    panel = inspector(desk)
    panel.inspect(DISPUTED)
    panel.inspect("PIXINE00000000202601010000aaaaaaaaaaa")
    assert "Nothing found" in panel.status.value
    assert panel.record is None
    assert panel.summary.value == ""
    assert panel.shapes_view.value == ""


def test_the_summary_and_timeline_use_words_and_the_shapes_say_utc(desk: Desk) -> None:
    panel = inspector(desk)
    panel.inspect(DISPUTED)
    assert "PIX transfer" in panel.summary.value
    assert ">pix<" not in panel.summary.value
    assert "Times here are UTC" in panel.shapes_view.value


def test_bad_arguments_are_refused(desk: Desk) -> None:
    with pytest.raises(TypeError, match=r"pixops\.Client"):
        TransactionInspector(42)
    with pytest.raises(TypeError, match="Inbox"):
        TransactionInspector(desk.client, inbox=object())
    panel = inspector(desk)
    with pytest.raises(TypeError, match="text"):
        panel.inspect(123)  # type: ignore[arg-type]


# -- what a hurried person types -----------------------------------------------------------


@pytest.mark.parametrize(
    "typed",
    [
        DISPUTED.lower(),  # copied from a report that lower-cases everything
        DISPUTED.removeprefix("PIXIN").lower(),  # the end-to-end id, lower case
        f'  "{DISPUTED}"  ',  # pasted with quotes and spaces
        f"\u201c{DISPUTED.removeprefix('PIXIN')}\u201d",  # typographic quotes
    ],
)
def test_an_id_in_the_wrong_case_or_in_quotes_is_found(desk: Desk, typed: str) -> None:
    panel = inspector(desk)
    panel.inspect(typed)
    assert panel.record is not None, panel.status.value
    assert panel.record.transaction_id == DISPUTED
    assert panel.identifier.value == typed  # what was typed stays
