"""JupyterLab and Voilà as child processes: the command line, the environment, the URL.

`pixops lab`, `pixops desk` and the browser tests start their servers through these
functions, so the tests drive exactly what a user gets.
"""

from __future__ import annotations

import errno
import os
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final, TextIO

from pixops._bundled import BundleMissingError, bundle_root
from pixops.errors import PixopsError

#: Extra Jupyter configuration shipped with pixops: it turns off JupyterLab's
#: "news and updates" announcement, which asks a question on first start.
JUPYTER_CONFIG_DIR = Path(__file__).resolve().parent / "_jupyter_config"
_LOOPBACK = "127.0.0.1"


class ServerError(PixopsError):
    """A server could not be started: missing notebooks, a busy port, an early exit."""


class PortInUseError(ServerError):
    """The port asked for is taken by another program (often another JupyterLab)."""


@dataclass(frozen=True)
class ServerCommand:
    """What to run, with which environment, and where it will answer."""

    argv: tuple[str, ...]
    env: Mapping[str, str]
    host: str
    port: int
    url: str


def default_notebooks_dir(cwd: Path | None = None) -> Path:
    """`./notebooks` when it exists, otherwise the notebooks pixops ships: the checkout's
    (an editable install) or the installed wheel's, read in place (`pixops desk` and
    `pixops report` only read them; `pixops lab` copies them first, `lab_notebooks_dir`)."""
    here = (cwd or Path.cwd()) / "notebooks"
    if here.is_dir():
        return here
    try:
        return bundle_root() / "notebooks"
    except BundleMissingError as error:
        raise ServerError(f"no notebooks folder here, and {error}: pass --notebooks DIR") from None


def find_investigation_notebook(notebooks: Path) -> Path:
    """The support investigation notebook of a notebooks folder (`*investigation*.ipynb`)."""
    if not notebooks.is_dir():
        raise ServerError(f"no such notebooks folder: {notebooks}")
    found = sorted(notebooks.glob("*investigation*.ipynb"))
    if len(found) != 1:
        names = [path.name for path in found] or "none"
        raise ServerError(
            f"expected one *investigation*.ipynb in {notebooks}, found {names}: pass --notebook"
        )
    return found[0]


def free_port(host: str = _LOOPBACK) -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        port: int = probe.getsockname()[1]
        return port


def jupyter_environment(base: Mapping[str, str]) -> dict[str, str]:
    """`base` plus pixops' Jupyter configuration folder, ahead of any the user has."""
    env = dict(base)
    extra = env.get("JUPYTER_CONFIG_PATH")
    env["JUPYTER_CONFIG_PATH"] = os.pathsep.join(
        part for part in (str(JUPYTER_CONFIG_DIR), extra) if part
    )
    return env


#: Jupyter's own hidden names, plus the files that make the notebooks a test suite: a
#: reader's file browser lists the notebooks and their README, nothing else.
_HIDDEN_IN_LAB: Final = (
    "__pycache__",
    "*.pyc",
    "*.pyo",
    ".DS_Store",
    "*~",
    "conftest.py",
    "sanitize.cfg",
    "ruff.toml",
)


#: Kernels talk to the server over IPC sockets (files in Jupyter's private runtime folder),
#: not TCP on loopback: no port another local user could reach, and no "Kernel is running
#: over TCP without encryption" warning in the terminal for every notebook or desk visitor.
_IPC_KERNELS: Final = "--KernelManager.transport=ipc"


