"""The Python a newcomer copies runs as written: the README's ```python blocks, the first
example of every public package's docstring (what `help(pixops.frames)` shows), and the
README's `pixops recon` command lines.

Each runs from a scratch folder laid out like the repository root (`data/` holding the
sample ledger and balances), so what the examples write (`data/out/...`, `pix.duckdb`)
never lands in the working tree.
"""

from __future__ import annotations

import ast
import importlib
import re
import shlex
import shutil
import textwrap
from pathlib import Path

import pytest

from pixops.cli import main

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
    for name in ("sample_ledger.csv", "sample_ledger.mapping.toml", "balances.csv"):
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


# A comment that shows a value (`client.balance()...format()   # 'R$ 10.000,00'`) starts
# like a Python value: a quote, a bracket, a digit or `Name(`; `...` stands for the rest.
SHOWN_VALUE = re.compile(r"""\s{2,}#\s*((?:['"{\[\d]|[A-Z]\w*\().*)$""")


def shown_values(code: str) -> dict[int, str]:
    """Line number -> the value the line's comment says its expression gives."""
    found = {}
    for number, line in enumerate(code.splitlines(), start=1):
        match = SHOWN_VALUE.search(line)
        if match is not None:
            found[number] = match.group(1).strip()
    return found


def shown(value: object, expected: str) -> str:
    """`value` written the way a README comment writes it (a tuple without brackets)."""
    if isinstance(value, tuple) and not expected.startswith("("):
        return ", ".join(repr(item) for item in value)
    return repr(value)


def run_checked(code: str, name: str) -> int:
    """Run `code` statement by statement; an expression whose comment shows a value must
    give that value. Returns how many values were checked."""
    namespace: dict[str, object] = {"__name__": "__readme__"}
    expected = shown_values(code)
    checked = 0
    for statement in ast.parse(code).body:
        source = ast.get_source_segment(code, statement)
        assert source is not None
        wanted = expected.get(statement.lineno)
        if isinstance(statement, ast.Expr) and wanted is not None:
            value = eval(compile(ast.Expression(statement.value), name, "eval"), namespace)
            text = shown(value, wanted)
            pattern = ".*".join(re.escape(part) for part in wanted.split("..."))
            assert re.fullmatch(pattern, text, re.DOTALL), (
                f"{name}, line {statement.lineno}: `{source}` gives {text}, the text shows {wanted}"
            )
            checked += 1
        else:
            module = ast.Module(body=[statement], type_ignores=[])
            exec(compile(module, name, "exec"), namespace)
    return checked


@pytest.mark.parametrize("index", range(len(python_blocks(README))), ids=lambda i: f"block{i}")
def test_a_readme_python_block_runs_as_written(index: int, scratch_root: Path) -> None:
    code = python_blocks(README)[index]
    checked = run_checked(code, f"README.md python block {index}")
    assert checked == len(shown_values(code))


def test_the_values_the_readme_shows_are_checked() -> None:
    """The README shows a balance, an amount and the planted day's counts: each is one
    of the values compared above, so a changed figure fails instead of misleading."""
    shown_lines = [
        value for block in python_blocks(README) for value in shown_values(block).values()
    ]
    assert "'R$ 10.000,00'" in shown_lines
    assert any(value.startswith("{'matched': 291") for value in shown_lines)
    assert len(shown_lines) >= 3


def test_a_wrong_value_in_an_example_fails() -> None:
    with pytest.raises(AssertionError, match="gives 3, the text shows 4"):
        run_checked("1 + 2  # 4\n", "example")
    assert run_checked("x = (1, 'a')\nx  # 1, 'a'\n{'a': 1, 'b': 2}  # {'a': 1, ...}\n", "e") == 2


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
def test_a_documented_recon_command_finds_the_planted_day(
    command: str, scratch_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Run in-process through `main(argv)`, the function `.venv/bin/pixops` calls (the
    entry point itself is started as a process in tests/test_cli.py and tests/test_wheel.py):
    the test is about what the documented line prints, exits with and writes."""
    arguments = shlex.split(command)[1:]
    status = main(arguments)
    out, err = capsys.readouterr()
    assert status == 1, err  # 1: findings need attention
    assert "Matched                                 291" in out
    path = Path(arguments[arguments.index("--out") + 1])
    assert (scratch_root / path / "discrepancies.csv").is_file()


def mapping_page_commands() -> list[str]:
    """docs/ledger-mapping.md's `pixops recon` lines (its pt-BR example ledger)."""
    page = (ROOT / "docs" / "ledger-mapping.md").read_text(encoding="utf-8")
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", page, re.DOTALL):
        for command in block.replace("\\\n", " ").splitlines():
            if command.strip().startswith(".venv/bin/pixops recon"):
                commands.append(command.strip())
    return commands


def test_the_mapping_page_s_recon_lines_find_what_it_says(
    scratch_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each documented line, run as written on docs/examples (copied beside data/), prints
    the matches and findings the page's sentence above them states."""
    page = (ROOT / "docs" / "ledger-mapping.md").read_text(encoding="utf-8")
    stated = re.search(r"find the same (\d+) matches and (\d+) findings", page)
    assert stated, "docs/ledger-mapping.md no longer says what its commands find"
    matches, findings = (int(number) for number in stated.groups())
    shutil.copytree(ROOT / "docs" / "examples", scratch_root / "docs" / "examples")
    commands = mapping_page_commands()
    assert len(commands) == 2
    for command in commands:
        status = main(shlex.split(command)[1:])
        out, err = capsys.readouterr()
        assert status == 1, err
        assert re.search(rf"^Matched +{matches} ", out, re.MULTILINE), out
        assert f"needs attention ({findings} findings to check)" in out
        assert (
            "read as: semicolon, Windows-1252, decimal comma, dd/mm/yyyy, amounts in reais" in out
        )
