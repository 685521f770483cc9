"""Text from every Unicode general category, lone surrogates included, through the front
door into every free-text field: never a 5xx, never a leak, a refusal writes nothing,
and an accepted text comes back exactly as sent.

Bodies travel two ways: as valid JSON with `\\uXXXX` escapes (a lone surrogate is then a
legal JSON escape that no UTF-8 string can hold) and as raw UTF-8 with surrogates
encoded anyway (`surrogatepass`: bytes that are not UTF-8 at all).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pixops.sandbox import ApiKey, Sandbox
from tests.stress._harness import SETTLING_KEY, invariant_violations, leaks
from tests.stress.test_abuse import footprint

if TYPE_CHECKING:
    from tests.conftest import Api

EVERY_CATEGORY = (
    *("Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No"),
    *("Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So"),
    *("Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co", "Cn"),
)
any_text = st.text(st.characters(categories=EVERY_CATEGORY), max_size=160)
FIELDS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("/pix/cash-out", "description", {"amount": 1_000, "pix_key": SETTLING_KEY}),
    ("/pix/cash-out", "external_id", {"amount": 1_001, "pix_key": SETTLING_KEY}),
    ("/pix/cash-out", "pix_key", {"amount": 1_002}),
    ("/pix/cash-in", "description", {"amount": 500}),
    ("/pix/cash-in", "tag", {"amount": 501}),
    ("/pix/cash-in", "external_id", {"amount": 502}),
    ("/pix/refund", "description", {"original_transaction_id": "PIXIN-unknown"}),
    ("/pix/refund", "original_transaction_id", {}),
    ("/cpf/validate", "cpf", {}),
    ("/webhooks", "description", {"url": "https://example.com/h", "event_types": ["*"]}),
)
SETTINGS = settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def check(sandbox: Sandbox, api: Api, key: ApiKey, path: str, body: bytes) -> tuple[int, Any]:
    before = footprint(sandbox)
    response = api("POST", path, body)
    assert response.status_code < 500, response.text
    assert leaks(response.text, (key.client_secret,)) == []
    answer = response.json()  # always valid JSON, hence valid UTF-8
    if response.status_code >= 400:
        assert footprint(sandbox) == before, "a refused request wrote something"
    with sandbox.engine.store.lock:
        assert invariant_violations(sandbox.engine.store.conn) == []
    return response.status_code, answer


@SETTINGS
@given(field=st.sampled_from(FIELDS), text=any_text, escaped=st.booleans())
def test_any_text_in_any_field_is_handled(
    sandbox: Sandbox,
    api: Api,
    key: ApiKey,
    field: tuple[str, str, dict[str, Any]],
    text: str,
    escaped: bool,
) -> None:
    path, name, base = field
    payload = {**base, name: text}
    if escaped:
        body = json.dumps(payload, ensure_ascii=True).encode("ascii")
    else:
        body = json.dumps(payload, ensure_ascii=False).encode("utf-8", "surrogatepass")
    has_surrogate = any(0xD800 <= ord(c) <= 0xDFFF for c in text)
    status, answer = check(sandbox, api, key, path, body)
    if has_surrogate:
        assert status == 400, "no UTF-8 string can hold a lone surrogate"
    if status == 201 and path == "/pix/cash-in" and name == "description":
        shown = api("GET", f"/transactions/{answer['data']['transaction_id']}").json()
        described = shown["data"]["description"]
        if text.strip():
            assert described in (text, text.strip())
        else:  # an empty description is no description
            assert described in (None, "", text)
