"""pixops as a user installs it: built from a clean copy of the checkout with `python -m
build`, installed into a fresh virtual environment outside the checkout, and used in an
empty folder (issue 29).

The fresh environment sees the test environment's packages through a ``.pth`` file (and
its Jupyter data folder through a link), so nothing is downloaded: the wheel is installed
with ``--no-deps``, and the requirements its ``notebooks`` extra declares are checked
against what that environment holds. ``PYTHONPATH`` is dropped, so every import of
pixops there is the wheel's, never this checkout's (each run checks which file loaded).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import venv
import zipfile
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import nbformat
import pytest

from pixops._bundled import BUNDLE_FOLDER, bundled_files
from pixops._notebook_copies import MANIFEST_NAME
from pixops._version import __version__
from tests._cache import kept_build

ROOT = Path(__file__).resolve().parents[1]
DRIVER = Path(__file__).with_name("_installed_notebooks.py")
DAY = "2026-01-15"
DAILY = "03_daily_reconciliation.ipynb"

pytestmark = pytest.mark.timeout(420)

#: Which notebooks `pixops desk` and `pixops report daily` would run in a folder.
FIND_SHIPPED = (
    "from pixops.desk import default_notebooks_dir, find_investigation_notebook\n"
    "from pixops.report._daily import find_daily_notebook\n"
    "print(find_investigation_notebook(default_notebooks_dir()))\n"
    "print(find_daily_notebook(default_notebooks_dir()))\n"
)


@dataclass(frozen=True)
class Installed:
    """The built distributions and the environment the wheel was installed into."""

    sdist: Path
    wheel: Path
    python: Path
    pixops: Path
    env: dict[str, str]


def listed_files() -> list[str] | None:
    """The checkout's files as a clone would have them (tracked and new, never ignored),
    sorted; None outside a git checkout (an unpacked sdist)."""
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "-co", "--exclude-standard"],
        capture_output=True,
        check=False,
    )
    if listed.returncode != 0:
        return None
    # A file deleted but not yet staged is listed and absent.
    return sorted(
        name for name in set(listed.stdout.decode().split("\0")) if (ROOT / name).is_file()
    )


def clean_copy(target: Path, names: list[str] | None) -> None:
    """`names` copied from the checkout into `target`, or all of it but what a build
    leaves when there is no list (not a git checkout)."""
    if names is None:
        junk = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "out")
        shutil.copytree(ROOT, target, ignore=junk, dirs_exist_ok=True)
        return
    for name in names:
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target / name)


def sources_fingerprint(names: list[str]) -> str:
    """A hash of everything `python -m build` reads: each listed file's name and contents,
    the interpreter and the version of every installed distribution (setuptools, build)."""
    digest = hashlib.sha256(sys.version.encode())
    for name in names:
        digest.update(name.encode() + b"\0" + (ROOT / name).read_bytes() + b"\0")
    installed = sorted(
        f"{dist.metadata['Name']}=={dist.version}" for dist in importlib.metadata.distributions()
    )
    digest.update("\n".join(installed).encode())
    return digest.hexdigest()[:16]


def build_distributions(names: list[str] | None, dist: Path) -> None:
    """The sdist and the wheel `python -m build` makes of a clean copy of the checkout,
    into `dist`."""
    with tempfile.TemporaryDirectory(prefix="pixops-clone-") as folder:
        source = Path(folder)
        clean_copy(source, names)
        # --no-isolation -x: the build backend is the test environment's setuptools, used
        # as it is (-x skips build's check that it meets pyproject's `requires`, two more
        # interpreters importing setuptools: ~1.4 s of CPU); the sdist, then the wheel
        # built from the unpacked sdist, as `python -m build` always does.
        command = [sys.executable, "-m", "build", "--no-isolation", "-x", "--outdir", str(dist)]
        built = subprocess.run(
            [*command, str(source)], capture_output=True, text=True, check=False, timeout=180
        )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]


def distributions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the sdist and the wheel of this checkout. Built distributions are
    kept under the fingerprint of what the build read (`sources_fingerprint`), as the docs
    site is: the same files and packages build the same sdist and wheel, so they are built
    again only when one changed (the build was ~4 s of CPU of every run); what is tested
    of them (installed into a fresh environment and used in an empty folder) runs each time."""
    names = listed_files()
    if names is None:
        dist = tmp_path_factory.mktemp("dist")
        build_distributions(None, dist)
        return dist
    return kept_build("wheel", sources_fingerprint(names), partial(build_distributions, names))


