"""The `pixops` command line: demo, dev-cert, serve, and argument errors."""

from __future__ import annotations

import argparse
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from pixops.cli import Commands, build_parser, main

pytestmark = pytest.mark.timeout(60)


def test_demo_runs_a_merchant_day(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "1. GET /balance: balance R$ 10.000,00, available R$ 10.000,00" in out
    assert "529.982.247-25: valid" in out
    assert "123.456.789-00: invalid" in out
    assert re.search(r"POST /pix/cash-in R\$ 150,00: QR \w+", out)
    assert re.search(r"PIXOUTE\w+: settled", out)
    assert re.search(r"PIXRETD\w+: settled", out)
    assert "GET /statement: 3 movements" in out
    assert "events emitted: pix.charge.paid" in out
    assert "ledger audit: consistent" in out
    assert "FAILED" not in out


def test_python_dash_m_pixops_runs_the_cli() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pixops", "--help"], capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 0
    for command in ("serve", "dev-cert", "demo"):
        assert command in result.stdout


def test_dev_cert_writes_a_certificate_and_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_dir = tmp_path / "tls"
    assert main(["dev-cert", "--out", str(out_dir), "--host", "pix.test"]) == 0
    assert (out_dir / "cert.pem").read_text().startswith("-----BEGIN CERTIFICATE-----")
    assert "PRIVATE KEY" in (out_dir / "key.pem").read_text()
    out = capsys.readouterr().out
    assert f"pixops serve --tls-cert {out_dir / 'cert.pem'} --tls-key {out_dir / 'key.pem'}" in out


def _register_echo(commands: Commands) -> None:
    parser = commands.add("echo", help="print a word", handler=lambda args: len(args.word))
    parser.add_argument("word")


def test_a_module_registers_its_own_subcommand(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.modules[__name__], "register", _register_echo, raising=False)
    parser = build_parser(("pixops.cli", __name__))
    args = parser.parse_args(["echo", "four"])
    assert args.handler(args) == 4
    assert "echo" in parser.format_help()
    assert "serve" in parser.format_help()


def test_a_subcommand_registered_twice_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.modules[__name__], "register", _register_echo, raising=False)
    with pytest.raises(ValueError, match="registered twice"):
        build_parser((__name__, __name__))


@pytest.mark.parametrize("name", ["", "-x"])
def test_a_subcommand_needs_a_word_for_a_name(name: str) -> None:
    commands = Commands(argparse.ArgumentParser().add_subparsers())
    with pytest.raises(ValueError, match="non-empty word"):
        commands.add(name, help="nothing", handler=lambda _args: 0)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "required"),
        (["frobnicate"], "invalid choice"),
        (["serve", "--port", "abc"], "not an integer"),
        (["serve", "--port", "70000"], "between 0 and 65535"),
        (["serve", "--rate-limit", "0"], "at least 1"),
        (["serve", "--trusted-proxy", "proxy.local"], "not an IP address"),
        (["serve", "--tls-cert", "/nonexistent/cert.pem"], "no such file"),
        (["serve", "--http", "gevent"], "invalid choice"),
        (["serve", "--unknown-flag"], "unrecognized arguments"),
        (["dev-cert"], "--out"),
    ],
)
def test_bad_flags_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_tls_cert_without_key_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cert = tmp_path / "cert.pem"
    cert.write_text("not used")
    assert main(["serve", "--tls-cert", str(cert)]) == 2
    assert "--tls-cert and --tls-key go together" in capsys.readouterr().err


def test_serve_on_a_busy_port_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = busy.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 1
    assert "cannot start" in capsys.readouterr().err


def test_serve_prints_working_credentials_and_stops_on_ctrl_c() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "pixops", "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        lines: list[str] = []
        while not lines or lines[-1] != "press Ctrl-C to stop":
            line = process.stdout.readline()
            assert line, "server exited before printing its banner"
            lines.append(line.rstrip("\n"))
        text = "\n".join(lines)
        api = re.search(r"API base URL: (\S+)", text)
        curl = re.search(r'curl -H "Authorization: (ApiKey \S+)" (\S+)', text)
        assert api is not None
        assert curl is not None
        assert curl.group(2) == api.group(1) + "/balance"
        response = httpx.get(curl.group(2), headers={"Authorization": curl.group(1)}, timeout=10)
        assert response.status_code == 200
        assert response.json()["data"]["balance"] == 10_000_00 * 100
        process.send_signal(signal.SIGINT)
        out, _ = process.communicate(timeout=15)
        assert process.returncode == 0
        assert "pixops serve: stopped" in out
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate(timeout=5)


def test_serve_with_an_unusable_database_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", "--port", "0", "--db", str(tmp_path / "missing" / "pix.db")]) == 1
    assert "cannot start" in capsys.readouterr().err
