"""Tests for pixops.money: exact amounts, units, parsing and formatting."""

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pixops.money import (
    CENTAVO_IN_BASE,
    INT64_MAX,
    INT64_MIN,
    MoneyError,
    base_to_centavos,
    centavos_to_base,
    check_int64,
    format_brl,
    format_brl_base,
    format_brl_display,
    parse_base,
    parse_centavos,
)

int64s = st.integers(min_value=INT64_MIN, max_value=INT64_MAX)
# Centavo amounts whose base-unit value still fits in int64.
MIN_CONVERTIBLE = -92233720368547758
MAX_CONVERTIBLE = 92233720368547758
convertible_centavos = st.integers(min_value=MIN_CONVERTIBLE, max_value=MAX_CONVERTIBLE)


# --- constants and check_int64 ---------------------------------------------------------


def test_constants_are_exact() -> None:
    assert CENTAVO_IN_BASE == 100
    assert INT64_MAX == 9223372036854775807
    assert INT64_MIN == -9223372036854775808


@pytest.mark.parametrize("value", [0, 1, -1, INT64_MAX, INT64_MIN])
def test_check_int64_returns_value_in_range(value: int) -> None:
    assert check_int64(value) == value


@pytest.mark.parametrize("value", [INT64_MAX + 1, INT64_MIN - 1, 2**64, -(2**64)])
def test_check_int64_rejects_out_of_range(value: int) -> None:
    with pytest.raises(MoneyError, match="64-bit"):
        check_int64(value)


@pytest.mark.parametrize("value", [True, False, 1.0, "1", Decimal(1), None])
def test_check_int64_rejects_non_int(value: object) -> None:
    with pytest.raises(MoneyError, match="must be an int"):
        check_int64(value)  # type: ignore[arg-type]


def test_money_error_is_value_error() -> None:
    assert issubclass(MoneyError, ValueError)


# --- unit conversion --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("centavos", "base"),
    [
        (0, 0),
        (1, 100),
        (-1, -100),
        (100, 10000),
        (123456, 12345600),
        (MAX_CONVERTIBLE, 9223372036854775800),
        (MIN_CONVERTIBLE, -9223372036854775800),
    ],
)
def test_centavos_to_base_vectors(centavos: int, base: int) -> None:
    assert centavos_to_base(centavos) == base
    assert base_to_centavos(base) == centavos


@pytest.mark.parametrize("centavos", [MAX_CONVERTIBLE + 1, MIN_CONVERTIBLE - 1, INT64_MAX])
def test_centavos_to_base_rejects_overflow(centavos: int) -> None:
    with pytest.raises(MoneyError, match="64-bit"):
        centavos_to_base(centavos)


@pytest.mark.parametrize("base", [1, 50, 99, 101, 150, -1, -50, -150, INT64_MAX, INT64_MIN])
def test_base_to_centavos_rejects_fractions(base: int) -> None:
    with pytest.raises(MoneyError, match="whole number of centavos"):
        base_to_centavos(base)


@pytest.mark.parametrize("value", [True, 1.0, "100", INT64_MAX + 1])
def test_conversions_reject_bad_input(value: object) -> None:
    with pytest.raises(MoneyError):
        centavos_to_base(value)  # type: ignore[arg-type]
    with pytest.raises(MoneyError):
        base_to_centavos(value)  # type: ignore[arg-type]


@given(int64s)
def test_centavos_properties(centavos: int) -> None:
    """Conversion, formatting and parsing agree for any int64 count of centavos."""
    assert parse_centavos(format_brl(centavos)) == centavos
    assert parse_centavos(Decimal(centavos).scaleb(-2)) == centavos
    if MIN_CONVERTIBLE <= centavos <= MAX_CONVERTIBLE:
        base = centavos_to_base(centavos)
        assert base == centavos * 100
        assert base_to_centavos(base) == centavos
        assert format_brl_base(base) == format_brl(centavos)
        assert parse_base(format_brl(centavos)) == base
    else:
        with pytest.raises(MoneyError):
            centavos_to_base(centavos)


@given(int64s)
def test_base_properties(base: int) -> None:
    """Formatting and parsing agree for any int64 count of base units."""
    assert parse_base(format_brl_base(base)) == base
    assert parse_base(Decimal(base).scaleb(-4)) == base
    if base % 100 == 0:
        assert base_to_centavos(base) * 100 == base
    else:
        with pytest.raises(MoneyError):
            base_to_centavos(base)