def fresh_environment(folder: Path) -> Path:
    """A venv whose interpreter also sees this environment's packages and Jupyter data."""
    venv.EnvBuilder(with_pip=False, symlinks=True).create(folder)
    python = folder / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    ours = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    (Path(purelib) / "test-environment.pth").write_text("\n".join(sorted(ours)) + "\n")
    jupyter_data = Path(sys.prefix) / "share" / "jupyter"
    (folder / "share").mkdir(exist_ok=True)
    (folder / "share" / "jupyter").symlink_to(jupyter_data, target_is_directory=True)
    return python


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    dist = distributions(tmp_path_factory)
    (sdist,) = dist.glob("pixops-*.tar.gz")
    (wheel,) = dist.glob("pixops-*.whl")
    environment = tmp_path_factory.mktemp("venv")
    python = fresh_environment(environment)
    env = {
        name: value
        for name, value in os.environ.items()
        if name == "PIXOPS_CACHE_DIR"
        or (name not in {"PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME"} and name[:7] != "PIXOPS_")
    }
    env["PATH"] = f"{environment / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    # --ignore-installed: pip never touches the pixops it may see through the .pth file.
    pip_install = ["-m", "pip", "install", "--no-deps", "--no-index", "--ignore-installed"]
    pip = subprocess.run(
        [str(python), *pip_install, "--quiet", "--disable-pip-version-check", str(wheel)],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        timeout=120,
    )
    assert pip.returncode == 0, pip.stderr
    return Installed(sdist, wheel, python, environment / "bin" / "pixops", env)


def test_the_sdist_holds_the_tests_notebooks_and_data(installed: Installed) -> None:
    with tarfile.open(installed.sdist) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    for wanted in ("tests/test_wheel.py", "notebooks/conftest.py", "setup.py", "CHANGELOG.md"):
        assert wanted in names
    assert set(bundled_files(ROOT)) <= names
    assert not any(name.startswith(("data/out/", ".git/")) for name in names)


def test_the_wheel_carries_the_notebooks_and_sample_data(installed: Installed) -> None:
    with zipfile.ZipFile(installed.wheel) as wheel:
        names = set(wheel.namelist())
        shipped = {
            name.removeprefix(f"pixops/{BUNDLE_FOLDER}/")
            for name in names
            if name.startswith(f"pixops/{BUNDLE_FOLDER}/")
        }
        assert shipped == set(bundled_files(ROOT))
        for name in shipped:
            assert wheel.read(f"pixops/{BUNDLE_FOLDER}/{name}") == (ROOT / name).read_bytes()
    assert "pixops/report/_static/html-manager/embed.js" in names
    assert "pixops/_data/participants.csv" in names
    assert not any(name.startswith(("tests/", "notebooks/")) for name in names)


