#!/usr/bin/env python3
"""Set up and run pixops with nothing but Python 3.11+ installed.

    python3 .ci/dev.py lab    # create or reuse .venv, install, start JupyterLab on notebooks/
    python3 .ci/dev.py test   # create or reuse .venv, install, run ruff, mypy and pytest
    python3 .ci/dev.py test --no-browser   # the same without the real-browser tests
    python3 .ci/dev.py test --no-spark     # the same without the Spark (Java) tests
    python3 .ci/dev.py demo   # the printed merchant's day on the sandbox (no Jupyter)
    python3 .ci/dev.py setup  # only create or update .venv

The virtual environment lives in `.venv` beside this folder and is reinstalled only
when `pyproject.toml` changes. The browser tests drive Debian's Chromium: `test`
installs it with apt-get when it is missing and you are root, and otherwise stops and
says how to opt out (`--no-browser` or PIXOPS_SKIP_BROWSER=1). The Spark tests need Java
17 the same way: Debian's openjdk-17-jre-headless is installed when `java` is missing
and you are root; otherwise `--no-spark` (or PIXOPS_SKIP_SPARK=1) leaves them out.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
STAMP = VENV / ".pixops-installed"
CHROMIUM = Path(os.environ.get("PIXOPS_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_PACKAGES = ("chromium", "fonts-dejavu-core")
SKIP_BROWSER_VARIABLE = "PIXOPS_SKIP_BROWSER"
JAVA_PACKAGES = ("openjdk-17-jre-headless",)
SKIP_SPARK_VARIABLE = "PIXOPS_SKIP_SPARK"


def venv_python() -> Path:
    scripts = "Scripts" if os.name == "nt" else "bin"
    return VENV / scripts / ("python.exe" if os.name == "nt" else "python")


def ensure_venv() -> Path:
    """Create `.venv` and install pixops[dev] unless the install is current."""
    if sys.version_info < (3, 11):
        sys.exit(f"pixops needs Python 3.11 or newer, this is {sys.version.split()[0]}")
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    python = venv_python()
    if python.exists() and STAMP.exists() and STAMP.read_text().strip() == wanted:
        return python
    if python.exists() and not has_pip(python):
        # Left by a run that failed half-way (Debian's python3 without python3-venv).
        print(f"{VENV} has no pip: creating it again", flush=True)
        create_venv(clear=True)
    elif not python.exists():
        create_venv(clear=False)
    run([python, "-m", "pip", "install", "--quiet", "--upgrade", "pip"])
    run([python, "-m", "pip", "install", "--quiet", "-e", f"{ROOT}[dev]"])
    STAMP.write_text(wanted)
    return python


def has_pip(python: Path) -> bool:
    """Whether `python` can run pip (a venv made without ensurepip cannot)."""
    probe = subprocess.run(
        [str(python), "-m", "pip", "--version"], capture_output=True, check=False
    )
    return probe.returncode == 0


def create_venv(*, clear: bool) -> None:
    """Create `.venv` with pip, or stop naming the package that provides `venv` and pip."""
    print(f"creating virtual environment in {VENV}", flush=True)
    try:
        venv.EnvBuilder(with_pip=True, clear=clear).create(VENV)
    except (subprocess.CalledProcessError, OSError) as error:
        shutil.rmtree(VENV, ignore_errors=True)
        version = f"{sys.version_info.major}.{sys.version_info.minor}"
        sys.exit(
            f"could not create {VENV} with pip ({error}). On Debian or Ubuntu install the"
            f" venv module first: `apt-get install python3-venv` (or python{version}-venv),"
            " then run this command again."
        )


def run(command: list[object]) -> None:
    result = subprocess.run([str(part) for part in command], cwd=ROOT, check=False)
    if result.returncode != 0:
        sys.exit(result.returncode)


def test(python: Path, pytest_args: list[str]) -> None:
    if "--no-browser" in pytest_args:
        pytest_args = [arg for arg in pytest_args if arg != "--no-browser"]
        os.environ[SKIP_BROWSER_VARIABLE] = "1"
    if os.environ.get(SKIP_BROWSER_VARIABLE) == "1":
        print(
            f"*** {SKIP_BROWSER_VARIABLE}=1: the real-browser tests (tests/browser) are"
            " DESELECTED in this run ***",
            flush=True,
        )
    else:
        ensure_chromium()
    if "--no-spark" in pytest_args:
        pytest_args = [arg for arg in pytest_args if arg != "--no-spark"]
        os.environ[SKIP_SPARK_VARIABLE] = "1"
    if os.environ.get(SKIP_SPARK_VARIABLE) != "1":
        ensure_java()
    # Python's bytecode cache, which PYTHONDONTWRITEBYTECODE (set on some CI images and
    # sandboxes) turns off: without it every pytest worker rewrites the asserts of all
    # ~230 test modules again (collection 26 s against 9 s), and every kernel and
    # `python -m pixops` a test starts compiles pixops again. Kept in .venv, as mypy's
    # cache is, so the clone gets no __pycache__ folders.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ.setdefault("PYTHONPYCACHEPREFIX", str(VENV / "pycache"))
    linted = ["src", "tests", "benchmarks", "notebooks", "scripts", ".ci"]
    run([python, "-m", "ruff", "check", *linted])
    run([python, "-m", "ruff", "format", "--check", *linted])
    # mypy's cache lives in .venv, which a run from a fresh clone keeps: checking src
    # from it takes seconds, against about a minute from nothing (.mypy_cache of the
    # clone is new every time). mypy checks each file's hash, so a stale entry is redone.
    run([python, "-m", "mypy", "--strict", "--cache-dir", str(VENV / ".mypy_cache"), "src"])
    # Three workers on this 2-core machine (pytest-xdist, whole files per worker as
    # pyproject's --dist=loadfile says): with two, the cores idled while tests waited on
    # kernels, browsers and servers (pytest 542 s); with three they are ~98 % busy
    # (493 s), measured on a quiet machine, 2026-11-28.
    chosen = any(arg.startswith(("-n", "--numprocesses", "-p")) for arg in pytest_args)
    workers = [] if chosen else ["-n", os.environ.get("PIXOPS_TEST_WORKERS", "3")]
    # pytest exits 5 when it collected nothing: that is a failure here, never a pass.
    run([python, "-m", "pytest", *workers, *pytest_args])


def ensure_chromium() -> None:
    """Install Debian's Chromium for the browser tests when it is missing and we are root."""
    if CHROMIUM.exists():
        return
    opt_out = f"run with --no-browser (or {SKIP_BROWSER_VARIABLE}=1) to leave the browser tests out"
    is_root = hasattr(os, "geteuid") and os.geteuid() == 0
    if not is_root or shutil.which("apt-get") is None:
        sys.exit(
            f"the browser tests need Chromium at {CHROMIUM}; as root run `apt-get install"
            f" {' '.join(CHROMIUM_PACKAGES)}`, or set PIXOPS_CHROMIUM to another Chromium,"
            f" or {opt_out}"
        )
    print(
        f"installing {', '.join(CHROMIUM_PACKAGES)} with apt-get for the browser tests", flush=True
    )
    quiet = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (
        ["apt-get", "update", "-qq"],
        ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *CHROMIUM_PACKAGES],
    ):
        if subprocess.run(command, env=quiet, check=False).returncode != 0:
            sys.exit(f"{' '.join(command)} failed; {opt_out}")
    if not CHROMIUM.exists():
        sys.exit(
            f"apt-get installed {CHROMIUM_PACKAGES[0]} but {CHROMIUM} is still missing; {opt_out}"
        )


