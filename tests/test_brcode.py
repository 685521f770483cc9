"""Tests for pixops.brcode: the EMV BR Code payload of PIX.

Known-good vectors:

* CRC-16/CCITT-FALSE check value: CRC of ``123456789`` is ``0x29B1``.
* The static example of the central bank's BR Code manual and the dynamic example
  recorded in docs/domain-notes.md (section "BR Code"), both with their CRCs.
"""

import dataclasses

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from pixops import brcode
from pixops.brcode import (
    BRCode,
    BRCodeError,
    CRCMismatchError,
    TruncatedFieldError,
    UnknownLayoutError,
)

# Enough examples to find boundary cases, few enough to keep the suite fast; no
# deadline, because a loaded machine must not turn a slow example into a failure.
PROPERTY = settings(max_examples=50, deadline=None)

# The central bank's static example (domain notes, "BR Code").
STATIC = (
    "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-426655440000"
    "5204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D"
)
# The dynamic example (domain notes, "BR Code").
DYNAMIC = (
    "00020101021226700014br.gov.bcb.pix2548pix.example.com/8b3da2f39a4140d1a91abd93113bd441"
    "5204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***630464E4"
)


def text(max_size: int) -> st.SearchStrategy[str]:
    return st.text(alphabet="ABCdefXYZ 0189.-/@*ÇÃçãé", min_size=1, max_size=max_size)


ALNUM = "abcxyzABCXYZ0189"
DIGITS = "0123456789"
TXIDS = st.one_of(st.just("***"), st.text(alphabet=ALNUM, min_size=1, max_size=25))


@st.composite
def brcodes(draw: st.DrawFn) -> BRCode:
    """Valid codes; key and description sizes keep field 26 within 99 characters."""
    dynamic = draw(st.booleans())
    return BRCode(
        merchant_name=draw(text(25)),
        merchant_city=draw(text(15)),
        key=None if dynamic else draw(text(50)),
        location=draw(text(50)) if dynamic else None,
        description=draw(st.none() | text(20)),
        amount_centavos=draw(st.none() | st.integers(min_value=1, max_value=999_999_999_999)),
        txid=draw(TXIDS),
        reusable=draw(st.none() | st.booleans()),
        mcc=draw(st.text(alphabet=DIGITS, min_size=4, max_size=4)),
        currency=draw(st.sampled_from(["986", "840"])),
        country=draw(st.sampled_from(["BR", "US"])),
        postal_code=draw(st.none() | st.text(alphabet=DIGITS, min_size=1, max_size=10)),
    )


def with_crc(body: str) -> str:
    """`body` (everything before field 63) completed with a correct CRC."""
    body += "6304"
    return body + f"{brcode.crc16_ccitt_false(body.encode()):04X}"


def static_body() -> str:
    return STATIC[:-8]


# --- CRC --------------------------------------------------------------------------------


def test_crc_check_value() -> None:
    # CRC-16/CCITT-FALSE check value (catalogue of parametrised CRC algorithms).
    assert brcode.crc16_ccitt_false(b"123456789") == 0x29B1


def test_crc_of_empty_is_the_initial_value() -> None:
    assert brcode.crc16_ccitt_false(b"") == 0xFFFF


def test_crc_of_the_examples() -> None:
    assert brcode.crc16_ccitt_false(STATIC[:-4].encode()) == 0x1D3D
    assert brcode.crc16_ccitt_false(DYNAMIC[:-4].encode()) == 0x64E4


# --- the known-good examples ------------------------------------------------------------


def test_decode_static_example() -> None:
    code = brcode.decode(STATIC)
    assert code == BRCode(
        merchant_name="Fulano de Tal",
        merchant_city="BRASILIA",
        key="123e4567-e12b-12d1-a456-426655440000",
    )
    assert not code.is_dynamic


def test_decode_dynamic_example() -> None:
    code = brcode.decode(DYNAMIC)
    assert code == BRCode(
        merchant_name="Fulano de Tal",
        merchant_city="BRASILIA",
        location="pix.example.com/8b3da2f39a4140d1a91abd93113bd441",
        reusable=False,
    )
    assert code.is_dynamic


@pytest.mark.parametrize("payload", [STATIC, DYNAMIC])
def test_examples_round_trip_byte_for_byte(payload: str) -> None:
    assert brcode.encode(brcode.decode(payload)) == payload


