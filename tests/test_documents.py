"""Tests for pixops.documents: CPF and CNPJ check digits, validation and formatting."""

import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pixops.documents import (
    DocumentError,
    cnpj_check_digits,
    cpf_check_digits,
    format_cnpj,
    format_cpf,
    is_valid_cnpj,
    is_valid_cpf,
    normalize_cnpj,
    normalize_cpf,
    only_digits,
)

CNPJ_CHARS = string.digits + string.ascii_uppercase

cpf_bodies = st.text(alphabet=string.digits, min_size=9, max_size=9)
cnpj_numeric_bodies = st.text(alphabet=string.digits, min_size=12, max_size=12)
cnpj_bodies = st.text(alphabet=CNPJ_CHARS, min_size=12, max_size=12)

# Known-good documents from public sources.
VALID_CPFS = [
    "52998224725",  # widely used example CPF (domain notes)
    "11144477735",  # Receita Federal's worked example of the CPF algorithm (domain notes)
    "12345678909",  # classic example; first remainder 1 -> 0, second remainder 2 -> 9
]
VALID_CNPJS = [
    "11222333000181",  # widely used example CNPJ (domain notes)
    "03560714000142",  # domain notes
    "00000000000191",  # Banco do Brasil S.A., 00.000.000/0001-91 (public registry)
    "12ABC34501DE35",  # Receita Federal's official alphanumeric CNPJ example (July 2026 rule)
]


def reference_cpf_digits(body: str) -> str:
    """Textbook CPF rule, written independently: 11 - (sum mod 11), 10 or 11 -> 0."""
    digits = [int(char) for char in body]
    for weights in (range(10, 1, -1), range(11, 1, -1)):
        total = sum(d * w for d, w in zip(digits, weights, strict=True))
        check = 11 - total % 11
        digits.append(0 if check >= 10 else check)
    return f"{digits[-2]}{digits[-1]}"


def reference_cnpj_digits(body: str) -> str:
    """Receita Federal CNPJ rule with character value ord(c) - 48, written independently."""
    values = [ord(char) - ord("0") for char in body]
    first_weights = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]
    second_weights = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]
    for weights in (first_weights, second_weights):
        total = sum(v * w for v, w in zip(values, weights, strict=True))
        check = 11 - total % 11
        values.append(0 if check >= 10 else check)
    return f"{values[-2]}{values[-1]}"


# --- only_digits --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "digits"),
    [
        ("529.982.247-25", "52998224725"),
        ("11.222.333/0001-81", "11222333000181"),
        ("", ""),
        ("abc", ""),
        (" 1 2 3 ", "123"),
        ("\u0661\u0662\u00b2", ""),  # non-ASCII digits are not digits here
    ],
)
def test_only_digits(value: str, digits: str) -> None:
    assert only_digits(value) == digits


@given(st.text(max_size=40))
def test_only_digits_keeps_ascii_digits_in_order(value: str) -> None:
    result = only_digits(value)
    assert set(result) <= set(string.digits)
    assert result == "".join(char for char in value if char in "0123456789")
    assert only_digits(result) == result


# --- CPF ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "digits"),
    [
        ("529982247", "25"),
        ("111444777", "35"),
        ("123456789", "09"),
        # Hand-computed vectors that pin each weight and remainder boundary:
        ("000000001", "91"),  # 1*2 = 2 -> 9; then 1*3 + 9*2 = 21 -> r 10 -> 1
        ("100000000", "19"),  # 1*10 = 10 -> 1; then 1*11 + 1*2 = 13 -> r 2 -> 9
        ("000000031", "07"),  # 3*3 + 1*2 = 11 -> r 0 -> 0; then 3*4 + 1*3 = 15 -> 7
        ("000000011", "63"),  # 1*3 + 1*2 = 5 -> 6; then 1*4 + 1*3 + 6*2 = 19 -> 3
    ],
)
def test_cpf_check_digits_vectors(body: str, digits: str) -> None:
    assert cpf_check_digits(body) == digits
    assert reference_cpf_digits(body) == digits


