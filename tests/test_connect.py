"""`pixops.connect()`: the real service when configured, else the demo month, and it says which."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

import pixops
from pixops._connect import ENV_BASE_URL, ConnectError, connect, connection_of
from pixops.client import Client
from pixops.webhooks import Inbox


@pytest.fixture
def no_service(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No PIXOPS_* settings in the environment, and a working directory without .env."""
    for name in (ENV_BASE_URL, "PIXOPS_CLIENT_ID", "PIXOPS_CLIENT_SECRET"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_without_settings_it_is_the_demo_month_and_says_so(
    no_service: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    client = pixops.connect()
    assert isinstance(client, Client)
    line = capsys.readouterr().out
    assert line.startswith("Using the sandbox: demo month of 'Loja Simulada'")
    assert "No real money moves." in line
    connection = client.connection  # type: ignore[attr-defined]
    # The clock reads in São Paulo, like every other time shown (UTC-3 all year).
    local = connection.now().astimezone(ZoneInfo("America/Sao_Paulo"))
    assert f"clock at {local:%d/%m/%Y %H:%M} (São Paulo)." in line
    assert "UTC" not in line
    assert connection is connection_of(client)
    assert connection.mode == "sandbox"
    assert str(connection) == line.strip()
    assert connection.sandbox is not None
    assert connection.now() == connection.sandbox.now()
    assert client.balance().balance.format() == "R$ 11.891.791,4241"


def test_the_inbox_holds_the_month_and_receives_new_events(no_service: Path) -> None:
    client = connect(announce=False)
    connection = connection_of(client)
    assert connection is not None
    assert connection.sandbox is not None
    assert connection.merchant_id is not None
    inbox = connection.inbox
    assert isinstance(inbox, Inbox)
    month = len(connection.sandbox.events(connection.merchant_id))
    assert len(inbox) == month
    subscriptions = client.webhooks.list()
    assert [s.url for s in subscriptions] == ["inproc://pixops-notebook"]
    charge = client.pix.cash_in(amount_centavos=1_234, tag="connect-test")
    credit = connection.sandbox.pay_charge(charge.transaction_id)
    connection.sandbox.advance(60)
    assert len(inbox) == month + 1
    event = inbox.events[-1]
    assert event["type"] == "pix.charge.paid"
    assert event["data"]["transaction_id"] == credit
    assert inbox.duplicates == 0


def test_each_connection_is_a_private_copy(no_service: Path) -> None:
    first = connect(announce=False)
    second = connect(announce=False)
    first.pix.cash_out(pix_key="maria.silva@sandbox.pixops.dev", amount_centavos=10_000)
    assert first.balance().available_balance != second.balance().available_balance


def test_with_a_base_url_it_is_the_real_service(
    no_service: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(ENV_BASE_URL, "https://pix.example.com")
    monkeypatch.setenv("PIXOPS_CLIENT_ID", "cli_example")
    monkeypatch.setenv("PIXOPS_CLIENT_SECRET", "sk_example")
    inbox = Inbox()
    client = connect(inbox=inbox)
    line = capsys.readouterr().out
    assert line.startswith("Using the PIX service at https://pix.example.com")
    assert "sk_example" not in line
    connection = connection_of(client)
    assert connection is not None
    assert connection.mode == "service"
    assert connection.sandbox is None
    assert connection.inbox is inbox
    assert client.base_url.startswith("https://pix.example.com")


@pytest.mark.parametrize(
    "base_url", ["http://127.0.0.1:8765/api/external", "http://localhost:8000", "http://[::1]:9"]
)
def test_a_service_on_this_machine_is_not_called_real_money(
    no_service: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    base_url: str,
) -> None:
    monkeypatch.setenv(ENV_BASE_URL, base_url)
    monkeypatch.setenv("PIXOPS_CLIENT_ID", "cli_example")
    monkeypatch.setenv("PIXOPS_CLIENT_SECRET", "sk_example")
    connect(inbox=Inbox())
    line = capsys.readouterr().out
    assert line.startswith(f"Using the PIX service at {base_url}, on this machine")
    assert "real money, real customers" not in line
    assert "pixops serve" in line


def test_a_dotenv_file_configures_the_service(no_service: Path) -> None:
    (no_service / ".env").write_text(
        "PIXOPS_BASE_URL=https://pix.example.com\n"
        "PIXOPS_CLIENT_ID=cli_example\nPIXOPS_CLIENT_SECRET=sk_example\n"
    )
    client = connect(announce=False)
    connection = connection_of(client)
    assert connection is not None
    assert connection.mode == "service"
    assert "No webhook inbox given" in connection.description


def test_a_base_url_without_credentials_is_a_clear_error(
    no_service: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_BASE_URL, "https://pix.example.com")
    with pytest.raises(ConnectError, match="PIXOPS_CLIENT_ID and PIXOPS_CLIENT_SECRET"):
        connect(announce=False)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"env_file": 3}, "env_file"),
        ({"cache_dir": 3}, "cache_dir"),
        ({"announce": "yes"}, "announce"),
    ],
)
def test_bad_arguments_are_refused(arguments: dict[str, object], message: str) -> None:
    with pytest.raises(TypeError, match=message):
        connect(**arguments)  # type: ignore[arg-type]


