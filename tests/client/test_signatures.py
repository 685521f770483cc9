"""A call that does not fit a method is a `SignatureError` (an `ArgumentError` and a
`TypeError`) naming the method as written and what it takes, on both clients."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

import pixops
from pixops.client import ArgumentError, ConfigurationError, SignatureError

NAMESPACES = ("cpf", "pix", "transactions", "statement", "webhooks", "med")


def _never(request: httpx.Request) -> httpx.Response:
    raise AssertionError("nothing may be sent")


def _clients() -> tuple[pixops.Client, pixops.AsyncClient]:
    return (
        pixops.Client("https://x", "cli", "sk", transport=httpx.MockTransport(_never)),
        pixops.AsyncClient("https://x", "cli", "sk", transport=httpx.MockTransport(_never)),
    )


def _methods(client: Any) -> Iterator[tuple[str, Any]]:
    for name in dir(client):
        member = getattr(client, name)
        if not name.startswith("_") and inspect.ismethod(member):
            owner = member.__self__
            yield (
                (
                    f"pixops.{owner.__name__}.{name}"
                    if isinstance(owner, type)
                    else f"client.{name}"
                ),
                member,
            )
    for namespace in NAMESPACES:
        resource = getattr(client, namespace)
        for name in dir(resource):
            if not name.startswith("_") and callable(getattr(resource, name)):
                yield f"client.{namespace}.{name}", getattr(resource, name)


def _call(method: Any, *args: Any, **kwargs: Any) -> None:
    result = method(*args, **kwargs)
    if inspect.isawaitable(result):
        asyncio.run(result)


CALLS = [(label, method) for client in _clients() for label, method in _methods(client)]


@pytest.mark.parametrize(("label", "method"), CALLS, ids=[label for label, _ in CALLS])
def test_too_many_arguments_name_the_method_as_written(label: str, method: Any) -> None:
    with pytest.raises(SignatureError) as caught:
        _call(method, *range(12))
    assert str(caught.value).startswith(label + "()")
    assert "it takes (" in str(caught.value)
    assert isinstance(caught.value, TypeError)
    assert isinstance(caught.value, pixops.PixopsError)


@given(st.from_regex(r"[a-z]{1,8}_[a-z]{1,8}", fullmatch=True))
def test_a_misspelt_keyword_is_an_argument_error(word: str) -> None:
    for client in _clients():
        for _, method in _methods(client):
            if word in inspect.signature(method).parameters:
                continue
            # from_env reads the environment first: no settings there is said before.
            with pytest.raises((ArgumentError, ConfigurationError)):
                _call(method, **{word: 1})


def test_a_missing_argument_is_named() -> None:
    sync, async_ = _clients()
    with pytest.raises(SignatureError, match=r"client\.pix\.cash_out\(\): missing .*'pix_key'"):
        sync.pix.cash_out(amount_centavos=100)  # type: ignore[call-arg]
    with pytest.raises(SignatureError, match=r"client\.med\.defend\(\): missing .*'text'"):
        asyncio.run(async_.med.defend("med_1"))  # type: ignore[call-arg]
    with pytest.raises(SignatureError, match=r"pixops\.Client\(\): .*'timeout_s'"):
        pixops.Client("https://x", "cli", "sk", timeout_s=3)  # type: ignore[call-arg]
    with pytest.raises(SignatureError, match=r"pixops\.Client\.from_env\(\): too many positional"):
        pixops.Client.from_env("x")  # type: ignore[misc]


def test_a_type_error_from_inside_a_method_is_not_disguised() -> None:
    # Arguments that fit reach the method; what it raises is its own.
    sync, _ = _clients()
    with pytest.raises(ArgumentError) as caught:
        sync.pix.cash_in(amount_centavos="100")  # type: ignore[arg-type]
    assert not isinstance(caught.value, SignatureError)


def test_wrapped_methods_keep_their_signature_and_kind() -> None:
    sync, async_ = _clients()
    assert "amount_centavos" in inspect.signature(sync.pix.cash_in).parameters
    assert inspect.iscoroutinefunction(async_.balance)
    assert "Poll" in (sync.wait_until_final.__doc__ or "")


@pytest.mark.parametrize(("label", "method"), CALLS, ids=[label for label, _ in CALLS])
def test_every_public_method_says_what_it_does(label: str, method: Any) -> None:
    # help(client.pix) in a notebook: the async twins read the sync client's text.
    assert (method.__doc__ or "").strip(), f"{label} has no docstring"


def test_every_namespace_and_property_is_documented() -> None:
    for client in _clients():
        for namespace in NAMESPACES:
            assert type(getattr(client, namespace)).__doc__, namespace
        for name in ("base_url", "client_id", "key_case"):
            assert getattr(type(client), name).__doc__, name