def ensure_java() -> None:
    """Install Debian's Java 17 for the Spark tests when `java` is missing and we are root."""
    if shutil.which("java") is not None:
        return
    opt_out = f"run with --no-spark (or {SKIP_SPARK_VARIABLE}=1) to leave the Spark tests out"
    is_root = hasattr(os, "geteuid") and os.geteuid() == 0
    if not is_root or shutil.which("apt-get") is None:
        sys.exit(
            f"the Spark tests need Java 17; as root run `apt-get install"
            f" {' '.join(JAVA_PACKAGES)}`, or {opt_out}"
        )
    print(f"installing {', '.join(JAVA_PACKAGES)} with apt-get for the Spark tests", flush=True)
    quiet = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (
        ["apt-get", "update", "-qq"],
        ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *JAVA_PACKAGES],
    ):
        if subprocess.run(command, env=quiet, check=False).returncode != 0:
            sys.exit(f"{' '.join(command)} failed; {opt_out}")


def demo(python: Path, args: list[str]) -> None:
    run([python, "-m", "pixops", "demo", *args])


def lab(python: Path, args: list[str]) -> None:
    """JupyterLab on notebooks/ against the sandbox; `pixops lab` prints the URL."""
    command = [str(python), "-m", "pixops", "lab", "--notebooks", str(ROOT / "notebooks"), *args]
    try:
        result = subprocess.run(command, cwd=ROOT, check=False)
    except KeyboardInterrupt:
        return
    if result.returncode != 0:
        sys.exit(result.returncode)


def main() -> None:
    if len(sys.argv) >= 2 and sys.argv[1] in {"-h", "--help", "help"}:
        print(__doc__)
        return
    if len(sys.argv) < 2 or sys.argv[1] not in {"lab", "demo", "test", "setup"}:
        sys.exit(__doc__)
    command, rest = sys.argv[1], sys.argv[2:]
    python = ensure_venv()
    if command == "test":
        test(python, rest)
    elif command == "lab":
        lab(python, rest)
    elif command == "demo":
        demo(python, rest)


if __name__ == "__main__":
    main()
