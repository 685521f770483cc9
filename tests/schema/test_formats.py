"""The request rules of `pixops.schema`: one meaning in every regex engine that reads them,
and the models validate with them as the document states them."""

from __future__ import annotations

import re

import jsonschema_rs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from pixops.schema import (
    MAX_REQUEST_CENTAVOS,
    ChargePayer,
    DefenseRequest,
    PayoutRequest,
    RefundRequest,
    WebhookRequest,
    end_to_end_pattern,
)
from pixops.schema._formats import (
    EMAIL_KEY_PATTERN,
    EVP_KEY_PATTERN,
    IDEMPOTENCY_KEY_PATTERN,
    PHONE_KEY_PATTERN,
    REFERENCE_CHARS,
    WEBHOOK_URL_PATTERN,
    pix_key_rules,
    trimmed,
    trimmed_text,
)

PATTERNS = [
    trimmed_text(14, allow_empty=True),
    trimmed(f"{REFERENCE_CHARS}{{1,64}}"),
    IDEMPOTENCY_KEY_PATTERN,
    WEBHOOK_URL_PATTERN,
    EMAIL_KEY_PATTERN,
    PHONE_KEY_PATTERN,
    EVP_KEY_PATTERN,
    end_to_end_pattern(),
]
#: Texts checked per hypothesis example: a check takes microseconds, drawing an example
#: milliseconds of hypothesis's own bookkeeping, so each example checks a batch (as many
#: texts in all as one per example did).
BATCH = 8


@pytest.mark.parametrize("pattern", PATTERNS)
@settings(max_examples=19, deadline=None)
@given(data=st.data())
def test_python_and_rust_read_each_pattern_alike(pattern: str, data: st.DataObject) -> None:
    """JSON Schema tools read ECMA-262 (the Rust engine here), the service Python; only
    `$` differs (Python's also matches before a final newline), so Python gets `\\Z`.
    (152 texts a pattern.)"""
    python_pattern = pattern.removesuffix("$") + r"\Z" if pattern.endswith("$") else pattern
    texts = st.one_of(st.text(max_size=60), st.from_regex(python_pattern))
    for text in data.draw(st.lists(texts, min_size=BATCH, max_size=BATCH)):
        rust = jsonschema_rs.is_valid({"type": "string", "pattern": pattern}, text)
        assert rust == (re.search(python_pattern, text) is not None), (pattern, text)


_PADDED = st.builds(
    lambda left, core, right: left + core + right,
    st.text(st.sampled_from(" \t\n\x0b\x0c\r\x1c\x1f\x85\xa0\u2003\u3000\ufeff"), max_size=3),
    st.text(st.characters(codec="utf-8"), max_size=18),
    st.text(st.sampled_from(" \t\n\x1d\u2028\u205f"), max_size=3),
)


@settings(max_examples=63, deadline=None)
@given(
    st.lists(
        st.tuples(st.one_of(_PADDED, st.text(st.characters(codec="utf-8"))), st.integers(2, 16)),
        min_size=BATCH,
        max_size=BATCH,
    )
)
def test_trimmed_text_is_what_strip_leaves(cases: list[tuple[str, int]]) -> None:
    """The service checks `len(value.strip())`; the pattern says exactly that (504 texts)."""
    for text, limit in cases:
        _strip_leaves(text, limit)


def _strip_leaves(text: str, limit: int) -> None:
    pattern = trimmed_text(limit).removesuffix("$") + r"\Z"
    assert (re.search(pattern, text) is not None) == (1 <= len(text.strip()) <= limit)
    empty_ok = trimmed_text(limit, allow_empty=True).removesuffix("$") + r"\Z"
    assert (re.search(empty_ok, text) is not None) == (len(text.strip()) <= limit)


def test_blank_text_is_refused_where_the_service_trims() -> None:
    with pytest.raises(ValidationError):
        ChargePayer.model_validate({"name": " \u3000\t", "document": "52998224725"})
    with pytest.raises(ValidationError):
        DefenseRequest.model_validate({"defense": "\n\n"})
    with pytest.raises(ValidationError):
        RefundRequest.model_validate({"original_transaction_id": "   "})
    assert (
        ChargePayer.model_validate({"name": " Maria ", "document": "529.982.247-25"}).name
        == " Maria "
    )


def test_amounts_are_bounded_by_64_bit_base_units() -> None:
    key = "maria.silva@sandbox.pixops.dev"
    assert (
        PayoutRequest.model_validate({"amount": MAX_REQUEST_CENTAVOS, "pix_key": key}).amount
        == MAX_REQUEST_CENTAVOS
    )
    with pytest.raises(ValidationError):
        PayoutRequest.model_validate({"amount": MAX_REQUEST_CENTAVOS + 1, "pix_key": key})
    with pytest.raises(ValidationError):
        RefundRequest.model_validate(
            {"original_transaction_id": "PIXINx", "amount": MAX_REQUEST_CENTAVOS + 1}
        )
    with pytest.raises(ValidationError):
        PayoutRequest.model_validate({"amount": 356.0, "pix_key": key})


def test_every_event_or_named_ones_never_both() -> None:
    url = "https://hooks.example.com/pix"
    assert WebhookRequest.model_validate({"url": url, "event_types": ["*"]}).event_types == ["*"]
    assert WebhookRequest.model_validate(
        {"url": url, "event_types": ["pix.charge.paid"]}
    ).event_types
    with pytest.raises(ValidationError):
        WebhookRequest.model_validate({"url": url, "event_types": ["*", "pix.charge.paid"]})
    with pytest.raises(ValidationError):
        WebhookRequest.model_validate({"url": "https://hooks.example.com/pix#top"})
    with pytest.raises(ValidationError):
        WebhookRequest.model_validate({"url": "ftp://hooks.example.com/pix"})


def test_the_key_rule_names_each_type_once_and_the_detectable_shapes() -> None:
    rules = pix_key_rules()["anyOf"]
    typed = [rule["properties"]["pix_key_type"]["const"] for rule in rules if "required" in rule]
    assert typed == ["cpf", "cnpj", "email", "phone", "evp"]
    untyped = [rule for rule in rules if "required" not in rule]
    assert len(untyped) == 4
    assert all(rule["properties"]["pix_key_type"] == {"type": "null"} for rule in untyped)
    validator = jsonschema_rs.validator_for(
        {"type": "object", **pix_key_rules(), "required": ["pix_key"]}
    )
    assert not validator.is_valid({"pix_key": "11144477735"})  # a CPF or a phone: which?
    assert validator.is_valid({"pix_key": "11144477735", "pix_key_type": "cpf"})
    assert validator.is_valid({"pix_key": "+5511987654321"})
    assert validator.is_valid({"pix_key": "+5511987654321", "pix_key_type": None})
    assert not validator.is_valid({"pix_key": "+5511987654321", "pix_key_type": "email"})
