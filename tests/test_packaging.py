"""environment.yml and pyproject.toml must name the same packages at the same minimums."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import tomllib
import venv
from pathlib import Path
from types import ModuleType

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent

# conda-forge spells a few packages differently from PyPI.
CONDA_TO_PYPI = {
    "python-duckdb": "duckdb",
    "types-pyyaml": "types-PyYAML",
    "python-build": "build",
}
# Present only in the conda environment: the interpreter and pip.
CONDA_ONLY = {"python", "pip"}
REQUIREMENT = re.compile(r"^([A-Za-z0-9_.\-]+)\s*(>=\s*[0-9][0-9.]*)?")


def parse(requirement: str) -> tuple[str, str]:
    match = REQUIREMENT.match(requirement.strip())
    assert match is not None, requirement
    return match.group(1).lower(), (match.group(2) or "").replace(" ", "")


def pyproject_requirements() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    found: dict[str, str] = {}
    for requirement in project["dependencies"]:
        name, version = parse(requirement)
        found[name] = version
    for extra in project["optional-dependencies"].values():
        for requirement in extra:
            if requirement.startswith("pixops"):
                continue
            name, version = parse(requirement)
            found[name] = version
    return found


def environment_requirements() -> dict[str, str]:
    document = yaml.safe_load((ROOT / "environment.yml").read_text())
    found: dict[str, str] = {}
    for entry in document["dependencies"]:
        if not isinstance(entry, str):
            continue
        name, version = parse(entry)
        if name in CONDA_ONLY:
            continue
        found[CONDA_TO_PYPI.get(name, name).lower()] = version
    return found


def test_environment_and_pyproject_agree() -> None:
    assert environment_requirements() == pyproject_requirements()


def test_environment_installs_the_project_itself() -> None:
    document = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip_sections = [entry["pip"] for entry in document["dependencies"] if isinstance(entry, dict)]
    assert pip_sections == [["-e ."]]


def test_python_floor_is_the_same() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    document = yaml.safe_load((ROOT / "environment.yml").read_text())
    assert project["requires-python"] == ">=3.11"
    assert "python>=3.11" in document["dependencies"]


def load_dev_script() -> ModuleType:
    """`.ci/dev.py`, the README's set-up and test command, as a module."""
    spec = importlib.util.spec_from_file_location("pixops_dev_script", ROOT / ".ci" / "dev.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ci_runs_exactly_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "python3 .ci/dev.py test    #" in readme
    assert "python3 .ci/dev.py lab     #" in readme
    commands = [
        line
        for line in (ROOT / ".ci" / "run").read_text().splitlines()
        if line.strip() and not line.startswith("#") and not line.startswith("set ")
    ]
    assert commands[-1] == "exec python3 .ci/dev.py test"


def fake_python(tmp_path: Path, pytest_status: int) -> Path:
    """A `python` whose ruff and mypy pass and whose pytest exits `pytest_status`; it
    records each command line."""
    script = tmp_path / "python"
    script.write_text(
        "#!/bin/sh\n"
        f'echo "$*" >> "{tmp_path / "calls"}"\n'
        f'[ "$2" = pytest ] && exit {pytest_status}\n'
        "exit 0\n"
    )
    script.chmod(0o755)
    return script


@pytest.mark.parametrize("status", [1, 5])
def test_a_pytest_failure_or_no_test_collected_fails_the_test_command(
    status: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pytest's exit 5 (no test collected) must fail CI, never pass as a green run."""
    dev = load_dev_script()
    monkeypatch.setenv("PIXOPS_SKIP_BROWSER", "1")
    monkeypatch.delenv("PIXOPS_TEST_WORKERS", raising=False)  # the default, three workers
    with pytest.raises(SystemExit) as stopped:
        dev.test(fake_python(tmp_path, status), ["-k", "nothing"])
    assert stopped.value.code == status
    calls = (tmp_path / "calls").read_text().splitlines()
    assert [call.split()[1] for call in calls] == ["ruff", "ruff", "mypy", "pytest"]
    assert calls[-1] == "-m pytest -n 3 -k nothing"


def test_the_test_command_passes_when_everything_passes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dev = load_dev_script()
    monkeypatch.setenv("PIXOPS_SKIP_BROWSER", "1")
    dev.test(fake_python(tmp_path, 0), [])
    assert len((tmp_path / "calls").read_text().splitlines()) == 4


def test_mypy_keeps_its_cache_in_the_venv_a_fresh_clone_reuses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CI runs from a fresh clone with a warm `.venv`: a cache in the clone would be
    empty each time (a minute of mypy instead of seconds)."""
    dev = load_dev_script()
    monkeypatch.setenv("PIXOPS_SKIP_BROWSER", "1")
    dev.test(fake_python(tmp_path, 0), [])
    (mypy,) = [call for call in (tmp_path / "calls").read_text().splitlines() if "mypy" in call]
    assert mypy == f"-m mypy --strict --cache-dir {ROOT / '.venv' / '.mypy_cache'} src"


def test_a_venv_left_without_pip_is_noticed(tmp_path: Path) -> None:
    """A first run on Debian without python3-venv leaves a `.venv` without pip; the next
    run must rebuild it rather than fail on `python -m pip` for ever."""
    dev = load_dev_script()
    venv.EnvBuilder(with_pip=False).create(tmp_path / "bare")
    assert not dev.has_pip(tmp_path / "bare" / "bin" / "python")
    assert dev.has_pip(Path(sys.executable))


def test_a_venv_that_cannot_be_made_names_the_missing_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dev = load_dev_script()
    monkeypatch.setattr(dev, "VENV", tmp_path / ".venv")

    def no_ensurepip(self: venv.EnvBuilder, env_dir: str) -> None:
        Path(env_dir).mkdir()
        raise subprocess.CalledProcessError(1, ["python", "-m", "ensurepip"])

    monkeypatch.setattr(venv.EnvBuilder, "create", no_ensurepip)
    with pytest.raises(SystemExit) as stopped:
        dev.create_venv(clear=False)
    assert "apt-get install python3-venv" in str(stopped.value.code)
    assert not (tmp_path / ".venv").exists()


def test_the_dev_script_says_its_commands_on_help() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / ".ci" / "dev.py"), "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0
    for command in ("lab", "test", "demo", "setup", "--no-browser"):
        assert command in result.stdout
