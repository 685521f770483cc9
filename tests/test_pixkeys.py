"""Tests for pixops.pixkeys: key types, detection and canonical forms."""

import string
import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pixops.documents import cnpj_check_digits, cpf_check_digits
from pixops.pixkeys import (
    BRAZILIAN_AREA_CODES,
    MAX_KEY_LENGTH,
    AmbiguousPixKeyError,
    PixKeyError,
    PixKeyType,
    detect_key_type,
    is_valid_key,
    normalize_key,
    parse_key_type,
)

# Anatel's list of the 67 area codes (DDD) in use, written out flat on purpose.
ANATEL_DDDS = {
    11, 12, 13, 14, 15, 16, 17, 18, 19, 21, 22, 24, 27, 28, 31, 32, 33, 34, 35, 37, 38,
    41, 42, 43, 44, 45, 46, 47, 48, 49, 51, 53, 54, 55, 61, 62, 63, 64, 65, 66, 67, 68,
    69, 71, 73, 74, 75, 77, 79, 81, 82, 83, 84, 85, 86, 87, 88, 89, 91, 92, 93, 94, 95,
    96, 97, 98, 99,
}  # fmt: skip

EVP = "123e4567-e89b-42d3-a456-426614174000"

ddds = st.sampled_from(sorted(ANATEL_DDDS))
subscriber_digits = st.text(alphabet=string.digits, min_size=8, max_size=8)
eleven_digits = st.text(alphabet=string.digits, min_size=11, max_size=11)


# --- PixKeyType and parse_key_type --------------------------------------------------------


def test_key_type_values_match_the_service() -> None:
    assert [key_type.value for key_type in PixKeyType] == ["cpf", "cnpj", "email", "phone", "evp"]


@pytest.mark.parametrize("key_type", list(PixKeyType))
def test_parse_key_type_round_trip(key_type: PixKeyType) -> None:
    assert parse_key_type(key_type.value) is key_type
    assert parse_key_type(str(key_type)) is key_type


@pytest.mark.parametrize("value", ["CPF", "Email", " cpf", "cpf ", "", "random", "telefone"])
def test_parse_key_type_is_exact_lower_case(value: str) -> None:
    with pytest.raises(PixKeyError, match="allowed: 'cpf', 'cnpj', 'email', 'phone', 'evp'"):
        parse_key_type(value)


@pytest.mark.parametrize("value", [None, 1, b"cpf"])
def test_parse_key_type_rejects_non_str(value: object) -> None:
    with pytest.raises(PixKeyError):
        parse_key_type(value)  # type: ignore[arg-type]


def test_error_hierarchy() -> None:
    assert issubclass(PixKeyError, ValueError)
    assert issubclass(AmbiguousPixKeyError, PixKeyError)


# --- detect_key_type ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "key",
    [
        "52998224725",  # a valid CPF
        "11987654321",  # a plausible mobile number
        "12345678900",  # neither: bad CPF check digits, still ambiguous
        "00000000000",
    ],
)
def test_eleven_digits_are_always_ambiguous(key: str) -> None:
    with pytest.raises(AmbiguousPixKeyError, match="CPF or a phone"):
        detect_key_type(key)


@given(eleven_digits)
def test_any_eleven_digits_are_ambiguous(key: str) -> None:
    with pytest.raises(AmbiguousPixKeyError):
        detect_key_type(key)


@pytest.mark.parametrize(
    ("key", "key_type"),
    [
        ("+5511987654321", PixKeyType.PHONE),
        ("+5510000000000", PixKeyType.PHONE),  # shape only; normalize_key checks the DDD
        ("11222333000181", PixKeyType.CNPJ),
        ("12ABC34501DE35", PixKeyType.CNPJ),
        ("11222333000180", PixKeyType.CNPJ),  # shape only; normalize_key checks digits
        ("fulano@example.com", PixKeyType.EMAIL),
        ("Fulano@Example.COM", PixKeyType.EMAIL),
        ("a@b", PixKeyType.EMAIL),  # shape only
        (EVP, PixKeyType.EVP),
        (EVP.upper(), PixKeyType.EVP),
        ("123e4567-e89b-12d3-a456-426614174000", PixKeyType.EVP),  # shape only (version 1)
    ],
)
def test_detect_key_type(key: str, key_type: PixKeyType) -> None:
    assert detect_key_type(key) is key_type


