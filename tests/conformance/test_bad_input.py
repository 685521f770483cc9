"""Bad input to `pixops conformance`: each is a clear line naming the check and its cause,
the run goes on, and the verdict says what could not be checked. Every server here is
on loopback; the in-process runs go through a transport."""

from __future__ import annotations

import argparse
import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from io import StringIO
from pathlib import Path

import httpx
import pytest

from pixops.cli import build_parser, main
from pixops.conformance import CHECK_NAMES, CHECKS
from pixops.conformance._cli import run_command
from pixops.devcert import write_dev_certificate
from pixops.sandbox import ApiKey, Sandbox
from pixops.server import PixopsServer, ServeOptions, build_engine
from tests.conformance._world import fresh_sandbox

pytestmark = pytest.mark.timeout(60)

NO_KEY_CHECKS = [c.name for c in CHECKS if not c.needs_key and not c.writes]
READ_ONLY = [c.name for c in CHECKS if not c.writes]


@pytest.fixture(autouse=True)
def no_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("PIXOPS_BASE_URL", "PIXOPS_CLIENT_ID", "PIXOPS_CLIENT_SECRET", "SSL_CERT_FILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no .env found upwards


def settings(
    monkeypatch: pytest.MonkeyPatch, base_url: str, key: ApiKey | tuple[str, str] | None
) -> None:
    monkeypatch.setenv("PIXOPS_BASE_URL", base_url)
    if key is not None:
        client_id, secret = key if isinstance(key, tuple) else (key.client_id, key.client_secret)
        monkeypatch.setenv("PIXOPS_CLIENT_ID", client_id)
        monkeypatch.setenv("PIXOPS_CLIENT_SECRET", secret)


def command(*words: str) -> argparse.Namespace:
    return build_parser().parse_args(["conformance", *words])


def run(
    transport: httpx.BaseTransport | None, *words: str
) -> tuple[int, str, str, dict[str, object]]:
    """The command in-process: (status, stdout, stderr, the JSON report or {})."""
    out, err = StringIO(), StringIO()
    status = run_command(command(*words, "--json", "r.json"), out, err, transport=transport)
    path = Path("r.json")
    report = json.loads(path.read_text("utf-8")) if path.exists() else {}
    return status, out.getvalue(), err.getvalue(), report


def verdicts(report: dict[str, object]) -> dict[str, str]:
    results = report["results"]
    assert isinstance(results, list)
    return {r["check"]: r["verdict"] for r in results}


def causes(report: dict[str, object]) -> dict[str, str]:
    results = report["results"]
    assert isinstance(results, list)
    return {r["check"]: r["got"] for r in results if r["verdict"] == "unchecked"}


class Refuses(httpx.BaseTransport):
    """A transport the test fails on: nothing may be sent."""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        raise AssertionError(f"sent {request.method} {request.url}")


# -- settings and arguments ----------------------------------------------------------------


def test_no_settings_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conformance"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("pixops conformance: missing PIXOPS_BASE_URL")
    assert captured.err.count("\n") == 1


def test_without_a_key_the_keyless_checks_run_and_the_rest_say_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sandbox, _ = fresh_sandbox()
    settings(monkeypatch, "http://sandbox", None)
    status, _, err, report = run(sandbox.transport())
    assert status == 1
    assert "no PIXOPS_CLIENT_ID or PIXOPS_CLIENT_SECRET" in err
    found = verdicts(report)
    assert [name for name, v in found.items() if v == "pass"] == NO_KEY_CHECKS
    unchecked = causes(report)
    assert sorted(unchecked) == sorted(set(READ_ONLY) - set(NO_KEY_CHECKS))
    needs = "needs PIXOPS_CLIENT_ID and PIXOPS_CLIENT_SECRET, which are not set"
    assert {
        cause.removeprefix("no refusal seen; not answered: ") for cause in unchecked.values()
    } == {needs}


@pytest.mark.parametrize(
    ("words", "message"),
    [
        (["--only", "balance,no-such-check"], "no check named no-such-check"),
        (["--skip", "nope"], "no check named nope"),
        (["--only", "qr-charge-created"], "qr-charge-created create state: add --write"),
        (["--only", "balance", "--skip", "balance"], "leave no check to run"),
        (["--json", "missing-folder/r.json"], "--json: the folder missing-folder does not exist"),
        (["--html", "."], "--html: . is a folder"),
    ],
)
def test_bad_arguments_are_exit_2_before_anything_is_sent(
    monkeypatch: pytest.MonkeyPatch, words: list[str], message: str
) -> None:
    settings(monkeypatch, "http://sandbox", None)
    out, err = StringIO(), StringIO()
    assert run_command(command(*words), out, err, transport=Refuses()) == 2
    assert out.getvalue() == ""
    assert err.getvalue().startswith("pixops conformance: ")
    assert message in err.getvalue()


def test_list_sends_nothing_and_names_every_check() -> None:
    out = StringIO()
    assert run_command(command("--list"), out, out, transport=Refuses()) == 0
    listed = [line.split()[0] for line in out.getvalue().splitlines() if not line.startswith(" ")]
    assert listed == list(CHECK_NAMES)


def test_only_and_skip_choose_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    sandbox, key = fresh_sandbox()
    settings(monkeypatch, "http://sandbox", key)
    status, out, _, report = run(sandbox.transport(), "--only", "balance,cpf-validate")
    assert (status, list(verdicts(report))) == (0, ["cpf-validate", "balance"])
    assert "all 2 checks passed" in out
    _, _, _, report = run(sandbox.transport(), "--skip", "balance", "--skip", "clock-skew")
    assert set(verdicts(report)) == set(READ_ONLY) - {"balance", "clock-skew"}


# -- what answers instead of the service ----------------------------------------------------


class FaultyMiddle(httpx.BaseTransport):
    """The sandbox, but a proxy's HTML error page for GET /pix/keys and a 503 for GET
    /webhooks: two failures in the middle of a run."""

    def __init__(self, sandbox: Sandbox) -> None:
        self.inner = sandbox.transport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if request.method == "GET" and path.endswith("/pix/keys"):
            page = b"<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"
            return httpx.Response(502, content=page, headers={"content-type": "text/html"})
        if request.method == "GET" and path.endswith("/webhooks"):
            return httpx.Response(503, json={"error": {"status": 503, "message": "down"}})
        return self.inner.handle_request(request)


def test_an_html_page_and_a_5xx_in_the_middle_are_unchecked_and_the_run_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sandbox, key = fresh_sandbox()
    settings(monkeypatch, "http://sandbox", key)
    status, out, _, report = run(FaultyMiddle(sandbox))
    assert status == 1
    unchecked = causes(report)
    assert sorted(unchecked) == ["pix-keys", "webhooks-list"]
    assert (
        "GET /pix/keys: HTTP 502 answered with an HTML page ('502 Bad Gateway')"
        in unchecked["pix-keys"]
    )
    assert "GET /webhooks: HTTP 503: the service failed" in unchecked["webhooks-list"]
    assert [n for n, v in verdicts(report).items() if v == "fail"] == []
    assert "could not be checked (webhooks-list, pix-keys)" in out
    assert "    cause: GET /pix/keys: HTTP 502" in out


class NotPix(BaseHTTPRequestHandler):
    """A web server that is not the PIX service: an HTML 404 for everything."""

    def _page(self) -> None:
        body = b"<!DOCTYPE html><html><title>Not Found</title><p>nothing here</p></html>"
        self.send_response(404)
        self.send_header("content-type", "text/html; charset=utf-8")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._page()

    def do_POST(self) -> None:
        self._page()

    def do_DELETE(self) -> None:
        self._page()

    def log_message(self, format: str, *args: object) -> None:
        return


@pytest.fixture
def not_pix() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), NotPix)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_base_url_that_is_not_a_pix_service(
    monkeypatch: pytest.MonkeyPatch, not_pix: str
) -> None:
    settings(monkeypatch, not_pix, ("cli_x", "sk_conformance_secret"))
    status, out, _, report = run(None)
    assert status == 1
    assert set(verdicts(report).values()) == {"unchecked"}
    assert "answered with an HTML page ('Not Found'), not JSON" in causes(report)["balance"]
    assert "0 passed, 0 failed" in out


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections and never answers."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    yield int(listener.getsockname()[1])
    listener.close()


