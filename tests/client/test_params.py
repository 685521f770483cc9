"""Money and filters are checked before anything is sent."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

import pixops
from pixops.client import ArgumentError
from pixops.client._params import list_query, request_centavos
from pixops.schema import Amount


@given(st.integers(min_value=1, max_value=10**12))
def test_centavos_pass_through(amount_centavos: int) -> None:
    assert request_centavos(amount_centavos) == amount_centavos


@given(st.integers(min_value=1, max_value=10**12))
def test_reais_as_decimal_or_text_become_centavos(amount_centavos: int) -> None:
    reais = Decimal(amount_centavos).scaleb(-2)
    assert request_centavos(amount=reais) == amount_centavos
    assert request_centavos(amount=str(reais)) == amount_centavos


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_floats_are_refused_in_both_forms(value: float) -> None:
    with pytest.raises(ArgumentError):
        request_centavos(value)
    with pytest.raises(ArgumentError):
        request_centavos(amount=value)


@given(st.integers(min_value=1, max_value=10**9))
def test_an_amount_from_a_response_cannot_go_back_in(amount_base: int) -> None:
    """The 100x trap: an `Amount` (base units) given as reais or as a bare int is refused."""
    with pytest.raises(ArgumentError):
        request_centavos(amount=Amount(amount_base))
    with pytest.raises(ArgumentError):
        request_centavos(amount=amount_base)


def test_bad_amounts() -> None:
    for bad in (0, -5, True, "12", None):
        with pytest.raises(ArgumentError):
            request_centavos(bad)
    with pytest.raises(ArgumentError):
        request_centavos(10, amount=Decimal("0.10"))
    with pytest.raises(ArgumentError):
        request_centavos(amount=Decimal("0.001"))
    with pytest.raises(ArgumentError):
        request_centavos(amount="1.234")  # ambiguous: refused, never guessed
    with pytest.raises(ArgumentError):
        request_centavos(2**62)  # its base units overflow 64 bits
    assert request_centavos(required=False) is None


def test_list_filters() -> None:
    query = list_query(date_from=date(2026, 1, 1), date_to="2026-01-31", status="settled")
    # page 1 is the spec's default and is not sent; per_page always is.
    assert query == {
        "per_page": "20",
        "status": "settled",
        "date_from": "2026-01-01",
        "date_to": "2026-01-31",
    }
    assert list_query(page=2, per_page=100) == {"per_page": "100", "page": "2"}
    for bad in (
        {"per_page": 0},
        {"per_page": 101},
        {"page": 0},
        {"status": "SETTLED"},
        {"type": "boleto"},
        {"date_from": "2026-1-1"},
        {"date_from": datetime(2026, 1, 1)},
        {"date_from": "2026-01-02", "date_to": "2026-01-01"},
        {"per_page": True},
    ):
        with pytest.raises(ArgumentError):
            list_query(**bad)  # type: ignore[arg-type]


def test_text_that_cannot_travel_as_utf8_is_refused() -> None:
    client = pixops.Client("https://pix.example", "cli_x", "sk_x")
    with pytest.raises(ArgumentError, match="surrogate"):
        client.pix.cash_out(pix_key="a@b.com", amount_centavos=1, description="caf\udce9")
    with pytest.raises(ArgumentError):
        client.pix.cash_out(pix_key=5, amount_centavos=1)  # type: ignore[arg-type]
    with pytest.raises(ArgumentError):
        client.transactions.get("")
