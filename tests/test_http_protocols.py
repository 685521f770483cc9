"""uvicorn's protocols with the JSON 400: chosen by name, and the body they send."""

from __future__ import annotations

import json

import pytest
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from pixops._http_protocols import JsonH11Protocol, invalid_request_body, protocol_class


def test_each_parser_has_its_json_protocol() -> None:
    assert protocol_class("h11") is JsonH11Protocol
    assert issubclass(JsonH11Protocol, H11Protocol)
    httptools = protocol_class("httptools")
    assert issubclass(httptools, HttpToolsProtocol)
    assert protocol_class("httptools") is httptools


@pytest.mark.parametrize("name", ["auto", "h2", ""])
def test_only_the_two_http11_parsers_are_known(name: str) -> None:
    with pytest.raises(ValueError, match="h11 or httptools"):
        protocol_class(name)


def test_the_body_is_the_pipeline_error_shape() -> None:
    body = invalid_request_body("Invalid HTTP request received.")
    assert json.loads(body) == {
        "error": {"status": 400, "message": "Invalid HTTP request received."}
    }
