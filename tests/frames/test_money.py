"""Money columns for people, from integers and back to nothing but integers."""

from __future__ import annotations

from decimal import Decimal

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pixops.frames import MONEY_DTYPE, brl_text, money_column, reais_decimal
from pixops.money import parse_base

_base = st.integers(min_value=-(2**63), max_value=2**63 - 1)


def test_pt_br_text_and_decimal() -> None:
    column = money_column([12_345_600, -500, None, 1])
    assert column.dtype == MONEY_DTYPE
    assert list(brl_text(column)) == ["R$ 1.234,56", "-R$ 0,05", "", "R$ 0,0001"]
    assert list(reais_decimal(column)) == [
        Decimal("1234.5600"),
        Decimal("-0.0500"),
        None,
        Decimal("0.0001"),
    ]


@given(st.lists(_base, max_size=20))
def test_text_is_to_the_centavo_and_decimal_is_exact(values: list[int]) -> None:
    column = money_column(values)
    for text, value in zip(brl_text(column), values, strict=True):
        assert abs(parse_base(text) - value) <= 50
    assert [int(d.scaleb(4)) for d in reais_decimal(column)] == values


def test_floats_are_refused_even_when_whole() -> None:
    with pytest.raises(TypeError, match="not float64"):
        money_column(pd.Series([100.0, 200.0]))
    with pytest.raises(TypeError):
        money_column([100, 2.5])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        money_column([True])


def test_integer_series_keep_their_values() -> None:
    for dtype in ("int64", "Int64", "int64[pyarrow]"):
        column = money_column(pd.Series([2**62, -3], dtype=dtype))
        assert column.dtype == MONEY_DTYPE
        assert column.tolist() == [2**62, -3]


def test_out_of_range_is_refused() -> None:
    with pytest.raises(ValueError, match="64-bit"):
        money_column([2**63])


@given(
    st.lists(st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1)), max_size=20),
    st.integers(-1000, 1000),
)
def test_an_object_series_keeps_its_labels(values: list[int | None], offset: int) -> None:
    # The object path rebuilt the Series on 0..n-1: assigning the text back to a frame
    # with another index put each amount beside another row, or NaN.
    source = pd.Series(values, index=range(offset, offset + len(values)), dtype=object, name="v")
    for result in (money_column(source), brl_text(source), reais_decimal(source)):
        assert list(result.index) == list(source.index)
    assert money_column(source).name == "v"
    assert money_column(source, name="w").name == "w"
    assert money_column(pd.Series([1], dtype="int32"), name="w").name == "w"


def test_unsigned_amounts_past_the_signed_range_are_a_money_error() -> None:
    from pixops.money import MoneyError

    with pytest.raises(MoneyError, match="outside the signed 64-bit range"):
        money_column(pd.Series([2**63], dtype="uint64"))
    assert money_column(pd.Series([2**63 - 1], dtype="uint64")).tolist() == [2**63 - 1]