def test_a_timeout_stops_sending_after_three_silent_checks(
    monkeypatch: pytest.MonkeyPatch, silent_port: int
) -> None:
    settings(monkeypatch, f"http://127.0.0.1:{silent_port}", ("cli_x", "sk_x"))
    status, _, _, report = run(None, "--timeout", "0.2")
    assert status == 1
    got = list(causes(report).values())
    assert len(got) == len(READ_ONLY)
    assert all("no answer within 0.2 s (ReadTimeout)" in cause for cause in got[:3])
    assert all(cause.startswith("not sent: the last 3 checks got no answer") for cause in got[3:])


def test_an_untrusted_certificate_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    certificate = write_dev_certificate(tmp_path / "tls")
    options = ServeOptions(port=0, tls_cert=certificate.cert, tls_key=certificate.key)
    with PixopsServer(build_engine(options), options) as server:
        settings(monkeypatch, server.base_url, None)
        status, out, _, report = run(None, "--only", "openapi-public,credentials-missing")
    assert status == 1
    for cause in causes(report).values():
        assert "TLS failed" in cause
        assert "SSL_CERT_FILE" in cause
    assert "openapi-public" in out


def test_a_refused_connection_names_the_host(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings(monkeypatch, f"http://127.0.0.1:{port}", None)
    _, _, _, report = run(None, "--only", "openapi-public")
    assert f"could not connect to http://127.0.0.1:{port}" in causes(report)["openapi-public"]


# -- nothing secret, everything escaped ------------------------------------------------------


def echo(request: httpx.Request) -> httpx.Response:
    """A hostile or broken service: echoes the request's headers, in JSON and in markup."""
    shown = dict(request.headers)
    return httpx.Response(400, json={"echo": shown, "message": "<script>alert('x')</script>"})


def test_the_secret_never_reaches_any_output_even_when_echoed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = "sk_live_5f3c1e0a9b8d7c6e5f4a3b2c1d0e9f8a"
    settings(monkeypatch, "http://sandbox", ("cli_echo", secret))
    out, err = StringIO(), StringIO()
    args = command("--write", "--json", "r.json", "--html", "r.html")
    status = run_command(args, out, err, transport=httpx.MockTransport(echo))
    assert status == 1
    outputs = [
        out.getvalue(),
        err.getvalue(),
        Path("r.json").read_text(),
        Path("r.html").read_text(),
    ]
    for text in outputs:
        assert secret not in text
        assert secret[:-1] not in text  # the deliberately broken copy
        assert "Y2xpX2VjaG86c2tf" not in text  # base64 of "cli_echo:sk_", Basic's token
    assert "[secret]" in outputs[1 - 1]
    page = outputs[3]
    assert "<script>" not in page
    assert "&lt;script&gt;" in page
