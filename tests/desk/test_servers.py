"""The JupyterLab and Voilà command lines, the notebooks they find, and a real start and stop."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from pixops.desk import (
    JUPYTER_CONFIG_DIR,
    PortInUseError,
    ServerError,
    default_notebooks_dir,
    desk_command,
    find_investigation_notebook,
    free_port,
    jupyter_environment,
    lab_command,
    port_in_use,
    start,
    stop,
)


def test_lab_runs_on_the_folder_with_a_token_and_no_browser(tmp_path: Path) -> None:
    command = lab_command(tmp_path, port=9123, token="t0k3n", base_env={"HOME": "/home/x"})
    argv = list(command.argv)
    assert argv[:4] == [sys.executable, "-m", "jupyter", "lab"]
    assert "--no-browser" in argv
    assert f"--ServerApp.root_dir={tmp_path.resolve()}" in argv
    assert "--IdentityProvider.token=t0k3n" in argv
    assert "--ServerApp.ip=127.0.0.1" in argv
    assert command.url == "http://127.0.0.1:9123/lab?token=t0k3n"
    assert command.env["HOME"] == "/home/x"


def test_lab_draws_a_fresh_token_and_a_free_port(tmp_path: Path) -> None:
    first, second = lab_command(tmp_path), lab_command(tmp_path)
    assert first.port > 0
    assert first.url.split("token=")[1] != second.url.split("token=")[1]
    assert len(first.url.split("token=")[1]) == 48


def test_lab_keeps_its_state_apart_when_asked(tmp_path: Path) -> None:
    argv = lab_command(tmp_path, state_dir=tmp_path / "state").argv
    assert f"--LabApp.workspaces_dir={tmp_path / 'state' / 'workspaces'}" in argv
    assert f"--LabApp.user_settings_dir={tmp_path / 'state' / 'settings'}" in argv


def test_the_announcement_is_turned_off_ahead_of_the_users_config() -> None:
    env = jupyter_environment({"JUPYTER_CONFIG_PATH": "/etc/mine"})
    assert env["JUPYTER_CONFIG_PATH"].split(":") == [str(JUPYTER_CONFIG_DIR), "/etc/mine"]
    assert jupyter_environment({})["JUPYTER_CONFIG_PATH"] == str(JUPYTER_CONFIG_DIR)
    page_config = json.loads((JUPYTER_CONFIG_DIR / "labconfig" / "page_config.json").read_text())
    assert page_config["disabledExtensions"] == {
        "@jupyterlab/apputils-extension:announcements": True
    }


def test_lab_skips_its_build_check() -> None:
    """Lab's build check ran `yarn config` (node, ~1 s of CPU) on every page load to offer
    a rebuild that prebuilt extensions never need."""
    page_config = json.loads((JUPYTER_CONFIG_DIR / "labconfig" / "page_config.json").read_text())
    assert page_config["buildCheck"] is False
    assert page_config["buildAvailable"] is False


def test_desk_serves_one_notebook_without_its_code(tmp_path: Path) -> None:
    notebook = tmp_path / "06_support_investigation.ipynb"
    notebook.write_text("{}")
    command = desk_command(notebook, port=9124)
    argv = list(command.argv)
    assert argv[:4] == [sys.executable, "-m", "pixops.desk._voila", str(notebook.resolve())]
    assert "--strip_sources=True" in argv
    assert "--show_tracebacks=False" in argv
    assert "--Voila.ip=127.0.0.1" in argv
    assert command.url == "http://127.0.0.1:9124/"


def test_missing_folders_and_notebooks_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(ServerError, match="no such notebooks folder"):
        lab_command(tmp_path / "nope")
    with pytest.raises(ServerError, match="no such notebook"):
        desk_command(tmp_path / "nope.ipynb")


def test_the_investigation_notebook_is_found_by_name(tmp_path: Path) -> None:
    with pytest.raises(ServerError, match="found none"):
        find_investigation_notebook(tmp_path)
    (tmp_path / "06_support_investigation.ipynb").write_text("{}")
    assert find_investigation_notebook(tmp_path).name == "06_support_investigation.ipynb"
    (tmp_path / "07_investigation_extra.ipynb").write_text("{}")
    with pytest.raises(ServerError, match="expected one"):
        find_investigation_notebook(tmp_path)


def test_notebooks_here_come_first(tmp_path: Path) -> None:
    (tmp_path / "notebooks").mkdir()
    assert default_notebooks_dir(tmp_path) == tmp_path / "notebooks"
    checkout = Path(__file__).resolve().parents[2] / "notebooks"
    assert default_notebooks_dir(tmp_path / "elsewhere") == checkout


def test_start_waits_for_the_port_and_stop_ends_the_process(tmp_path: Path) -> None:
    port = free_port()
    serve = (
        "import http.server as h;"
        f" h.test(h.SimpleHTTPRequestHandler, port={port}, bind='127.0.0.1')"
    )
    command = lab_command(tmp_path, port=port)
    fake = type(command)((sys.executable, "-c", serve), {}, "127.0.0.1", port, command.url)
    with (tmp_path / "log").open("wb") as log:
        process = start(fake, log=log)
    assert process.poll() is None
    stop(process)
    assert process.poll() is not None


def test_a_server_that_dies_before_listening_is_reported(tmp_path: Path) -> None:
    command = lab_command(tmp_path)
    dying = type(command)((sys.executable, "-c", "raise SystemExit(3)"), {}, "127.0.0.1", 1, "")
    with pytest.raises(ServerError, match="exited with code 3"):
        start(dying, log=subprocess.DEVNULL)


def test_lab_starts_without_warnings_in_its_log(tmp_path: Path) -> None:
    """notebook_shim (classic-notebook config, which pixops does not use) is left off: its
    check of every server setting printed a deprecation warning on each start."""
    command = lab_command(tmp_path, state_dir=tmp_path / "state")
    log_path = tmp_path / "lab.log"
    with log_path.open("wb") as log:
        process = start(command, log=log)
        stop(process)
    text = log_path.read_text(errors="replace")
    assert "jupyterlab | extension was successfully linked" in text
    assert "Warning" not in text
    assert "notebook_shim" not in text


def test_a_port_someone_listens_on_is_refused_before_starting(tmp_path: Path) -> None:
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        assert port_in_use("127.0.0.1", port)
        command = lab_command(tmp_path, port=port)
        with pytest.raises(PortInUseError, match=f"port {port} on 127.0.0.1 is already in use"):
            start(command, log=subprocess.DEVNULL)
    assert not port_in_use("127.0.0.1", port)


def test_kernels_talk_over_ipc_not_tcp(tmp_path: Path) -> None:
    """Over TCP every kernel started (each desk visitor's) printed "Kernel is running over
    TCP without encryption" in the terminal, and listened on loopback ports."""
    notebook = tmp_path / "06_support_investigation.ipynb"
    notebook.write_text("{}")
    for command in (lab_command(tmp_path), desk_command(notebook)):
        assert "--KernelManager.transport=ipc" in command.argv