def pixops(installed: Installed, folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(installed.pixops), *args],
        cwd=folder,
        env=installed.env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def start(
    installed: Installed, folder: Path, *args: str, python: bool = False
) -> subprocess.Popen[bytes]:
    """`pixops ARGS` (or `python ARGS`) of the fresh environment, started in `folder`."""
    program = installed.python if python else installed.pixops
    return subprocess.Popen(
        [str(program), *args],
        cwd=folder,
        env=installed.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def test_an_installed_wheel_works_in_an_empty_folder(
    installed: Installed, tmp_path_factory: pytest.TempPathFactory
) -> None:
    folder = tmp_path_factory.mktemp("analyst")
    assert not folder.is_relative_to(ROOT)

    version = pixops(installed, folder, "--version")
    assert (version.returncode, version.stdout.strip()) == (0, f"pixops {__version__}")

    demo = pixops(installed, folder, "demo")
    assert demo.returncode == 0, demo.stderr
    assert "ledger audit: consistent" in demo.stdout

    # Before any copy: the desk and the daily report find the notebooks pixops ships.
    found = subprocess.run(
        [str(installed.python), "-c", FIND_SHIPPED],
        cwd=folder,
        env=installed.env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert found.returncode == 0, found.stderr
    shipped_folder = installed.python.parents[1]
    for line in found.stdout.splitlines():
        assert Path(line).is_relative_to(shipped_folder), line
        assert f"pixops/{BUNDLE_FOLDER}/notebooks/" in line

    init = pixops(installed, folder, "notebooks", "init")
    assert init.returncode == 0, init.stderr
    assert (folder / MANIFEST_NAME).is_file()
    for name in bundled_files(ROOT):
        assert (folder / name).read_bytes() == (ROOT / name).read_bytes()

    # The daily notebook runs as the scheduled report does (papermill, on nbclient), the
    # others with nbclient; a line added to the copy shows the report ran the copy.
    daily = folder / "notebooks" / DAILY
    notebook = nbformat.read(daily, as_version=4)
    notebook.cells.append(nbformat.v4.new_markdown_cell(f"Edited in {folder.name}."))
    nbformat.write(notebook, daily)
    update = pixops(installed, folder, "notebooks", "init", "--update")
    assert update.returncode == 0, update.stderr
    assert f"left alone 1 file you edited: notebooks/{DAILY}" in update.stdout

    # The report, the reconciliation and the notebooks run side by side (the report in a
    # kernel of its own, the other notebooks one after another in one kernel: see
    # tests/_installed_notebooks.py), as a machine with more than one core allows.
    ledger = ["--ledger", "data/sample_ledger.csv", "--balances", "data/balances.csv"]
    started = {
        "report": start(
            installed, folder, "report", "daily", "--date", DAY, "--html", "out/day.html"
        ),
        "recon": start(installed, folder, "recon", "--date", DAY, *ledger, "--out", "out/recon"),
        "notebooks": start(installed, folder, str(DRIVER), DAILY, python=True),
    }
    done: dict[str, tuple[int, str, str]] = {}
    for name, process in started.items():
        out, err = process.communicate(timeout=360)
        done[name] = (process.returncode, out.decode(), err.decode())

    status, out, err = done["notebooks"]
    assert status == 0, err[-3000:]
    found = json.loads(out)
    site = installed.python.parents[1]
    assert Path(found["pixops"]).is_relative_to(site), found["pixops"]
    assert Path(found["kernel_pixops"]).is_relative_to(site), found["kernel_pixops"]
    assert found["requirements"] == []
    shipped = [Path(name).name for name in bundled_files(ROOT) if name.endswith(".ipynb")]
    assert sorted([*found["notebooks"], DAILY]) == sorted(shipped)
    for name, result in found["notebooks"].items():
        assert result["errors"] == [], name
        assert "sandbox" in result["text"], name  # the connect() line: the demo month

    status, out, err = done["report"]
    assert status == 1, out[-2000:] + err[-3000:]  # 1: findings, as `pixops recon` says
    page = (folder / "out" / "day.html").read_text(encoding="utf-8")
    assert "Reconciliation 15/01/2026" in page
    assert f"Edited in {folder.name}." in page
    assert f"report: {(folder / 'out' / 'day.html').resolve()}" in out

    status, out, err = done["recon"]
    assert status == 1, err[-3000:]  # 1: the sample ledger's planted findings
    assert "needs attention" in out
    summary = json.loads((folder / "out" / "recon" / "summary.json").read_text())
    assert summary["counts"]["matched"] > 0
    assert summary["counts"]["unit_error"] == 1  # every planted kind is found (data/README.md)
