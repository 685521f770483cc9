"""Wire models parse what the service writes, in either key case, and keep new fields."""

from __future__ import annotations

import json
from datetime import UTC
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from pydantic import TypeAdapter

from pixops import wire
from pixops.client._core import to_snake_bytes
from pixops.schema import (
    FailedInbound,
    OutboundInFlight,
    PayoutQueued,
    QrCharge,
    QrFallback,
    SettledTransaction,
    StatementItem,
    Transaction,
    transaction_shape,
)
from pixops.schema._jsonschema import PayoutResponse

amounts = st.integers(min_value=0, max_value=2**62)
texts = st.none() | st.text(max_size=30)
stamps = st.datetimes(timezones=st.just(UTC)).map(
    lambda moment: moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
)


@st.composite
def statement_items(draw: st.DrawFn) -> dict[str, Any]:
    in_flight = draw(st.booleans())
    return {
        "id": str(draw(st.uuids())),
        "transaction_id": draw(st.text(min_size=1, max_size=45)),
        "end_to_end_id": draw(texts),
        "external_id": draw(texts),
        "type": draw(st.sampled_from(["pix", "ted", "internal"])),
        "status": "pending" if in_flight else draw(st.sampled_from(["completed", "failed"])),
        "payment_status": "processing" if in_flight else "settled",
        "amount": draw(amounts),
        "fee_amount": draw(amounts),
        "net_amount": draw(amounts),
        "description": draw(st.text(max_size=140)),
        "direction": draw(st.sampled_from(["inbound", "outbound"])),
        "counterparty_name": draw(st.text(max_size=40)),
        "created_at": draw(stamps),
        "completed_at": None if in_flight else draw(stamps),
        draw(st.sampled_from(["new_field", "risk_score"])): draw(st.integers()),
    }


@given(statement_items())
def test_a_statement_item_reads_the_same_in_both_cases(item: dict[str, Any]) -> None:
    snake = StatementItem.model_validate_json(json.dumps(item))
    camel_body = json.dumps(wire.camelize_keys(item)).encode()
    from_camel = StatementItem.model_validate_json(to_snake_bytes(camel_body))
    assert from_camel == snake
    assert int(snake.amount) == item["amount"]
    assert snake.in_flight == (item["payment_status"] == "processing")
    assert snake.model_extra  # the unknown field is kept


def test_each_transaction_shape_is_recognised() -> None:
    adapter: TypeAdapter[Any] = TypeAdapter(Transaction)
    base = {
        "transaction_id": "T",
        "amount": 100,
        "fee_amount": 1,
        "net_amount": 99,
        "created_at": "2026-01-05T12:00:00.000Z",
    }
    cases = [
        (
            {"id": "a" * 32, "type": "pix", "status": "settled", "direction": "inbound"},
            SettledTransaction,
        ),
        (
            {
                "type": "pix",
                "status": "failed",
                "direction": "inbound",
                "payment_status": "failed",
                "failure_reason": "limit_exceeded",
                "started_at": "2026-01-05T12:00:00.000Z",
                "recipient": {"name": "Loja", "key": "k"},
            },
            FailedInbound,
        ),
        (
            {
                "id": "u",
                "type": "pix",
                "status": "processing",
                "payment_status": "processing",
                "direction": "outbound",
            },
            OutboundInFlight,
        ),
        ({"id": "u", "type": "pix_qrcode", "status": "pending", "direction": "credit"}, QrCharge),
        (
            {"id": "u", "type": "pix_qrcode", "status": "settled", "direction": "inbound"},
            QrFallback,
        ),
    ]
    for fields, kind in cases:
        record = adapter.validate_python({**base, **fields})
        assert type(record) is kind
        assert transaction_shape(record) == kind.shape


def test_a_queued_payout_is_its_own_type() -> None:
    body = {
        "worked": True,
        "final": False,
        "transaction_id": "PIXOUTE1",
        "end_to_end_id": "E1",
        "amount": 100,
        "fee_amount": 50,
        "net_amount": 150,
        "status": "queued",
        "detail": "queued",
        "type": "pix",
        "outbound_request_id": "A" * 32,
        "message": "retried",
        "reason_code": "DICT_CLIENT_RATE_LIMITED",
        "estimated_retry_seconds": 3,
        "queue_ttl_seconds": 7200,
    }
    assert isinstance(PayoutResponse.model_validate(body).root, PayoutQueued)


def test_a_queued_payout_needs_only_the_fields_the_spec_lists_for_it() -> None:
    # The spec's queued body has no worked, final, fees or detail: a service that sends
    # exactly it must still read as accepted-and-queued, not as a schema error.
    body = {
        "status": "queued",
        "type": "pix",
        "transaction_id": "PIXOUTE1",
        "end_to_end_id": "E1",
        "outbound_request_id": "A" * 32,
        "amount": 100,
        "message": "retried automatically",
        "estimated_retry_seconds": 3,
        "queue_ttl_seconds": 7200,
    }
    queued = PayoutResponse.model_validate(body).root
    assert isinstance(queued, PayoutQueued)
    assert (queued.fee_amount, queued.net_amount, queued.final) == (None, None, None)
    assert int(queued.amount) == 100
