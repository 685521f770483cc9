"""`parse_model` pauses the cyclic garbage collector only while it builds the models,
and leaves it as it found it, whatever the answer."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from pixops.client._core import parse_model
from pixops.client._errors import ResponseValidationError
from pixops.schema import Balance, StatementPage

_ROW = (
    b'{"id":"r1","transaction_id":"t1","type":"pix","status":"completed","amount":10000,'
    b'"fee_amount":100,"net_amount":9900,"direction":"inbound",'
    b'"created_at":"2026-01-15T12:00:00Z"}'
)
_PAGE = b'{"worked":true,"data":[' + b",".join([_ROW] * 3) + b'],"page":1,"per_page":100}'


@pytest.fixture
def collector_restored() -> Iterator[None]:
    was = gc.isenabled()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


class _Watching(StatementPage):
    """Notes whether the collector ran while a page was being built."""

    seen: bool | None = None

    def model_post_init(self, context: object) -> None:
        type(self).seen = gc.isenabled()


def test_the_collector_is_paused_while_the_page_is_built(collector_restored: None) -> None:
    gc.enable()
    page = parse_model(_Watching, _PAGE)
    assert _Watching.seen is False
    assert [int(row.amount) for row in page.data] == [10000] * 3
    assert gc.isenabled()


def test_a_refused_answer_still_turns_the_collector_back_on(collector_restored: None) -> None:
    gc.enable()
    with pytest.raises(ResponseValidationError, match="does not match the wire schema"):
        parse_model(Balance, b'{"worked":true,"data":{"available":"lots"}}')
    with pytest.raises(ResponseValidationError):
        parse_model(list[int], b"[1, 2.5]")
    assert gc.isenabled()


def test_a_collector_the_caller_paused_stays_paused(collector_restored: None) -> None:
    gc.disable()
    parse_model(StatementPage, _PAGE)
    with pytest.raises(ResponseValidationError):
        parse_model(Balance, b"{}")
    assert not gc.isenabled()