@pytest.mark.parametrize(
    "body", ["", "12345678", "1234567890", "12345678a", "12345678 ", "١٢٣٤٥٦٧٨٩"]
)
def test_cpf_check_digits_rejects_bad_body(body: str) -> None:
    with pytest.raises(DocumentError, match="9 digits"):
        cpf_check_digits(body)


@pytest.mark.parametrize("cpf", VALID_CPFS)
def test_valid_cpfs(cpf: str) -> None:
    assert is_valid_cpf(cpf)
    assert normalize_cpf(cpf) == cpf


@pytest.mark.parametrize("digit", string.digits)
def test_all_equal_cpf_is_invalid(digit: str) -> None:
    cpf = digit * 11
    assert cpf_check_digits(cpf[:9]) == cpf[9:]  # passes the checksum ...
    assert not is_valid_cpf(cpf)  # ... but is refused by convention
    with pytest.raises(DocumentError, match="equal"):
        normalize_cpf(cpf)


@pytest.mark.parametrize(
    "value",
    [
        "529.982.247-25",  # punctuation: bare form only
        "5299822472",  # 10 digits
        "529982247250",  # 12 digits
        "52998224724",  # wrong second digit
        "52998224735",  # wrong first digit
        "",
        " 52998224725",
        "52998224725\n",
        "\uff15\uff12\uff19\uff19\uff18\uff12\uff12\uff14\uff17\uff12\uff15",  # full-width
    ],
)
def test_invalid_cpfs(value: str) -> None:
    assert not is_valid_cpf(value)


@pytest.mark.parametrize("cpf", ["52998224725", "11144477735"])  # first check digit not 0
def test_every_single_digit_change_of_known_cpfs_is_detected(cpf: str) -> None:
    for position in range(11):
        for digit in string.digits:
            if digit != cpf[position]:
                assert not is_valid_cpf(cpf[:position] + digit + cpf[position + 1 :])


@pytest.mark.parametrize(
    ("cpf", "changed"), [("12345678909", "22345678909"), ("70499962206", "80499962206")]
)
def test_cpf_checksum_blind_spot_is_the_algorithm_not_a_bug(cpf: str, changed: str) -> None:
    # Remainders 0 and 1 both give check digit 0, and the first digit's second weight
    # (11) is 0 mod 11, so changing it by one can go unnoticed: both CPFs are valid.
    assert is_valid_cpf(cpf)
    assert is_valid_cpf(changed)


@pytest.mark.parametrize(
    ("value", "bare"),
    [
        ("529.982.247-25", "52998224725"),
        ("52998224725", "52998224725"),
        ("529982247-25", "52998224725"),
        ("111.444.777-35", "11144477735"),
        ("5.2.9.9.8.2.2.4.7.2.5", "52998224725"),
    ],
)
def test_normalize_cpf(value: str, bare: str) -> None:
    assert normalize_cpf(value) == bare


@pytest.mark.parametrize(
    "value",
    [
        "529 982 247 25",
        " 529.982.247-25",
        "529.982.247/25",
        "529.982.247-24",
        "529.982.247-2",
        "111.111.111-11",
        "",
        "abc",
    ],
)
def test_normalize_cpf_rejects(value: str) -> None:
    with pytest.raises(DocumentError, match="invalid CPF"):
        normalize_cpf(value)


@pytest.mark.parametrize(
    ("value", "formatted"),
    [("52998224725", "529.982.247-25"), ("111.444.777-35", "111.444.777-35")],
)
def test_format_cpf(value: str, formatted: str) -> None:
    assert format_cpf(value) == formatted


def test_format_cpf_rejects_invalid() -> None:
    with pytest.raises(DocumentError):
        format_cpf("52998224724")


@given(cpf_bodies)
def test_cpf_properties(body: str) -> None:
    """Check digits match the reference; the result validates, normalizes and formats."""
    digits = cpf_check_digits(body)
    assert digits == reference_cpf_digits(body)
    cpf = body + digits
    all_equal = len(set(cpf)) == 1
    assert is_valid_cpf(cpf) is not all_equal
    if not all_equal:
        formatted = format_cpf(cpf)
        assert normalize_cpf(formatted) == cpf
        assert normalize_cpf(normalize_cpf(formatted)) == cpf
        assert format_cpf(formatted) == formatted


