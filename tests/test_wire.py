"""Tests for pixops.wire: key casing, canonical JSON and the HMAC-SHA512 of bodies."""

import json
import math
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pixops import wire
from pixops.wire import JSON, WireError

# Enough examples to find boundary cases, few enough to keep the suite fast; no
# deadline, because a loaded machine must not turn a slow example into a failure.
PROPERTY = settings(max_examples=50, deadline=None)

WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)
SNAKE_NAMES = st.lists(WORDS, min_size=1, max_size=5).map("_".join)
CAMEL_NAMES = st.tuples(WORDS, st.lists(WORDS, max_size=4)).map(
    lambda parts: parts[0] + "".join(word.capitalize() for word in parts[1])
)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=10)
)
DOCUMENTS: st.SearchStrategy[Any] = st.recursive(
    SCALARS,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=15,
)

# RFC 4231, test case 2 (HMAC-SHA-512): key "Jefe", data "what do ya want for nothing?".
RFC4231_KEY = "Jefe"
RFC4231_DATA = b"what do ya want for nothing?"
RFC4231_HMAC_SHA512 = (
    "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea250554"
    "9758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737"
)


def shuffled(value: Any, rng: random.Random) -> Any:
    """The same document with the keys of every object in another insertion order."""
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        return {key: shuffled(item, rng) for key, item in items}
    if isinstance(value, list):
        return [shuffled(item, rng) for item in value]
    return value


# --- key casing -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("snake", "camel"),
    [
        ("end_to_end_id", "endToEndId"),
        ("pix_key", "pixKey"),
        ("pix_key_type", "pixKeyType"),
        ("original_e2e_id", "originalE2eId"),
        ("amount", "amount"),
        ("worked", "worked"),
        ("x_ratelimit_remaining", "xRatelimitRemaining"),
    ],
)
def test_casing_examples(snake: str, camel: str) -> None:
    assert wire.to_camel(snake) == camel
    assert wire.to_snake(camel) == snake


@pytest.mark.parametrize("name", ["endToEndId", "pixKey", "transactionID", "amount", ""])
def test_to_camel_leaves_camel_unchanged(name: str) -> None:
    assert wire.to_camel(name) == name


@pytest.mark.parametrize("name", ["end_to_end_id", "pix_key", "amount", "a__b", "_x", "x_1", ""])
def test_to_snake_leaves_snake_unchanged(name: str) -> None:
    assert wire.to_snake(name) == name


def test_to_snake_does_not_guess_acronyms() -> None:
    # One word per capital, so that the rule stays the inverse of to_camel.
    assert wire.to_snake("transactionID") == "transaction_i_d"
    assert wire.to_snake("aAA") == "a_a_a"
    assert wire.to_camel("a_a_a") == "aAA"
    assert wire.to_snake("EndToEndId") == "end_to_end_id"
    assert wire.to_snake("_privateKey") == "_private_key"
    assert wire.to_snake("addressLine1") == "address_line1"


def test_to_camel_keeps_odd_underscores() -> None:
    assert wire.to_camel("_private_key") == "_privateKey"
    assert wire.to_camel("a__b") == "a__b"
    assert wire.to_camel("trailing_") == "trailing_"
    assert wire.to_camel("line_1") == "line_1"


@PROPERTY
@given(name=SNAKE_NAMES)
def test_snake_round_trip(name: str) -> None:
    assert wire.to_snake(wire.to_camel(name)) == name
    assert wire.to_camel(wire.to_camel(name)) == wire.to_camel(name)


@PROPERTY
@given(name=CAMEL_NAMES)
def test_camel_round_trip(name: str) -> None:
    assert wire.to_camel(wire.to_snake(name)) == name
    assert wire.to_snake(wire.to_snake(name)) == wire.to_snake(name)


