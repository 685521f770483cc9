"""Building a client: arguments, environment, `.env`; secrets never shown."""

from __future__ import annotations

from pathlib import Path

import pytest

import pixops
from pixops.client import ConfigurationError, Credentials


def test_explicit_arguments_and_the_api_root() -> None:
    client = pixops.Client("https://pix.example/", "cli_1", "sk_secret")
    assert client.base_url == "https://pix.example/api/external"
    again = pixops.Client("https://pix.example/api/external", "cli_1", "sk_secret")
    assert again.base_url == client.base_url
    assert "sk_secret" not in repr(client)
    assert "sk_secret" not in repr(Credentials("cli_1", "sk_secret"))
    with client:
        pass


@pytest.mark.parametrize(
    ("base_url", "client_id", "secret"),
    [
        (None, "cli", "sk"),
        ("ftp://x", "cli", "sk"),
        ("https://x", "", "sk"),
        ("https://x", "cli", " sk"),
        ("https://x", "cli:1", "sk"),
        ("https://x", "cli", 5),
        # httpx encodes the Authorization header as ASCII: UnicodeEncodeError on first use.
        ("https://x", "clí", "sk"),
        ("https://x", "cli", "sk\x7f"),
    ],
)
def test_bad_settings_are_refused(base_url: object, client_id: object, secret: object) -> None:
    with pytest.raises(ConfigurationError) as caught:
        pixops.Client(base_url, client_id, secret)  # type: ignore[arg-type]
    assert "sk" not in str(caught.value).replace("sk_", "")
    with pytest.raises(ConfigurationError):
        pixops.Client("https://x", "cli", "sk", key_case="kebab")  # type: ignore[arg-type]


def test_from_env_reads_the_environment_then_dotenv(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("PIXOPS_BASE_URL", "PIXOPS_CLIENT_ID", "PIXOPS_CLIENT_SECRET"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / ".env").write_text(
        "PIXOPS_BASE_URL=https://from-file.example\nPIXOPS_CLIENT_ID=cli_file\n"
        "PIXOPS_CLIENT_SECRET='sk_file'\n"
    )
    monkeypatch.chdir(tmp_path)
    client = pixops.Client.from_env()
    assert client.base_url == "https://from-file.example/api/external"
    assert client.client_id == "cli_file"
    monkeypatch.setenv("PIXOPS_CLIENT_ID", "cli_env")
    assert pixops.AsyncClient.from_env().client_id == "cli_env"
    with pytest.raises(ConfigurationError):
        pixops.Client.from_env(dotenv_path=tmp_path / "missing.env")
    with pytest.raises(ConfigurationError, match=r"is a folder: give the \.env file in it"):
        pixops.Client.from_env(dotenv_path=tmp_path)


def test_from_env_names_what_is_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("PIXOPS_BASE_URL", "PIXOPS_CLIENT_ID", "PIXOPS_CLIENT_SECRET"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigurationError, match="PIXOPS_BASE_URL, PIXOPS_CLIENT_ID"):
        pixops.Client.from_env()


def test_the_sandbox_client_wants_an_api_key() -> None:
    from pixops.sandbox import Sandbox

    with pytest.raises(TypeError, match="ApiKey"):
        Sandbox().client("cli_x:sk_x")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="ApiKey"):
        Sandbox().async_client(None)  # type: ignore[arg-type]


@pytest.mark.parametrize("timeout", ["5", float("nan"), float("inf"), 0, -1, True, None])
def test_a_timeout_that_is_no_duration_is_refused_when_made(timeout: object) -> None:
    # httpx took these and failed (or never timed out) on the first request instead.
    for make in (pixops.Client, pixops.AsyncClient):
        with pytest.raises(ConfigurationError, match="timeout must be a positive number"):
            make("https://x", "cli", "sk", timeout=timeout)  # type: ignore[arg-type]


def test_a_dotenv_file_not_in_utf8_is_a_configuration_error(tmp_path: Path) -> None:
    path = tmp_path / ".env"
    path.write_bytes(b"PIXOPS_BASE_URL=https://x\nPIXOPS_CLIENT_ID=cli\xe7\n")
    with pytest.raises(ConfigurationError, match="is not UTF-8 text"):
        pixops.Client.from_env(dotenv_path=path)
