"""The client writes a call's query into the URL text itself (one parse by httpx instead
of two): the URL sent is exactly the one httpx's own `params=` would have made."""

from __future__ import annotations

import httpx
from hypothesis import given
from hypothesis import strategies as st

from pixops.client._config import Credentials, Settings
from pixops.client._core import Call, build_request, request_target
from pixops.sandbox import ApiKey, Merchant, Sandbox

_ROOT = "https://pix.example/api/external"
_texts = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=12
)


def _settings() -> Settings:
    return Settings(_ROOT, Credentials("id", "secret"))


def _httpx_url(path: str, query: dict[str, str]) -> httpx.URL:
    with httpx.Client() as http:
        return http.build_request("GET", _ROOT + path, params=query or None).url


@given(st.dictionaries(_texts.filter(bool), _texts, max_size=4))
def test_the_url_is_the_one_httpx_params_make(query: dict[str, str]) -> None:
    with httpx.Client() as http:
        request, _ = build_request(http, _settings(), Call("GET", "/statement", query))
    assert request.url == _httpx_url("/statement", query)
    assert dict(request.url.params) == query


def test_the_query_is_in_the_text_and_nothing_is_left_to_merge() -> None:
    url, params = request_target(_ROOT, Call("GET", "/statement", {"per_page": "100"}))
    assert (url, params) == (f"{_ROOT}/statement?per_page=100", None)
    assert request_target(_ROOT, Call("GET", "/balance")) == (f"{_ROOT}/balance", None)


def test_a_path_with_its_own_query_keeps_it_and_gets_the_rest_after_it() -> None:
    # httpx's `params=` would have replaced `page=2`: the caller asked for both.
    call = Call("GET", "/statement?page=2", {"per_page": "100", "type": "pix & co"})
    with httpx.Client() as http:
        request, _ = build_request(http, _settings(), call)
    assert request.url.params.multi_items() == [
        ("page", "2"),
        ("per_page", "100"),
        ("type", "pix & co"),
    ]
    assert request.url.path == "/api/external/statement"


def test_a_path_with_a_fragment_is_left_to_httpx() -> None:
    call = Call("GET", "/statement#top", {"per_page": "100"})
    assert request_target(_ROOT, call) == (f"{_ROOT}/statement#top", call.query)
    with httpx.Client() as http:
        request, _ = build_request(http, _settings(), call)
    assert request.url == _httpx_url("/statement#top", call.query)


def test_an_httpx_client_s_own_params_are_still_merged() -> None:
    with httpx.Client(params={"trace": "1"}) as http:
        request, _ = build_request(http, _settings(), Call("GET", "/statement", {"page": "3"}))
    assert dict(request.url.params) == {"page": "3", "trace": "1"}


def test_the_service_gets_both_the_path_s_query_and_the_call_s(
    sandbox: Sandbox, merchant: Merchant, key: ApiKey
) -> None:
    for amount in (1_000, 2_000, 3_000):
        sandbox.receive_pix(merchant.id, amount_centavos=amount)
    with sandbox.client(key) as client:
        answer = client.request("GET", "/statement?page=2", query={"per_page": "1"})
    body = answer.json()
    assert (answer.status_code, body["page"], body["per_page"], len(body["data"])) == (
        200,
        2,
        1,
        1,
    )