def test_camelize_and_snakify_are_recursive_and_leave_values_alone() -> None:
    snake: JSON = {
        "end_to_end_id": "E123",
        "reason_code": "DICT_CLIENT_RATE_LIMITED",
        "data": [{"pix_key": "a_b", "net_amount": 100}, "end_to_end_id", 1, None],
        "payer_info": {"bank_name": {"short_name": "x_y"}},
    }
    camel: JSON = {
        "endToEndId": "E123",
        "reasonCode": "DICT_CLIENT_RATE_LIMITED",
        "data": [{"pixKey": "a_b", "netAmount": 100}, "end_to_end_id", 1, None],
        "payerInfo": {"bankName": {"shortName": "x_y"}},
    }
    assert wire.camelize_keys(snake) == camel
    assert wire.snakify_keys(camel) == snake
    assert wire.camelize_keys("pix_key") == "pix_key"
    assert wire.snakify_keys(["pixKey", {"pixKey": 1}]) == ["pixKey", {"pix_key": 1}]


@PROPERTY
@given(names=st.lists(SNAKE_NAMES, unique=True, max_size=6))
def test_key_conversion_round_trip(names: list[str]) -> None:
    document: JSON = {name: [{name: name}] for name in names}
    assert wire.snakify_keys(wire.camelize_keys(document)) == document


def test_colliding_keys_are_refused() -> None:
    with pytest.raises(WireError, match="collide"):
        wire.camelize_keys({"pix_key": 1, "pixKey": 2})
    with pytest.raises(WireError, match="collide"):
        wire.snakify_keys([{"inner": {"pixKey": 1, "pix_key": 2}}])


# --- canonical JSON ---------------------------------------------------------------------


def test_canonical_json_example() -> None:
    document: JSON = {
        "pix_key": "fulano@example.com",
        "amount": 1050,
        "description": "Pedido nº 42 – café",
        "nested": {"b": [True, False, None], "a": 1.5},
    }
    assert (
        wire.canonical_json(document)
        == (
            '{"amount":1050,"description":"Pedido nº 42 – café",'
            '"nested":{"a":1.5,"b":[true,false,null]},"pix_key":"fulano@example.com"}'
        ).encode()
    )


def test_canonical_json_numbers() -> None:
    assert wire.canonical_json([1, -0, 10**30, 0.1, 1e16, True]) == (
        b"[1,0,1000000000000000000000000000000,0.1,1e+16,true]"
    )


@pytest.mark.parametrize("number", [math.nan, math.inf, -math.inf])
def test_canonical_json_refuses_nan_and_infinity(number: float) -> None:
    with pytest.raises(ValueError, match="JSON"):
        wire.canonical_json({"amount": number})


def test_canonical_json_refuses_what_is_not_json() -> None:
    with pytest.raises(WireError):
        wire.canonical_json({"when": object()})  # type: ignore[dict-item]
    with pytest.raises(WireError):
        wire.canonical_json({"bad": "\ud800"})  # a lone surrogate has no UTF-8 form


@PROPERTY
@given(document=DOCUMENTS, seed=st.integers())
def test_canonical_json_ignores_key_order(document: Any, seed: int) -> None:
    assert wire.canonical_json(shuffled(document, random.Random(seed))) == wire.canonical_json(
        document
    )


@PROPERTY
@given(document=DOCUMENTS, seed=st.integers(), indent=st.sampled_from([None, 0, 2, "\t"]))
def test_canonicalize_ignores_whitespace_order_and_escaping(
    document: Any, seed: int, indent: int | str | None
) -> None:
    canonical = wire.canonical_json(document)
    pretty = json.dumps(shuffled(document, random.Random(seed)), indent=indent).encode()
    compact = json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode()
    assert wire.canonicalize(pretty) == canonical
    assert wire.canonicalize(compact) == canonical
    assert wire.canonicalize(canonical) == canonical
    assert json.loads(canonical) == json.loads(compact)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"", "not valid JSON"),
        (b"{", "not valid JSON"),
        (b'{"a":1} x', "not valid JSON"),
        (b'{"a":1,"a":2}', "duplicate key 'a'"),
        (b'{"x":{"a":1,"a":1}}', "duplicate key 'a'"),
        (b'{"a":NaN}', "NaN"),
        (b'{"a":-Infinity}', "Infinity"),
        (b'{"a":1e400}', "JSON"),
        (b'{"a":"\xff"}', "UTF-8"),
        (b'\xef\xbb\xbf{"a":1}', "BOM"),
        (b"[" * 100_000 + b"]" * 100_000, "JSON"),
    ],
)
def test_canonicalize_refuses(body: bytes, message: str) -> None:
    with pytest.raises(WireError, match=message):
        wire.canonicalize(body)