@given(cpf_bodies, st.integers(min_value=0, max_value=10), st.integers(min_value=1, max_value=9))
def test_cpf_single_digit_change(body: str, position: int, offset: int) -> None:
    """A changed check digit is always caught, and so is a changed body digit whenever
    the first check digit is not 0: remainders 2..10 give distinct digits and weights
    2..10 are invertible mod 11 (remainders 0 and 1 share the digit 0)."""
    cpf = body + cpf_check_digits(body)
    changed_digit = str((int(cpf[position]) + offset) % 10)
    changed = cpf[:position] + changed_digit + cpf[position + 1 :]
    if position >= 9 or cpf[9] != "0":
        assert not is_valid_cpf(changed)


# --- CNPJ ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "digits"),
    [
        ("112223330001", "81"),
        ("035607140001", "42"),
        ("000000000001", "91"),
        ("12ABC34501DE", "35"),
        # Hand-computed vectors that pin weights and the letter values:
        ("100000000000", "64"),  # 1*5 = 5 -> 6; then 1*6 + 6*2 = 18 -> r 7 -> 4
        ("00000000000A", "04"),  # A=17: 17*2 = 34 -> r 1 -> 0; then 17*3 = 51 -> r 7 -> 4
        ("0000000000Z0", "67"),  # Z=42: 42*3 = 126 -> r 5 -> 6; then 42*4 + 6*2 = 180 -> 7
    ],
)
def test_cnpj_check_digits_vectors(body: str, digits: str) -> None:
    assert cnpj_check_digits(body) == digits
    assert reference_cnpj_digits(body) == digits


@pytest.mark.parametrize(
    "body",
    ["", "11222333000", "1122233300011", "12abc34501de", "11222333000-", "12ABC34501DÉ"],
)
def test_cnpj_check_digits_rejects_bad_body(body: str) -> None:
    with pytest.raises(DocumentError, match="12 characters"):
        cnpj_check_digits(body)


@pytest.mark.parametrize("cnpj", VALID_CNPJS)
def test_valid_cnpjs(cnpj: str) -> None:
    assert is_valid_cnpj(cnpj)
    assert normalize_cnpj(cnpj) == cnpj


@pytest.mark.parametrize("char", string.digits)
def test_all_equal_cnpj_is_invalid(char: str) -> None:
    assert not is_valid_cnpj(char * 14)
    with pytest.raises(DocumentError):
        normalize_cnpj(char * 14)


def test_zero_body_cnpj_passes_checksum_but_is_invalid() -> None:
    assert cnpj_check_digits("0" * 12) == "00"
    with pytest.raises(DocumentError, match="equal"):
        normalize_cnpj("0" * 14)


@pytest.mark.parametrize(
    "value",
    [
        "11.222.333/0001-81",  # punctuation: bare form only
        "12abc34501de35",  # lower case: bare form is upper case
        "1122233300018",  # 13
        "112223330001810",  # 15
        "11222333000182",  # wrong second digit
        "11222333000191",  # wrong first digit
        "12ABC34501DE3A",  # check digits must be digits
        "",
    ],
)
def test_invalid_cnpjs(value: str) -> None:
    assert not is_valid_cnpj(value)


@pytest.mark.parametrize("cnpj", VALID_CNPJS)
def test_every_single_char_change_of_known_cnpjs_is_detected(cnpj: str) -> None:
    # All four have a first check digit other than 0; steps of 11, 22 or 33 are blind spots.
    for position in range(14):
        for char in CNPJ_CHARS if position < 12 else string.digits:
            if (ord(char) - ord(cnpj[position])) % 11 != 0:
                assert not is_valid_cnpj(cnpj[:position] + char + cnpj[position + 1 :])


def test_alphanumeric_cnpj_blind_spot_is_the_algorithm_not_a_bug() -> None:
    # "A" (17) -> "6" (6) is a step of 11, invisible to a mod-11 checksum.
    assert is_valid_cnpj("12ABC34501DE35")
    assert is_valid_cnpj("126BC34501DE35")


