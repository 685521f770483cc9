"""environment.yml and pyproject.toml must name the same packages at the same minimums."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent

# conda-forge spells a few packages differently from PyPI.
CONDA_TO_PYPI = {"python-duckdb": "duckdb", "types-pyyaml": "types-PyYAML"}
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
