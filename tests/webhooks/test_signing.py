"""pixops.webhooks.verify: Standard Webhooks signatures, timestamps, rotation, tampering."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pixops.webhooks import WebhookVerificationError, generate_secret, sign, verify

SECRET = "whsec_" + base64.b64encode(b"0123456789abcdef0123456789abcdef").decode()
NOW = 1_767_614_400  # 2026-01-05T12:00:00Z
BODY = b'{"id":"evt_1","type":"pix.charge.paid","created_at":"2026-01-05T12:00:00.000Z","data":{}}'


def headers_for(
    body: bytes = BODY, *, message_id: str = "evt_1", timestamp: int = NOW, secret: str = SECRET
) -> dict[str, str]:
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": sign(message_id, timestamp, body, secret),
    }


def test_signature_is_the_standard_webhooks_hmac() -> None:
    key = base64.b64decode(SECRET.removeprefix("whsec_"))
    digest = hmac.new(key, f"evt_1.{NOW}.".encode() + BODY, hashlib.sha256).digest()
    assert sign("evt_1", NOW, BODY, SECRET) == "v1," + base64.b64encode(digest).decode()


def test_round_trip_returns_the_parsed_event() -> None:
    event = verify(headers_for(), BODY, SECRET, now=NOW)
    assert event == json.loads(BODY)


def test_headers_are_case_insensitive_and_may_be_pairs() -> None:
    upper = {name.title(): value for name, value in headers_for().items()}
    assert verify(upper, BODY, SECRET, now=NOW)["id"] == "evt_1"
    assert verify(list(headers_for().items()), BODY, SECRET, now=NOW)["id"] == "evt_1"


def test_secret_prefix_is_optional() -> None:
    bare = SECRET.removeprefix("whsec_")
    assert verify(headers_for(), BODY, bare, now=NOW)["type"] == "pix.charge.paid"


@pytest.mark.parametrize("missing", ["webhook-id", "webhook-timestamp", "webhook-signature"])
def test_missing_header_is_named(missing: str) -> None:
    headers = headers_for()
    del headers[missing]
    with pytest.raises(WebhookVerificationError, match=f"missing required header.*{missing}"):
        verify(headers, BODY, SECRET, now=NOW)


def test_wrong_secret_is_a_bad_signature() -> None:
    with pytest.raises(WebhookVerificationError, match="no matching signature"):
        verify(headers_for(), BODY, generate_secret(), now=NOW)


def test_timestamp_too_old_and_too_new() -> None:
    with pytest.raises(WebhookVerificationError, match="too old"):
        verify(headers_for(), BODY, SECRET, now=NOW + 301)
    with pytest.raises(WebhookVerificationError, match="too new"):
        verify(headers_for(), BODY, SECRET, now=NOW - 301)
    assert verify(headers_for(), BODY, SECRET, now=NOW + 300)["id"] == "evt_1"
    assert verify(headers_for(), BODY, SECRET, now=NOW + 3600, tolerance_seconds=3600)


def test_now_may_be_a_datetime() -> None:
    moment = datetime.fromtimestamp(NOW + 10, UTC)
    assert verify(headers_for(), BODY, SECRET, now=moment)["id"] == "evt_1"


def test_timestamp_must_be_unix_seconds() -> None:
    headers = headers_for()
    headers["webhook-timestamp"] = "2026-01-05T12:00:00Z"
    with pytest.raises(WebhookVerificationError, match="not Unix seconds"):
        verify(headers, BODY, SECRET, now=NOW)


def test_several_signatures_during_rotation() -> None:
    old, new = generate_secret(), SECRET
    headers = headers_for()
    headers["webhook-signature"] = (
        f"{sign('evt_1', NOW, BODY, old)} v2,ignored {headers['webhook-signature']}"
    )
    assert verify(headers, BODY, new, now=NOW)["id"] == "evt_1"
    assert verify(headers, BODY, old, now=NOW)["id"] == "evt_1"


def test_receiver_may_hold_several_secrets() -> None:
    assert verify(headers_for(), BODY, [generate_secret(), SECRET], now=NOW)["id"] == "evt_1"
    with pytest.raises(ValueError, match="at least one secret"):
        verify(headers_for(), BODY, [], now=NOW)


def test_only_v1_signatures_count() -> None:
    headers = headers_for()
    headers["webhook-signature"] = headers["webhook-signature"].replace("v1,", "v2,")
    with pytest.raises(WebhookVerificationError, match="no v1 signature"):
        verify(headers, BODY, SECRET, now=NOW)


def test_signed_body_that_is_not_json_is_refused() -> None:
    body = b"not json"
    with pytest.raises(WebhookVerificationError, match="not valid JSON"):
        verify(headers_for(body), body, SECRET, now=NOW)


def test_bad_secret_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="base64"):
        verify(headers_for(), BODY, "whsec_!!!", now=NOW)


def test_generated_secrets_decode_to_24_random_bytes() -> None:
    first, second = generate_secret(), generate_secret()
    assert first.startswith("whsec_")
    assert len(base64.b64decode(first.removeprefix("whsec_"))) == 24
    assert first != second


IDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_", min_size=1, max_size=40)
BODIES = st.dictionaries(
    st.text(min_size=1, max_size=10),
    st.one_of(st.integers(), st.text(max_size=30), st.booleans(), st.none()),
    max_size=6,
).map(lambda data: json.dumps({"data": data}, ensure_ascii=False).encode("utf-8"))
TIMESTAMPS = st.integers(min_value=1_000_000_000, max_value=4_000_000_000)
KEYS = st.binary(min_size=1, max_size=64).map(lambda raw: "whsec_" + base64.b64encode(raw).decode())


@given(message_id=IDS, body=BODIES, timestamp=TIMESTAMPS, secret=KEYS)
def test_property_round_trip(message_id: str, body: bytes, timestamp: int, secret: str) -> None:
    headers = headers_for(body, message_id=message_id, timestamp=timestamp, secret=secret)
    assert verify(headers, body, secret, now=timestamp) == json.loads(body)


@given(
    message_id=IDS,
    body=BODIES,
    timestamp=TIMESTAMPS,
    secret=KEYS,
    position=st.integers(min_value=0),
    flip=st.integers(min_value=1, max_value=255),
)
def test_property_any_tampered_byte_is_detected(
    message_id: str, body: bytes, timestamp: int, secret: str, position: int, flip: int
) -> None:
    headers = headers_for(body, message_id=message_id, timestamp=timestamp, secret=secret)
    index = position % len(body)
    tampered = body[:index] + bytes([body[index] ^ flip]) + body[index + 1 :]
    with pytest.raises(WebhookVerificationError):
        verify(headers, tampered, secret, now=timestamp)


@given(message_id=IDS, other_id=IDS, body=BODIES, timestamp=TIMESTAMPS, secret=KEYS)
def test_property_id_and_timestamp_are_bound(
    message_id: str, other_id: str, body: bytes, timestamp: int, secret: str
) -> None:
    headers = headers_for(body, message_id=message_id, timestamp=timestamp, secret=secret)
    if other_id != message_id:
        with pytest.raises(WebhookVerificationError, match="no matching signature"):
            verify({**headers, "webhook-id": other_id}, body, secret, now=timestamp)
    moved = {**headers, "webhook-timestamp": str(timestamp + 1)}
    with pytest.raises(WebhookVerificationError, match="no matching signature"):
        verify(moved, body, secret, now=timestamp)
