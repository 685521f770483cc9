"""The `pixops` command line: demo, dev-cert, serve, and argument errors."""

from __future__ import annotations

import argparse
import json
import re
import signal
import socket
import subprocess
import sys
from datetime import datetime, timedelta
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


def test_building_the_parser_loads_no_heavy_stack() -> None:
    """Every command registers with the standard library alone: `pixops --help` (and a
    typo's usage message) must not wait for pandas, DuckDB, the engine or httpx."""
    heavy = ("pandas", "pyarrow", "duckdb", "httpx", "pydantic", "uvicorn", "pixops.engine")
    script = (
        "import sys, json\n"
        "from pixops.cli import build_parser\n"
        "build_parser()\n"
        "print(json.dumps(sorted(sys.modules)))"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=30, check=True
    )
    loaded = json.loads(result.stdout)
    assert [name for name in loaded if name.startswith(heavy)] == []
    assert "serve" in build_parser().format_help()


def test_recon_defaults_to_the_business_zone() -> None:
    from pixops.frames import BUSINESS_TZ

    args = build_parser().parse_args(
        ["recon", "--date", "2026-01-15", "--ledger", "l", "--out", "o"]
    )
    assert args.tz == BUSINESS_TZ


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
    parser = build_parser(("pixops._cli_serve", __name__))
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


class Served:
    """A `pixops serve` subprocess and the banner it printed."""

    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "pixops", "serve", "--port", "0", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        self.lines: list[str] = []
        while not self.lines or self.lines[-1] != "press Ctrl-C to stop":
            line = self.process.stdout.readline()
            if not line:
                self.stop()
                raise AssertionError(f"pixops serve exited early: {self.lines}")
            self.lines.append(line.rstrip("\n"))
        self.text = "\n".join(self.lines)

    def after(self, heading: str, count: int) -> list[str]:
        """The `count` lines that follow the banner line starting with `heading`."""
        start = next(i for i, line in enumerate(self.lines) if line.startswith(heading))
        return self.lines[start + 1 : start + 1 + count]

    def value(self, pattern: str) -> str:
        found = re.search(pattern, self.text)
        assert found is not None, f"{pattern!r} not in the banner:\n{self.text}"
        return found.group(1)

    def stop(self) -> str:
        """SIGINT, then what was left on stdout; the server must stop cleanly."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        try:
            out, err = self.process.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            out, err = self.process.communicate(timeout=5)
        assert "Traceback" not in err, err
        return out


def bash(script: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    """Run pasted lines in bash, as a user would in a terminal."""
    return subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", script],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_the_banner_commands_work_when_pasted_into_bash() -> None:
    served = Served("--manual-clock")
    try:
        signed = bash("\n".join(served.after("signed POST", 3)))
        assert signed.returncode == 0, signed.stderr
        charge = json.loads(signed.stdout)
        assert charge["worked"] is True
        assert charge["data"]["brcode"].startswith("000201")
        received = bash("\n".join(served.after("a R$ 50,00 PIX arrives", 1)))
        assert received.returncode == 0, received.stderr
        credit = json.loads(received.stdout)["data"]
        assert credit["status"] == "settled"

        base = served.value(r"sandbox test helpers: (\S+)")
        token = served.value(r"admin token: (\S+)")
        admin = {"authorization": f"Bearer {token}", "content-type": "application/json"}
        paid = httpx.post(
            f"{base}/charges/{charge['data']['transaction_id']}/pay", headers=admin, timeout=10
        )
        assert paid.status_code == 201, paid.text
        before = httpx.get(f"{base}/clock", headers=admin, timeout=10).json()["data"]
        assert before["manual"] is True
        moved = httpx.post(
            f"{base}/clock/advance", content=b'{"seconds": 60}', headers=admin, timeout=10
        ).json()["data"]
        assert datetime.fromisoformat(moved["now"]) - datetime.fromisoformat(
            before["now"]
        ) == timedelta(seconds=60)
    finally:
        served.stop()


def test_production_mode_has_no_helpers_no_token_and_no_demo_merchant(tmp_path: Path) -> None:
    served = Served("--production", "--db", str(tmp_path / "pix.sqlite"))
    try:
        assert "production mode" in served.text
        assert "admin token" not in served.text
        assert "client_secret:" not in served.text
        assert "no demo merchant in production mode" in served.text
        api = served.value(r"API base URL: (\S+)")
        root = api.removesuffix("/api/external")
        refused = httpx.get(
            f"{root}/sandbox/v1/clock", headers={"authorization": "Bearer " + "x" * 47}, timeout=10
        )
        assert refused.status_code == 403
        assert "--production" in refused.json()["error"]["message"]
    finally:
        served.stop()


def test_production_without_a_database_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    # In memory it would start with no merchant and no way to issue one a key.
    assert main(["serve", "--production"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("pixops serve: --production needs --db PATH")
    assert "pixops keys issue --db PATH --new-merchant NAME" in err


def test_manual_clock_and_production_do_not_mix(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["serve", "--manual-clock", "--production"])
    assert exit_info.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_dev_cert_prints_a_command_that_works_with_the_banner_export(tmp_path: Path) -> None:
    made = subprocess.run(
        [sys.executable, "-m", "pixops", "dev-cert", "--out", str(tmp_path / "tls")],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert made.returncode == 0, made.stderr
    curl = made.stdout.splitlines()[-1]
    assert curl.lstrip().startswith("curl --cacert")
    served = Served(
        "--tls-cert",
        str(tmp_path / "tls" / "cert.pem"),
        "--tls-key",
        str(tmp_path / "tls" / "key.pem"),
    )
    try:
        export = served.after("for pixops.connect()", 1)[0]
        called = bash(f"{export}\n{curl}")
        assert called.returncode == 0, called.stderr
        assert json.loads(called.stdout)["data"]["balance"] == 10_000_00 * 100
        signed = bash("\n".join(served.after("signed POST", 3)))
        assert signed.returncode == 0, signed.stderr
        assert json.loads(signed.stdout)["worked"] is True
    finally:
        served.stop()


def test_serve_with_an_unusable_database_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", "--port", "0", "--db", str(tmp_path / "missing" / "pix.db")]) == 1
    assert "cannot start" in capsys.readouterr().err
