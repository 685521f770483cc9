"""The request rules of the OpenAPI document against the service's own checks.

A request the document admits (its patterns read as JSON Schema reads them, with
ECMA-262 semantics, and its formats checked by `pixops.documents`) must be one the
service accepts, and where the document claims the exact rule, the other way round
too. Checked property by property with hypothesis on the engine's validators, and on
the raw HTTP answers for the documented sandbox test keys.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import httpx
import jsonschema_rs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pixops import documents, limits, wire
from pixops.engine.config import SERVICE_ISPB, EngineConfig
from pixops.engine.http import ApiError
from pixops.engine.openapi import build_openapi
from pixops.engine.routes import payouts
from pixops.engine.world.payers import PayerError, normalize_document
from pixops.engine.world.sandbox_keys import TEST_KEYS
from pixops.pixkeys import BRAZILIAN_AREA_CODES, PixKeyType, detect_key_type
from pixops.sandbox import Sandbox
from pixops.schema import (
    FORMAT_CNPJ,
    FORMAT_CPF,
    FORMAT_DOCUMENT,
    FORMAT_END_TO_END_ID,
    IDEMPOTENCY_KEY_PATTERN,
)

DOC = build_openapi()
CONFIG = EngineConfig()
#: Values checked per hypothesis example: each check takes microseconds and drawing an
#: example costs milliseconds of hypothesis's own bookkeeping, so the properties below
#: draw a batch of values per example (as many values in all as one per example did).
BATCH = 8


def batches(values: st.SearchStrategy[Any]) -> st.SearchStrategy[list[Any]]:
    """`BATCH` values of `values` at once (a failure shrinks to the one that fails)."""
    return st.lists(values, min_size=BATCH, max_size=BATCH)


def _is_document(value: str) -> bool:
    try:
        normalize_document(value)
    except PayerError:
        return False
    return True


def _is_cpf(value: str) -> bool:
    return re.fullmatch("[0-9]{11}", value) is not None and documents.is_valid_cpf(value)


def _is_cnpj(value: str) -> bool:
    try:
        return len(documents.normalize_cnpj(value)) == 14 and value.isalnum()
    except documents.DocumentError:
        return False


def _is_real_minute(value: str) -> bool:
    from pixops.ids import is_strict_end_to_end_id

    return is_strict_end_to_end_id(value)


FORMATS = {
    FORMAT_CPF: _is_cpf,
    FORMAT_CNPJ: _is_cnpj,
    FORMAT_DOCUMENT: _is_document,
    FORMAT_END_TO_END_ID: _is_real_minute,
}


@functools.cache
def validator(component: str) -> Any:
    """The component as JSON Schema validates it (Rust's engine: ECMA-262 `$`), with the
    document's formats asserted."""
    root = {"$ref": f"#/components/schemas/{component}", "components": DOC["components"]}
    return jsonschema_rs.Draft202012Validator(root, validate_formats=True, formats=FORMATS)


PAYOUT = validator("PayoutRequest")


def engine_accepts_payout(body: dict[str, Any]) -> bool:
    try:
        payouts.parse_request(body, CONFIG)
    except ApiError:
        return False
    return True


# -- PIX keys: the document's rule is the service's rule -----------------------------

ABSENT = "(absent)"
_KEY_TYPES = [ABSENT, None, *(key_type.value for key_type in PixKeyType), "unknown"]
_VALID_CPFS = st.text("0123456789", min_size=9, max_size=9).map(
    lambda nine: nine + documents.cpf_check_digits(nine)
)
_VALID_CNPJS = st.text("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=12, max_size=12).map(
    lambda twelve: twelve + documents.cnpj_check_digits(twelve)
)
_PHONES = st.builds(
    lambda prefix, area, ninth, rest: f"{prefix}{area:02d}{ninth}{rest}",
    st.sampled_from(["", "+55", "+5", "55", "+1"]),
    st.one_of(st.sampled_from(sorted(BRAZILIAN_AREA_CODES)), st.integers(0, 99)),
    st.sampled_from("9987"),
    st.text("0123456789", min_size=7, max_size=9),
)
_EMAILS = st.one_of(
    st.from_regex(r"\A[a-zA-Z0-9._%+-]{1,12}@[a-zA-Z0-9-]{1,12}(\.[a-zA-Z0-9-]{1,5}){0,2}\Z"),
    st.emails(),
)
KEYS = st.one_of(
    st.sampled_from([test.entry.key for test in TEST_KEYS]),
    _VALID_CPFS,
    _VALID_CNPJS,
    _VALID_CNPJS.map(str.lower),
    _PHONES,
    _EMAILS,
    _EMAILS.map(lambda e: e + "\n"),
    st.uuids().map(str),
    st.uuids().map(lambda u: str(u).upper()),
    st.text("0123456789", min_size=10, max_size=15),
    st.text(min_size=1, max_size=80),
)


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(batches(st.tuples(KEYS, st.sampled_from(_KEY_TYPES))))
def test_the_document_admits_exactly_the_keys_the_service_accepts(
    keys: list[tuple[str, str | None]],
) -> None:
    for key, key_type in keys:  # 800 keys in all
        body: dict[str, Any] = {"amount": 100, "pix_key": key}
        if key_type != ABSENT:
            body["pix_key_type"] = key_type  # null reads as absent, for both
        assert PAYOUT.is_valid(body) == engine_accepts_payout(body), body


def test_eleven_digits_without_a_type_are_outside_the_document() -> None:
    """The spec's ambiguous key (422 pix_key_ambiguous) is not a schema-valid request."""
    assert not PAYOUT.is_valid({"amount": 100, "pix_key": "11144477735"})
    assert PAYOUT.is_valid({"amount": 100, "pix_key": "11144477735", "pix_key_type": "cpf"})
    assert PAYOUT.is_valid({"amount": 100, "pix_key": "11987654321", "pix_key_type": "phone"})
    with pytest.raises(Exception, match="11 digits"):
        detect_key_type("11144477735")


def test_every_documented_test_key_is_schema_valid_with_and_without_its_type() -> None:
    for test in TEST_KEYS:
        typed = {"amount": 100, "pix_key": test.entry.key, "pix_key_type": test.entry.key_type}
        assert PAYOUT.is_valid(typed), typed
        if test.entry.key_type != "cpf":
            assert PAYOUT.is_valid({"amount": 100, "pix_key": test.entry.key}), test.entry.key


@pytest.mark.parametrize(
    "amount", [1, payouts.MAX_AMOUNT_CENTAVOS, 0, payouts.MAX_AMOUNT_CENTAVOS + 1]
)
def test_cash_out_amount_bounds_are_the_services(amount: int) -> None:
    """Amount bounds are exact; optional fields sent as null read as omitted, for both."""
    nulls = {"pix_key_type": None, "description": None, "external_id": None, "purpose": None}
    assert PAYOUT.is_valid({"amount": 1, "pix_key": "maria.silva@sandbox.pixops.dev", **nulls})
    assert engine_accepts_payout({"amount": 1, "pix_key": "a@b.co", **nulls})
    body = {"amount": amount, "pix_key": "maria.silva@sandbox.pixops.dev"}
    assert PAYOUT.is_valid(body) == engine_accepts_payout(body)


# -- end-to-end ids, documents, free text, URLs, idempotency keys ----------------------

_OWN_E2E = st.builds(
    lambda ispb, minute, tail: f"E{ispb}{minute}{tail}",
    st.sampled_from([SERVICE_ISPB, "60701190", "9999999A"]),
    st.one_of(
        st.datetimes().map(lambda moment: f"{moment:%Y%m%d%H%M}"),
        st.text("0123456789", min_size=12, max_size=12),
    ),
    st.text("0123456789ABCDEFabcdef", min_size=10, max_size=12),
)


@settings(max_examples=63, deadline=None)
@given(batches(st.one_of(_OWN_E2E, st.text(max_size=40))))
def test_a_cash_out_end_to_end_id_is_admitted_exactly_when_accepted(ids: list[str]) -> None:
    for e2e in ids:  # 504 ids in all
        body = {"amount": 100, "pix_key": "maria.silva@sandbox.pixops.dev", "end_to_end_id": e2e}
        assert PAYOUT.is_valid(body) == engine_accepts_payout(body), e2e


@settings(max_examples=63, deadline=None)
@given(
    batches(
        st.one_of(
            _VALID_CPFS.filter(lambda cpf: len(set(cpf)) > 1).map(documents.format_cpf),
            _VALID_CNPJS.filter(lambda cnpj: len(set(cnpj)) > 1).map(documents.format_cnpj),
            _VALID_CPFS,
            st.text("0123456789./-", min_size=11, max_size=18),
            st.text(max_size=20),
        )
    )
)
def test_a_payer_document_the_document_admits_is_accepted(typed: list[str]) -> None:
    payer = validator("ChargePayer")
    for document in typed:  # 504 in all
        if payer.is_valid({"name": "Maria", "document": document}):
            assert _is_document(document), document


_PADDED = st.builds(
    lambda left, core, right: left + core + right,
    st.text(st.sampled_from(" \t\n\x0b\x0c\r\x1c\x1f\x85\xa0\u2003\u3000\ufeff")),
    st.one_of(
        st.text(), st.text("0123456789.-", max_size=16), st.from_regex(r"\A[a-z.:_-]{60,70}\Z")
    ),
    st.text(st.sampled_from(" \t\n\x1d\u2028\u205f")),
)


@settings(max_examples=50, deadline=None)
@given(batches(_PADDED))
def test_trimmed_fields_are_admitted_exactly_as_the_service_reads_them(texts: list[str]) -> None:
    """The service trims CPFs, names, defenses, refund ids and references, then checks
    what is left; the document's patterns read the same way (400 texts in all)."""
    for text in texts:
        _trimmed_as_the_service_reads_it(text)


def _trimmed_as_the_service_reads_it(text: str) -> None:
    left = len(text.strip())
    assert validator("CpfRequest").is_valid({"cpf": text}) == (left <= limits.CPF_INPUT_MAX_CHARS)
    assert validator("DefenseRequest").is_valid({"defense": text}) == (
        1 <= left <= limits.DEFENSE_MAX_CHARS
    )
    assert validator("RefundRequest").is_valid({"original_transaction_id": text}) == (
        1 <= left <= limits.TRANSACTION_ID_MAX_CHARS
    )
    payer_ok = 1 <= left <= limits.PAYER_NAME_MAX_CHARS
    payer = {"name": text, "document": "52998224725"}
    assert validator("ChargePayer").is_valid(payer) == payer_ok
    tag_ok = re.fullmatch(r"[a-zA-Z0-9._:-]{1,64}", text.strip()) is not None
    assert validator("ChargeRequest").is_valid({"amount": 1, "tag": text}) == tag_ok


def _url_accepted(url: str) -> bool:
    from pixops.engine.notifications._subscriptions import _url_problems

    return _url_problems(_SANDBOX.engine, url) == []


@settings(max_examples=50, deadline=None)
@given(
    batches(
        st.one_of(
            st.from_regex(r"\A[hH][tT]{2}[pP][sS]?://[a-z0-9.:@\[\]#?/ -]{0,30}\Z"),
            st.text(max_size=30).map(lambda rest: "https://" + rest),
        )
    )
)
def test_a_webhook_url_the_document_admits_is_accepted(urls: list[str]) -> None:
    for url in urls:  # 400 in all
        if validator("WebhookRequest").is_valid({"url": url}):
            assert _url_accepted(url), url


def test_event_types_star_stands_alone_in_the_document() -> None:
    webhook = validator("WebhookRequest")
    url = "https://hooks.example.com/pix"
    assert webhook.is_valid({"url": url, "event_types": ["*"]})
    assert webhook.is_valid({"url": url, "event_types": ["pix.charge.paid"]})
    assert not webhook.is_valid({"url": url, "event_types": ["*", "pix.charge.paid"]})
    assert not webhook.is_valid({"url": url, "event_types": []})


@settings(max_examples=300, deadline=None)
@given(key=st.text(st.characters(max_codepoint=0x7F), min_size=1, max_size=20).map(str.strip))
def test_the_document_admits_exactly_the_idempotency_keys_the_service_takes(key: str) -> None:
    """Through the pipeline in process, for every key HTTP can carry (no space at an end)."""
    admitted = jsonschema_rs.is_valid({"pattern": IDEMPOTENCY_KEY_PATTERN}, key)
    assert admitted == (_cpf_validate(key).status_code == 200), repr(key)


_SANDBOX = Sandbox()
_MERCHANT = _SANDBOX.create_merchant("Loja Chaves", balance_centavos=0)
_KEY = _SANDBOX.issue_api_key(_MERCHANT.id)


def _cpf_validate(idempotency_key: str) -> httpx.Response:
    body = wire.canonical_json({"cpf": "52998224725"})
    with httpx.Client(transport=_SANDBOX.transport(), base_url="http://sandbox") as client:
        return client.post(
            "/api/external/cpf/validate",
            content=body,
            headers={
                "authorization": f"ApiKey {_KEY.client_id}:{_KEY.client_secret}",
                "content-type": "application/json",
                "hmac": wire.sign(body, _KEY.client_secret),
                "idempotency-key": idempotency_key,
            },
        )