@pytest.mark.parametrize("number", [b"1e999", b"-1e999", b"1.5e308999", b"-0.1e400"])
def test_parse_strict_refuses_numbers_too_large_for_a_float(number: bytes) -> None:
    with pytest.raises(WireError, match="too large for a float"):
        wire.parse_strict(b'{"a": [' + number + b"]}")


def test_parse_strict_keeps_large_finite_and_tiny_numbers() -> None:
    assert wire.parse_strict(b"[1.7e308, 1e-999, 12345678901234567890123]") == [
        1.7e308,
        0.0,
        12345678901234567890123,
    ]


def test_canonicalize_accepts_any_json_value() -> None:
    assert wire.canonicalize(b' [1, "a"] ') == b'[1,"a"]'
    assert wire.canonicalize(b'"\\u00e9"') == '"é"'.encode()


# --- HMAC -------------------------------------------------------------------------------


def test_sign_rfc4231_vector() -> None:
    assert wire.sign(RFC4231_DATA, RFC4231_KEY) == RFC4231_HMAC_SHA512
    assert wire.verify(RFC4231_DATA, RFC4231_KEY, RFC4231_HMAC_SHA512)


def test_sign_keys_with_the_utf8_secret() -> None:
    assert wire.sign(b"{}", "sk_é") != wire.sign(b"{}", "sk_e")
    assert wire.verify(b"{}", "sk_é", wire.sign(b"{}", "sk_é"))


@PROPERTY
@given(body=st.binary(max_size=200), secret=st.text(max_size=40))
def test_sign_then_verify(body: bytes, secret: str) -> None:
    signature = wire.sign(body, secret)
    assert len(signature) == 128
    assert signature == signature.lower()
    assert wire.verify(body, secret, signature)
    assert not wire.verify(body, secret + "x", signature)


@PROPERTY
@given(body=st.binary(min_size=1, max_size=200), data=st.data())
def test_verify_rejects_any_tampered_byte(body: bytes, data: st.DataObject) -> None:
    signature = wire.sign(body, "sk_test")
    index = data.draw(st.integers(min_value=0, max_value=len(body) - 1))
    flip = data.draw(st.integers(min_value=1, max_value=255))
    tampered = body[:index] + bytes([body[index] ^ flip]) + body[index + 1 :]
    assert not wire.verify(tampered, "sk_test", signature)
    assert not wire.verify(body + b" ", "sk_test", signature)
    assert not wire.verify(body[:-1], "sk_test", signature)


@PROPERTY
@given(data=st.data())
def test_verify_rejects_any_tampered_signature_character(data: st.DataObject) -> None:
    signature = wire.sign(b'{"amount":1050}', "sk_test")
    index = data.draw(st.integers(min_value=0, max_value=127))
    other = data.draw(st.sampled_from("0123456789abcdef").filter(lambda c: c != signature[index]))
    tampered = signature[:index] + other + signature[index + 1 :]
    assert not wire.verify(b'{"amount":1050}', "sk_test", tampered)


@pytest.mark.parametrize(
    "transform",
    [
        str.upper,  # the service documents lowercase hex
        lambda s: s[:-1],
        lambda s: s + "0",
        lambda s: " " + s,
        lambda s: s + "\n",
        lambda s: "é" * 128,
        lambda s: "",
        lambda s: None,
        lambda s: s.encode(),
    ],
)
def test_verify_returns_false_for_malformed_signatures(transform: Any) -> None:
    signature = wire.sign(b"{}", "sk_test")
    assert wire.verify(b"{}", "sk_test", transform(signature)) is False


