"""InspectorFlow, the transaction inspector's steps without ipywidgets: any identifier
finds the transaction, and everything about it is read: shapes, timeline, refunds, MED
cases, receipt (drawn by `_inspector_summary` and the tables, tested here on the flow)."""

from __future__ import annotations

import html

import pytest

from pixops.webhooks import Inbox
from pixops.widgets._format import text_of, wire_json
from pixops.widgets._inspector_flow import InspectorFlow
from pixops.widgets._inspector_html import cases_html, shapes_html
from pixops.widgets._inspector_summary import receipt_html, summary_html
from pixops.widgets._inspector_tables import refund_records_table, timeline_table
from tests.widgets.conftest import Desk
from tests.widgets.test_inspector import (
    CASE,
    DISPUTED,
    EXPIRED_QR,
    FAILED_CREDIT,
    PAYOUT,
    PAYOUT_REF,
    month_inbox,
)

SHAPES_NOTE = "Times here are UTC"


@pytest.fixture
def desk(reading_desk: Desk) -> Desk:
    """These tests only read the month: they share one desk (the one that takes a
    payment has its own `fresh_desk`)."""
    return reading_desk


def inspector(desk: Desk, *, inbox: Inbox | None = None) -> InspectorFlow:
    return InspectorFlow(desk.client, desk.now, inbox)


def test_end_to_end_id_shows_the_whole_story(desk: Desk) -> None:
    panel = inspector(desk, inbox=month_inbox(desk))
    panel.inspect(DISPUTED.removeprefix("PIXIN"))
    assert panel.record is not None
    assert panel.record.transaction_id == DISPUTED
    assert "R$ 103,73" in summary_html(panel)
    assert "1037300" not in summary_html(panel)
    assert "Left to refund" in summary_html(panel)
    assert CASE in cases_html(panel.cases)
    assert "the central bank agreed with the payer" in cases_html(panel.cases)
    assert "PIXRET" in refund_records_table(panel.refunds, empty="")
    sources = [step.source for step in panel.timeline]
    assert sources[:2] == ["Transaction", "Transaction"]
    assert {"Service notice", "MED case", "Refund"} <= set(sources)
    whats = " ".join(step.what for step in panel.timeline)
    # Events and statuses read as words, never as codes.
    assert "Charge paid" in whats
    assert "MED case notified by the central bank" in whats
    assert "Refund completed (PIXRET" in whats
    # The service's second name for the same completion is not a second step.
    assert whats.count("Refund completed") == 1
    assert ": open" not in whats
    assert "opened: Fraud" in whats
    assert "closed: the central bank agreed with the payer" in whats
    assert "pix." not in whats
    assert "OPEN" not in whats
    assert "AGREED" not in whats
    # The case, opened 01:09 UTC (on a phone the hour may go under the date).
    assert "08/02/2026 22:09" in text_of(timeline_table(panel.timeline))
    assert "authentication" in receipt_html(panel).lower()


def test_every_shape_the_api_returns(desk: Desk) -> None:
    panel = inspector(desk)
    panel.inspect(DISPUTED)
    e2e = DISPUTED.removeprefix("PIXIN")
    assert list(panel.shapes) == [
        f"GET /transactions/{DISPUTED}",
        f"GET /transactions/{DISPUTED} (X-Key-Case: camelCase)",
        f"GET /transactions/e2e/{e2e}",
        "GET /statement (its row)",
        f"GET /transactions/{DISPUTED}/receipt",
    ]
    printed = html.unescape(shapes_html(SHAPES_NOTE, panel.shapes))
    for title, shape in panel.shapes.items():
        assert title in printed
        assert wire_json(shape, sort_keys=True) in printed
    # Money reads in reais, never as the wire's base units; CPFs are masked in every shape.
    assert '"amount": "R$ 103,73"' in printed
    assert "1037300" not in printed
    document = panel.record.payer_document
    assert isinstance(document, str)
    assert len(document) == 11
    assert document not in printed
    masked = f"***.{document[3:6]}.{document[6:9]}-**"
    assert f'"payer_document": "{masked}"' in printed
    assert f'"payerDocument": "{masked}"' in printed
    assert panel.shapes["GET /statement (its row)"]["status"] == "completed"
    camel = panel.shapes[f"GET /transactions/{DISPUTED} (X-Key-Case: camelCase)"]
    assert camel["transactionId"] == DISPUTED
    assert camel["amount"] == panel.record.amount  # base units either way
    assert "transaction_id" not in camel


def test_a_med_case_id_finds_its_transaction(desk: Desk) -> None:
    panel = inspector(desk)
    panel.inspect(CASE)
    assert panel.record is not None
    assert panel.record.transaction_id == DISPUTED
    assert f"Found: MED case {CASE} disputes this payment." in panel.status.text
    panel.inspect(DISPUTED)  # the payment itself: just found
    assert panel.status.text == "Found."


def test_an_external_id_finds_the_payout(desk: Desk) -> None:
    panel = inspector(desk)
    panel.inspect(PAYOUT_REF)
    assert panel.chosen == PAYOUT
    assert "R$ 4.470,64" in summary_html(panel)
    assert "sent" in summary_html(panel)
    assert f"GET /transactions/ref/{PAYOUT_REF}" in panel.shapes
    assert panel.refunds == []
    assert panel.cases == []


