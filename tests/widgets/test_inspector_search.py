"""TransactionInspector as support uses it on a call: what a short, accent-less or
mistyped search finds, and how a failed payment and a MED case read."""

from __future__ import annotations

import html
import re
from datetime import date

import pytest

from pixops.widgets import TransactionInspector
from pixops.widgets._format import text_of
from pixops.widgets._payment_search import MIN_NAME_CHARS
from pixops.widgets._reads import statement_items
from tests.widgets.conftest import Desk
from tests.widgets.test_inspector import month_inbox

PAYMENT = "PIXINE60746948202601011419i3rKpF8aczs"  # R$ 13,22 from Marcelo Nascimento Pereira
FAILED_CREDIT = "PIXINE18236120202601011338dthOeloIx6t"  # refused with AC06
REJECTED_PAYOUT = "PIXOUTE99999999202601301448XJWnQArqHBV"  # AM02, R$ 383,59 to Juliana Rocha
ORPHAN_PAYOUT = "PIXOUTE99999999202601042027isWIDvxgyU3"  # never confirmed: voided
DISPUTED = "PIXINE65697260202601302151JQBabS4YreE"  # MED case decided for the payer


@pytest.fixture
def desk(reading_desk: Desk) -> Desk:
    """These tests only read the month: they share one desk (the one that opens a case
    takes its own `fresh_desk`)."""
    return reading_desk


def inspector(desk: Desk) -> TransactionInspector:
    return TransactionInspector(desk.client, now=desk.now)