# --- formatting -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("centavos", "text"),
    [
        (0, "R$ 0,00"),
        (1, "R$ 0,01"),
        (10, "R$ 0,10"),
        (99, "R$ 0,99"),
        (100, "R$ 1,00"),
        (99999, "R$ 999,99"),
        (100000, "R$ 1.000,00"),
        (123456, "R$ 1.234,56"),
        (123456789, "R$ 1.234.567,89"),
        (-1, "-R$ 0,01"),
        (-123456, "-R$ 1.234,56"),
        (INT64_MAX, "R$ 92.233.720.368.547.758,07"),
        (INT64_MIN, "-R$ 92.233.720.368.547.758,08"),
    ],
)
def test_format_brl_vectors(centavos: int, text: str) -> None:
    assert format_brl(centavos) == text


@pytest.mark.parametrize(
    ("base", "text"),
    [
        (0, "R$ 0,00"),
        (1, "R$ 0,0001"),
        (50, "R$ 0,0050"),
        (99, "R$ 0,0099"),
        (100, "R$ 0,01"),
        (101, "R$ 0,0101"),
        (10000, "R$ 1,00"),
        (12345600, "R$ 1.234,56"),
        (12345678, "R$ 1.234,5678"),
        (-50, "-R$ 0,0050"),
        (-12345600, "-R$ 1.234,56"),
        (INT64_MAX, "R$ 922.337.203.685.477,5807"),
        (INT64_MIN, "-R$ 922.337.203.685.477,5808"),
        (9223372036854775800, "R$ 922.337.203.685.477,58"),
    ],
)
def test_format_brl_base_vectors(base: int, text: str) -> None:
    assert format_brl_base(base) == text


@pytest.mark.parametrize("value", [True, 1.5, "1", INT64_MAX + 1, INT64_MIN - 1])
def test_format_rejects_bad_input(value: object) -> None:
    with pytest.raises(MoneyError):
        format_brl(value)  # type: ignore[arg-type]
    with pytest.raises(MoneyError):
        format_brl_base(value)  # type: ignore[arg-type]


# --- parsing: accepted forms ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "centavos"),
    [
        ("12.34", 1234),
        ("12", 1200),
        ("0", 0),
        ("-0", 0),
        ("1234.5", 123450),
        ("1.234,56", 123456),
        ("1234,56", 123456),
        ("0,5", 50),
        ("00,50", 50),
        ("12.3400", 1234),
        ("1.234.567", 123456700),
        ("1.234.567,8", 123456780),
        ("12.345,6", 1234560),
        ("-12.34", -1234),
        ("R$ 1.234,56", 123456),
        ("R$1.234,56", 123456),
        ("R$   12", 1200),
        ("-R$ 1.234,56", -123456),
        ("  12,34  ", 1234),
        ("R$\u00a01.234,56", 123456),  # no-break space, as locale formatters write it
        ("\t-7\n", -700),
        ("92233720368547758.07", INT64_MAX),
        ("-92233720368547758.08", INT64_MIN),
        ("92.233.720.368.547.758,07", INT64_MAX),
    ],
)
def test_parse_centavos_accepts(text: str, centavos: int) -> None:
    assert parse_centavos(text) == centavos


@pytest.mark.parametrize(
    ("text", "base"),
    [
        ("12.3456", 123456),
        ("12.34", 123400),
        ("0.0001", 1),
        ("0,005", 50),
        ("0.123", 1230),  # leading zero: cannot be a thousands group
        ("1234.567", 12345670),  # four leading digits: cannot be a thousands group
        ("1.2345", 12345),
        ("1,2340", 12340),
        ("1.234,5678", 12345678),
        ("R$ 0,0050", 50),
        ("922337203685477.5807", INT64_MAX),
        ("-922337203685477.5808", INT64_MIN),
    ],
)
def test_parse_base_accepts(text: str, base: int) -> None:
    assert parse_base(text) == base


@pytest.mark.parametrize("value", [0, 1, -1, 1234, INT64_MAX, INT64_MIN])
def test_parse_int_is_already_in_target_unit(value: int) -> None:
    assert parse_centavos(value) == value
    assert parse_base(value) == value


