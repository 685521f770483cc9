"""The Python a newcomer copies runs as written: the README's ```python blocks, the first
example of every public package's docstring (what `help(pixops.frames)` shows), and the
README's `pixops recon` command lines.

Each runs from a scratch folder laid out like the repository root (`data/` holding the
sample ledger and balances), so what the examples write (`data/out/...`, `pix.duckdb`)
never lands in the working tree.
"""

from __future__ import annotations

import importlib
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PACKAGES = [
    "pixops",
    "pixops.client",
    "pixops.sandbox",
    "pixops.frames",
    "pixops.recon",
    "pixops.widgets",
]

pytestmark = pytest.mark.timeout(180)


@pytest.fixture
def scratch_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder with the repository's `data/` inputs, made the working directory."""
    (tmp_path / "data").mkdir()
    for name in ("sample_ledger.csv", "balances.csv"):
        shutil.copy(ROOT / "data" / name, tmp_path / "data" / name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PIXOPS_BASE_URL", raising=False)
    return tmp_path


def python_blocks(page: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.DOTALL)


def docstring_example(module_name: str) -> str:
    """The first indented block of a module docstring: its first example."""
    doc = importlib.import_module(module_name).__doc__ or ""
    block: list[str] = []
    for line in doc.splitlines()[1:]:
        if line.startswith("    ") or (block and not line.strip()):
            block.append(line)
        elif block:
            break
    return textwrap.dedent("\n".join(block)).strip()


def test_the_readme_has_python_examples() -> None:
    assert len(python_blocks(README)) >= 3


@pytest.mark.parametrize("index", range(len(python_blocks(README))), ids=lambda i: f"block{i}")
def test_a_readme_python_block_runs_as_written(index: int, scratch_root: Path) -> None:
    code = python_blocks(README)[index]
    exec(compile(code, f"README.md python block {index}", "exec"), {"__name__": "__readme__"})


@pytest.mark.parametrize("module_name", PACKAGES)
def test_a_package_docstring_example_runs_as_written(module_name: str, scratch_root: Path) -> None:
    code = docstring_example(module_name)
    assert code, f"help({module_name}) shows no example"
    exec(compile(code, f"{module_name} docstring", "exec"), {"__name__": "__docstring__"})


def recon_commands() -> list[str]:
    """README and data/README `pixops recon` lines without --html (which renders a notebook)."""
    commands = []
    for page in (README, ROOT / "data" / "README.md"):
        blocks = re.findall(r"```bash\n(.*?)```", page.read_text(encoding="utf-8"), re.DOTALL)
        for block in blocks:
            for command in block.replace("\\\n", " ").splitlines():
                command = command.split("#", 1)[0].strip()
                if command.startswith(".venv/bin/pixops recon") and "--html" not in command:
                    commands.append(command)
    return commands


def test_the_readme_shows_recon_commands() -> None:
    assert recon_commands()


@pytest.mark.parametrize("command", recon_commands())
def test_a_documented_recon_command_finds_the_planted_day(command: str, scratch_root: Path) -> None:
    arguments = shlex.split(command)[1:]
    result = subprocess.run(
        [sys.executable, "-m", "pixops", *arguments],
        capture_output=True,
        text=True,
        timeout=150,
        check=False,
    )
    assert result.returncode == 1, result.stderr  # 1: findings need attention
    assert "Matched                                 292" in result.stdout
    out = Path(arguments[arguments.index("--out") + 1])
    assert (scratch_root / out / "discrepancies.csv").is_file()
