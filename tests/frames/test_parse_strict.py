"""The page parser never turns a type: money only from JSON integers, text only from
JSON strings, times only with an offset; every refusal is a `PageParseError`."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pixops.frames import STATEMENT_SCHEMA, PageParseError, _parse, parse_pages
from pixops.frames._schema import WIRE_RENAMES

MONEY_FIELDS = ("amount", "fee_amount", "net_amount")
_WIRE_NAMES = {frame: wire for wire, frame in WIRE_RENAMES.items()}
#: Every wire field of the declared schema that is not money: text, and the two times.
TEXT_FIELDS = tuple(
    _WIRE_NAMES.get(field.name, field.name)
    for field in STATEMENT_SCHEMA
    if _WIRE_NAMES.get(field.name, field.name) not in MONEY_FIELDS
)
#: The same without the times (which are text on the wire, but read as times).
STRING_FIELDS = tuple(name for name in TEXT_FIELDS if not name.endswith("_at"))
BASE = {
    "id": "a",
    "transaction_id": "t",
    "amount": 1,
    "fee_amount": 0,
    "net_amount": 1,
    "created_at": "2026-01-15T12:00:00.000Z",
}


def body(items: list[dict[str, Any]] | str) -> bytes:
    """A page around ``items`` (a list, or the raw JSON text of the list)."""
    data = items if isinstance(items, str) else json.dumps(items)
    return ('{"worked": true, "data": ' + data + ', "page": 1}').encode()


def raw_item(field: str, raw_value: str) -> str:
    """``BASE`` as JSON text with ``field`` set to the raw JSON text ``raw_value``."""
    parts = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in BASE.items() if k != field]
    return "[{" + ", ".join([*parts, f"{json.dumps(field)}: {raw_value}"]) + "}]"


# Several values per parsed page (one item each): as many values as 200 single-item pages
# (50 examples x 1-8 items, ~225 values, boundaries included), a quarter of the parses.
@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.integers(min_value=-(2**63), max_value=2**63 - 1), min_size=1, max_size=8),
    st.sampled_from(MONEY_FIELDS),
)
def test_any_int64_is_kept_exactly(values: list[int], field: str) -> None:
    table = parse_pages([body([BASE | {field: value} for value in values])])
    column = {"amount": "amount_base", "fee_amount": "fee_base", "net_amount": "net_base"}
    assert table.column(column[field]).to_pylist() == values
    assert table.schema == STATEMENT_SCHEMA


@settings(max_examples=100, deadline=None)
@given(
    st.one_of(
        st.floats(allow_nan=False, allow_infinity=False).map(repr),
        st.integers(min_value=-(10**6), max_value=10**6).map(lambda n: f"{n}.0"),
        st.integers(min_value=-(10**6), max_value=10**6).map(lambda n: f"{n}e0"),
        st.integers(min_value=0, max_value=10**6).map(lambda n: f"{n}E2"),
        st.integers().map(lambda n: json.dumps(str(n))),
        st.sampled_from(["true", "false", "[1]", '{"units": 1}', "NaN", "Infinity", "-Infinity"]),
        st.integers(min_value=2**63, max_value=2**80).map(str),
        st.integers(min_value=-(2**80), max_value=-(2**63) - 1).map(str),
    ),
    st.sampled_from(MONEY_FIELDS),
)
def test_money_that_is_not_a_json_integer_is_refused(raw: str, field: str) -> None:
    with pytest.raises(PageParseError, match=field):
        parse_pages([body(raw_item(field, raw))])


@pytest.mark.parametrize("field", TEXT_FIELDS)
@pytest.mark.parametrize("raw", ["12", "-1.5", "1e3", "true", "false", "[]", '{"a": "b"}'])
def test_a_text_field_that_is_not_a_json_string_is_refused(field: str, raw: str) -> None:
    with pytest.raises(PageParseError, match=field):
        parse_pages([body(raw_item(field, raw))])


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(STRING_FIELDS),
    st.one_of(
        st.integers(),
        st.floats(allow_nan=False, allow_infinity=False),
        st.booleans(),
        st.lists(st.integers(), max_size=2),
    ),
    st.sampled_from([":", " : ", ":  ", "\t:\n"]),
)
def test_non_string_text_is_refused_whatever_the_spacing(
    field: str, value: object, colon: str
) -> None:
    page = json.dumps({"worked": True, "data": [BASE | {field: value}]})
    page = page.replace(f'"{field}": ', f'"{field}"{colon}')
    with pytest.raises(PageParseError, match=field):
        parse_pages([page.encode()])


def test_a_key_written_with_escapes_is_still_checked() -> None:
    with pytest.raises(PageParseError, match="'id'"):
        parse_pages([body(raw_item("id", "5").replace('"id"', '"\\u0069d"'))])
    table = parse_pages([body(raw_item("id", '"x"').replace('"id"', '"\\u0069d"'))])
    assert table.column("id").to_pylist() == ["x"]


def test_numbers_that_look_like_text_stay_text_when_quoted() -> None:
    row = BASE | {"payer_document": "01234567890", "payer_ispb": "00000000", "tag": "true"}
    table = parse_pages([body([row])])
    assert table.column("payer_document").to_pylist() == ["01234567890"]
    assert table.column("payer_ispb").to_pylist() == ["00000000"]
    assert table.column("tag").to_pylist() == ["true"]


def test_an_unknown_object_with_a_numeric_id_is_not_mistaken_for_the_item_id() -> None:
    row = BASE | {"counterparty": {"id": 5, "status": True}, "links": [{"id": 7}]}
    table = parse_pages([body([row])])
    assert table.column("id").to_pylist() == ["a"]


@pytest.mark.parametrize(
    "page",
    [
        b'{"worked": true, "data": [],}',
        b'{"worked": true, "data": [1,]}',
        b'{"worked": true, "data": []} {"worked": true, "data": []}',
        b'{"worked": true, "data": [{"id": "\\ud800"}]}',
        b'{"worked": true, "data": [{"id": NaN}]}',
        b'{"worked": true, "data": [{"id": "a", "amount": Infinity}]}',
        b'{"worked": true, "data": "[]"}',
        b'{"worked": "true", "data": []}',
        b'{"worked": 1, "data": []}',
        b"[]",
        b"null",
    ],
)
def test_malformed_or_lax_json_is_refused(page: bytes) -> None:
    with pytest.raises(PageParseError):
        parse_pages([page])


def test_invalid_utf8_names_the_page() -> None:
    good = body([BASE])
    with pytest.raises(PageParseError, match="page 2 is not UTF-8"):
        parse_pages([good, body([BASE | {"id": "x"}]).replace(b'"x"', b'"\xff"')])


@pytest.mark.parametrize(
    "stamp",
    ["2026-01-15T12:00:00.000", "2026-01-15", "yesterday", "2026-02-30T12:00:00Z", "infinity"],
)
def test_a_time_without_an_offset_or_not_a_time_is_refused(stamp: str) -> None:
    with pytest.raises(PageParseError, match="created_at"):
        parse_pages([body([BASE | {"created_at": stamp}])])


def test_times_keep_microseconds_and_convert_offsets_to_utc() -> None:
    rows = [
        BASE | {"created_at": "2026-01-15T12:00:00.123456Z"},
        BASE | {"id": "b", "created_at": "2026-01-15T09:00:00.5-03:00"},
    ]
    stamps = parse_pages([body(rows)]).column("created_at").to_pylist()
    assert [s.isoformat() for s in stamps] == [
        "2026-01-15T12:00:00.123456+00:00",
        "2026-01-15T12:00:00.500000+00:00",
    ]


def test_errors_name_the_page() -> None:
    pages = [body([BASE]), body([BASE]), body([BASE | {"fee_amount": 0.5}])]
    with pytest.raises(PageParseError, match=r"page 3: fee_amount 0\.5"):
        parse_pages(pages)
    with pytest.raises(PageParseError, match='page 2: "worked" is not true'):
        parse_pages([body([BASE]), b'{"worked": false, "data": []}'])
    with pytest.raises(PageParseError, match="page 2, item 1: 'tag' is a JSON number"):
        parse_pages([body([BASE]), body([BASE | {"tag": 5}])])


def test_an_item_that_is_not_an_object_is_refused() -> None:
    for items in ("[null]", "[5]", '["x"]', "[[]]"):
        with pytest.raises(PageParseError):
            parse_pages([body(items)])


def test_order_is_kept_across_many_slices_and_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_parse, "SLICE_BYTES", 300)
    pages = [
        body([BASE | {"id": f"{page}-{item}", "amount": page * 10 + item} for item in range(3)])
        for page in range(400)
    ]
    # One page a batch: 100 batches (each a DuckDB query, ~9 ms) already interleave on
    # the two workers many times over; 400 cost 3.5 s of CPU for the same check.
    for batch_bytes, count in ((1, 100), (5_000, 400), (1 << 30, 400)):
        table = parse_pages(pages[:count], batch_bytes=batch_bytes)
        expected = [f"{page}-{item}" for page in range(count) for item in range(3)]
        assert table.column("id").to_pylist() == expected
        assert table.column("amount_base").to_pylist() == [
            page * 10 + item for page in range(count) for item in range(3)
        ]


def test_a_page_with_an_empty_data_list_still_has_its_checks() -> None:
    assert parse_pages([body([]), body([BASE])]).num_rows == 1
    with pytest.raises(PageParseError, match="page 1"):
        parse_pages([b'{"worked": false, "data": []}', body([BASE])])


def test_integers_beyond_float_precision_stay_exact() -> None:
    table = parse_pages([body([BASE | {"amount": 2**53 + 1, "net_amount": -(2**62) - 3}])])
    assert table.column("amount_base").to_pylist() == [2**53 + 1]
    assert table.column("net_base").to_pylist() == [-(2**62) - 3]


def test_a_batch_over_duckdbs_memory_limit_is_read_again_with_more(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pixops.frames import _page_sql

    monkeypatch.setattr(_page_sql, "MEMORY_FLOOR", 1 << 20)
    monkeypatch.setattr(_page_sql, "MEMORY_PER_BYTE", 1)
    monkeypatch.setattr(_page_sql, "MEMORY_RETRY", 64)
    monkeypatch.setattr(_parse, "_SHARED", {})  # a reader made with the limits above
    rows = [BASE | {"id": f"{n}", "description": "x" * 2_000} for n in range(1_000)]
    table = parse_pages([body(rows[start : start + 100]) for start in range(0, 1_000, 100)])
    assert table.column("id").to_pylist() == [f"{n}" for n in range(1_000)]
    (reader, _), *_ = _parse._SHARED.values()
    assert reader._limit > 64 * (1 << 20)  # it was raised for a retry


# Several values per parsed page (one item each, single-item pages among them): about as
# many values as 150 single-item pages (50 examples x 1-5 items), a third of the parses.
@settings(max_examples=50, deadline=None)
@given(
    st.sampled_from(STRING_FIELDS),
    st.lists(
        st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=30),
        min_size=1,
        max_size=5,
    ),
    st.booleans(),
)
def test_any_string_comes_back_exactly_whatever_its_escapes(
    field: str, values: list[str], ensure_ascii: bool
) -> None:
    items = [BASE | {field: value} for value in values]
    page = json.dumps({"worked": True, "data": items}, ensure_ascii=ensure_ascii)
    column = parse_pages([page.encode()]).column(field)
    assert column.to_pylist() == values


def test_escaped_and_plain_strings_in_one_batch_each_come_back_exactly() -> None:
    values = ['say "hi"', "back\\slash", "line\nbreak", "é", "😀", "plain", "", "tab\t"]
    rows = [BASE | {"id": str(n), "description": value} for n, value in enumerate(values)]
    plain = [BASE | {"id": f"p{n}", "description": f"ok {n}"} for n in range(3)]
    table = parse_pages([body(plain), body(rows), body(plain)])
    assert table.column("description").to_pylist() == [
        *(f"ok {n}" for n in range(3)),
        *values,
        *(f"ok {n}" for n in range(3)),
    ]


def test_pages_larger_than_the_reserved_batch_buffer_are_kept_whole() -> None:
    rows = [BASE | {"id": f"{n}", "description": "é" * 40_000} for n in range(10)]
    pages = [body(rows[:5]), body(rows[5:])]  # ~400 KB each, over the 256 KB of room
    for batch_bytes in (1, 1_000, 1 << 20):
        table = parse_pages(pages, batch_bytes=batch_bytes)
        assert table.column("id").to_pylist() == [f"{n}" for n in range(10)]
        assert set(table.column("description").to_pylist()) == {"é" * 40_000}


def test_the_first_refusal_in_page_order_is_reported_whichever_batch_ends_first() -> None:
    pages = [body([BASE | {"id": f"{n}"}]) for n in range(40)]
    pages[3] = body([BASE | {"fee_amount": 0.5}])
    pages[30] = body([BASE | {"tag": 5}])
    for _ in range(5):
        with pytest.raises(PageParseError, match=r"page 4: fee_amount 0\.5"):
            parse_pages(pages, batch_bytes=1)  # one page a batch, two read at once


def _breaking_off(*bodies: bytes) -> Any:
    yield from bodies
    raise ConnectionError("the service went away")


def test_a_refusal_comes_before_the_pages_breaking_off_later() -> None:
    bad = body([BASE | {"tag": 5}])
    with pytest.raises(PageParseError, match="page 2, item 1: 'tag'"):
        parse_pages(_breaking_off(body([BASE]), bad, body([BASE])), batch_bytes=1)
    with pytest.raises(ConnectionError):
        parse_pages(_breaking_off(body([BASE]), body([BASE])), batch_bytes=1)