@pytest.mark.parametrize(
    ("value", "centavos", "base"),
    [
        (Decimal("12.34"), 1234, 123400),
        (Decimal("12.3400"), 1234, 123400),
        (Decimal("-0.01"), -1, -100),
        (Decimal("1E+2"), 10000, 1000000),
        (Decimal("0E-30"), 0, 0),
        (Decimal("-0"), 0, 0),
        (Decimal("92233720368547758.07"), INT64_MAX, None),
        (Decimal("-92233720368547758.08"), INT64_MIN, None),
        (Decimal("922337203685477.5807"), None, INT64_MAX),
    ],
)
def test_parse_decimal(value: Decimal, centavos: int | None, base: int | None) -> None:
    if centavos is not None:
        assert parse_centavos(value) == centavos
    if base is not None:
        assert parse_base(value) == base


@given(st.integers(min_value=0, max_value=10**15), st.integers(min_value=0, max_value=99))
def test_parse_centavos_of_plain_text(reais: int, cents: int) -> None:
    expected = reais * 100 + cents
    assert parse_centavos(f"{reais}.{cents:02d}") == expected
    assert parse_centavos(f"{reais},{cents:02d}") == expected
    assert parse_centavos(f"-{reais}.{cents:02d}") == -expected


# --- parsing: refused input -------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["1.234", "1,234", "12.345", "123.456", "-1.234", "R$ 1.234", "12.340", "999,999"],
)
def test_parse_refuses_ambiguous_thousands(text: str) -> None:
    with pytest.raises(MoneyError, match="ambiguous"):
        parse_centavos(text)
    with pytest.raises(MoneyError, match="ambiguous"):
        parse_base(text)


@pytest.mark.parametrize("text", ["1,234.56", "1,234,567.89", "12,34.5"])
def test_parse_refuses_us_grouping(text: str) -> None:
    with pytest.raises(MoneyError, match="US-style"):
        parse_centavos(text)


@pytest.mark.parametrize(
    "text",
    [
        "abc",
        "12.",
        ".5",
        ",5",
        "5,",
        "+1",
        "--1",
        "- 1",
        "R$",
        "-",
        "R$ -1",
        "12,34,56",
        "1.23.45",
        "1.234.56",
        "1.2345,6",
        "12e3",
        "0x10",
        "NaN",
        "Infinity",
        "\u0661\u0662",  # Arabic-Indic digits
        "\uff11\uff12",  # full-width digits
        "1_000",
        "12.34.",
    ],
)
def test_parse_refuses_garbage(text: str) -> None:
    with pytest.raises(MoneyError, match="supported format") as info:
        parse_centavos(text)
    assert repr(text) in str(info.value)


@pytest.mark.parametrize("text", ["1 234", "1 000,00", "12\u00a0345.5", "-R$ 1\u202f000"])
def test_parse_refuses_thousands_grouped_by_spaces_saying_how_to_write_them(text: str) -> None:
    with pytest.raises(MoneyError, match="groups thousands with spaces") as info:
        parse_centavos(text)
    assert "'1.000,00'" in str(info.value)


@pytest.mark.parametrize("text", ["", "   ", "\n"])
def test_parse_refuses_empty(text: str) -> None:
    with pytest.raises(MoneyError, match="empty"):
        parse_centavos(text)


def test_parse_refuses_very_long_text() -> None:
    with pytest.raises(MoneyError, match="too long"):
        parse_centavos("1" * 65)


@pytest.mark.parametrize("text", ["0.001", "0,0050", "1.234,567", "1,2340", "1234.567"])
def test_parse_centavos_refuses_fractions_of_centavos(text: str) -> None:
    with pytest.raises(MoneyError, match="whole number of centavos"):
        parse_centavos(text)


@pytest.mark.parametrize("text", ["0.00001", "0,00005", "1.2345,6"])
def test_parse_base_refuses_fractions_of_base_units(text: str) -> None:
    with pytest.raises(MoneyError):
        parse_base(text)


@pytest.mark.parametrize(
    "text",
    ["92233720368547758.08", "-92233720368547758.09", "99999999999999999999", "1" + "0" * 40],
)
def test_parse_centavos_refuses_out_of_range_text(text: str) -> None:
    with pytest.raises(MoneyError, match="64-bit"):
        parse_centavos(text)


