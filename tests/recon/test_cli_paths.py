"""`pixops recon` paths that cannot be used: refused with exit 2 before the service is
read, naming the flag, the path and what to do, and leaving nothing written."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from pixops._cli_recon._run import EXIT_BAD_INPUT
from tests.recon.test_cli import DATA, recon

LEDGER = str(DATA / "sample_ledger.csv")


@pytest.fixture
def unreachable_service(monkeypatch: pytest.MonkeyPatch) -> None:
    """A run that read the service would exit 3: these must be refused before."""
    monkeypatch.setenv("PIXOPS_BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("PIXOPS_CLIENT_ID", "id")
    monkeypatch.setenv("PIXOPS_CLIENT_SECRET", "secret")


@pytest.mark.usefixtures("unreachable_service")
def test_an_html_path_that_is_a_folder_is_refused_before_the_run(tmp_path: Path) -> None:
    # Was: the whole run, the results written, then an IsADirectoryError traceback.
    html = tmp_path / "report.html"
    html.mkdir()
    out = tmp_path / "out"
    status, _, err = recon(
        "--date", "2026-01-15", "--ledger", LEDGER, "--out", str(out), "--html", str(html),
    )  # fmt: skip
    assert (status, out.exists()) == (EXIT_BAD_INPUT, False)
    assert err == (
        f"pixops recon: --html {html}: is a folder, not a file:"
        f" give a file name, such as {html / 'report.html'}\n"
    )


@pytest.mark.usefixtures("unreachable_service")
@pytest.mark.parametrize("flag", ["--ledger", "--balances"])
def test_an_input_that_is_a_folder_is_named_a_folder(tmp_path: Path, flag: str) -> None:
    # Was: "--ledger: no such file: DIR" about a folder that is there.
    folder = tmp_path / "inputs"
    folder.mkdir()
    given = {"--ledger": LEDGER, flag: str(folder)}
    argv = [word for pair in given.items() for word in pair]
    status, _, err = recon("--date", "2026-01-15", *argv, "--out", str(tmp_path / "out"))
    assert status == EXIT_BAD_INPUT
    assert err == f"pixops recon: {flag} {folder}: is a folder, not a file: give the file in it\n"


@pytest.mark.usefixtures("unreachable_service")
def test_an_out_folder_that_cannot_be_written_is_refused_before_the_service_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Root writes anywhere: the OS's answer for a read-only folder is simulated.
    real_access = os.access

    def read_only(path: Any, mode: int, **kwargs: Any) -> bool:
        if Path(path) == tmp_path and mode & os.W_OK:
            return False
        return real_access(path, mode, **kwargs)

    monkeypatch.setattr(os, "access", read_only)
    out = tmp_path / "out"
    status, _, err = recon("--date", "2026-01-15", "--ledger", LEDGER, "--out", str(out))
    assert (status, out.exists()) == (EXIT_BAD_INPUT, False)
    assert err == (
        f"pixops recon: --out {out}: {tmp_path} is not writable: choose a folder you can write to\n"
    )


def test_an_unreadable_balances_file_is_bad_input_not_the_service(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Was exit 3, "cannot read the service: [Errno 13] Permission denied".
    monkeypatch.delenv("PIXOPS_BASE_URL", raising=False)
    balances = tmp_path / "balances.csv"
    balances.write_text("as_of,balance_base\n2026-01-01T03:00:00Z,5\n", encoding="utf-8")
    real_open = Path.open

    def denied(self: Path, *args: Any, **kwargs: Any) -> Any:
        if self == balances:
            raise PermissionError(13, "Permission denied", str(self))
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", denied)
    out = tmp_path / "out"
    status, _, err = recon(
        "--date", "2026-01-15", "--ledger", LEDGER, "--balances", str(balances),
        "--out", str(out), "--quiet",
    )  # fmt: skip
    assert (status, out.exists()) == (EXIT_BAD_INPUT, False)
    assert err == f"pixops recon: --balances: cannot read {balances}: Permission denied\n"


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"PIXOPS_BASE_URL": "pix.example.com"}, "base_url must be an http(s) address"),
        ({"PIXOPS_BASE_URL": "http://127.0.0.1:99999"}, "port must be from 1 to 65535"),
        ({"PIXOPS_CLIENT_SECRET": ""}, "missing PIXOPS_CLIENT_SECRET"),
    ],
)
def test_service_settings_that_make_no_client_are_bad_input_not_the_service(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settings: dict[str, str], message: str
) -> None:
    # Was exit 3, which a scheduler retries: a typo in the settings never heals by itself.
    monkeypatch.chdir(tmp_path)  # no .env found upwards
    given = {"PIXOPS_BASE_URL": "http://127.0.0.1:9", "PIXOPS_CLIENT_ID": "id"} | settings
    given.setdefault("PIXOPS_CLIENT_SECRET", "secret")
    for name, value in given.items():
        monkeypatch.setenv(name, value)
    out = tmp_path / "out"
    status, _, err = recon("--date", "2026-01-15", "--ledger", LEDGER, "--out", str(out))
    assert (status, out.exists()) == (EXIT_BAD_INPUT, False)
    assert err.startswith("pixops recon: the service settings are unusable: ")
    assert message in err


def test_a_dotenv_file_names_the_service_as_for_connect(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Was: the .env ignored, the demo month reconciled, and nothing said so.
    for name in ("PIXOPS_BASE_URL", "PIXOPS_CLIENT_ID", "PIXOPS_CLIENT_SECRET"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / ".env").write_text(
        "PIXOPS_BASE_URL=http://127.0.0.1:9\nPIXOPS_CLIENT_ID=id\nPIXOPS_CLIENT_SECRET=secret\n"
    )
    below = tmp_path / "jobs"
    below.mkdir()
    monkeypatch.chdir(below)
    status, _, err = recon("--date", "2026-01-15", "--ledger", LEDGER, "--out", "out", "--quiet")
    assert status == 3  # the service in .env was read: nothing listens on port 9
    assert err.startswith("pixops recon: cannot read the service: ")


def test_the_summary_says_which_service_was_reconciled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("PIXOPS_BASE_URL", "PIXOPS_CLIENT_ID", "PIXOPS_CLIENT_SECRET"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    _, out, _ = recon("--date", "2026-01-15", "--ledger", LEDGER, "--out", "out", "--quiet")
    assert out.splitlines()[0] == (
        "pixops recon 2026-01-15 (America/Sao_Paulo) against the demo month on the embedded sandbox"
    )