def test_other_clients_have_no_connection() -> None:
    assert connection_of(object()) is None
    assert connection_of(3) is None


def test_connect_itself_does_not_load_the_engine() -> None:
    script = (
        "import sys, pixops, pixops.widgets\n"
        "assert callable(pixops.connect)\n"
        "print(sorted(m for m in sys.modules if m.startswith(('pixops.engine', 'pixops.sandbox'))))"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


SETTINGS = "PIXOPS_BASE_URL=https://pix.example.com\nPIXOPS_CLIENT_ID=cli_example\n"


def test_the_dotenv_of_a_folder_above_configures_the_service(no_service: Path) -> None:
    # A notebook runs in notebooks/; the project's .env is one folder up, where
    # Client.from_env and `pixops doctor` find it too.
    (no_service / ".env").write_text(SETTINGS + "PIXOPS_CLIENT_SECRET=sk_example\n")
    notebooks = no_service / "notebooks"
    notebooks.mkdir()
    os.chdir(notebooks)
    connection = connection_of(connect(announce=False))
    assert connection is not None
    assert (connection.mode, connection.base_url) == ("service", "https://pix.example.com")


def test_a_named_env_file_gives_the_credentials_too(no_service: Path) -> None:
    (no_service / ".env").write_text("PIXOPS_CLIENT_SECRET=from_the_wrong_file\n")
    named = no_service / "service.env"
    named.write_text(SETTINGS)
    with pytest.raises(ConnectError, match="missing PIXOPS_CLIENT_SECRET"):
        connect(env_file=named, announce=False)
    named.write_text(SETTINGS + "PIXOPS_CLIENT_SECRET=sk_example\n")
    assert connect(env_file=named, announce=False).base_url.startswith("https://pix.example.com")


def test_env_files_that_cannot_be_read_are_refused_in_words(no_service: Path) -> None:
    with pytest.raises(ConnectError, match=r"no \.env file at"):
        connect(env_file=no_service / "missing.env", announce=False)
    (no_service / "latin1.env").write_bytes(b"PIXOPS_BASE_URL=https://pix.example.com # caf\xe9\n")
    with pytest.raises(ConnectError, match="not UTF-8"):
        connect(env_file=no_service / "latin1.env", announce=False)


def test_without_an_env_file_only_the_environment_counts(
    no_service: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (no_service / ".env").write_text(SETTINGS + "PIXOPS_CLIENT_SECRET=sk_example\n")
    connect(env_file=None)
    assert capsys.readouterr().out.startswith("Using the sandbox: demo month")


def test_in_a_notebook_the_line_is_text_that_wraps_between_words(
    no_service: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Lab and Voilà break printed text anywhere ("No real mo" / "ney moves" on a phone):
    in a kernel the line is shown as HTML that breaks at spaces, its text/plain the line."""
    import IPython
    import IPython.display

    class KernelShell:
        kernel = object()

    shown: list[tuple[dict[str, str], bool]] = []
    monkeypatch.setattr(IPython, "get_ipython", lambda: KernelShell())
    monkeypatch.setattr(
        IPython.display, "display", lambda data, raw=False: shown.append((data, raw))
    )
    monkeypatch.setenv(ENV_BASE_URL, "https://pix.example.com/<b>")
    monkeypatch.setenv("PIXOPS_CLIENT_ID", "cli_example")
    monkeypatch.setenv("PIXOPS_CLIENT_SECRET", "sk_example")
    connect()
    assert capsys.readouterr().out == ""
    [(data, raw)] = shown
    assert raw is True
    assert data["text/plain"].startswith("Using the PIX service at https://pix.example.com/<b>")
    page = data["text/html"]
    assert "word-break: normal" in page
    assert "https://pix.example.com/&lt;b&gt;" in page
    assert "<b>" not in page
    assert "sk_example" not in page
