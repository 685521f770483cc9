"""Tests for pixops.ids: end-to-end IDs, transaction IDs, txids and internal IDs."""

import random
import re
import uuid
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pixops import ids
from pixops.ids import IdError

# Enough examples to find boundary cases, few enough to keep the suite fast; no
# deadline, because a loaded machine must not turn a slow example into a failure.
PROPERTY = settings(max_examples=50, deadline=None)

ISPBS = st.text(alphabet="0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=8, max_size=8)
NUMERIC_ISPBS = st.text(alphabet="0123456789", min_size=8, max_size=8)
OFFSETS = st.integers(min_value=-23 * 60 - 59, max_value=23 * 60 + 59).map(
    lambda minutes: timezone(timedelta(minutes=minutes))
)
MOMENTS = st.datetimes(
    min_value=datetime(2000, 1, 2), max_value=datetime(2099, 12, 30), timezones=OFFSETS
)
SEEDS = st.integers(min_value=0, max_value=2**64)
ALNUM = st.text(alphabet="abcXYZ019", min_size=0, max_size=40)

AT = datetime(2024, 3, 5, 14, 7, 33, tzinfo=UTC)
# A strict ID written by hand: ISPB 00000000 (Banco do Brasil), 2024-03-05 14:07 UTC.
STRICT = "E00000000202403051407" + "aB3dE5fG7hJ"


def loose(tail_length: int, *, prefix: str = "E", ispb: str = "12345678") -> str:
    return prefix + ispb + "a1" * (tail_length // 2) + "Z" * (tail_length % 2)


# --- generated end-to-end IDs -----------------------------------------------------------


@PROPERTY
@given(ispb=ISPBS, at=MOMENTS, seed=SEEDS)
def test_new_end_to_end_id_is_strict_and_parts_round_trip(
    ispb: str, at: datetime, seed: int
) -> None:
    value = ids.new_end_to_end_id(ispb, at, random.Random(seed))
    assert len(value) == 32
    assert ids.is_strict_end_to_end_id(value)
    parts = ids.end_to_end_parts(value)
    assert parts.prefix == "E"
    assert parts.ispb == ispb
    assert parts.created_minute == at.astimezone(UTC).replace(second=0, microsecond=0)
    assert parts.created_minute.tzinfo == UTC
    assert re.fullmatch(r"[a-zA-Z0-9]{11}", parts.tail)
    minute = f"{parts.created_minute:%Y%m%d%H%M}"
    assert parts.prefix + parts.ispb + minute + parts.tail == value


@PROPERTY
@given(ispb=NUMERIC_ISPBS, at=MOMENTS, seed=SEEDS)
def test_generated_ids_with_numeric_ispb_pass_the_loose_rule(
    ispb: str, at: datetime, seed: int
) -> None:
    assert ids.is_end_to_end_id(ids.new_end_to_end_id(ispb, at, random.Random(seed)))
    return_id = ids.new_return_id(ispb, at, random.Random(seed))
    assert ids.is_end_to_end_id(return_id, prefixes="D")
    assert not ids.is_end_to_end_id(return_id)


@PROPERTY
@given(ispb=ISPBS, at=MOMENTS, seed=SEEDS)
def test_return_id_is_the_same_layout_with_d(ispb: str, at: datetime, seed: int) -> None:
    value = ids.new_return_id(ispb, at, random.Random(seed))
    assert value[0] == "D"
    assert value == ids.new_end_to_end_id(ispb, at, random.Random(seed), prefix="D")
    assert value[1:] == ids.new_end_to_end_id(ispb, at, random.Random(seed))[1:]
    assert ids.is_strict_end_to_end_id(value, prefixes="D")
    assert not ids.is_strict_end_to_end_id(value)  # default prefixes is "E"
    assert ids.end_to_end_parts(value).prefix == "D"


@PROPERTY
@given(seed=SEEDS)
def test_generation_is_deterministic_per_seed(seed: int) -> None:
    first = ids.new_end_to_end_id("00000000", AT, random.Random(seed))
    assert first == ids.new_end_to_end_id("00000000", AT, random.Random(seed))


def test_generators_never_touch_the_global_random() -> None:
    random.seed(1234)
    state = random.getstate()
    rng = random.Random(7)
    ids.new_end_to_end_id("00000000", AT, rng)
    ids.new_return_id("00000000", AT, rng)
    ids.new_charge_txid(rng)
    ids.new_hex_id(rng)
    ids.new_outbound_request_id(rng)
    ids.new_prefixed_id("evt_", rng)
    assert random.getstate() == state


def test_a_refused_call_draws_nothing_from_the_rng() -> None:
    rng = random.Random(1)
    with pytest.raises(IdError):
        ids.new_end_to_end_id("bad", AT, rng)
    assert ids.new_hex_id(rng) == ids.new_hex_id(random.Random(1))


def test_minute_is_taken_in_utc() -> None:
    sao_paulo = timezone(timedelta(hours=-3))
    at = datetime(2024, 12, 31, 22, 30, 59, tzinfo=sao_paulo)  # 2025-01-01 01:30 UTC
    value = ids.new_end_to_end_id("60701190", at, random.Random(0))
    assert value[9:21] == "202501010130"


def test_naive_datetime_is_refused() -> None:
    with pytest.raises(IdError, match="timezone-aware"):
        ids.new_end_to_end_id("00000000", datetime(2024, 1, 1), random.Random(0))
    with pytest.raises(IdError, match="timezone-aware"):
        ids.derive_end_to_end_id(
            "00000000", amount_centavos=1, pix_key="k", merchant_id="m", at=datetime(2024, 1, 1)
        )


@pytest.mark.parametrize("ispb", ["", "0000000", "000000000", "0000000a", "0000 000", "٠٠٠٠٠٠٠٠"])
def test_bad_ispb_is_refused(ispb: str) -> None:
    with pytest.raises(IdError, match="ISPB"):
        ids.new_end_to_end_id(ispb, AT, random.Random(0))


def test_bad_prefix_is_refused() -> None:
    with pytest.raises(IdError, match="prefix"):
        ids.new_end_to_end_id("00000000", AT, random.Random(0), prefix="X")  # type: ignore[arg-type]


# --- derived end-to-end IDs -------------------------------------------------------------


def derive(
    *,
    ispb: str = "00000000",
    amount: int = 1050,
    key: str = "fulano@example.com",
    merchant: str = "m_1",
    at: datetime = AT,
) -> str:
    return ids.derive_end_to_end_id(
        ispb, amount_centavos=amount, pix_key=key, merchant_id=merchant, at=at
    )


def test_derive_pinned_vector() -> None:
    # Pinned so that a change of the derivation (which breaks idempotency across
    # versions) is a deliberate decision, not an accident.
    assert derive() == "E00000000202403051407BjTiBrmTogs"


@PROPERTY
@given(
    amount=st.integers(min_value=1, max_value=10**12),
    key=st.text(max_size=77),
    merchant=st.text(max_size=40),
    at=MOMENTS,
    seconds=st.integers(min_value=0, max_value=59),
)
def test_derive_same_inputs_same_minute_same_id(
    amount: int, key: str, merchant: str, at: datetime, seconds: int
) -> None:
    first = derive(amount=amount, key=key, merchant=merchant, at=at)
    again = derive(
        amount=amount, key=key, merchant=merchant, at=at.replace(second=seconds, microsecond=0)
    )
    assert first == again
    assert ids.is_strict_end_to_end_id(first)
    assert ids.end_to_end_parts(first).created_minute == at.astimezone(UTC).replace(
        second=0, microsecond=0
    )


@PROPERTY
@given(at=MOMENTS, shift=st.integers(min_value=1, max_value=10**6))
def test_derive_differs_in_another_minute(at: datetime, shift: int) -> None:
    later = at + timedelta(minutes=shift)
    assert derive(at=at) != derive(at=later)


@PROPERTY
@given(amount=st.integers(min_value=1, max_value=10**12), other=st.integers(1, 10**12))
def test_derive_differs_for_another_amount(amount: int, other: int) -> None:
    if amount != other:
        assert derive(amount=amount) != derive(amount=other)


@PROPERTY
@given(key=st.text(max_size=30), other=st.text(max_size=30))
def test_derive_differs_for_another_key_or_merchant(key: str, other: str) -> None:
    if key != other:
        assert derive(key=key) != derive(key=other)
        assert derive(merchant=key) != derive(merchant=other)


def test_derive_encoding_is_unambiguous() -> None:
    # The same characters split differently between key and merchant must not collide.
    assert derive(key="ab", merchant="c") != derive(key="a", merchant="bc")
    assert derive(key="", merchant="abc") != derive(key="abc", merchant="")
    assert derive(amount=11, key="1") != derive(amount=111, key="")


def test_derive_depends_on_ispb_and_uses_it() -> None:
    assert derive(ispb="60701190").startswith("E60701190")
    assert derive(ispb="60701190")[21:] != derive(ispb="60746948")[21:]


@pytest.mark.parametrize("amount", [0, -1, True, 10.5, "100"])
def test_derive_refuses_bad_amounts(amount: object) -> None:
    with pytest.raises(IdError, match="amount_centavos"):
        derive(amount=amount)  # type: ignore[arg-type]


# --- the service's loose rule -----------------------------------------------------------


def test_loose_rule_bounds_22_to_26() -> None:
    assert not ids.is_end_to_end_id(loose(21))
    assert ids.is_end_to_end_id(loose(22))
    assert ids.is_end_to_end_id(loose(24))
    assert ids.is_end_to_end_id(loose(26))
    assert not ids.is_end_to_end_id(loose(27))


@pytest.mark.parametrize(
    "value",
    [
        loose(23, ispb="1234567") + "a",  # 7 digits then a letter
        loose(23, ispb="1234567A"),  # letter in the ISPB (the published rule says digits)
        loose(23, prefix="e"),
        loose(23, prefix="X"),
        loose(23, prefix="D"),  # returns are only accepted when asked for
        loose(23) + "\n",
        loose(23) + "-",
        loose(22)[:-1] + "_",
        loose(22)[:-1] + "é",
        "",
        "E",
        None,
        12345678,
        b"E12345678" + b"a" * 23,
    ],
)
def test_loose_rule_refuses(value: object) -> None:
    assert not ids.is_end_to_end_id(value)


def test_loose_rule_prefixes() -> None:
    assert ids.is_end_to_end_id(loose(23, prefix="D"), prefixes="D")
    assert ids.is_end_to_end_id(loose(23, prefix="D"), prefixes="ED")
    assert ids.is_end_to_end_id(loose(23), prefixes="ED")
    assert not ids.is_end_to_end_id(loose(23), prefixes="D")
    assert not ids.is_end_to_end_id(loose(23), prefixes="")


def test_loose_rule_does_not_check_the_date() -> None:
    assert ids.is_end_to_end_id("E12345678" + "999999999999" + "a" * 11)


# --- the central bank's strict layout ---------------------------------------------------


def test_strict_accepts_the_hand_written_id() -> None:
    assert ids.is_strict_end_to_end_id(STRICT)
    parts = ids.end_to_end_parts(STRICT)
    assert parts == ids.EndToEndParts(
        prefix="E",
        ispb="00000000",
        created_minute=datetime(2024, 3, 5, 14, 7, tzinfo=UTC),
        tail="aB3dE5fG7hJ",
    )


def test_strict_length_is_exactly_32() -> None:
    assert len(STRICT) == 32
    assert not ids.is_strict_end_to_end_id(STRICT[:-1])
    assert not ids.is_strict_end_to_end_id(STRICT + "a")


def test_strict_accepts_alphanumeric_ispb() -> None:
    assert ids.is_strict_end_to_end_id("EAB12CD34202403051407aB3dE5fG7hJ")
    assert not ids.is_strict_end_to_end_id("Eab12cd34202403051407aB3dE5fG7hJ")


@pytest.mark.parametrize(
    ("stamp", "valid"),
    [
        ("202401010000", True),
        ("202412312359", True),
        ("202402290000", True),  # 2024 is a leap year
        ("202302290000", False),  # 2023 is not
        ("202400010000", False),  # month 0
        ("202413010000", False),  # month 13
        ("202401000000", False),  # day 0
        ("202401320000", False),  # day 32
        ("202404310000", False),  # 31 April
        ("202401012400", False),  # hour 24
        ("202401010060", False),  # minute 60
        ("000001010000", False),  # year 0
    ],
)
def test_strict_checks_the_date(stamp: str, valid: bool) -> None:
    value = "E00000000" + stamp + "aB3dE5fG7hJ"
    assert ids.is_strict_end_to_end_id(value) is valid
    # The loose rule does not look at the date.
    assert ids.is_end_to_end_id(value)


@pytest.mark.parametrize(
    "value",
    [STRICT[:21] + "aB3dE5fG7h-", STRICT + "\n", "e" + STRICT[1:], None, 1, STRICT.encode()],
)
def test_strict_refuses(value: object) -> None:
    assert not ids.is_strict_end_to_end_id(value)


def test_parts_refuse_non_strict() -> None:
    with pytest.raises(IdError):
        ids.end_to_end_parts(loose(23))
    with pytest.raises(IdError):
        ids.end_to_end_parts("E00000000202413051407aB3dE5fG7hJ")


# --- public transaction IDs -------------------------------------------------------------


def test_transaction_ids_are_prefix_plus_id_without_separator() -> None:
    return_id = "D" + STRICT[1:]
    assert ids.cash_in_transaction_id(STRICT) == "PIXIN" + STRICT
    assert ids.cash_out_transaction_id(STRICT) == "PIXOUT" + STRICT
    assert ids.refund_transaction_id(return_id) == "PIXRET" + return_id
    assert (ids.CASH_IN_PREFIX, ids.REFUND_PREFIX, ids.CASH_OUT_PREFIX) == (
        "PIXIN",
        "PIXRET",
        "PIXOUT",
    )
    # Loose-rule IDs (what a caller may send) are accepted too.
    assert ids.cash_in_transaction_id(loose(26)) == "PIXIN" + loose(26)


def test_transaction_ids_check_the_prefix_letter() -> None:
    with pytest.raises(IdError):
        ids.cash_in_transaction_id("D" + STRICT[1:])
    with pytest.raises(IdError):
        ids.cash_out_transaction_id("garbage")
    with pytest.raises(IdError):
        ids.refund_transaction_id(STRICT)


# --- charge txid ------------------------------------------------------------------------


@PROPERTY
@given(seed=SEEDS)
def test_new_charge_txid(seed: int) -> None:
    txid = ids.new_charge_txid(random.Random(seed))
    assert len(txid) == 32
    assert ids.is_charge_txid(txid)
    assert txid == ids.new_charge_txid(random.Random(seed))


def test_charge_txid_bounds_26_to_35() -> None:
    assert not ids.is_charge_txid("a" * 25)
    assert ids.is_charge_txid("a" * 26)
    assert ids.is_charge_txid("Z9" * 15)
    assert ids.is_charge_txid("a" * 35)
    assert not ids.is_charge_txid("a" * 36)


@pytest.mark.parametrize(
    "value", ["a" * 25 + "-", "a" * 25 + "_", "a" * 25 + "é", "a" * 25 + "٣", "a" * 30 + "\n", None]
)
def test_charge_txid_refuses(value: object) -> None:
    assert not ids.is_charge_txid(value)


@PROPERTY
@given(value=ALNUM)
def test_charge_txid_matches_its_regex(value: str) -> None:
    assert ids.is_charge_txid(value) == (26 <= len(value) <= 35)


# --- internal IDs -----------------------------------------------------------------------


@PROPERTY
@given(seed=SEEDS)
def test_new_hex_id_is_a_uuid4(seed: int) -> None:
    value = ids.new_hex_id(random.Random(seed))
    assert re.fullmatch(r"[0-9a-f]{32}", value)
    parsed = uuid.UUID(hex=value)
    assert parsed.version == 4
    assert parsed.variant == uuid.RFC_4122
    hyphenated = ids.hex_to_uuid(value)
    assert hyphenated == str(parsed)
    assert re.fullmatch(
        r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", hyphenated
    )
    assert hyphenated.replace("-", "") == value


def test_hex_to_uuid_known_value() -> None:
    assert ids.hex_to_uuid("123e4567e89b42d3a456426614174000") == (
        "123e4567-e89b-42d3-a456-426614174000"
    )
    assert ids.hex_to_uuid("123E4567E89B42D3A456426614174000") == (
        "123e4567-e89b-42d3-a456-426614174000"
    )


@pytest.mark.parametrize(
    "value",
    [
        "123e4567-e89b-42d3-a456-426614174000",
        "{123e4567e89b42d3a456426614174000}",
        "123e4567e89b42d3a45642661417400",
        "123e4567e89b42d3a456426614174000a",
        "123e4567e89b42d3a45642661417400g",
    ],
)
def test_hex_to_uuid_refuses(value: str) -> None:
    with pytest.raises(IdError):
        ids.hex_to_uuid(value)


@PROPERTY
@given(seed=SEEDS)
def test_new_outbound_request_id(seed: int) -> None:
    value = ids.new_outbound_request_id(random.Random(seed))
    assert re.fullmatch(r"[0-9A-F]{32}", value)


@PROPERTY
@given(seed=SEEDS, length=st.integers(min_value=1, max_value=64))
def test_new_prefixed_id(seed: int, length: int) -> None:
    value = ids.new_prefixed_id("evt_", random.Random(seed), length)
    assert re.fullmatch(rf"evt_[a-z0-9]{{{length}}}", value)
    assert re.fullmatch(r"med_[a-z0-9]{24}", ids.new_prefixed_id("med_", random.Random(seed)))


def test_new_prefixed_id_refuses_empty_length() -> None:
    with pytest.raises(IdError):
        ids.new_prefixed_id("evt_", random.Random(0), 0)
