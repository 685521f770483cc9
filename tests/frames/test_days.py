"""Business days in a zone versus the API's UTC days: both ends of the range."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pixops.frames import day_window, parse_day, parse_tz

SP = ZoneInfo("America/Sao_Paulo")


def test_a_sao_paulo_day_spans_two_utc_days() -> None:
    window = day_window("2026-01-15", "2026-01-15", "America/Sao_Paulo")
    assert window.start_at == datetime(2026, 1, 15, 3, tzinfo=UTC)
    assert window.end_at == datetime(2026, 1, 16, 3, tzinfo=UTC)
    assert (window.date_from, window.date_to) == (date(2026, 1, 15), date(2026, 1, 16))
    assert window.tz == "America/Sao_Paulo"


def test_utc_days_by_default() -> None:
    window = day_window(date(2026, 1, 1), date(2026, 1, 31))
    assert window.start_at == datetime(2026, 1, 1, tzinfo=UTC)
    assert window.end_at == datetime(2026, 2, 1, tzinfo=UTC)
    assert (window.date_from, window.date_to) == (date(2026, 1, 1), date(2026, 1, 31))


def test_zone_east_of_utc_starts_the_day_before() -> None:
    window = day_window("2026-01-15", "2026-01-15", "Asia/Tokyo")
    assert (window.date_from, window.date_to) == (date(2026, 1, 14), date(2026, 1, 15))


@given(
    st.dates(min_value=date(2000, 1, 1), max_value=date(2090, 1, 1)),
    st.integers(min_value=0, max_value=40),
    st.sampled_from(
        ["America/Sao_Paulo", "America/Noronha", "Asia/Kolkata", "UTC", "Pacific/Kiritimati"]
    ),
)
def test_the_utc_days_cover_exactly_the_business_days(first: date, extra: int, zone: str) -> None:
    last = first + timedelta(days=extra)
    window = day_window(first, last, zone)
    tz = ZoneInfo(zone)
    assert window.start_at.astimezone(tz).date() == first
    assert (window.end_at - timedelta(microseconds=1)).astimezone(tz).date() == last
    assert window.date_from == window.start_at.date()
    assert window.date_to == (window.end_at - timedelta(microseconds=1)).date()


@pytest.mark.parametrize(
    ("start", "end", "tz", "message"),
    [
        ("2026-01-16", "2026-01-15", None, "before start"),
        ("2026-13-01", "2026-01-15", None, "YYYY-MM-DD"),
        ("15/01/2026", "2026-01-15", None, "YYYY-MM-DD"),
        (datetime(2026, 1, 15), "2026-01-15", None, "not a datetime"),
        ("2026-01-15", "2026-01-15", "Mars/Base", "unknown time zone"),
        ("2026-01-15", "2026-01-15", "", "time-zone name"),
        (20260115, "2026-01-15", None, "YYYY-MM-DD"),
    ],
)
def test_bad_arguments_are_clear_errors(
    start: object, end: object, tz: object, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        day_window(start, end, tz)  # type: ignore[arg-type]


def test_parse_day() -> None:
    assert parse_day("2026-02-28") == date(2026, 2, 28)
    with pytest.raises(ValueError, match="YYYY-MM-DD"):
        parse_day("2026-02-30")


@pytest.mark.parametrize(
    ("typed", "hint"),
    [
        ("america/sao_paulo", "did you mean 'America/Sao_Paulo'?"),
        ("America/Sao_Paolo", "did you mean 'America/Sao_Paulo'?"),
        (" America/Sao_Paulo ", "did you mean 'America/Sao_Paulo'?"),
        ("BRT", "an IANA name such as 'America/Sao_Paulo'"),
    ],
)
def test_a_mistyped_zone_is_answered_with_the_name_meant(typed: str, hint: str) -> None:
    with pytest.raises(ValueError, match=f"unknown time zone {re.escape(repr(typed))}") as error:
        parse_tz(typed)
    assert hint in str(error.value)


@given(
    st.lists(
        st.one_of(
            st.none(),
            st.datetimes(
                min_value=datetime(1900, 1, 2),
                max_value=datetime(2100, 12, 30),
                timezones=st.just(UTC),
            ),
        ),
        max_size=40,
    ),
    st.sampled_from(["America/Sao_Paulo", "America/Noronha", "Asia/Kathmandu", "Pacific/Chatham"]),
)
def test_local_dates_are_the_day_each_instant_falls_on_in_the_zone(
    instants: list[datetime | None], zone: str
) -> None:
    # Zones with daylight saving at midnight (São Paulo until 2019) and with offsets of
    # :45: each instant's day is the one zoneinfo gives it, one instant at a time.
    import pyarrow as pa

    from pixops.frames import local_dates

    column = pa.chunked_array(
        [
            pa.array(instants[:3], pa.timestamp("us", tz="UTC")),
            pa.array(instants[3:], pa.timestamp("us", tz="UTC")),
        ]
    )
    expected = [None if at is None else at.astimezone(ZoneInfo(zone)).date() for at in instants]
    days = local_dates(column, zone)
    assert days.type == pa.date32()
    assert days.to_pylist() == expected


def test_local_dates_take_only_zoned_timestamps() -> None:
    import pyarrow as pa

    from pixops.frames import local_dates

    with pytest.raises(TypeError, match="time-zone-aware timestamps"):
        local_dates(pa.array([datetime(2026, 1, 15)], pa.timestamp("us")), "America/Sao_Paulo")
    assert local_dates(pa.chunked_array([], pa.timestamp("ms", tz="UTC")), "UTC").to_pylist() == []
