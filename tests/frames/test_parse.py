"""The raw-page parser: Arrow straight from page bytes, equal to json.loads, never float."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pixops.frames import STATEMENT_SCHEMA, PageParseError, deduplicate_by_id, parse_pages

WIRE_KEYS = ("amount", "fee_amount", "net_amount")

_text = st.text(max_size=30)
_money = st.integers(min_value=-(2**63), max_value=2**63 - 1)
_moment = st.datetimes(
    min_value=datetime(2020, 1, 1), max_value=datetime(2030, 1, 1), timezones=st.just(UTC)
).map(lambda moment: moment.replace(microsecond=moment.microsecond // 1000 * 1000))


def _wire_time(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


@st.composite
def items(draw: Any) -> dict[str, Any]:
    completed = draw(st.none() | _moment)
    return {
        "id": draw(st.uuids()).hex,
        "transaction_id": draw(_text),
        "end_to_end_id": draw(_text),
        "external_id": draw(st.none() | _text),
        "type": draw(st.sampled_from(["pix", "ted", "internal"])),
        "status": draw(st.sampled_from(["completed", "pending", "rejected", "failed"])),
        "payment_status": draw(st.sampled_from(["settled", "processing", "rejected"])),
        "amount": draw(_money),
        "fee_amount": draw(_money),
        "net_amount": draw(_money),
        "description": draw(_text),
        "direction": draw(st.sampled_from(["inbound", "outbound"])),
        "counterparty_name": draw(_text),
        "recipient_key": draw(st.none() | _text),
        "payer_document": draw(st.none() | _text),
        "recipient_document": draw(st.none() | _text),
        "payer_ispb": draw(st.none() | _text),
        "payer_bank_name": draw(st.none() | _text),
        "created_at": _wire_time(draw(_moment)),
        "completed_at": _wire_time(completed),
    }


def page(rows: list[dict[str, Any]], *, indent: int | None = None) -> bytes:
    body = {"worked": True, "data": rows, "page": 1, "per_page": 100}
    return json.dumps(body, indent=indent, ensure_ascii=indent is None).encode()


def _expected(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    renamed = []
    for row in rows:
        out = {STATEMENT_SCHEMA.field(i).name: None for i in range(len(STATEMENT_SCHEMA))}
        for key, value in row.items():
            name = {"amount": "amount_base", "fee_amount": "fee_base", "net_amount": "net_base"}
            out[name.get(key, key)] = value
        for stamp in ("created_at", "completed_at"):
            if out[stamp] is not None:
                out[stamp] = datetime.fromisoformat(out[stamp].replace("Z", "+00:00"))
        renamed.append(out)
    return renamed


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(items(), max_size=5), max_size=4), st.booleans())
def test_pages_parse_to_what_json_loads_reads(
    pages: list[list[dict[str, Any]]], pretty: bool
) -> None:
    bodies = [page(rows, indent=2 if pretty else None) for rows in pages]
    table = parse_pages(bodies, batch_bytes=300)
    assert table.schema == STATEMENT_SCHEMA
    expected = _expected([row for rows in pages for row in rows])
    got = table.to_pylist()
    for row in got:
        for stamp in ("created_at", "completed_at"):
            if row[stamp] is not None:
                row[stamp] = row[stamp].astimezone(UTC)
    assert got == expected


def test_money_stays_int64_at_the_extremes() -> None:
    base = {"id": "a", "transaction_id": "t", "created_at": "2026-01-15T12:00:00.000Z"}
    rows = [base | {"amount": 2**63 - 1, "fee_amount": -(2**63), "net_amount": 0}]
    table = parse_pages([page(rows)])
    for name in ("amount_base", "fee_base", "net_base"):
        assert table.schema.field(name).type == pa.int64()
    assert table.column("amount_base").to_pylist() == [2**63 - 1]
    assert table.column("fee_base").to_pylist() == [-(2**63)]


def test_a_float_amount_is_refused() -> None:
    base = {"id": "a", "transaction_id": "t", "created_at": "2026-01-15T12:00:00.000Z"}
    with pytest.raises(PageParseError):
        parse_pages([page([base | {"amount": 10.5, "fee_amount": 0, "net_amount": 0}])])


@pytest.mark.parametrize(
    "body",
    [
        b"{not json",
        b'{"worked": true, "data": {"id": 1}}',
        b'{"worked": true}',
        b'{"worked": false, "data": []}',
        b'{"worked": true, "data": [{"id": "a", "amount": "12"}]}',
        b"   ",
        b'{"worked": true, "data": [{"id": "a"}]}',
        "não é json".encode("latin-1"),
    ],
)
def test_bad_pages_are_a_clear_error(body: bytes) -> None:
    with pytest.raises(PageParseError):
        parse_pages([body])


def test_argument_types_are_checked() -> None:
    with pytest.raises(TypeError):
        parse_pages(b'{"worked": true, "data": []}')  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        parse_pages(["text"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="batch_bytes"):
        parse_pages([], batch_bytes=0)


def test_no_pages_is_an_empty_table_of_the_schema() -> None:
    table = parse_pages([])
    assert table.num_rows == 0
    assert table.schema == STATEMENT_SCHEMA


def test_unknown_fields_are_ignored_and_missing_optionals_are_null() -> None:
    row = {"id": "a", "transaction_id": "t", "amount": 1, "fee_amount": 0, "net_amount": 1}
    row |= {"created_at": "2026-01-15T12:00:00.000Z", "tag": "x", "brand_new_field": [1, 2]}
    table = parse_pages([page([row])])
    assert table.column("tag").to_pylist() == ["x"]
    assert table.column("payer_document").to_pylist() == [None]


def test_deduplicate_keeps_the_last_state_in_first_seen_order() -> None:
    def row(ident: str, status: str, second: int) -> dict[str, Any]:
        moment = datetime(2026, 1, 15, 12, tzinfo=UTC) + timedelta(seconds=second)
        return {
            "id": ident,
            "transaction_id": ident,
            "payment_status": status,
            "amount": 1,
            "fee_amount": 0,
            "net_amount": 1,
            "created_at": _wire_time(moment),
        }

    table = parse_pages(
        [page([row("a", "processing", 1), row("b", "settled", 2)]), page([row("a", "settled", 1)])]
    )
    unique = deduplicate_by_id(table)
    assert unique.column("id").to_pylist() == ["a", "b"]
    assert unique.column("payment_status").to_pylist() == ["settled", "settled"]
    assert deduplicate_by_id(unique).equals(unique)