def test_a_tag_and_a_qr_txid_find_a_paid_charge(fresh_desk: Desk) -> None:
    desk = fresh_desk
    charge = desk.client.pix.cash_in(amount_centavos=4_990, tag="pedido-777")
    credit = desk.month.sandbox.pay_charge(charge.transaction_id)
    desk.month.sandbox.advance(10)
    panel = inspector(desk)
    panel.inspect("pedido-777")
    assert panel.chosen == credit
    assert "R$ 49,90" in summary_html(panel)
    assert "GET /transactions/tag/pedido-777" in panel.shapes
    panel.inspect(charge.transaction_id)
    assert panel.chosen == credit


def test_an_expired_qr_code_shows_its_reduced_shape(desk: Desk) -> None:
    panel = inspector(desk)
    panel.inspect(EXPIRED_QR)
    assert panel.record is not None
    assert panel.record.type == "pix_qrcode"
    assert panel.record.status == "expired"
    assert "only for settled transactions" in receipt_html(panel)


def test_a_refused_credit_shows_why(desk: Desk) -> None:
    panel = inspector(desk)
    panel.inspect(FAILED_CREDIT)
    assert "Account blocked (code AC06)" in summary_html(panel)
    assert any(step.what == "Failed: Account blocked (code AC06)" for step in panel.timeline)
    assert "only for settled transactions" in receipt_html(panel)


def test_unknown_identifiers_say_nothing_was_found(desk: Desk) -> None:
    panel = inspector(desk)
    panel.inspect(DISPUTED)
    panel.inspect("PIXINE00000000202601010000aaaaaaaaaaa")
    assert "Nothing found" in panel.status.text
    assert panel.record is None
    assert summary_html(panel) == ""
    assert panel.shapes == {}


def test_text_that_is_no_identifier_and_no_payer_finds_nothing(desk: Desk) -> None:
    panel = inspector(desk)
    panel.inspect("two words")
    assert "Nothing found" in panel.status.text
    assert "name, CPF/CNPJ or amount" in panel.status.text  # it says what was searched
    assert panel.record is None


def test_a_payer_name_finds_their_received_payments(desk: Desk) -> None:
    panel = inspector(desk)
    panel.inspect("bruno gomes freitas")
    assert panel.record is not None
    assert panel.record.counterparty_name == "Bruno Gomes Freitas"
    # Payments both ways: what was received from him, and what was sent back (a refund).
    assert "received" in " ".join(text for text, _ in panel.options)
    assert "Found." in panel.status.text
    text, transaction_id = panel.options[0]
    # The status as the Summary says it; the long id last, where a narrow list cuts it.
    assert text.endswith(f"· Settled · {transaction_id}")


def test_the_summary_and_timeline_use_words_and(desk: Desk) -> None:
    panel = inspector(desk)
    panel.inspect(DISPUTED)
    assert "PIX transfer" in summary_html(panel)
    assert ">pix<" not in summary_html(panel)


def test_inspector_only_reads(desk: Desk) -> None:
    panel = inspector(desk)
    panel.inspect(DISPUTED)
    panel.inspect(PAYOUT_REF)
    assert desk.posts() == []


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
    assert panel.record is not None, panel.status.text
    assert panel.record.transaction_id == DISPUTED


def test_a_lower_case_id_that_names_nothing_still_finds_nothing(desk: Desk) -> None:
    panel = inspector(desk)
    panel.inspect("pixine00000000202601010000aaaaaaaaaaa")
    assert "Nothing found" in panel.status.text
    assert panel.record is None


def test_a_common_name_says_the_list_is_cut(desk: Desk) -> None:
    panel = inspector(desk)
    panel.inspect("silva")
    assert len(panel.options) == 50
    assert "payments match; the list holds the newest 50." in panel.status.text


def test_a_long_paste_is_echoed_on_one_short_line(desk: Desk) -> None:
    panel = inspector(desk)
    panel.inspect("x" * 500)
    assert "Nothing found for “" + "x" * 59 + "…”" in panel.status.text
    assert "x" * 61 not in panel.status.text


def test_an_empty_identifier_is_a_sentence(desk: Desk) -> None:
    panel = inspector(desk)
    panel.inspect("   ")
    assert "Type an identifier first." in panel.status.text


def test_a_med_case_id_in_capitals_is_found(desk: Desk) -> None:
    panel = inspector(desk)
    panel.inspect(CASE.upper())
    assert panel.record is not None, panel.status.text
    assert panel.record.transaction_id == DISPUTED


def test_a_refund_reads_as_a_refund_with_its_description(desk: Desk) -> None:
    """The wire types a refund `pix`, like any transfer: the summary still says refund,
    and its description says which MED case made it."""
    panel = inspector(desk)
    panel.inspect(DISPUTED)
    refund_id = str(panel.refunds[0].transaction_id)
    panel.inspect(refund_id)
    assert panel.record is not None
    assert panel.record.type == "pix"
    assert ">PIX refund</td>" in summary_html(panel)
    assert "PIX transfer" not in summary_html(panel)
    assert "Description" in summary_html(panel)
    assert CASE in summary_html(panel)  # "Devolução MED med_…"
    assert DISPUTED in summary_html(panel)  # Refund of


def test_matches_of_a_name_search_name_the_payer(desk: Desk) -> None:
    """ "Padaria" finds several payers: each line of the list says whose payment it is."""
    panel = inspector(desk)
    panel.inspect("bruno gomes freitas")
    assert all("· Bruno Gomes Freitas ·" in text for text, _ in panel.options)