def test_parse_fields_of_the_static_example() -> None:
    assert brcode.parse_fields(STATIC) == [
        ("00", "01"),
        ("26", "0014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-426655440000"),
        ("52", "0000"),
        ("53", "986"),
        ("58", "BR"),
        ("59", "Fulano de Tal"),
        ("60", "BRASILIA"),
        ("62", "0503***"),
        ("63", "1D3D"),
    ]


def test_encode_with_amount_description_and_postal_code() -> None:
    code = BRCode(
        merchant_name="Fulano de Tal",
        merchant_city="BRASILIA",
        key="fulano@example.com",
        description="Pedido 42",
        amount_centavos=1050,
        txid="PEDIDO42",
        reusable=True,
        postal_code="70040010",
    )
    payload = brcode.encode(code)
    assert payload == with_crc(
        "000201"
        "010211"
        "2653" + "0014br.gov.bcb.pix" + "0118fulano@example.com" + "0209Pedido 42"
        "52040000"
        "5303986"
        "540510.50"
        "5802BR"
        "5913Fulano de Tal"
        "6008BRASILIA"
        "610870040010"
        "62120508PEDIDO42"
    )
    assert brcode.decode(payload) == code


@pytest.mark.parametrize(
    ("centavos", "text"),
    [(1, "0.01"), (10, "0.10"), (100, "1.00"), (1050, "10.50"), (999_999_999_999, "9999999999.99")],
)
def test_amount_is_written_with_two_decimals(centavos: int, text: str) -> None:
    payload = brcode.encode(BRCode("N", "C", key="k", amount_centavos=centavos))
    assert ("54" + f"{len(text):02d}" + text) in payload
    assert brcode.decode(payload).amount_centavos == centavos


# --- property tests ---------------------------------------------------------------------


@PROPERTY
@given(code=brcodes())
def test_round_trip(code: BRCode) -> None:
    payload = brcode.encode(code)
    assert len(payload) <= 512
    assert brcode.decode(payload) == code
    assert brcode.encode(brcode.decode(payload)) == payload


@PROPERTY
@given(code=brcodes(), data=st.data())
def test_changing_any_one_character_fails(code: BRCode, data: st.DataObject) -> None:
    payload = brcode.encode(code)
    index = data.draw(st.integers(min_value=0, max_value=len(payload) - 1))
    # One ASCII byte for another is an 8-bit burst, which CRC-16 always detects; a
    # multi-byte character would change the byte length, which it only detects
    # with probability 1 - 2**-16.
    assume(payload[index].isascii())
    replacement = data.draw(st.characters(min_codepoint=0x20, max_codepoint=0x7E))
    assume(replacement != payload[index])
    with pytest.raises(BRCodeError):
        brcode.decode(payload[:index] + replacement + payload[index + 1 :])


@pytest.mark.parametrize("payload", [STATIC, DYNAMIC])
def test_changing_any_one_character_of_the_examples_fails(payload: str) -> None:
    for index, original in enumerate(payload):
        for replacement in "0A9z *.":
            if replacement == original:
                continue
            changed = payload[:index] + replacement + payload[index + 1 :]
            with pytest.raises(BRCodeError):
                brcode.decode(changed)


def assert_truncations_fail_precisely(payload: str) -> None:
    for end in range(len(payload)):
        with pytest.raises((TruncatedFieldError, UnknownLayoutError)) as caught:
            brcode.decode(payload[:end])
        assert str(caught.value)


@PROPERTY
@given(code=brcodes())
def test_truncation_at_every_position_is_a_precise_error(code: BRCode) -> None:
    assert_truncations_fail_precisely(brcode.encode(code))


@pytest.mark.parametrize("payload", [STATIC, DYNAMIC])
def test_truncation_of_the_examples(payload: str) -> None:
    assert_truncations_fail_precisely(payload)


# --- precise errors ---------------------------------------------------------------------


def test_crc_mismatch_names_both_values() -> None:
    with pytest.raises(CRCMismatchError, match=r"computed 1D3D.*says 1D3E"):
        brcode.decode(STATIC[:-4] + "1D3E")


def test_crc_must_be_upper_case_hex() -> None:
    with pytest.raises(BRCodeError, match="upper-case hex"):
        brcode.decode(STATIC[:-4] + "1d3d")


def test_truncated_field_names_id_and_offset() -> None:
    with pytest.raises(TruncatedFieldError, match="field 26 at offset 6 declares length 58"):
        brcode.decode(STATIC[:20])
    with pytest.raises(TruncatedFieldError, match="field 63 at offset 129"):
        brcode.decode(STATIC[:-1])
    with pytest.raises(TruncatedFieldError, match="header at offset 0"):
        brcode.decode("000")


