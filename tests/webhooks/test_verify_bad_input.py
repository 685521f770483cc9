"""pixops.webhooks.verify and sign misused: wrong types, odd headers, bodies that are
not strict JSON. Each ends in a pixops error that says what was wrong."""

from __future__ import annotations

import base64
import json
from datetime import datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pixops.errors import PixopsError
from pixops.webhooks import (
    WebhookSetupError,
    WebhookVerificationError,
    generate_secret,
    sign,
    verify,
)

SECRET = "whsec_" + base64.b64encode(b"0123456789abcdef0123456789abcdef").decode()
NOW = 1_767_614_400
BODY = b'{"id":"evt_1","type":"pix.charge.paid","data":{"amount":100}}'


def signed(body: bytes = BODY, message_id: str = "evt_1") -> dict[str, str]:
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(NOW),
        "webhook-signature": sign(message_id, NOW, body, SECRET),
    }


@pytest.mark.parametrize(
    ("secret", "message"),
    [
        (None, "not NoneType"),
        (5, "not int"),
        (SECRET.encode(), "not bytes"),
        ("", "empty"),
        ("whsec_", "empty"),
        ([SECRET, None], "not NoneType"),
        (SECRET + "\n", "surrounding whitespace"),
        ([], "at least one secret"),
    ],
)
def test_wrong_secret_is_a_setup_error(secret: Any, message: str) -> None:
    with pytest.raises(WebhookSetupError, match=message) as caught:
        verify(signed(), BODY, secret, now=NOW)
    assert isinstance(caught.value, PixopsError)
    assert isinstance(caught.value, ValueError)
    assert isinstance(caught.value, TypeError)


def test_a_bad_secret_is_reported_even_for_a_stale_delivery() -> None:
    with pytest.raises(WebhookSetupError, match="base64"):
        verify(signed(), BODY, "whsec_!!!", now=NOW + 10_000)


@pytest.mark.parametrize(
    ("body", "message"), [(BODY.decode(), "not str .*raw request bytes"), (None, "not NoneType")]
)
def test_body_must_be_bytes(body: Any, message: str) -> None:
    with pytest.raises(WebhookSetupError, match=message):
        verify(signed(), body, SECRET, now=NOW)
    with pytest.raises(WebhookSetupError, match=message):
        sign("evt_1", NOW, body, SECRET)


def test_bytes_like_bodies_are_read() -> None:
    assert verify(signed(), bytearray(BODY), SECRET, now=NOW)["id"] == "evt_1"
    assert verify(signed(), memoryview(BODY), SECRET, now=NOW)["id"] == "evt_1"


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        (None, "mapping or \\(name, value\\) pairs, not NoneType"),
        ("webhook-id: evt_1", "not str"),
        ([("a", "b", "c")], "a \\(name, value\\) pair"),
        ([(b"webhook-id", b"evt_1")], "not bytes.*latin-1"),
        ({"webhook-timestamp": NOW}, "not int .*webhook-timestamp"),
        ({"webhook-id": None}, "not NoneType"),
    ],
)
def test_wrong_headers_are_a_setup_error(headers: Any, message: str) -> None:
    with pytest.raises(WebhookSetupError, match=message):
        verify(headers, BODY, SECRET, now=NOW)


def test_repeated_id_with_another_value_is_refused() -> None:
    pairs = [("Webhook-Id", "evt_2"), *signed().items()]
    with pytest.raises(WebhookVerificationError, match="webhook-id header given twice"):
        verify(pairs, BODY, SECRET, now=NOW)
    same = [("WEBHOOK-ID", "evt_1"), *signed().items()]
    assert verify(same, BODY, SECRET, now=NOW)["id"] == "evt_1"


def test_repeated_signature_headers_are_one_list() -> None:
    headers = signed()
    pairs = [("webhook-signature", "v1,bm90IGl0"), *headers.items()]
    assert verify(pairs, BODY, SECRET, now=NOW)["id"] == "evt_1"


@pytest.mark.parametrize(
    ("tolerance", "now", "message"),
    [
        ("300", NOW, "tolerance_seconds must be an int, not str"),
        (None, NOW, "tolerance_seconds must be an int"),
        (-1, NOW, "0 or more"),
        (True, NOW, "tolerance_seconds must be an int, not bool"),
        (300, "now", "now must be a datetime or Unix seconds"),
        (300, float(NOW), "not float"),
        (300, datetime(2026, 1, 5), "timezone-aware"),
    ],
)
def test_wrong_tolerance_or_now_is_a_setup_error(tolerance: Any, now: Any, message: str) -> None:
    with pytest.raises(WebhookSetupError, match=message):
        verify(signed(), BODY, SECRET, tolerance_seconds=tolerance, now=now)


