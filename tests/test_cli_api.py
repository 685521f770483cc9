"""`pixops doctor` and `pixops api` from the shell: a refusal is one line on stderr (a
scheduler logs stderr; `pixops api ... | jq` reads stdout), with the documented status."""

from __future__ import annotations

from pathlib import Path

import pytest

from pixops.cli import main

pytestmark = pytest.mark.timeout(60)

_SETTINGS = ("PIXOPS_BASE_URL", "PIXOPS_CLIENT_ID", "PIXOPS_CLIENT_SECRET")


@pytest.fixture(autouse=True)
def no_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _SETTINGS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no .env found upwards


def _env_file(tmp_path: Path, content: bytes | None) -> str:
    path = tmp_path / "settings.env"
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    return str(path)


@pytest.mark.parametrize("command", [["doctor"], ["api", "GET", "/balance"]])
@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "is a folder: give the .env file in it"),
        (b"PIXOPS_BASE_URL=http://127.0.0.1:9\nPIXOPS_CLIENT_ID=\xff\n", "is not UTF-8 text"),
        (b"PIXOPS_BASE_URL=http://127.0.0.1:9\n", "missing PIXOPS_CLIENT_ID, PIXOPS_CLIENT_SECRET"),
        (b"", "pixops serve` prints the export line of its demo key"),
        (b"PIXOPS_BASE_URL=ftp://x\nPIXOPS_CLIENT_ID=a\nPIXOPS_CLIENT_SECRET=s\n", "http(s)"),
        (b"PIXOPS_BASE_URL=http://h:99999\nPIXOPS_CLIENT_ID=a\nPIXOPS_CLIENT_SECRET=s\n", "port"),
    ],
)
def test_bad_settings_exit_2_with_one_line_on_stderr(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    command: list[str],
    content: bytes | None,
    message: str,
) -> None:
    assert main([*command, "--env-file", _env_file(tmp_path, content)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"pixops {command[0]}: ")
    assert message in captured.err
    assert captured.err.count("\n") == 1


def test_an_unreachable_service_is_exit_1_on_stderr(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PIXOPS_BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("PIXOPS_CLIENT_ID", "cli")
    monkeypatch.setenv("PIXOPS_CLIENT_SECRET", "sk")
    assert main(["api", "GET", "/balance"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("pixops api: GET /balance: ConnectError")


def test_a_refused_json_body_is_exit_2_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["api", "POST", "/cpf/validate", "{bad"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("pixops api: the JSON body is refused: ")
