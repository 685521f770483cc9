#!/usr/bin/env python3
"""Set up and run pixops with nothing but Python 3.11+ installed.

    python3 .ci/dev.py demo   # create or reuse .venv, install, run the sandbox demo
    python3 .ci/dev.py test   # create or reuse .venv, install, run ruff, mypy and pytest

The virtual environment lives in `.venv` beside this folder and is reinstalled only
when `pyproject.toml` changes.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
STAMP = VENV / ".pixops-installed"


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
    if not python.exists():
        print(f"creating virtual environment in {VENV}", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    run([python, "-m", "pip", "install", "--quiet", "--upgrade", "pip"])
    run([python, "-m", "pip", "install", "--quiet", "-e", f"{ROOT}[dev]"])
    STAMP.write_text(wanted)
    return python


def run(command: list[object]) -> None:
    result = subprocess.run([str(part) for part in command], cwd=ROOT, check=False)
    if result.returncode != 0:
        sys.exit(result.returncode)


def test(python: Path, pytest_args: list[str]) -> None:
    run([python, "-m", "ruff", "check", "src", "tests", "benchmarks", ".ci"])
    run([python, "-m", "ruff", "format", "--check", "src", "tests", "benchmarks", ".ci"])
    run([python, "-m", "mypy", "--strict", "src"])
    # pytest exits 5 when it collected nothing: that is a failure here, never a pass.
    run([python, "-m", "pytest", *pytest_args])


def demo(python: Path, args: list[str]) -> None:
    run([python, "-m", "pixops", "demo", *args])


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in {"demo", "test", "setup"}:
        sys.exit(__doc__)
    command, rest = sys.argv[1], sys.argv[2:]
    python = ensure_venv()
    if command == "test":
        test(python, rest)
    elif command == "demo":
        demo(python, rest)


if __name__ == "__main__":
    main()
