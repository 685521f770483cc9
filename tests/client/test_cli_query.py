"""`pixops api METHOD 'PATH?QUERY'`: the query is read as a URL writes it."""

from __future__ import annotations

import io
from typing import Any

import httpx
import pytest

import pixops
from pixops.cli import build_parser
from pixops.client import _cli


def test_a_percent_encoded_query_is_sent_as_meant(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[httpx.URL] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request.url)
        return httpx.Response(200, json={"worked": True})

    def client(args: Any, **options: Any) -> pixops.Client:
        transport = httpx.MockTransport(handle)
        return pixops.Client("https://pix.example", "cli_x", "sk_x", transport=transport, **options)

    monkeypatch.setattr(_cli, "_client", client)
    path = "/statement?date_from=2026-01-01&note=caf%C3%A9+bar&a%26b=1%3D1"
    args = build_parser().parse_args(["api", "GET", path])
    assert _cli.run_api(args, io.StringIO()) == 0
    params = seen[0].params
    assert params["note"] == "café bar"
    assert params["a&b"] == "1=1"
    assert params["date_from"] == "2026-01-01"
