"""`client.doctor()` and the `pixops doctor` / `pixops api` commands."""

from __future__ import annotations

import io
import json
from pathlib import Path

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pixops.cli import build_parser
from pixops.client._cli import run_api, run_doctor_command
from pixops.sandbox import ApiKey, Merchant, Sandbox
from tests.conftest import LiveServer


@pytest.fixture
def sandbox() -> Sandbox:
    return Sandbox()


@pytest.fixture
def merchant(sandbox: Sandbox) -> Merchant:
    return sandbox.create_merchant("Loja Doctor", balance_centavos=100_000)


@pytest.fixture
def key(sandbox: Sandbox, merchant: Merchant) -> ApiKey:
    return sandbox.issue_api_key(merchant.id)


def verdicts(report: object) -> dict[str, str]:
    return {check.name: check.verdict for check in report.checks}  # type: ignore[attr-defined]


def test_a_healthy_key(sandbox: Sandbox, key: ApiKey) -> None:
    report = sandbox.client(key).doctor()
    assert report.ok
    found = verdicts(report)
    assert found["server answers"] == found["credentials accepted"] == "ok"
    assert found["IP whitelisted"] == found["HMAC signing"] == "ok"
    assert found["rate-limit headroom"] == "ok"
    assert "statement:read" in str(report)
    assert key.client_secret not in str(report)
    frame = report.to_frame()
    assert list(frame.columns) == ["check", "verdict", "detail"]
    card = report._repr_html_()
    assert "HMAC signing" in card
    assert "#1a7f37" in card  # ok verdicts in green
    assert "HMAC signing" in report._plain_html()


def test_each_failure_is_explained(sandbox: Sandbox, merchant: Merchant, key: ApiKey) -> None:
    outsider = sandbox.client(key, client_ip="203.0.113.9").doctor()
    assert not outsider.ok
    assert verdicts(outsider)["IP whitelisted"] == "fail"
    assert "whitelist" in str(outsider)
    sandbox.revoke_api_key(key.client_id)
    revoked = sandbox.client(key).doctor()
    assert verdicts(revoked)["credentials accepted"] == "fail"
    assert "inactive" in str(revoked)
    narrow = sandbox.issue_api_key(merchant.id, permissions=["transfer:read"])
    partial = sandbox.client(narrow).doctor()
    assert verdicts(partial)["HMAC signing"] == "skip"
    assert "missing: account:read" in str(partial)
    unsigned = sandbox.issue_api_key(merchant.id, hmac=False)
    assert verdicts(sandbox.client(unsigned).doctor())["HMAC signing"] == "fail"


def test_an_unreachable_server() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused")

    import pixops

    client = pixops.Client(
        "https://nowhere.example", "cli_x", "sk_x", transport=httpx.MockTransport(refuse)
    )
    report = client.doctor()
    assert not report.ok
    assert [c.name for c in report.checks] == ["server answers"]


def env_file(tmp_path: Path, base_url: str, key: ApiKey) -> Path:
    path = tmp_path / ".env"
    path.write_text(
        f"PIXOPS_BASE_URL={base_url}\nPIXOPS_CLIENT_ID={key.client_id}\n"
        f"PIXOPS_CLIENT_SECRET={key.client_secret}\n"
    )
    return path