def test_truncated_sub_field_names_its_path() -> None:
    # Field 26 declares 10 characters; inside them, sub-field 00 declares 14.
    with pytest.raises(TruncatedFieldError, match="field 26/00 at offset 10"):
        brcode.decode(with_crc("0002012610" + "0014br.gov" + static_body()[68:]))


def test_non_numeric_length() -> None:
    with pytest.raises(BRCodeError, match="field 00 at offset 0 has a non-numeric length"):
        brcode.decode("00A2" + STATIC[4:])


def test_non_numeric_field_id() -> None:
    with pytest.raises(BRCodeError, match="field ID at offset 0"):
        brcode.decode("A002" + STATIC[4:])


def test_whitespace_is_named() -> None:
    with pytest.raises(BRCodeError, match="whitespace at offset 0"):
        brcode.decode(" " + STATIC)
    with pytest.raises(BRCodeError, match="whitespace at offset 137"):
        brcode.decode(STATIC + "\n")


def test_empty_payload() -> None:
    with pytest.raises(UnknownLayoutError, match="empty"):
        brcode.decode("")


def test_crc_must_be_last() -> None:
    with pytest.raises(UnknownLayoutError, match=r"field 63 .* last, found field 62"):
        brcode.decode(static_body())
    with pytest.raises(UnknownLayoutError, match=r"field 63 .* last, found field 80"):
        brcode.decode(STATIC + "8000")


def test_field_00_must_be_first() -> None:
    body = static_body()
    swapped = body[6:68] + body[:6] + body[68:]  # field 26 before field 00
    with pytest.raises(UnknownLayoutError, match=r"field 00 .* first, found field 26"):
        brcode.decode(with_crc(swapped))


def test_payload_format_must_be_01() -> None:
    with pytest.raises(UnknownLayoutError, match="must be '01'"):
        brcode.decode(with_crc("000202" + static_body()[6:]))


@pytest.mark.parametrize(
    ("field", "start", "end"),
    [("26", 6, 68), ("52", 68, 76), ("53", 76, 83), ("58", 83, 89), ("59", 89, 106),
     ("60", 106, 118), ("62", 118, 129)],
)  # fmt: skip
def test_missing_mandatory_field(field: str, start: int, end: int) -> None:
    body = static_body()
    assert body[start : start + 2] == field
    with pytest.raises(UnknownLayoutError, match=f"mandatory field {field} is missing"):
        brcode.decode(with_crc(body[:start] + body[end:]))


def test_wrong_gui() -> None:
    body = static_body().replace("br.gov.bcb.pix", "br.gov.bcb.xyz")
    with pytest.raises(UnknownLayoutError, match=r"26/00 \(GUI\) must be 'br.gov.bcb.pix'"):
        brcode.decode(with_crc(body))


def test_missing_gui() -> None:
    body = static_body().replace("26580014br.gov.bcb.pix01", "264001")
    with pytest.raises(UnknownLayoutError, match=r"26/00 \(GUI\) is missing"):
        brcode.decode(with_crc(body))


def test_missing_txid() -> None:
    body = static_body().replace("62070503***", "62070703***")
    with pytest.raises(UnknownLayoutError, match=r"62/05 \(txid\) is missing"):
        brcode.decode(with_crc(body))


def test_duplicate_field() -> None:
    body = static_body() + "5913Fulano de Tal"
    with pytest.raises(UnknownLayoutError, match="field 59 appears twice"):
        brcode.decode(with_crc(body))


def test_both_key_and_location_is_refused_when_decoding() -> None:
    body = static_body().replace("26580014br.gov.bcb.pix0136", "26650014br.gov.bcb.pix2503a/b0136")
    with pytest.raises(BRCodeError, match="exactly one of key"):
        brcode.decode(with_crc(body))


def test_payload_over_512_characters() -> None:
    padding = ("80990000" + "x" * 95) * 4
    with pytest.raises(BRCodeError, match="more than 512"):
        brcode.decode(with_crc(static_body() + padding))


# --- what decode tolerates --------------------------------------------------------------


def test_decode_reads_amounts_without_two_decimals() -> None:
    body = static_body()
    for text, centavos in [("10", 1000), ("10.5", 1050), ("10.50", 1050), ("0.01", 1)]:
        payload = with_crc(body[:83] + f"54{len(text):02d}{text}" + body[83:])
        assert brcode.decode(payload).amount_centavos == centavos