def shown(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", markup))


# -- a name search -------------------------------------------------------------------------


def test_one_or_two_letters_ask_for_more_instead_of_listing_fifty_names(desk: Desk) -> None:
    panel = inspector(desk)
    for typed in ("a", "an", " a  n "):
        panel.inspect(PAYMENT)
        panel.inspect(typed)
        assert panel.matches.options == ()
        assert panel.record is None
        assert f"Type at least {MIN_NAME_CHARS} letters of the name" in panel.status.value
        assert "#8a5300" in panel.status.value  # a warning, not an error
    panel.inspect("R$ 13,22")  # an amount is no name: it needs no three letters
    assert panel.record is not None


def test_a_name_matches_by_the_start_of_a_word_and_the_count_is_said(desk: Desk) -> None:
    panel = inspector(desk)
    panel.inspect("ana")
    names = [text.split(" · ")[2] for text, _ in panel.matches.options]
    # "Ana Costa", never "Mariana Lima" or "Juliana Rocha" for "ana".
    assert all(any(w.lower().startswith("ana") for w in name.split()) for name in names)
    status = shown(panel.status.value)
    found = re.search(r"Found\. ([\d.]+) payments match; the list holds the newest 50\.", status)
    assert found is not None, status
    assert int(found[1].replace(".", "")) > 50
    # Inside a word counts only when no name has a word starting with the text.
    panel.inspect("ernand")
    assert panel.matches.options
    assert all("Fernand" in text for text, _ in panel.matches.options)
    assert "No name has a word that starts with “ernand”" in shown(panel.status.value)


def test_a_name_typed_without_accents_finds_the_accented_one(desk: Desk) -> None:
    panel = inspector(desk)
    panel.inspect("jose freitas pereira")
    assert panel.record is not None, panel.status.value
    assert panel.record.counterparty_name == "José Freitas Pereira"


def test_a_cpf_with_its_dots_finds_a_refused_payment_too(desk: Desk) -> None:
    """The customer calls because a payment failed: their CPF finds that one as well."""
    day = date(2026, 1, 1)
    row = next(
        r
        for r in statement_items(desk.client, day, day, desk.now())
        if r.transaction_id == FAILED_CREDIT
    )
    document = str(row.payer_document)
    panel = inspector(desk)
    panel.inspect(f"{document[:3]}.{document[3:6]}.{document[6:9]}-{document[9:]}")
    assert FAILED_CREDIT in [key for _, key in panel.matches.options]


def test_a_cpf_as_the_receipt_masks_it_finds_the_payment(desk: Desk) -> None:
    panel = inspector(desk)
    panel.inspect(PAYMENT)
    assert panel.receipt is not None
    assert panel.receipt.payer is not None
    masked = str(panel.receipt.payer.document)
    assert masked.startswith("***.")
    panel.inspect(masked)
    assert PAYMENT in [key for _, key in panel.matches.options]


def test_a_failed_payout_is_found_by_its_recipient_and_its_amount(desk: Desk) -> None:
    panel = inspector(desk)
    for typed in ("Juliana Rocha", "R$ 383,59"):
        panel.inspect(typed)
        lines = {key: text for text, key in panel.matches.options}
        assert REJECTED_PAYOUT in lines, typed
        assert "R$ 383,59 sent · Juliana Rocha · Rejected" in lines[REJECTED_PAYOUT]


# -- an id with a typo ---------------------------------------------------------------------


def test_an_id_with_a_typo_shows_the_near_one_with_a_warning(desk: Desk) -> None:
    panel = inspector(desk)
    e2e = PAYMENT.removeprefix("PIXIN")
    for typed in (PAYMENT[:-1] + "z", PAYMENT[:30] + PAYMENT[31:], e2e[:-2] + "xx"):
        panel.inspect(typed)
        assert panel.matches.value == PAYMENT, typed
        assert "#8a5300" in panel.status.value
        assert "Read the id back to the customer" in shown(panel.status.value)


def test_an_id_with_many_typos_still_finds_nothing(desk: Desk) -> None:
    panel = inspector(desk)
    panel.inspect(PAYMENT[:-4] + "zzzz")
    assert "Nothing found" in panel.status.value
    assert "Check it with the customer" in panel.status.value


# -- what a failure and a dispute say ------------------------------------------------------


def test_a_rejected_payout_says_why_and_that_the_money_stayed(desk: Desk) -> None:
    panel = inspector(desk)
    panel.inspect(REJECTED_PAYOUT)
    summary = shown(panel.summary.value)
    # One word for one state: the list said "Rejected", so does the summary.
    assert re.search(r"Status\s+Rejected", summary)
    assert "Amount over the account's limit (code AM02)" in summary
    assert "Nothing left the account" in summary
    assert "Total (amount + fee)" in summary
    assert "Net" not in summary
    assert "this one is rejected" in shown(panel.receipt_view.value)


def test_a_voided_payout_reads_without_protocol_jargon(desk: Desk) -> None:
    panel = inspector(desk)
    panel.inspect(ORPHAN_PAYOUT)
    texts = shown(panel.summary.value) + shown(panel.timeline_view.value)
    assert "pacs.002" not in texts
    assert "the central bank never confirmed the transfer" in texts.lower()
    assert "(code orphan_force_voided)" in texts
    # It ended, never completed: when it failed (17:57 São Paulo), not "Completed —".
    assert re.search(r"Failed\s+04/01/2026 17:57", shown(panel.summary.value))
    assert "Completed" not in panel.summary.value


def test_a_voided_payout_notice_in_the_timeline_reads_in_words_too(desk: Desk) -> None:
    panel = TransactionInspector(desk.client, now=desk.now, inbox=month_inbox(desk))
    panel.inspect(ORPHAN_PAYOUT)
    notices = [s.what for s in panel.timeline if s.source == "Service notice"]
    assert notices
    assert notices[-1].startswith("Payment failed: The central bank never confirmed")
    assert "pacs.002" not in " ".join(notices)


def test_a_refund_names_the_bank_it_was_sent_to(desk: Desk) -> None:
    panel = inspector(desk)
    panel.inspect(PAYMENT)
    panel.inspect(str(panel.refunds[0].transaction_id))
    assert re.search(r"Bank\s+BCO BRADESCO S\.A\.", shown(panel.summary.value))


def test_a_refused_credit_says_the_payer_gets_the_money_back(desk: Desk) -> None:
    panel = inspector(desk)
    panel.inspect(FAILED_CREDIT)
    assert "Nothing was credited" in shown(panel.summary.value)
    assert "Net (amount − fee)" in shown(panel.summary.value)


def test_the_med_tab_says_the_decision_in_words(desk: Desk) -> None:
    panel = inspector(desk)
    panel.inspect(DISPUTED)
    med = shown(panel.med_view.value)
    assert "the central bank agreed with the payer" in med
    assert "Refunded by" in med
    assert "Agreed " not in med


def test_an_open_med_case_says_by_when_to_defend(fresh_desk: Desk) -> None:
    case = fresh_desk.month.sandbox.open_med_case(PAYMENT, reason="REFUND_REQUEST")
    panel = inspector(fresh_desk)
    panel.inspect(case.id)
    med = shown(panel.med_view.value)
    assert "Defense due by" in med
    assert "MED disputes notebook" in med


# -- nothing scrolls sideways --------------------------------------------------------------


def test_long_ids_and_json_lines_wrap_instead_of_scrolling(desk: Desk) -> None:
    panel = inspector(desk)
    panel.inspect(PAYMENT)
    receipt = panel.receipt_view.value
    assert panel.receipt is not None
    code = panel.receipt.authentication_code
    # The 64-character code may break anywhere, and one click selects it whole.
    cell = re.search(rf'<td style="([^"]*)">{code}</td>', receipt)
    assert cell is not None
    assert "overflow-wrap:anywhere" in cell[1]
    assert "user-select:all" in cell[1]
    assert "nowrap" not in re.sub(r"<th [^>]*>", "", receipt)
    assert "white-space:pre-wrap" in panel.shapes_view.value
    assert "<pre" in panel.shapes_view.value
    refunds = panel.refunds_view.value
    refund_id = str(panel.refunds[0].transaction_id)
    cell = re.search(rf'<td style="([^"]*)">{refund_id}</td>', refunds)
    assert cell is not None
    assert "nowrap" not in cell[1]
    assert "break-all" in cell[1]


def test_the_search_box_says_what_it_takes_in_a_line_that_fits(desk: Desk) -> None:
    """The box narrows to about 590 px in Lab at 1024 px with the file browser open, about
    95 characters of placeholder: the old 123-character one lost "or R$ amount"."""
    placeholder = inspector(desk).identifier.placeholder
    assert len(placeholder) <= 90
    for word in ("transaction id", "end-to-end id", "MED case", "name", "CPF/CNPJ", "R$ amount"):
        assert word in placeholder


@pytest.mark.parametrize("typed", ["med_3nsx8tsxeqkjyripn85qsg5", "MED_3NSX8TSXEQKJYRIPN85QSG5Z"])
def test_a_case_id_with_a_typo_shows_the_nearest_cases_payment(desk: Desk, typed: str) -> None:
    """Transaction ids with a typo found the nearest one; a MED case id with one letter
    left out found "Nothing", though the notebook promises the nearest id for any id."""
    panel = inspector(desk)
    panel.inspect(typed)
    assert panel.record is not None
    assert panel.record.transaction_id == "PIXINE90400888202601150018KYU57RIFHYF"
    status = text_of(panel.status.value)
    assert status.startswith(f"No MED case has the id “{typed}” exactly")
    assert "med_3nsx8tsxeqkjyripn85qsg57" in status
    assert "Read the id back" in status


def test_a_case_id_far_from_every_case_still_finds_nothing(desk: Desk) -> None:
    panel = inspector(desk)
    panel.inspect("med_xxx")
    assert panel.record is None
    assert text_of(panel.status.value).startswith("Nothing found for “med_xxx”")