@pytest.mark.parametrize("text", ["922337203685477.5808", "-922337203685477.5809"])
def test_parse_base_refuses_out_of_range_text(text: str) -> None:
    with pytest.raises(MoneyError, match="64-bit"):
        parse_base(text)


@pytest.mark.parametrize(
    "value",
    [
        Decimal("92233720368547758.08"),
        Decimal("-92233720368547758.09"),
        Decimal("1E+30"),
        Decimal("1E+999999"),
    ],
)
def test_parse_centavos_refuses_out_of_range_decimal(value: Decimal) -> None:
    with pytest.raises(MoneyError, match="64-bit"):
        parse_centavos(value)


@pytest.mark.parametrize(
    "value", [Decimal("0.001"), Decimal("1E-30"), Decimal("1E-999999"), Decimal("12.345")]
)
def test_parse_centavos_refuses_inexact_decimal(value: Decimal) -> None:
    with pytest.raises(MoneyError, match="whole number of centavos"):
        parse_centavos(value)


@pytest.mark.parametrize(
    "value", [Decimal("NaN"), Decimal("-NaN"), Decimal("sNaN"), Decimal("Infinity")]
)
def test_parse_refuses_non_finite_decimal(value: Decimal) -> None:
    with pytest.raises(MoneyError, match="finite"):
        parse_centavos(value)


@pytest.mark.parametrize("value", [INT64_MAX + 1, INT64_MIN - 1])
def test_parse_refuses_out_of_range_int(value: int) -> None:
    with pytest.raises(MoneyError, match="64-bit"):
        parse_centavos(value)
    with pytest.raises(MoneyError, match="64-bit"):
        parse_base(value)


@pytest.mark.parametrize("value", [1.5, 0.1, 12.0, float("nan"), float("inf")])
def test_parse_refuses_float(value: float) -> None:
    with pytest.raises(MoneyError, match="float"):
        parse_centavos(value)  # type: ignore[arg-type]
    with pytest.raises(MoneyError, match="float"):
        parse_base(value)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [True, False])
def test_parse_refuses_bool(value: bool) -> None:
    with pytest.raises(MoneyError, match="bool"):
        parse_centavos(value)


@pytest.mark.parametrize("value", [None, b"12", [12], object()])
def test_parse_refuses_other_types(value: object) -> None:
    with pytest.raises(MoneyError, match="must be str, Decimal or int"):
        parse_centavos(value)  # type: ignore[arg-type]


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_parse_never_accepts_any_float(value: float) -> None:
    with pytest.raises(MoneyError):
        parse_centavos(value)  # type: ignore[arg-type]


@given(st.text(max_size=30))
def test_parse_raises_only_money_error(text: str) -> None:
    try:
        result = parse_base(text)
    except MoneyError:
        return
    assert INT64_MIN <= result <= INT64_MAX


# --- the one rule for showing money ------------------------------------------------


@given(int64s)
def test_shown_money_reads_back_to_the_exact_base_units(base: int) -> None:
    assert parse_base(format_brl_base(base)) == base


@given(int64s, int64s)
def test_two_amounts_that_look_equal_are_equal(first: int, second: int) -> None:
    assert (format_brl_base(first) == format_brl_base(second)) == (first == second)


@given(int64s)
def test_shown_money_has_two_decimals_or_four_never_a_hidden_digit(base: int) -> None:
    decimals = format_brl_base(base).rpartition(",")[2]
    assert len(decimals) == (2 if base % CENTAVO_IN_BASE == 0 else 4)


@given(convertible_centavos)
def test_centavos_are_shown_as_the_same_amount_in_base_units(centavos: int) -> None:
    assert format_brl(centavos) == format_brl_base(centavos_to_base(centavos))


@pytest.mark.parametrize(
    ("base", "text"),
    [
        (1_305, "R$ 0,1305"),
        (1_300, "R$ 0,13"),
        (12_345_000, "R$ 1.234,50"),
        (12_315_961_1745, "R$ 12.315.961,1745"),
        (-4_950, "-R$ 0,4950"),
        (40, "R$ 0,0040"),
        (0, "R$ 0,00"),
    ],
)
def test_shown_money_vectors(base: int, text: str) -> None:
    assert format_brl_base(base) == text


def test_the_display_name_is_the_one_rule() -> None:
    assert format_brl_display is format_brl_base
