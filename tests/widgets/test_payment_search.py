"""The one search of payments both panels use (by name, CPF/CNPJ or amount): its input
checks, the refund panel's filter to refundable payments, the count it reports."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pixops.money import format_brl
from pixops.widgets import local_time
from pixops.widgets._payment_search import amount_in, find_payments, matches_note
from tests.widgets.conftest import Desk


@pytest.fixture
def desk(reading_desk: Desk) -> Desk:
    """These tests only read the month: they share the module's desk."""
    return reading_desk


@given(st.integers(min_value=1, max_value=10**15))
def test_an_amount_typed_in_reais_is_read_exactly(amount_centavos: int) -> None:
    assert amount_in(format_brl(amount_centavos)) == amount_centavos * 100
    assert amount_in(format_brl(amount_centavos).removeprefix("R$ ")) == amount_centavos * 100


@pytest.mark.parametrize("text", ["Maria", "R$", "12abc", "1,234", "Loja 2"])
def test_text_that_is_not_an_amount_is_a_name(text: str) -> None:
    assert amount_in(text) is None


def test_a_search_needs_text_and_sensible_dates(desk: Desk) -> None:
    now = desk.now()
    with pytest.raises(ValueError, match="type a name"):
        find_payments(desk.client, "  ", date(2026, 1, 1), date(2026, 1, 2), now)
    with pytest.raises(ValueError, match="choose the dates"):
        find_payments(desk.client, "Maria", None, date(2026, 1, 2), now)
    with pytest.raises(ValueError, match="after the last"):
        find_payments(desk.client, "Maria", date(2026, 1, 3), date(2026, 1, 2), now)


def test_received_only_keeps_the_settled_payments_received(desk: Desk) -> None:
    now = desk.now()
    everything = find_payments(desk.client, "silva", date(2026, 1, 1), date(2026, 1, 31), now)
    received = find_payments(
        desk.client, "silva", date(2026, 1, 1), date(2026, 1, 31), now, received_only=True
    )
    assert 0 < received.total < everything.total
    assert {row.direction for row in everything.shown} == {"inbound", "outbound"}
    assert all(
        row.direction == "inbound" and row.payment_status == "settled" for row in received.shown
    )
    note = matches_note(received, "silva", "received payment")
    assert "received payments match; the list holds the newest 50." in note


def test_the_dates_searched_are_sao_paulo_days_as_the_list_shows_them(desk: Desk) -> None:
    """João paid at 23:24 on 15/01 in São Paulo (02:24 UTC on the 16th): a search of the
    15th finds him, and one of the 16th does not list a payment it shows as the 15th."""
    now = desk.now()
    evening = find_payments(
        desk.client, "João Almeida Martins", date(2026, 1, 15), date(2026, 1, 15), now
    )
    times = [f"{row.created_at:%Y-%m-%dT%H:%M:%S}Z" for row in evening.shown]
    assert "2026-01-16T02:24:58Z" in times
    next_day = find_payments(
        desk.client, "João Almeida Martins", date(2026, 1, 16), date(2026, 1, 16), now
    )
    assert "2026-01-16T02:24:58Z" not in [
        f"{row.created_at:%Y-%m-%dT%H:%M:%S}Z" for row in next_day.shown
    ]
    shown_days = {local_time(row.created_at)[:10] for row in next_day.shown}
    assert shown_days <= {"16/01/2026"}


@pytest.mark.parametrize("typed", ["2583883712", "258.388.371-2", "25.838.837/0001-2"])
def test_a_cpf_or_cnpj_with_a_digit_missed_says_how_many_it_has(desk: Desk, typed: str) -> None:
    """A CPF read out over the phone with a digit missed was searched as a name (or an
    amount of R$ 2.583.883.712,00) and answered "Nothing found"; support is told to check
    the number instead."""
    now = desk.now()
    with pytest.raises(ValueError, match=r"has 1[023] digits: a CPF has 11 and a CNPJ 14"):
        find_payments(desk.client, typed, date(2026, 1, 1), date(2026, 2, 12), now)


def test_a_whole_cpf_and_a_short_amount_are_still_searched(desk: Desk) -> None:
    now = desk.now()
    found = find_payments(desk.client, "258.388.371-28", date(2026, 1, 1), date(2026, 2, 12), now)
    assert found.total >= 1
    find_payments(desk.client, "1500", date(2026, 1, 1), date(2026, 2, 12), now)  # an amount


@pytest.mark.parametrize(
    ("typed", "kind"),
    [
        ("529.982.247-26", "CPF"),  # 529.982.247-25 is valid
        ("52998224724", "CPF"),
        ("11.222.333/0001-82", "CNPJ"),  # 11.222.333/0001-81 is valid
    ],
)
def test_a_document_with_wrong_check_digits_is_invalid_not_unfound(
    desk: Desk, typed: str, kind: str
) -> None:
    """The inspector said "Nothing found" of a mistyped CPF: the number is the problem."""
    mark = desk.mark()
    with pytest.raises(ValueError, match=rf"is not a valid {kind}: its check digits"):
        find_payments(desk.client, typed, date(2026, 1, 1), date(2026, 1, 31), desk.now())
    assert desk.calls_since(mark) == []


def test_a_document_of_equal_digits_is_invalid(desk: Desk) -> None:
    with pytest.raises(ValueError, match="no CPF has all its digits equal"):
        find_payments(desk.client, "111.111.111-11", date(2026, 1, 1), date(2026, 1, 2), desk.now())


def test_the_inspector_says_a_cpf_is_invalid(desk: Desk) -> None:
    from pixops.widgets import TransactionInspector

    panel = TransactionInspector(desk.client, now=desk.now)
    panel.inspect("529.982.247-26")
    assert "“529.982.247-26” is not a valid CPF: its check digits" in panel.status.value
    assert "Nothing found" not in panel.status.value