@pytest.mark.parametrize(
    "key",
    [
        "",
        "hello",
        "5299822472",  # 10 digits
        "529982247250",  # 12 digits
        "529.982.247-25",  # punctuated CPF
        "11.222.333/0001-81",  # punctuated CNPJ
        "1122233300018",  # 13
        "112223330001810",  # 15
        "12abc34501de35",  # lower-case CNPJ is not detected as a CNPJ
        "+551198765432",  # +55 and 10 digits
        "+55119876543210",  # +55 and 12 digits
        "+5411987654321",  # another country
        "5511987654321",  # 55 without +
        "123e4567e89b42d3a456426614174000",  # UUID without hyphens
        "{123e4567-e89b-42d3-a456-426614174000}",
        " 52998224725",
    ],
)
def test_detect_key_type_refuses(key: str) -> None:
    with pytest.raises(PixKeyError, match="cannot detect") as info:
        detect_key_type(key)
    assert not isinstance(info.value, AmbiguousPixKeyError)


@pytest.mark.parametrize("value", [None, 52998224725, b"a@b.com"])
def test_detect_key_type_rejects_non_str(value: object) -> None:
    with pytest.raises(PixKeyError, match="must be a str"):
        detect_key_type(value)  # type: ignore[arg-type]


# --- normalize_key: CPF and CNPJ ----------------------------------------------------------


@pytest.mark.parametrize("key", ["52998224725", "11144477735", "12345678909"])  # domain notes
def test_normalize_cpf_key(key: str) -> None:
    assert normalize_key(key, PixKeyType.CPF) == key


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("529.982.247-25", "11 digits"),
        ("5299822472", "11 digits"),
        ("+5552998224725", "11 digits"),
        ("52998224724", "check digits"),
        ("11111111111", "equal"),
    ],
)
def test_normalize_cpf_key_refuses(key: str, message: str) -> None:
    with pytest.raises(PixKeyError, match=message):
        normalize_key(key, PixKeyType.CPF)


@pytest.mark.parametrize(
    ("key", "canonical"),
    [
        ("11222333000181", "11222333000181"),
        ("03560714000142", "03560714000142"),
        ("12ABC34501DE35", "12ABC34501DE35"),  # Receita Federal's alphanumeric example
        ("12abc34501de35", "12ABC34501DE35"),
    ],
)
def test_normalize_cnpj_key(key: str, canonical: str) -> None:
    assert normalize_key(key, PixKeyType.CNPJ) == canonical


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("11.222.333/0001-81", "without punctuation"),
        ("1122233300018", "without punctuation"),
        ("11222333000182", "check digits"),
        ("00000000000000", "equal"),
        ("12ABC34501DE3A", "without punctuation"),
    ],
)
def test_normalize_cnpj_key_refuses(key: str, message: str) -> None:
    with pytest.raises(PixKeyError, match=message):
        normalize_key(key, PixKeyType.CNPJ)


# --- normalize_key: e-mail ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "canonical"),
    [
        ("fulano@example.com", "fulano@example.com"),
        ("Fulano.De.Tal@Example.COM.BR", "fulano.de.tal@example.com.br"),
        ("a+tag@sub.example.io", "a+tag@sub.example.io"),
        ("x_y-z@a-b.co", "x_y-z@a-b.co"),
    ],
)
def test_normalize_email_key(key: str, canonical: str) -> None:
    assert normalize_key(key, PixKeyType.EMAIL) == canonical