def test_commands_over_http(
    live_server: LiveServer, sandbox: Sandbox, key: ApiKey, tmp_path: Path
) -> None:
    live_server.app = sandbox.asgi_app
    try:
        path = env_file(tmp_path, live_server.base_url, key)
        parser = build_parser()
        out = io.StringIO()
        args = parser.parse_args(["doctor", "--env-file", str(path)])
        assert run_doctor_command(args, out) == 0
        text = out.getvalue()
        assert "clock skew" in text  # uvicorn sends Date
        assert key.client_secret not in text
        out = io.StringIO()
        args = parser.parse_args(
            ["api", "POST", "/cpf/validate", '{"cpf": "52998224725"}', "--env-file", str(path)]
        )
        assert run_api(args, out) == 0
        printed = out.getvalue()
        assert printed.startswith("HTTP 200")
        assert json.loads(printed[printed.index("{") :])["data"]["valid"] is True
        out = io.StringIO()
        args = parser.parse_args(
            ["api", "get", "/statement?per_page=1", "--camel", "--env-file", str(path)]
        )
        assert run_api(args, out) == 0
        assert '"perPage": 1' in out.getvalue()
        out = io.StringIO()
        args = parser.parse_args(["api", "GET", "/transactions/nope", "--env-file", str(path)])
        assert run_api(args, out) == 1
        assert "HTTP 404" in out.getvalue()
        out = io.StringIO()
        args = parser.parse_args(["api", "POST", "/cpf/validate", "{bad", "--env-file", str(path)])
        assert run_api(args, out) == 2
        out = io.StringIO()
        body = '{"amount": 10.5, "pix_key": "x"}'
        args = parser.parse_args(["api", "POST", "/pix/cash-out", body, "--env-file", str(path)])
        assert run_api(args, out) == 2
        assert out.getvalue().startswith("pixops api: body['amount'] is a decimal number")
    finally:
        live_server.app = None


def test_missing_settings_are_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("PIXOPS_BASE_URL", "PIXOPS_CLIENT_ID", "PIXOPS_CLIENT_SECRET"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    args = build_parser().parse_args(["doctor"])
    assert run_doctor_command(args, out) == 2
    assert "PIXOPS_CLIENT_SECRET" in out.getvalue()


def test_the_async_doctor_runs_the_same_checks(
    sandbox: Sandbox, merchant: Merchant, key: ApiKey
) -> None:
    import asyncio

    async def both() -> tuple[object, object]:
        async with sandbox.async_client(key) as client:
            good = await client.doctor()
        async with sandbox.async_client(key, client_ip="203.0.113.9") as client:
            bad = await client.doctor()
        return good, bad

    good, bad = asyncio.run(both())
    assert verdicts(good) == verdicts(sandbox.client(key).doctor())
    assert verdicts(bad)["IP whitelisted"] == "fail"


@pytest.fixture
def unreachable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PIXOPS_BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("PIXOPS_CLIENT_ID", "cli")
    monkeypatch.setenv("PIXOPS_CLIENT_SECRET", "sk")


@pytest.mark.usefixtures("unreachable")
@pytest.mark.parametrize(
    "body",
    [
        '{"a": NaN}',
        '{"a": 1e999}',
        '{"a": 1, "a": 2}',  # json.loads kept the last one silently
        '{"a": "\\udcff"}',
        "[" * 50_000 + "]" * 50_000,  # RecursionError
        '{"a": "\udcff"}',  # argv bytes that were not UTF-8
        "\ud800",  # a lone surrogate no argv byte makes
    ],
)
def test_a_body_the_wire_refuses_exits_two_without_a_traceback(body: str) -> None:
    out = io.StringIO()
    args = build_parser().parse_args(["api", "POST", "/cpf/validate", body])
    assert run_api(args, out) == 2
    assert out.getvalue().startswith("pixops api: the JSON body is refused: ")


@pytest.mark.usefixtures("unreachable")
@pytest.mark.parametrize("path", ["/transactions/\udcff", "/statement?status=\udcff"])
def test_a_path_that_is_no_text_exits_two(path: str) -> None:
    out = io.StringIO()
    assert run_api(build_parser().parse_args(["api", "GET", path]), out) == 2
    assert "must be valid text" in out.getvalue()


@settings(max_examples=80, deadline=None)
@given(body=st.text(st.characters(exclude_categories=())))
def test_any_body_text_is_sent_or_refused_by_name(body: str) -> None:
    # No settings at all: a body that parses reaches the settings check (exit 2 too).
    # After `--`, as a shell user writes a body that starts with '-'.
    out = io.StringIO()
    args = build_parser().parse_args(
        ["api", "--env-file", "/nonexistent/.env", "POST", "/cpf/validate", "--", body]
    )
    assert run_api(args, out) == 2
    assert out.getvalue().startswith("pixops api: ")
