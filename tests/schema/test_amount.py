"""`Amount`: an int of base units that says what it is."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from pixops import money
from pixops.schema import Amount, Balance

INT64 = st.integers(min_value=-(2**63), max_value=2**63 - 1)


@given(INT64)
def test_int_is_base_units_and_the_views_agree(amount_base: int) -> None:
    amount = Amount(amount_base)
    assert int(amount) == amount.base == amount_base
    assert amount.reais == Decimal(amount_base) / 10_000
    assert amount.format() == money.format_brl_base(amount_base)
    if amount_base % 100 == 0:
        assert amount.centavos * 100 == amount_base
    else:
        with pytest.raises(money.MoneyError):
            _ = amount.centavos


def test_pt_br_formatting_and_repr() -> None:
    amount = Amount(1_234_567_800)
    assert amount.format() == "R$ 123.456,78"
    assert "R$ 123.456,78" in repr(amount)
    assert "1234567800 base units" in repr(amount)
    assert Amount(40).format() == "R$ 0,0040"  # never reads as zero
    assert Amount(1_305).format() == "R$ 0,1305"  # no non-zero digit hidden
    assert Amount(1_300).format() == "R$ 0,13"
    assert "R$ 0,4940" in repr(Amount(4_940))
    assert "R$ 123.456,78" in amount._repr_html_()


@given(INT64)
def test_parsed_from_json_integers_only(amount_base: int) -> None:
    adapter = TypeAdapter(Amount)
    parsed = adapter.validate_json(str(amount_base))
    assert isinstance(parsed, Amount)
    assert parsed == amount_base
    assert adapter.dump_json(parsed) == str(amount_base).encode()


@pytest.mark.parametrize("bad", ["1.5", "1.0", '"100"', "true", "null", str(2**63)])
def test_floats_strings_and_overflow_are_refused(bad: str) -> None:
    with pytest.raises(ValidationError):
        TypeAdapter(Amount).validate_json(bad)


def test_models_keep_unknown_fields_and_render_cards() -> None:
    balance = Balance.model_validate_json(
        b'{"balance":10000,"available_balance":10000,"safe_balance":10000,"currency":"BRL",'
        b'"as_of":"2026-01-05T12:00:00.000Z","new_figure":7}'
    )
    assert balance.model_extra == {"new_figure": 7}
    card = balance._repr_html_()
    assert "R$ 1,00" in card
    assert "new_figure" in card