@given(DOCUMENTS)
def test_parse_strict_reads_back_the_canonical_form(document: Any) -> None:
    assert wire.parse_strict(wire.canonical_json(document)) == document


def test_parse_strict_refuses_what_canonicalize_refuses() -> None:
    for body in (b'{"a":1,"a":2}', b"[NaN]", b"\xff", b"{"):
        with pytest.raises(wire.WireError):
            wire.parse_strict(body)


# -- lone surrogates (issue 8.7) ---------------------------------------------------

#: Every code point class, surrogates (Cs) and unassigned (Cn) included.
EVERY_CLASS = st.text(alphabet=st.characters(exclude_categories=()), max_size=12)


def _has_surrogate(text: str) -> bool:
    return any(0xD800 <= ord(ch) <= 0xDFFF for ch in text)


@settings(max_examples=400)
@given(text=EVERY_CLASS, as_key=st.booleans(), nested=st.booleans())
def test_parse_strict_refuses_exactly_the_lone_surrogates(
    text: str, as_key: bool, nested: bool
) -> None:
    document: Any = {text: 1} if as_key else {"field": text}
    if nested:
        document = {"outer": [document]}
    body = json.dumps(document).encode("ascii")  # escapes every non-ASCII code point
    if _has_surrogate(text):
        with pytest.raises(WireError, match="lone UTF-16 surrogate"):
            wire.parse_strict(body)
    else:
        assert wire.parse_strict(body) == document


@pytest.mark.parametrize(
    "body",
    [
        rb'{"cpf":"\ud800"}',
        rb'{"cpf":"\uDFFF"}',
        rb'{"\udc00":"x"}',
        rb'{"a":["ok","\ud83d"]}',
        rb'{"a":"\ude00\ud83d"}',  # a pair in the wrong order is two lone halves
    ],
)
def test_lone_surrogate_escapes_are_refused(body: bytes) -> None:
    with pytest.raises(WireError):
        wire.parse_strict(body)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (rb'{"a":"\ud83d\ude00"}', {"a": "\U0001f600"}),  # an escaped pair is one character
        (rb'{"a":"\\ud800"}', {"a": "\\ud800"}),  # an escaped backslash, not an escape
    ],
)
def test_surrogate_pairs_and_escaped_backslashes_are_fine(body: bytes, expected: Any) -> None:
    assert wire.parse_strict(body) == expected


def _nested(depth: int) -> JSON:
    value: JSON = 1
    for level in range(depth):
        value = [value] if level % 2 else {"a": value}
    return value


@given(st.integers(min_value=0, max_value=200), st.integers(min_value=1, max_value=200))
def test_nests_within_counts_the_levels_of_objects_and_arrays(depth: int, limit: int) -> None:
    assert wire.nests_within(_nested(depth), limit) == (depth <= limit)


@given(DOCUMENTS, st.integers(min_value=1, max_value=6), st.sampled_from(["", "{[", "[[[[{{{{"]))
def test_body_nests_within_answers_as_the_walk_does(
    document: Any, limit: int, brackets_in_text: str
) -> None:
    """Counting the text's brackets is only a shortcut: with brackets inside strings too
    (which the count sees and the nesting does not), the answer is the walk's."""
    value = {"note": brackets_in_text, "v": document}
    body = json.dumps(value).encode()
    assert wire.body_nests_within(body, value, limit) == wire.nests_within(value, limit)


@given(st.integers(min_value=0, max_value=80))
def test_body_nests_within_refuses_what_nests_too_deep(depth: int) -> None:
    value = _nested(depth)
    assert wire.body_nests_within(json.dumps(value).encode(), value, 64) == (depth <= 64)


def test_nests_within_walks_any_depth_without_recursion() -> None:
    assert not wire.nests_within(_nested(100_000), 64)
    assert wire.nests_within("text", 1)
