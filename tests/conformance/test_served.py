"""The kit over real sockets: `pixops serve`'s server passes every check, and a served
engine with one deviation injected (an ASGI wrapper that rewrites its answers) fails the
one check measuring that rule, and nothing else."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pixops import wire
from pixops.cli import build_parser, main
from pixops.conformance import Target, run_conformance, select_checks
from pixops.sandbox import ApiKey, Sandbox
from pixops.server import PixopsServer, ServeOptions, build_engine, seed_demo_merchant
from tests.conformance._world import fresh_sandbox, furnish

if TYPE_CHECKING:
    from tests.conftest import LiveServer

pytestmark = pytest.mark.timeout(60)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[PixopsServer, ApiKey]]:
    """What `pixops serve` runs (its engine, demo merchant and server), on loopback."""
    options = ServeOptions(port=0)
    engine = build_engine(options)
    demo = seed_demo_merchant(engine)
    assert demo is not None
    key = furnish(Sandbox.over(engine), demo.merchant_id)
    with PixopsServer(engine, options) as server:
        yield server, key


def test_pixops_serve_passes_every_check_and_no_output_shows_the_secret(
    served: tuple[PixopsServer, ApiKey],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    server, key = served
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PIXOPS_BASE_URL", server.base_url)
    monkeypatch.setenv("PIXOPS_CLIENT_ID", key.client_id)
    monkeypatch.setenv("PIXOPS_CLIENT_SECRET", key.client_secret)
    status = main(["conformance", "--write", "--json", "report.json", "--html", "report.html"])
    out = capsys.readouterr().out
    report = json.loads((tmp_path / "report.json").read_text("utf-8"))
    page = (tmp_path / "report.html").read_text("utf-8")
    assert [r["check"] for r in report["results"] if r["verdict"] != "pass"] == []
    assert status == 0
    assert report["passed"] is True
    assert out.index("--write: these checks create state") < out.index("CHECK ")
    assert f"all {len(report['results'])} checks passed" in out
    for text in (out, json.dumps(report), page):
        assert key.client_secret not in text
        assert key.client_secret[3:20] not in text


# -- deviations ------------------------------------------------------------------------


@dataclass
class Exchange:
    """One request and its answer, as the wrapper sees them; a rewrite edits the answer."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    status: int
    answer: Any


Rewrite = Callable[[Exchange], None]


def rewriting(app: Callable[[Scope, Receive, Send], Awaitable[None]], rewrite: Rewrite) -> Any:
    """`app` with every JSON answer passed through `rewrite` (status and body)."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        request_body = bytearray()

        async def reading() -> Message:
            message = await receive()
            request_body.extend(message.get("body", b""))
            return message

        start: dict[str, Any] = {}
        chunks: list[bytes] = []

        async def capture(message: Message) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
                return
            if message["type"] != "http.response.body":
                await send(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body"):
                return
            exchange = Exchange(
                scope["method"],
                scope["path"].removeprefix("/api/external"),
                {k.decode().lower(): v.decode("latin-1") for k, v in scope["headers"]},
                bytes(request_body),
                start["status"],
                json.loads(b"".join(chunks)),
            )
            rewrite(exchange)
            body = json.dumps(exchange.answer, separators=(",", ":")).encode()
            headers = [(k, v) for k, v in start["headers"] if k.lower() != b"content-length"]
            headers.append((b"content-length", str(len(body)).encode()))
            await send(
                {"type": "http.response.start", "status": exchange.status, "headers": headers}
            )
            await send({"type": "http.response.body", "body": body})

        await app(scope, reading, capture)

    return wrapped


def altered_message(x: Exchange) -> None:
    if x.answer == {"worked": False, "detail": "Missing HMAC header"}:
        x.answer["detail"] = "HMAC header is missing"


def missing_field(x: Exchange) -> None:
    if x.path == "/balance" and x.status == 200:
        x.answer["data"].pop("available_balance", None)
        x.answer["data"].pop("availableBalance", None)


def wrong_status(x: Exchange) -> None:
    if x.status == 405:
        x.status = 404


def hmac_before_credentials(key: ApiKey) -> Rewrite:
    """A service that checks the signature before the key (the spec: credentials first):
    a POST with a wrong key and a bad signature gets the HMAC refusal."""
    right = f"ApiKey {key.client_id}:{key.client_secret}"

    def rewrite(x: Exchange) -> None:
        wrong_key = x.headers.get("authorization", right) != right
        signed = x.headers.get("hmac") == wire.sign(x.body, key.client_secret)
        if x.method == "POST" and x.status == 401 and wrong_key and not signed:
            x.answer = {"worked": False, "detail": "Invalid HMAC signature"}

    return rewrite


def snake_key_left(x: Exchange) -> None:
    if x.path == "/balance" and x.headers.get("x-key-case") == "camelCase" and x.status == 200:
        x.answer["data"]["available_balance"] = x.answer["data"].pop("availableBalance")


@pytest.fixture
def world() -> tuple[Sandbox, ApiKey]:
    return fresh_sandbox()


@pytest.mark.parametrize(
    ("deviation", "failing"),
    [
        (altered_message, "hmac-missing"),
        (missing_field, "balance"),
        (wrong_status, "method-not-allowed"),
        ("reordered", "order-credentials-before-hmac"),
        (snake_key_left, "camel-case-answers"),
    ],
    ids=["altered-message", "missing-field", "wrong-status", "reordered-pipeline", "snake-key"],
)
def test_a_deviation_fails_its_check_and_nothing_else(
    live_server: LiveServer, world: tuple[Sandbox, ApiKey], deviation: Any, failing: str
) -> None:
    sandbox, key = world
    rewrite = hmac_before_credentials(key) if deviation == "reordered" else deviation
    live_server.app = rewriting(sandbox.asgi_app, rewrite)
    try:
        report = run_conformance(
            Target(live_server.base_url, key.client_id, key.client_secret),
            checks=select_checks(write=True),
        )
    finally:
        live_server.app = None
    verdicts = {r.name: r.verdict for r in report.results if r.verdict != "pass"}
    assert verdicts == {failing: "fail"}
    assert report.summary().startswith(f"{len(report.results) - 1} passed, 1 failed")


def test_the_cli_parser_knows_the_command() -> None:
    args = build_parser().parse_args(["conformance", "--only", "balance,cpf-validate"])
    assert args.only == ["balance,cpf-validate"]
    assert args.write is False
