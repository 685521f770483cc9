"""The session: probes go out as written, answers come back untouched but for the
secret, which no answer can carry into a result, whole or cut."""

from __future__ import annotations

import base64
import json

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pixops import wire
from pixops.conformance import CannotCheckError, Probe, Session, Target
from pixops.conformance._expect import GOT_LIMIT, seen
from pixops.conformance._session import broken_copy

ROOT = "http://service/api/external"
SECRETS = st.text(
    alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E, blacklist_characters=":"),
    min_size=9,
    max_size=60,
).map(lambda tail: "sk_" + tail)


def echoing(pad: int) -> httpx.MockTransport:
    def answer(request: httpx.Request) -> httpx.Response:
        body = {"pad": "p" * pad, "seen": request.headers.get("authorization", "")}
        return httpx.Response(400, json=body)

    return httpx.MockTransport(answer)


@settings(max_examples=60, deadline=None)
@given(secret=SECRETS, pad=st.integers(min_value=0, max_value=GOT_LIMIT))
def test_an_echoed_secret_never_survives_even_cut_at_the_limit(secret: str, pad: int) -> None:
    with Session(Target(ROOT, "cli_1", secret), transport=echoing(pad)) as session:
        for auth in ("key", "wrong-secret", "basic"):
            try:
                got = seen(session.send(Probe("GET", "/balance", auth=auth)))
            except CannotCheckError as exc:  # redaction may break an escape: never a leak
                got = exc.cause
            assert secret[:10] not in got
            token = base64.b64encode(f"cli_1:{secret}".encode()).decode()
            assert token[:16] not in got


def test_a_probe_is_sent_as_written_and_signed_over_its_bytes() -> None:
    sent: list[httpx.Request] = []

    def record(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, json={"worked": True})

    with Session(Target(ROOT, "cli_1", "sk_secret"), transport=httpx.MockTransport(record)) as s:
        s.send(Probe("POST", "/cpf/validate", {"cpf": "1", "a": 2}, idempotency_key="k1"))
        s.send(Probe("POST", "/cpf/validate", b'{"amount":1.0}', sign="wrong"))
        s.send(Probe("POST", "/cpf/validate", b"x", sign="none", auth="none"))
    first, second, third = sent
    assert first.content == b'{"a":2,"cpf":"1"}'
    assert first.headers["hmac"] == wire.sign(first.content, "sk_secret")
    assert first.headers["authorization"] == "ApiKey cli_1:sk_secret"
    assert first.headers["idempotency-key"] == "k1"
    assert second.content == b'{"amount":1.0}'
    assert second.headers["hmac"] == wire.sign(b'{"amount":1.0}', broken_copy("sk_secret"))
    assert "hmac" not in third.headers
    assert "authorization" not in third.headers


@pytest.mark.parametrize(
    ("status", "content", "media", "cause"),
    [
        (
            502,
            b"<html><title>Bad Gateway</title></html>",
            "text/html",
            "an HTML page ('Bad Gateway')",
        ),
        (200, b"  <!doctype html><p>hi", "text/plain", "an HTML page, not JSON"),
        (500, b'{"error":"boom"}', "application/json", "HTTP 500: the service failed"),
        (200, b"plain words", "text/plain", "answered text/plain, not JSON"),
    ],
)
def test_what_is_not_an_answer_of_the_service_cannot_be_checked(
    status: int, content: bytes, media: str, cause: str
) -> None:
    transport = httpx.MockTransport(
        lambda request: httpx.Response(status, content=content, headers={"content-type": media})
    )
    with (
        Session(Target(ROOT, "cli_1", "sk_x"), transport=transport) as session,
        pytest.raises(CannotCheckError) as refused,
    ):
        session.send(Probe("GET", "/balance"))
    assert refused.value.cause.startswith("GET /balance: ")
    assert cause in refused.value.cause


def test_a_target_never_shows_its_secret() -> None:
    target = Target(ROOT, "cli_1", "sk_very_secret")
    assert "sk_very_secret" not in repr(target)
    assert "sk_very_secret" not in json.dumps(str(target))
