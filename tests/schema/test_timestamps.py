"""Every timestamp of a wire model is aware and in UTC; one without its zone is refused.

pydantic's plain `datetime` took "2026-01-15T12:00:00" as a naive datetime (comparing it
with an aware one raises, subtracting a UTC day from it is silently wrong), a bare date as
naive midnight, and a JSON number as seconds since 1970.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError
from pydantic_core import SchemaValidator, core_schema

from pixops.client import ResponseValidationError
from pixops.client._core import parse_model
from pixops.schema import Balance, StatementItem
from pixops.schema._time import _WITH_OFFSET, UtcDateTime

ROW: dict[str, Any] = {
    "id": "1f0e3f6c-7c1a-4b1e-9a55-2f1f4b8e7d10",
    "transaction_id": "PIXOUTE1",
    "end_to_end_id": "E1",
    "external_id": None,
    "type": "pix",
    "status": "completed",
    "payment_status": "settled",
    "amount": 10_000,
    "fee_amount": 0,
    "net_amount": 10_000,
    "description": "",
    "direction": "outbound",
    "counterparty_name": "",
    "created_at": "2026-01-15T12:00:00.000Z",
    "completed_at": "2026-01-15T12:00:02.000Z",
}

offsets = st.integers(min_value=-14 * 60, max_value=14 * 60).map(
    lambda minutes: timezone(timedelta(minutes=minutes))
)
moments = st.datetimes(
    min_value=datetime(1990, 1, 2), max_value=datetime(2090, 1, 1), timezones=offsets
)


def _row(**changes: Any) -> bytes:
    return json.dumps({**ROW, **changes}).encode()


@given(moment=moments)
def test_any_offset_reads_as_the_same_instant_in_utc(moment: datetime) -> None:
    text = moment.isoformat(timespec="microseconds")
    item = StatementItem.model_validate_json(_row(created_at=text))
    assert item.created_at.tzinfo is UTC
    assert item.created_at == moment


@pytest.mark.parametrize(
    "value",
    ["2026-01-15T12:00:00", "2026-01-15T12:00:00.000", "2026-01-15", "1768478400", 1768478400],
)
def test_a_time_without_its_zone_is_refused(value: object) -> None:
    with pytest.raises(ResponseValidationError, match="created_at"):
        parse_model(StatementItem, _row(created_at=value))


def test_a_null_optional_time_stays_null_and_a_z_time_is_utc() -> None:
    item = StatementItem.model_validate_json(_row(completed_at=None))
    assert item.completed_at is None
    assert item.created_at == datetime(2026, 1, 15, 12, tzinfo=UTC)
    assert item.created_at.tzinfo is UTC


def test_a_naive_datetime_is_refused_in_python_too() -> None:
    body = {
        "balance": 1,
        "available_balance": 1,
        "safe_balance": 1,
        "currency": "BRL",
        "as_of": datetime(2026, 1, 15, 12),
    }
    with pytest.raises(ValueError, match="time zone"):
        Balance.model_validate(body)
    aware = Balance.model_validate({**body, "as_of": datetime(2026, 1, 15, 9, tzinfo=UTC)})
    assert aware.as_of.tzinfo is UTC


_READER = TypeAdapter(UtcDateTime)
#: What every wire time was read by before `Z` times took `datetime.fromisoformat`:
#: pydantic-core's own parse, then moved to UTC.
_GENERAL = SchemaValidator(
    core_schema.chain_schema(
        [
            core_schema.str_schema(pattern=f"^(?:{_WITH_OFFSET})$"),
            core_schema.datetime_schema(),
        ]
    )
)


@st.composite
def wire_texts(draw: st.DrawFn) -> str:
    """Texts of the wire's shape with fields in and out of range (hour 24, second 60,
    February 30, year 0, seven or more fraction digits, any offset form)."""
    year = draw(st.sampled_from(["0000", "0001", "1999", "2026", "2028", "9999"]))
    month, day = draw(st.integers(0, 13)), draw(st.integers(0, 32))
    hour, minute, second = (
        draw(st.integers(0, 25)),
        draw(st.integers(0, 61)),
        draw(st.integers(0, 61)),
    )
    text = f"{year}-{month:02d}-{day:02d}{draw(st.sampled_from('Tt '))}{hour:02d}:{minute:02d}"
    if draw(st.booleans()):
        text += f":{second:02d}"
        if draw(st.booleans()):
            text += "." + draw(st.text("0123456789", min_size=1, max_size=9))
    offset = draw(st.sampled_from(["Z", "z", "+00:00", "-0000", "+03:00", "-0330", "+1400"]))
    return text + offset


@given(text=wire_texts())
def test_a_z_time_reads_as_the_general_parse_would(text: str) -> None:
    try:
        expected: datetime | None = _GENERAL.validate_python(text).astimezone(UTC)
    except (ValidationError, OverflowError):  # OverflowError: before year 1 in UTC
        expected = None
    if expected is None:
        with pytest.raises(ValidationError, match="must carry its time zone"):
            _READER.validate_json(json.dumps(text))
        return
    got = _READER.validate_json(json.dumps(text))
    assert got == expected
    assert got.tzinfo is UTC
    assert (got.microsecond, got.utcoffset()) == (expected.microsecond, timedelta(0))


@pytest.mark.parametrize("value", ["0001-01-01T00:00:00+03:00", "9999-12-31T23:59:59-03:00"])
def test_a_time_outside_what_utc_can_hold_is_refused_in_words(value: str) -> None:
    # Moved to UTC, these fall before year 1 or after 9999: an OverflowError escaped
    # pydantic as a traceback before; now it is the model's one-line refusal.
    with pytest.raises(ResponseValidationError, match="created_at"):
        parse_model(StatementItem, _row(created_at=value))