@pytest.mark.parametrize("text", ["10.505", ".50", "10.", "1,50", "-1.00", "0.00", "0", "1e3"])
def test_decode_refuses_bad_amounts(text: str) -> None:
    body = static_body()
    with pytest.raises(BRCodeError, match="amount"):
        brcode.decode(with_crc(body[:83] + f"54{len(text):02d}{text}" + body[83:]))


def test_decode_accepts_upper_case_gui_and_unknown_fields() -> None:
    body = static_body().replace("br.gov.bcb.pix", "BR.GOV.BCB.PIX")
    body = body.replace("62070503***", "62150503***5004abcd") + "8004abcd"
    assert brcode.decode(with_crc(body)) == brcode.decode(STATIC)


def test_decode_accepts_fields_in_any_order_between_00_and_63() -> None:
    body = static_body()
    reordered = body[:6] + body[89:118] + body[6:89] + body[118:]
    assert brcode.decode(with_crc(reordered)) == brcode.decode(STATIC)


def test_initiation_values() -> None:
    body = static_body()
    assert brcode.decode(with_crc(body[:6] + "010211" + body[6:])).reusable is True
    assert brcode.decode(with_crc(body[:6] + "010212" + body[6:])).reusable is False
    with pytest.raises(BRCodeError, match="point of initiation"):
        brcode.decode(with_crc(body[:6] + "010213" + body[6:]))


def test_non_ascii_text_counts_characters_and_crc_uses_utf8() -> None:
    code = BRCode(merchant_name="José da Conceição", merchant_city="São Paulo", key="k")
    payload = brcode.encode(code)
    assert "5917José da Conceição6009São Paulo" in payload
    crc = brcode.crc16_ccitt_false(payload[:-4].encode("utf-8"))
    assert payload.endswith(f"{crc:04X}")
    assert brcode.decode(payload) == code


# --- what encode refuses ----------------------------------------------------------------

BASE = BRCode(merchant_name="Fulano de Tal", merchant_city="BRASILIA", key="k")


def test_limits_are_inclusive() -> None:
    brcode.encode(dataclasses.replace(BASE, merchant_name="N" * 25))
    brcode.encode(dataclasses.replace(BASE, merchant_city="C" * 15))
    brcode.encode(dataclasses.replace(BASE, key="k" * 77))
    brcode.encode(dataclasses.replace(BASE, txid="T" * 25))
    brcode.encode(dataclasses.replace(BASE, key="k" * 50, description="d" * 23))  # 26 = 99


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"merchant_name": "N" * 26}, "merchant_name"),
        ({"merchant_name": ""}, "merchant_name"),
        ({"merchant_city": "C" * 16}, "merchant_city"),
        ({"key": "k" * 78}, "key"),
        ({"key": ""}, "key"),
        ({"key": None}, "exactly one"),
        ({"location": "pix.example.com/x"}, "exactly one"),
        ({"key": None, "location": "https://pix.example.com/x"}, "without the scheme"),
        ({"key": "k" * 50, "description": "d" * 24}, "field 26"),
        ({"description": ""}, "description"),
        ({"amount_centavos": 0}, "positive"),
        ({"amount_centavos": -100}, "positive"),
        ({"amount_centavos": 1_000_000_000_000}, "longer than 13"),
        ({"amount_centavos": True}, "int"),
        ({"amount_centavos": 10.5}, "int"),
        ({"txid": "T" * 26}, "txid"),
        ({"txid": "PEDIDO-42"}, "txid"),
        ({"txid": ""}, "txid"),
        ({"mcc": "000"}, "mcc"),
        ({"currency": "BRL"}, "currency"),
        ({"country": "br"}, "country"),
        ({"postal_code": ""}, "postal_code"),
        ({"postal_code": "1" * 100}, "postal_code"),
    ],
)
def test_encode_refuses(changes: dict[str, object], message: str) -> None:
    with pytest.raises(BRCodeError, match=message):
        brcode.encode(dataclasses.replace(BASE, **changes))  # type: ignore[arg-type]


def bitwise_crc16_ccitt_false(data: bytes) -> int:
    """The textbook bit-at-a-time definition, independent of the implementation."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
    return crc


@given(st.binary(max_size=600))
def test_crc_matches_the_bitwise_definition(data: bytes) -> None:
    assert brcode.crc16_ccitt_false(data) == bitwise_crc16_ccitt_false(data)