def test_email_length_limit_is_exactly_77() -> None:
    domain = "@example.com"
    longest = "a" * (MAX_KEY_LENGTH - len(domain)) + domain
    assert len(longest) == 77
    assert normalize_key(longest, PixKeyType.EMAIL) == longest
    with pytest.raises(PixKeyError, match="at most 77"):
        normalize_key("a" + longest, PixKeyType.EMAIL)


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("fulano.example.com", "exactly one '@'"),
        ("a@@example.com", "exactly one '@'"),
        ("a@b@example.com", "exactly one '@'"),
        ("@example.com", "empty local part"),
        ("fulano@localhost", "domain with a dot"),
        ("fulano @example.com", "not a valid address"),
        ("fulano@example.com ", "not a valid address"),
        ("fulano@exa mple.com", "not a valid address"),
        ("fulano@.example.com", "not a valid address"),
        ("fulano@example..com", "not a valid address"),
        ("fulano@example.com.", "not a valid address"),
        ("fulano@-example.com", "not a valid address"),
        ("fulano@example-.com", "not a valid address"),
        ("ful(ano)@example.com", "not a valid address"),
        ("joão@example.com", "ASCII"),
        ("\u212a@example.com", "ASCII"),  # Kelvin sign lower-cases to an ASCII "k"
    ],
)
def test_normalize_email_key_refuses(key: str, message: str) -> None:
    with pytest.raises(PixKeyError, match=message):
        normalize_key(key, PixKeyType.EMAIL)


# --- normalize_key: phone -----------------------------------------------------------------


def test_area_codes_are_anatels_67() -> None:
    assert frozenset(ANATEL_DDDS) == BRAZILIAN_AREA_CODES
    assert len(BRAZILIAN_AREA_CODES) == 67


@pytest.mark.parametrize(
    ("key", "canonical"),
    [
        ("11987654321", "+5511987654321"),
        ("+5511987654321", "+5511987654321"),
        ("99912345678", "+5599912345678"),  # highest DDD
        ("+5561999999999", "+5561999999999"),
    ],
)
def test_normalize_phone_key(key: str, canonical: str) -> None:
    assert normalize_key(key, PixKeyType.PHONE) == canonical


@pytest.mark.parametrize("ddd", sorted(set(range(10, 100)) - ANATEL_DDDS))
def test_phone_key_refuses_unused_area_codes(ddd: int) -> None:
    with pytest.raises(PixKeyError, match="area code"):
        normalize_key(f"{ddd}987654321", PixKeyType.PHONE)


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("1198765432", "11 digits"),  # landline length
        ("119876543210", "11 digits"),
        ("+55 11 98765-4321", "11 digits"),
        ("(11) 98765-4321", "11 digits"),
        ("5511987654321", "11 digits"),
        ("+1 2025550123", "11 digits"),
        ("01987654321", "area code"),
        ("00987654321", "area code"),
        ("11887654321", "starting with 9"),
        ("11087654321", "starting with 9"),
    ],
)
def test_normalize_phone_key_refuses(key: str, message: str) -> None:
    with pytest.raises(PixKeyError, match=message):
        normalize_key(key, PixKeyType.PHONE)


@given(ddds, subscriber_digits, st.booleans())
def test_phone_key_properties(ddd: int, subscriber: str, with_prefix: bool) -> None:
    national = f"{ddd}9{subscriber}"
    key = "+55" + national if with_prefix else national
    canonical = normalize_key(key, PixKeyType.PHONE)
    assert canonical == "+55" + national
    assert normalize_key(canonical, PixKeyType.PHONE) == canonical
    assert detect_key_type(canonical) is PixKeyType.PHONE


# --- normalize_key: EVP -------------------------------------------------------------------


@pytest.mark.parametrize("variant", "89ab")
def test_normalize_evp_key_accepts_rfc_variants(variant: str) -> None:
    key = f"123e4567-e89b-42d3-{variant}456-426614174000"
    assert normalize_key(key, PixKeyType.EVP) == key
    assert normalize_key(key.upper(), PixKeyType.EVP) == key


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("123e4567-e89b-12d3-a456-426614174000", "version 4, got version 1"),
        ("123e4567-e89b-52d3-a456-426614174000", "version 4, got version 5"),
        ("123e4567-e89b-42d3-7456-426614174000", "variant"),
        ("123e4567-e89b-42d3-c456-426614174000", "variant"),
        ("123e4567e89b42d3a456426614174000", "must be a UUID"),
        ("{123e4567-e89b-42d3-a456-426614174000}", "must be a UUID"),
        ("123e4567-e89b-42d3-a456-42661417400g", "must be a UUID"),
        ("123e4567-e89b-42d3-a456-4266141740000", "must be a UUID"),
    ],
)
def test_normalize_evp_key_refuses(key: str, message: str) -> None:
    with pytest.raises(PixKeyError, match=message):
        normalize_key(key, PixKeyType.EVP)