@pytest.mark.parametrize(
    ("value", "bare"),
    [
        ("11.222.333/0001-81", "11222333000181"),
        ("11222333000181", "11222333000181"),
        ("00.000.000/0001-91", "00000000000191"),
        ("12.ABC.345/01DE-35", "12ABC34501DE35"),
        ("12.abc.345/01de-35", "12ABC34501DE35"),
        ("12abc34501de35", "12ABC34501DE35"),
    ],
)
def test_normalize_cnpj(value: str, bare: str) -> None:
    assert normalize_cnpj(value) == bare


@pytest.mark.parametrize(
    "value",
    [
        "11 222 333 0001 81",
        "11.222.333/0001-82",
        "11.222.333/0001-8",
        "12.ÀBC.345/01DE-35",
        "12.\u0131BC.345/01DE-35",  # dotless i upper-cases to "I" outside ASCII rules
        "",
    ],
)
def test_normalize_cnpj_rejects(value: str) -> None:
    with pytest.raises(DocumentError, match="invalid CNPJ"):
        normalize_cnpj(value)


@pytest.mark.parametrize(
    ("value", "formatted"),
    [
        ("11222333000181", "11.222.333/0001-81"),
        ("03560714000142", "03.560.714/0001-42"),
        ("12abc34501de35", "12.ABC.345/01DE-35"),
    ],
)
def test_format_cnpj(value: str, formatted: str) -> None:
    assert format_cnpj(value) == formatted


@given(st.one_of(cnpj_numeric_bodies, cnpj_bodies), st.booleans())
def test_cnpj_properties(body: str, lower: bool) -> None:
    """Check digits match the reference; the result validates, normalizes and formats."""
    digits = cnpj_check_digits(body)
    assert digits == reference_cnpj_digits(body)
    cnpj = body + digits
    all_equal = len(set(cnpj)) == 1
    assert is_valid_cnpj(cnpj) is not all_equal
    if not all_equal:
        formatted = format_cnpj(cnpj.lower() if lower else cnpj)
        assert normalize_cnpj(formatted) == cnpj
        assert normalize_cnpj(normalize_cnpj(formatted)) == cnpj
        assert format_cnpj(formatted) == formatted


@given(
    st.one_of(cnpj_numeric_bodies, cnpj_bodies),
    st.integers(min_value=0, max_value=13),
    st.integers(min_value=1, max_value=35),
)
def test_cnpj_single_char_change(body: str, position: int, offset: int) -> None:
    """A changed check digit is always caught, and so is a changed body character
    whenever the first check digit is not 0 and the value step is not a multiple of 11.
    Values span 0..42, so "2" -> "H" (a step of 22) is invisible to any mod-11 checksum."""
    cnpj = body + cnpj_check_digits(body)
    old = cnpj[position]
    if position >= 12:
        new = str((int(old) + offset) % 10)
    else:
        new = CNPJ_CHARS[(CNPJ_CHARS.index(old) + offset) % len(CNPJ_CHARS)]
    changed = cnpj[:position] + new + cnpj[position + 1 :]
    if new == old:
        return
    if position >= 12 or (cnpj[12] != "0" and (ord(new) - ord(old)) % 11 != 0):
        assert not is_valid_cnpj(changed)


# --- wrong types --------------------------------------------------------------------------

PUBLIC_FUNCTIONS = [
    only_digits,
    cpf_check_digits,
    is_valid_cpf,
    normalize_cpf,
    format_cpf,
    cnpj_check_digits,
    is_valid_cnpj,
    normalize_cnpj,
    format_cnpj,
]


@pytest.mark.parametrize("function", PUBLIC_FUNCTIONS)
@pytest.mark.parametrize("value", [None, 52998224725, b"52998224725", ["5"]])
def test_non_str_raises_document_error(function: object, value: object) -> None:
    assert callable(function)
    with pytest.raises(DocumentError, match="must be a str"):
        function(value)


def test_document_error_is_value_error() -> None:
    assert issubclass(DocumentError, ValueError)