def lab_command(
    notebooks: Path,
    *,
    host: str = _LOOPBACK,
    port: int = 0,
    token: str | None = None,
    state_dir: Path | None = None,
    base_env: Mapping[str, str] | None = None,
) -> ServerCommand:
    """JupyterLab on `notebooks`, protected by a token, no browser opened.

    `state_dir` keeps Lab's workspaces and settings apart (tests pass a fresh folder so a
    remembered layout from another run never reopens old tabs).
    """
    if not notebooks.is_dir():
        raise ServerError(f"no such notebooks folder: {notebooks}")
    chosen_port = port or free_port(host)
    chosen_token = token or secrets.token_hex(24)
    argv = [
        sys.executable,
        "-m",
        "jupyter",
        "lab",
        "--no-browser",
        f"--ServerApp.ip={host}",
        f"--ServerApp.port={chosen_port}",
        "--ServerApp.port_retries=0",
        _IPC_KERNELS,
        f"--ServerApp.root_dir={notebooks.resolve()}",
        f"--IdentityProvider.token={chosen_token}",
        f"--ContentsManager.hide_globs={list(_HIDDEN_IN_LAB)}",
    ]
    if os.name == "posix" and os.geteuid() == 0:
        argv.append("--allow-root")
    if state_dir is not None:
        argv += [
            f"--LabApp.workspaces_dir={state_dir / 'workspaces'}",
            f"--LabApp.user_settings_dir={state_dir / 'settings'}",
        ]
    url = f"http://{host}:{chosen_port}/lab?token={chosen_token}"
    env = jupyter_environment(os.environ if base_env is None else base_env)
    return ServerCommand(tuple(argv), env, host, chosen_port, url)


def desk_command(
    notebook: Path,
    *,
    host: str = _LOOPBACK,
    port: int = 0,
    base_env: Mapping[str, str] | None = None,
) -> ServerCommand:
    """Voilà serving one notebook as a page: outputs and widgets only, never the code, and
    without the cells tagged `notebook-only` (`pixops.desk._voila`)."""
    if not notebook.is_file():
        raise ServerError(f"no such notebook: {notebook}")
    chosen_port = port or free_port(host)
    argv = [
        sys.executable,
        "-m",
        "pixops.desk._voila",
        str(notebook.resolve()),
        "--no-browser",
        f"--Voila.ip={host}",
        f"--Voila.port={chosen_port}",
        "--Voila.port_retries=0",
        _IPC_KERNELS,
        "--strip_sources=True",
        "--show_tracebacks=False",
    ]
    url = f"http://{host}:{chosen_port}/"
    env = jupyter_environment(os.environ if base_env is None else base_env)
    return ServerCommand(tuple(argv), env, host, chosen_port, url)


def port_in_use(host: str, port: int) -> bool:
    """Whether another program already listens on `host:port` (a bind would fail)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        # As the servers themselves bind: a port left in TIME_WAIT is free, a listener is not.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as error:
            # Anything else (an address not on this machine) is the server's to report.
            return error.errno == errno.EADDRINUSE
    return False


def start(command: ServerCommand, *, log: TextIO | int | None = None) -> subprocess.Popen[bytes]:
    """Start the server and return once it accepts connections (or raise `ServerError`).

    A port another program already listens on is refused first: waiting for the port
    would otherwise take that program's answer for this server's.
    """
    if port_in_use(command.host, command.port):
        raise PortInUseError(f"port {command.port} on {command.host} is already in use")
    process = subprocess.Popen(  # noqa: S603 - our own interpreter, arguments built above
        command.argv,
        env=dict(command.env),
        stdout=log,
        stderr=subprocess.STDOUT if log is not None else None,
        stdin=subprocess.DEVNULL,
    )
    try:
        wait_until_listening(command.host, command.port, process)
    except BaseException:
        stop(process)
        raise
    return process


def wait_until_listening(
    host: str, port: int, process: subprocess.Popen[bytes], timeout_seconds: float = 90.0
) -> None:
    """Block until `host:port` accepts a TCP connection; fail if the process dies first."""
    deadline = time.monotonic() + timeout_seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ServerError(f"the server exited with code {process.returncode} before listening")
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.2)
    raise ServerError(f"nothing listened on {host}:{port} after {timeout_seconds:.0f} s")


def stop(process: subprocess.Popen[bytes], grace_seconds: float = 10.0) -> None:
    """Ask the server to stop (SIGTERM), then kill it if it does not."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=grace_seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