@given(st.one_of(st.uuids(version=4), st.uuids()), st.booleans())
def test_evp_key_properties(value: uuid.UUID, upper: bool) -> None:
    """Any hyphenated UUID is detected as an EVP; only version 4 (RFC variant) is valid."""
    text = str(value)
    key = text.upper() if upper else text
    assert detect_key_type(key) is PixKeyType.EVP
    # UUID.version is None unless the variant is RFC 4122.
    if value.version == 4:
        assert normalize_key(key, PixKeyType.EVP) == text
        assert normalize_key(text, PixKeyType.EVP) == text
    else:
        assert not is_valid_key(key, PixKeyType.EVP)


# --- every type ---------------------------------------------------------------------------


@given(
    st.text(alphabet=string.digits, min_size=9, max_size=9),
    st.text(alphabet=string.digits + string.ascii_uppercase, min_size=12, max_size=12),
)
def test_document_keys_normalize_idempotently(cpf_body: str, cnpj_body: str) -> None:
    cpf = cpf_body + cpf_check_digits(cpf_body)
    cnpj = cnpj_body + cnpj_check_digits(cnpj_body)
    if len(set(cpf)) > 1:
        assert normalize_key(cpf, PixKeyType.CPF) == cpf
    if len(set(cnpj)) > 1:
        assert normalize_key(cnpj.lower(), PixKeyType.CNPJ) == cnpj
        assert normalize_key(cnpj, PixKeyType.CNPJ) == cnpj
        assert detect_key_type(cnpj) is PixKeyType.CNPJ


@pytest.mark.parametrize("key_type", list(PixKeyType))
def test_every_type_refuses_keys_over_77(key_type: PixKeyType) -> None:
    with pytest.raises(PixKeyError, match="at most 77"):
        normalize_key("a" * 78, key_type)


@pytest.mark.parametrize(
    ("key", "key_type", "valid"),
    [
        ("52998224725", PixKeyType.CPF, True),
        ("52998224725", PixKeyType.PHONE, False),  # DDD 52 is not in use
        ("11987654321", PixKeyType.PHONE, True),
        ("11987654321", PixKeyType.CPF, False),
        ("12ABC34501DE35", PixKeyType.CNPJ, True),
        ("fulano@example.com", PixKeyType.EMAIL, True),
        ("fulano@example.com", PixKeyType.EVP, False),
        (EVP, PixKeyType.EVP, True),
        ("", PixKeyType.EMAIL, False),
    ],
)
def test_is_valid_key(key: str, key_type: PixKeyType, valid: bool) -> None:
    assert is_valid_key(key, key_type) is valid


@pytest.mark.parametrize("value", [None, 52998224725, b"a@b.com"])
def test_non_str_key_raises(value: object) -> None:
    with pytest.raises(PixKeyError, match="must be a str"):
        normalize_key(value, PixKeyType.CPF)  # type: ignore[arg-type]
    with pytest.raises(PixKeyError, match="must be a str"):
        is_valid_key(value, PixKeyType.CPF)  # type: ignore[arg-type]


@pytest.mark.parametrize("key_type", ["CPF", "telefone", None, ["cpf"]])
def test_unknown_key_type_raises(key_type: object) -> None:
    with pytest.raises(PixKeyError, match="unknown PIX key type"):
        normalize_key("52998224725", key_type)  # type: ignore[arg-type]
    with pytest.raises(PixKeyError, match="unknown PIX key type"):
        is_valid_key("52998224725", key_type)  # type: ignore[arg-type]


def test_plain_string_key_type_works_as_its_enum_member() -> None:
    assert normalize_key("11987654321", "phone") == "+5511987654321"  # type: ignore[arg-type]
