"""The doctor's verdicts read only what an answer proves: a 404 or a 5xx from /balance
proves no credentials, an inactive account is no whitelist problem, and a read probe
that was rate-limited or failed says nothing about the permission."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

import pixops
from pixops.client._doctor import DoctorReport

BALANCE = {
    "worked": True,
    "data": {
        "balance": 10_000,
        "available_balance": 10_000,
        "safe_balance": 10_000,
        "currency": "BRL",
        "as_of": "2026-01-05T12:00:00.000Z",
    },
}
CPF = {"worked": True, "data": {"cpf": "52998224725", "valid": True}}


def doctor(routes: dict[str, Callable[[], httpx.Response]]) -> DoctorReport:
    def handle(request: httpx.Request) -> httpx.Response:
        path = request.url.path.removeprefix("/api/external")
        if path in routes:
            return routes[path]()
        return httpx.Response(200, json={"worked": True, "data": [], "page": 1, "per_page": 1})

    client = pixops.Client(
        "https://pix.example", "cli_x", "sk_x", transport=httpx.MockTransport(handle)
    )
    return client.doctor()


def verdicts(report: DoctorReport) -> dict[str, tuple[str, str]]:
    return {check.name: (check.verdict, check.detail) for check in report.checks}


@pytest.mark.parametrize(
    "answer",
    [
        lambda: httpx.Response(404, text="Not Found"),
        lambda: httpx.Response(502, text="<html><title>502 Bad Gateway</title></html>"),
        lambda: httpx.Response(500, json={"error": {"status": 500, "message": "boom"}}),
    ],
)
def test_a_balance_that_did_not_answer_proves_no_credentials(
    answer: Callable[[], httpx.Response],
) -> None:
    report = doctor({"/balance": answer})
    found = verdicts(report)
    verdict, detail = found["credentials accepted"]
    assert verdict == "fail"
    assert "GET /balance" in detail
    assert "IP whitelisted" not in found
    assert not report.ok


def test_an_inactive_account_is_not_called_a_whitelist_problem() -> None:
    body = {"error": {"status": 403, "message": "Account is not active"}}
    report = doctor({"/balance": lambda: httpx.Response(403, json=body)})
    verdict, detail = verdicts(report)["account active"]
    assert verdict == "fail"
    assert "Account is not active" in detail
    assert "whitelist" not in detail
    assert "IP whitelisted" not in verdicts(report)


def test_a_read_probe_that_failed_is_not_a_missing_permission() -> None:
    limited = {"error": {"status": 429, "message": "Too many requests. Please try again later."}}
    denied = {"error": "forbidden", "message": "API key lacks permission: payment:read"}
    report = doctor(
        {
            "/balance": lambda: httpx.Response(200, json=BALANCE),
            "/cpf/validate": lambda: httpx.Response(200, json=CPF),
            "/statement": lambda: httpx.Response(429, json=limited),
            "/pix/keys": lambda: httpx.Response(503),
            "/med": lambda: httpx.Response(403, json=denied),
        }
    )
    verdict, detail = verdicts(report)["read permissions"]
    assert "missing: payment:read" in detail
    assert "statement:read" not in detail.split("missing:")[1].split(";")[0]
    assert "not told: statement:read (HTTP 429), pix:read (HTTP 503)" in detail
    assert verdict == "warn"
