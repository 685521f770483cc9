"""The panels' flows read the client's models, never `Any`: every field and every public
method of the flows, and the reads they make, are typed, so `mypy --strict` reports a
field renamed in the schema where a panel reads it."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from typing import Any

import pytest

from pixops import schema
from pixops.client import Client
from pixops.widgets import _reads
from pixops.widgets._base import Event
from pixops.widgets._inspector_flow import InspectorFlow, TimelineStep
from pixops.widgets._med_flow import MedFlow, Receipt, Step
from pixops.widgets._movement import Movement, movement_of
from pixops.widgets._refund_flow import RefundFlow, RefundRequest, SentCard

FLOWS = (RefundFlow, MedFlow, InspectorFlow)
RECORDS = (Movement, RefundRequest, SentCard, Step, Receipt, TimelineStep)


def _hints(target: Callable[..., object] | type) -> dict[str, object]:
    """The hints, the names imported only for type checking (the client) resolved too."""
    names = {"Client": Client, **{name: getattr(schema, name) for name in schema.__all__}}
    return typing.get_type_hints(target, localns=names, include_extras=True)


#: A webhook event is the JSON a delivery carried (`pixops.webhooks.Inbox`), not an answer
#: of the client: no model exists for it, and its fields are read as text from outside.
WEBHOOK_EVENTS = (Event, list[Event], list[Event] | None)


def _mentions_any(hint: object) -> bool:
    if hint in WEBHOOK_EVENTS:
        return False
    if hint is Any:
        return True
    return any(_mentions_any(arg) for arg in typing.get_args(hint))


@pytest.mark.parametrize("kind", FLOWS + RECORDS, ids=lambda kind: kind.__name__)
def test_no_field_of_a_flow_is_any(kind: type) -> None:
    untyped = [name for name, hint in _hints(kind).items() if _mentions_any(hint)]
    assert untyped == []


@pytest.mark.parametrize("kind", FLOWS, ids=lambda kind: kind.__name__)
def test_no_step_of_a_flow_takes_or_gives_any(kind: type) -> None:
    steps = [
        member
        for name, member in inspect.getmembers(kind, inspect.isfunction)
        if not name.startswith("__")
    ]
    assert steps
    untyped = [
        f"{step.__name__}: {name}"
        for step in steps
        for name, hint in _hints(step).items()
        if _mentions_any(hint)
    ]
    assert untyped == []


def test_the_reads_give_the_client_s_models() -> None:
    reads = [_reads.find_transactions, _reads.statement_items, _reads.refunds_between]
    reads += [_reads.cases_of, _reads.open_cases_of, _reads.received, movement_of]
    untyped = [
        f"{read.__name__}: {name}"
        for read in reads
        for name, hint in _hints(read).items()
        if _mentions_any(hint)
    ]
    assert untyped == []
    assert "Transaction" in str(_hints(_reads.find_transactions)["return"])
    assert "MedCase" in str(_hints(_reads.cases_of)["return"])
