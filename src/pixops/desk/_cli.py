"""`pixops lab` and `pixops desk`: the notebooks for analysts, the desk page for support."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from pixops.desk._servers import (
    PortInUseError,
    ServerCommand,
    ServerError,
    default_notebooks_dir,
    desk_command,
    find_investigation_notebook,
    lab_command,
    start,
    stop,
)

if TYPE_CHECKING:
    from pixops.cli import Commands

_LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})
_BASE_URL = "PIXOPS_BASE_URL"


def register(commands: Commands) -> None:
    """Add `pixops lab` and `pixops desk`."""
    lab = commands.add(
        "lab",
        help="start JupyterLab on the notebooks (sandbox unless PIXOPS_BASE_URL is set)",
        handler=lambda args: run_lab(args, sys.stdout),
    )
    lab.add_argument("--notebooks", type=Path, help="folder to open (default ./notebooks)")
    lab.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    lab.add_argument(
        "--port", type=_port, default=8888, help="TCP port (default 8888), 0 picks a free one"
    )
    lab.add_argument("--token", help="access token (default: a fresh random one)")

    desk = commands.add(
        "desk",
        help="serve the support investigation page with Voilà (no code shown)",
        handler=lambda args: run_desk(args, sys.stdout),
    )
    desk.add_argument(
        "--notebook",
        type=Path,
        help="notebook to serve (default: notebooks/06_support_investigation.ipynb)",
    )
    desk.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    desk.add_argument(
        "--port", type=_port, default=8866, help="TCP port (default 8866), 0 picks a free one"
    )


def describe_source(env: Mapping[str, str], dotenv: Path | None = None) -> str:
    """Which service the notebooks will talk to, in one line; `dotenv` is the `.env` file
    that set ``PIXOPS_BASE_URL``, when a file did (`service_environment`)."""
    base_url = env.get(_BASE_URL, "").strip()
    if base_url:
        where = f"{_BASE_URL} in {dotenv}" if dotenv is not None else _BASE_URL
        return f"the real service at {base_url} ({where})"
    return f"the embedded sandbox with the seeded demo month ({_BASE_URL} is not set)"


def nearest_dotenv(start: Path) -> Path | None:
    """The `.env` file in `start` or the nearest folder above it, as the client looks."""
    folder = start.resolve()
    for candidate in (folder, *folder.parents):
        if (candidate / ".env").is_file():
            return candidate / ".env"
    return None


def service_environment(
    environ: Mapping[str, str], folders: Iterable[Path]
) -> tuple[dict[str, str], Path | None]:
    """`environ` plus the ``PIXOPS_*`` settings it lacks from the `.env` nearest to each
    folder (the kernels' folder, then where the command was started), and the file that
    gave ``PIXOPS_BASE_URL`` if one did.

    The servers hand this environment to every kernel, so a notebook's `pixops.connect()`
    uses the service that `pixops doctor` checks from the same place and that the
    command announces, wherever the kernel runs.
    """
    env = dict(environ)
    origin: Path | None = None
    seen: set[Path] = set()
    for folder in folders:
        path = nearest_dotenv(folder)
        if path is None or path in seen:
            continue
        seen.add(path)
        from dotenv import dotenv_values

        try:
            values = dotenv_values(path)
        except UnicodeDecodeError as error:
            raise ServerError(f"{path} is not UTF-8 text ({error.reason})") from None
        for name, value in values.items():
            if name.startswith("PIXOPS_") and value and not env.get(name, "").strip():
                env[name] = value
                if name == _BASE_URL:
                    origin = path
    return env, origin


def lab_notebooks_dir(out: TextIO, cwd: Path | None = None) -> Path:
    """The folder `pixops lab` opens when none is given: `./notebooks`; else, from the
    checkout, its `notebooks/` as ever; else (an installed pixops) a copy of the shipped
    notebooks and sample data made here first, after saying so (`pixops notebooks init`),
    so the user edits their own files, never the installed ones."""
    from pixops._bundled import is_checkout
    from pixops._notebook_copies import CopyError, copy_notebooks

    here = cwd or Path.cwd()
    if (here / "notebooks").is_dir() or is_checkout():
        return default_notebooks_dir(here)
    print(
        f"pixops lab: no notebooks folder in {here}: copying pixops' notebooks and sample"
        " data here (as `pixops notebooks init` does)",
        file=out,
        flush=True,
    )
    try:
        copy_notebooks(here)
    except CopyError as error:
        raise ServerError(f"{error}; or pass --notebooks DIR") from None
    return here / "notebooks"


def run_lab(args: argparse.Namespace, out: TextIO) -> int:
    """Start JupyterLab, print its URL, and serve until interrupted."""
    try:
        notebooks = args.notebooks or lab_notebooks_dir(out)
        env, dotenv = service_environment(os.environ, [notebooks, Path.cwd()])
        command = lab_command(
            notebooks, host=args.host, port=args.port, token=args.token, base_env=env
        )
    except ServerError as error:
        print(f"pixops lab: {error}", file=sys.stderr)
        return 2
    print(f"pixops lab: JupyterLab on {notebooks.resolve()}", file=out)
    print(f"data: {describe_source(env, dotenv)}", file=out, flush=True)
    return _serve(command, "pixops lab", out)


def run_desk(args: argparse.Namespace, out: TextIO) -> int:
    """Serve the investigation notebook with Voilà, print its URL, serve until interrupted."""
    try:
        notebook = args.notebook or find_investigation_notebook(default_notebooks_dir())
        env, dotenv = service_environment(os.environ, [notebook.parent, Path.cwd()])
        command = desk_command(notebook, host=args.host, port=args.port, base_env=env)
    except ServerError as error:
        print(f"pixops desk: {error}", file=sys.stderr)
        return 2
    print(f"pixops desk: the support page from {notebook.name}, code hidden", file=out)
    print(f"data: {describe_source(env, dotenv)}", file=out, flush=True)
    if args.host not in _LOOPBACK_HOSTS:
        print(
            f"pixops desk: WARNING: listening on {args.host}: anyone who reaches it can look up"
            " transactions (Voilà asks for no password)",
            file=out,
        )
    return _serve(command, "pixops desk", out)


def _serve(command: ServerCommand, name: str, out: TextIO) -> int:
    try:
        process = start(command)
    except PortInUseError as error:
        print(
            f"{name}: cannot start: {error} (another JupyterLab or server?): stop it, or"
            " pass --port 0 to pick a free port",
            file=sys.stderr,
        )
        return 1
    except (ServerError, OSError) as error:
        print(f"{name}: cannot start: {error}", file=sys.stderr)
        return 1
    print(f"open: {command.url}", file=out)
    print("stop with Ctrl-C", file=out, flush=True)
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        return process.wait()
    except KeyboardInterrupt:
        stop(process)
        print(f"{name}: stopped", file=out, flush=True)
        return 0
    finally:
        signal.signal(signal.SIGTERM, previous)


def _interrupt(signum: int, frame: object) -> None:
    """SIGTERM (a service manager stopping us) stops the child server like Ctrl-C does."""
    raise KeyboardInterrupt


def _port(text: str) -> int:
    try:
        value = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"port must be between 0 and 65535, not {value}")
    return value
