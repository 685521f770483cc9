"""Every error body shape of the spec becomes the right `PixopsError`, keeping it all."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

import pixops
from pixops.client import (
    ApiError,
    AuthenticationError,
    BadRequestError,
    DictError,
    InsufficientBalanceError,
    NotFoundError,
    PaymentRejectedError,
    PermissionDeniedError,
    ProviderError,
    RateLimitError,
    ServerError,
    UnprocessableEntityError,
    UnsupportedMediaTypeError,
    error_from_response,
)


def parse(status: int, body: object, headers: dict[str, str] | None = None) -> ApiError:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return error_from_response(status, raw, headers)


def test_pipeline_shape() -> None:
    error = parse(401, {"error": {"status": 401, "message": "Invalid API key credentials"}})
    assert isinstance(error, AuthenticationError)
    assert isinstance(error, pixops.PixopsError)
    assert (error.status, error.code, error.shape) == (401, "unauthorized", "pipeline")
    assert error.message == "Invalid API key credentials"
    assert "Invalid API key credentials" in str(error)
    assert not error.retryable
    media = parse(415, {"error": {"status": 415, "message": "Unsupported", "hint": "send json"}})
    assert isinstance(media, UnsupportedMediaTypeError)
    assert media.params == {"hint": "send json"}


def test_permission_shape_names_the_permission() -> None:
    error = parse(403, {"error": "forbidden", "message": "API key lacks permission: pix:read"})
    assert isinstance(error, PermissionDeniedError)
    assert error.code == "missing_permission"
    assert error.params == {"permission": "pix:read"}


def test_detail_shape() -> None:
    error = parse(401, {"worked": False, "detail": "Invalid HMAC signature"})
    assert isinstance(error, AuthenticationError)
    assert error.code == "invalid_hmac_signature"
    missing = parse(404, {"worked": False, "detail": "Transaction not found"})
    assert isinstance(missing, NotFoundError)
    assert missing.code == "not_found"


def test_business_shape_message_and_fields() -> None:
    error = parse(400, {"errors": {"bad_request": "invalid or missing amount"}})
    assert isinstance(error, BadRequestError)
    assert (error.code, error.message, error.shape) == (
        "bad_request", "invalid or missing amount", "errors",
    )  # fmt: skip
    fields = parse(400, {"worked": False, "errors": {"bad_request": {"cpf": ["is required"]}}})
    assert fields.params == {"cpf": ["is required"]}
    assert "cpf is required" in fields.message
    refused = parse(422, {"worked": False, "errors": {"unprocessable_entity": "insufficient"}})
    assert isinstance(refused, UnprocessableEntityError)


def test_format_a_codes_are_case_normalised_and_classed() -> None:
    item = {"code": "INSUFFICIENT_BALANCE", "message": "Insufficient balance", "params": {}}
    body = {"worked": False, "status": "failed", "errors": [item]}
    error = parse(422, body)
    assert isinstance(error, InsufficientBalanceError)
    assert isinstance(error, PaymentRejectedError)
    assert error.code == "insufficient_balance"
    assert error.errors == body["errors"]  # type: ignore[comparison-overlap]
    item = {"code": "ceiling_exceeded", "message": "too much", "params": {"ceiling": 10**9}}
    ceiling = parse(422, {"status": "failed", "errors": [item]})
    assert ceiling.params == {"ceiling": 10**9}
    same = parse(422, {"status": "failed", "errors": [
        {"code": "same_institution_transfer", "message": "internal", "params": []}]})  # fmt: skip
    assert same.params == []


@pytest.mark.parametrize(
    ("code", "kind", "retryable"),
    [
        ("dict_key_not_found", DictError, False),
        ("dict_key_blocked", DictError, False),
        ("dict_lookup_failed", DictError, True),
        ("dict_rate_limited", DictError, True),
        ("DICT_BUCKET_EXHAUSTED", DictError, True),
        ("provider_rejected", ProviderError, False),
        ("provider_schema_error", ProviderError, False),
        ("provider_unknown_error", ProviderError, False),
    ],
)
def test_dict_and_provider_codes_say_whether_to_retry(
    code: str, kind: type[ApiError], retryable: bool
) -> None:
    error = parse(
        400, {"status": "failed", "errors": [{"code": code, "message": "m", "params": {}}]}
    )
    assert isinstance(error, kind)
    assert error.code == code.lower()
    assert error.retryable is retryable


def test_rate_limit_and_server_errors_are_retryable() -> None:
    limited = parse(429, {"error": {"status": 429, "message": "Too many"}}, {"retry-after": "60"})
    assert isinstance(limited, RateLimitError)
    assert limited.retry_after == 60
    assert limited.retryable
    edge = parse(429, b"<html>busy</html>")
    assert isinstance(edge, RateLimitError)
    assert edge.code == "rate_limited"
    assert isinstance(parse(502, b"Bad Gateway"), ServerError)


def test_the_raw_body_is_kept_and_html_renders() -> None:
    raw = b'{"errors":{"not_found":"original transaction not found"}}'
    error = error_from_response(404, raw)
    assert error.body == raw
    assert "original transaction not found" in error._repr_html_()
    assert "retrying will not help" in error._repr_html_()


@given(st.binary(max_size=300), st.integers(min_value=400, max_value=599))
def test_any_body_becomes_an_api_error(body: bytes, status: int) -> None:
    error = error_from_response(status, body)
    assert isinstance(error, ApiError)
    assert error.status == status
    assert isinstance(error.message, str)
    assert error.code == error.code.lower()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=10), inner, max_size=3)
    ),
    max_leaves=10,
)


@given(
    st.dictionaries(
        st.sampled_from(["error", "errors", "detail", "status", "message", "worked"]),
        json_values,
        max_size=4,
    ),
    st.integers(min_value=400, max_value=599),
)
def test_any_json_object_becomes_an_api_error(body: dict[str, object], status: int) -> None:
    error = error_from_response(status, json.dumps(body).encode())
    assert isinstance(error, ApiError)
    assert isinstance(error.params, dict | list)


def test_arguments_are_checked() -> None:
    with pytest.raises(TypeError):
        error_from_response("500", b"")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        error_from_response(500, "text")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        error_from_response(True, b"")