@pytest.mark.parametrize(
    ("message_id", "timestamp", "message"),
    [
        ("evt_1", True, "timestamp must be Unix seconds"),
        ("evt_1", "1767614400", "timestamp must be Unix seconds"),
        ("evt_1", -1, "timestamp must be Unix seconds"),
        (1, NOW, "webhook-id must be a non-empty string"),
        ("", NOW, "webhook-id must be a non-empty string"),
        ("évt_1", NOW, "printable ASCII"),
        ("evt\udc80", NOW, "printable ASCII"),
    ],
)
def test_sign_refuses_what_no_receiver_could_verify(
    message_id: Any, timestamp: Any, message: str
) -> None:
    with pytest.raises(WebhookSetupError, match=message):
        sign(message_id, timestamp, BODY, SECRET)


def test_non_ascii_webhook_id_is_a_bad_delivery() -> None:
    headers = {**signed(), "webhook-id": "évt_1"}
    with pytest.raises(WebhookVerificationError, match="printable ASCII"):
        verify(headers, BODY, SECRET, now=NOW)


def test_a_long_bad_timestamp_is_quoted_shortly() -> None:
    headers = {**signed(), "webhook-timestamp": "x" * 10_000}
    with pytest.raises(WebhookVerificationError, match="not Unix seconds") as caught:
        verify(headers, BODY, SECRET, now=NOW)
    assert len(str(caught.value)) < 120


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"", "body is empty"),
        (b'{"id":"\xff"}', "not valid UTF-8: .* position 7"),
        (BODY.decode().encode("utf-16"), "not valid UTF-8"),
        (b"\xef\xbb\xbf" + BODY, "Unexpected UTF-8 BOM"),
        (b'{"id": }', "not valid JSON: Expecting value: line 1 column 8"),
        (b'{"amount": NaN}', "NaN is not valid JSON"),
        (b'{"amount": -Infinity}', "-Infinity is not valid JSON"),
        (b'{"id": "a", "id": "b"}', "duplicate key 'id'"),
        (b"[1, 2]", "JSON array, not an object"),
        (b'"text"', "JSON string, not an object"),
        (b'{"a": "\\ud800"}', "lone UTF-16 surrogate"),
        (b'{"a": ' + b"9" * 5000 + b"}", "limit .* for integer string conversion"),
        (b'{"a":' * 65 + b"1" + b"}" * 65, "nested more than 64 levels"),
        (b"[" * 100_000 + b"]" * 100_000, "maximum recursion depth"),
        (b'{"a":' * 100_000 + b"1" + b"}" * 100_000, "maximum recursion depth"),
    ],
)
def test_signed_body_that_is_not_strict_json_is_refused(body: bytes, message: str) -> None:
    with pytest.raises(WebhookVerificationError, match=message):
        verify(signed(body), body, SECRET, now=NOW)


def test_nesting_up_to_the_limit_is_read() -> None:
    body = b'{"a":' * 31 + b"[1]" + b"}" * 31
    assert verify(signed(body), body, SECRET, now=NOW)["a"]["a"]


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=12,
)


@given(body=st.binary(max_size=200) | JSON_VALUES.map(lambda v: json.dumps(v).encode()))
def test_property_a_signed_body_gives_an_object_or_a_verification_error(body: bytes) -> None:
    outcome: dict[str, Any] | WebhookVerificationError
    try:
        outcome = verify(signed(body), body, SECRET, now=NOW)
    except WebhookVerificationError as error:
        outcome = error
    if isinstance(outcome, WebhookVerificationError):
        assert str(outcome).startswith("body ")
    else:
        assert json.loads(json.dumps(outcome, allow_nan=False)) == outcome


HEADER_NAMES = st.sampled_from(["webhook-id", "Webhook-Timestamp", "WEBHOOK-SIGNATURE", "x"])


@given(pairs=st.lists(st.tuples(HEADER_NAMES, st.text(max_size=30)), max_size=6))
def test_property_any_text_headers_give_a_verification_error(pairs: list[tuple[str, str]]) -> None:
    with pytest.raises(WebhookVerificationError):
        verify(pairs, BODY, SECRET, now=NOW)


@given(
    secret=st.none()
    | st.integers()
    | st.binary(max_size=8)
    | st.text(max_size=12)
    | st.lists(st.text(max_size=12) | st.none(), max_size=2)
)
def test_property_any_secret_verifies_or_is_a_setup_error(secret: Any) -> None:
    outcome: object
    try:
        outcome = verify(signed(), BODY, secret, now=NOW)
    except (WebhookSetupError, WebhookVerificationError) as error:
        outcome = error
    if isinstance(outcome, WebhookVerificationError):
        assert "no matching signature" in str(outcome)
    else:
        assert isinstance(outcome, WebhookSetupError)
        assert "secret" in str(outcome)


def test_generated_secret_round_trips_through_a_list() -> None:
    other = generate_secret()
    assert verify(signed(), BODY, (other, SECRET), now=NOW)["id"] == "evt_1"


def test_rotation_secrets_may_be_any_collection() -> None:
    other = generate_secret()
    assert verify(signed(), BODY, {other, SECRET}, now=NOW)["id"] == "evt_1"
    assert verify(signed(), BODY, (s for s in [other, SECRET]), now=NOW)["id"] == "evt_1"
    with pytest.raises(WebhookSetupError, match="not dict"):
        verify(signed(), BODY, {SECRET: "current"}, now=NOW)  # type: ignore[arg-type]
