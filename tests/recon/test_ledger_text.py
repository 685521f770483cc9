"""pt-BR (and other) amounts in a ledger's text: the decimal mark said by the cells."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pixops.money import MoneyError
from pixops.recon._ledger_text import (
    MixedMarksError,
    OutOfRangeError,
    amount_base,
    cell_mark,
    column_mark,
)


def _grouped(number: int, separator: str) -> str:
    return f"{number:,}".replace(",", separator)


def written(amount_base_: int, mark: str, *, group: bool, places: int) -> str:
    """``amount_base_`` as reais text with the decimal ``mark`` and ``places`` decimals."""
    sign = "-" if amount_base_ < 0 else ""
    whole, fraction = divmod(abs(amount_base_), 10_000)
    decimal, thousands = (",", ".") if mark == "comma" else (".", ",")
    digits = f"{fraction:04d}"[:places]
    integer = _grouped(whole, thousands) if group else str(whole)
    return f"{sign}{integer}{decimal}{digits}" if places else f"{sign}{integer}"


@settings(max_examples=200, deadline=None)
@given(
    reais=st.integers(-(10**12), 10**12),
    centavos=st.integers(0, 99),
    mark=st.sampled_from(["comma", "point"]),
    group=st.booleans(),
)
def test_reais_text_reads_back_exactly_with_its_mark(
    reais: int, centavos: int, mark: str, group: bool
) -> None:
    value = (abs(reais) * 100 + centavos) * 100 * (-1 if reais < 0 else 1)
    text = written(value, mark, group=group, places=2)
    assert amount_base(text, mark, 10_000) == value  # type: ignore[arg-type]
    assert amount_base(f"R$ {text}", mark, 10_000) == value  # type: ignore[arg-type]


@settings(max_examples=100, deadline=None)
@given(value=st.integers(0, 10**15), mark=st.sampled_from(["comma", "point"]))
def test_four_decimals_are_base_units_and_a_fifth_is_refused(value: int, mark: str) -> None:
    text = written(value, mark, group=True, places=4)
    assert amount_base(text, mark, 10_000) == value  # type: ignore[arg-type]
    with pytest.raises(MoneyError, match="fraction of a base unit"):
        amount_base(text + "1", mark, 10_000)  # type: ignore[arg-type]


@settings(max_examples=100, deadline=None)
@given(
    values=st.lists(st.integers(0, 10**10), min_size=1, max_size=20),
    mark=st.sampled_from(["comma", "point"]),
)
def test_a_column_with_a_decisive_cell_says_its_mark(values: list[int], mark: str) -> None:
    cells: list[str | None] = [written(v * 100, mark, group=True, places=2) for v in values]
    # Every cell with two decimals is decisive: 1.234,56 has one reading only.
    assert column_mark(cells) == mark
    # Cells that read both ways ("1.234") follow the decisive one, wherever it stands.
    assert column_mark(["1.234", None, "", *cells]) == mark


@pytest.mark.parametrize(
    ("cell", "mark"),
    [
        ("13,18", "comma"),
        ("1.234,56", "comma"),
        ("1.234.567", "comma"),
        ("1234.5", "point"),
        ("1,234.56", "point"),
        ("0.123", "point"),
        ("1.234", "either"),
        ("12,500", "either"),
        ("1234", "whole"),
        ("-R$ 5", "whole"),
        ("abc", "neither"),
        ("1 000,00", "neither"),
    ],
)
def test_each_cell_says_what_it_can(cell: str, mark: str) -> None:
    assert cell_mark(cell) == mark


def test_columns_that_say_both_marks_or_neither_are_not_guessed() -> None:
    with pytest.raises(MixedMarksError, match=r"'1\.234,56' has a decimal comma and '1,234\.56'"):
        column_mark(["1.234,56", "1,234.56"])
    assert column_mark(["1.234", "12,500"]) == "either"
    assert column_mark(["1", "22", None]) == "whole"


def test_the_mark_given_reads_what_was_ambiguous_and_refuses_the_other() -> None:
    assert amount_base("1.234", "comma", 10_000) == 12_340_000  # thousands
    assert amount_base("1.234", "point", 10_000) == 12_340  # a decimal
    with pytest.raises(MoneyError, match="decimal comma; it reads with a decimal point"):
        amount_base("1,234.56", "comma", 10_000)
    with pytest.raises(MoneyError, match="not whole"):
        amount_base("10,5", "comma", 100)  # half a centavo
    with pytest.raises(OutOfRangeError):
        amount_base("922.337.203.685.478", "comma", 10_000)
