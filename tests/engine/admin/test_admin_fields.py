"""Properties of the test helpers' body reader: any input is a dict of known fields or a 400."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pixops.engine.admin import TestHelpers
from pixops.engine.admin._fields import MAX_CENTAVOS, amount_centavos, parse_body, text
from pixops.engine.http import ApiError
from pixops.sandbox import Sandbox

ALLOWED = ("amount", "payer_name", "description")
TOKEN = "adm_" + "p" * 43

# Text from every code point class, lone surrogates included.
any_text = st.text(st.characters(codec=None, exclude_categories=()), max_size=20)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | any_text,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.sampled_from((*ALLOWED, "other")) | any_text, children, max_size=4)
    ),
    max_leaves=12,
)


def encoded(value: Any) -> bytes:
    return json.dumps(value).encode("utf-8")


def outcome(action: Callable[[], Any]) -> tuple[Any, ApiError | None]:
    """What `action` returned, or the ApiError it raised (asserted on by the caller)."""
    try:
        return action(), None
    except ApiError as refusal:
        return None, refusal


@given(st.binary(max_size=200))
def test_any_bytes_give_an_object_of_known_fields_or_a_400(raw: bytes) -> None:
    parsed, refusal = outcome(lambda: parse_body(raw, ALLOWED))
    if refusal is not None:
        assert refusal.status == 400
        assert "bad_request" in refusal.body["errors"]
    else:
        assert isinstance(parsed, dict)
        assert set(parsed) <= set(ALLOWED)


@given(json_values)
def test_any_json_gives_encodable_known_fields_or_a_400(value: Any) -> None:
    parsed, refusal = outcome(lambda: parse_body(encoded(value), ALLOWED))
    if refusal is not None:
        assert refusal.status == 400
    else:
        assert set(parsed) <= set(ALLOWED)
        json.dumps(parsed, ensure_ascii=False).encode("utf-8")


@given(json_values)
def test_an_amount_is_a_bounded_integer_or_a_400(value: Any) -> None:
    amount, refusal = outcome(lambda: amount_centavos({"amount": value}, required=True))
    if refusal is not None:
        assert refusal.status == 400
    else:
        assert type(amount) is int
        assert 1 <= amount <= MAX_CENTAVOS


@given(any_text)
def test_text_is_trimmed_bounded_and_never_empty(value: str) -> None:
    shown, refusal = outcome(lambda: text({"name": value}, "name", max_chars=10))
    if refusal is not None:
        assert refusal.status == 400
    else:
        assert isinstance(shown, str)
        assert shown == shown.strip()
        assert 1 <= len(shown) <= 10


@settings(max_examples=40, deadline=None)
@given(json_values)
def test_no_body_makes_a_helper_fail_or_half_write(value: Any) -> None:
    sandbox = Sandbox()
    merchant = sandbox.create_merchant("Loja", balance_centavos=1_000)
    TestHelpers(sandbox, TOKEN).mount(sandbox.engine)
    response = sandbox.engine.handle(
        "POST",
        f"/sandbox/v1/merchants/{merchant.id}/received-pix",
        [("authorization", f"Bearer {TOKEN}"), ("content-type", "application/json")],
        encoded(value),
        "127.0.0.1",
    )
    assert response.status in (201, 400, 422), response.body
    if response.status != 201:
        assert sandbox.balance(merchant.id).ledger_base == 1_000 * 100
        assert sandbox.events(merchant.id) == []
