"""The README and docs/ stand alone: links resolve inside the repository, the names they
mention exist, every command is documented, and the shell examples they show work when
pasted against a served engine. (tests/test_docs_examples.py runs the Python examples.)"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from pixops.cli import build_parser
from pixops.engine.admin import PREFIX, ROUTES
from pixops.server import PixopsServer, ServeOptions, build_engine, seed_demo_merchant
from tests.conftest import SPEC_ENDPOINTS

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted(
    [
        ROOT / "README.md",
        ROOT / "notebooks" / "README.md",
        ROOT / "data" / "README.md",
        *(ROOT / "docs").glob("*.md"),
    ]
)
# `pixops.x.y` names, not the `sandbox.pixops.dev` mail domain of the test keys.
DOTTED_NAME = re.compile(r"(?<![\w.@-])pixops(?:\.[A-Za-z_]\w*)+")
LINK = re.compile(r"\]\(([^)\s]+)\)")

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_no_link_leaves_the_repository(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert "../shared" not in text
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        resolved = (page.parent / target.split("#", 1)[0]).resolve()
        assert resolved.is_relative_to(ROOT), f"{page.name}: {target} leaves the repository"
        assert resolved.exists(), f"{page.name}: {target} does not exist"


def bash_blocks(page: Path, marker: str) -> list[str]:
    blocks = re.findall(r"```bash\n(.*?)```", page.read_text(encoding="utf-8"), re.DOTALL)
    return [block for block in blocks if marker in block]


@pytest.mark.parametrize("page", [ROOT / "README.md", ROOT / "docs" / "api.md"], ids=str)
def test_the_signed_post_example_works_when_pasted(page: Path) -> None:
    (example,) = bash_blocks(page, "openssl dgst")
    options = ServeOptions(port=0)
    engine = build_engine(options)
    credentials = seed_demo_merchant(engine)
    assert credentials is not None
    with PixopsServer(engine, options) as server:
        env = {
            **os.environ,
            "PIXOPS_BASE_URL": server.base_url,
            "PIXOPS_CLIENT_ID": credentials.client_id,
            "PIXOPS_CLIENT_SECRET": credentials.client_secret,
        }
        result = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", example],
            capture_output=True,
            text=True,
            timeout=30,
            env=env,
        )
    assert result.returncode == 0, result.stderr
    charge = json.loads(result.stdout)
    assert charge["worked"] is True
    assert charge["data"]["amount"] == 2_500 * 100


def test_the_api_reference_lists_every_endpoint_and_test_helper() -> None:
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    for method, path, permission in SPEC_ENDPOINTS:
        assert f"| {method} | `{path}` | `{permission}` |" in text
    for route in ROUTES:
        assert f"| {route.method} | `{PREFIX}{route.pattern}` |" in text


def resolve(dotted: str) -> object:
    """The object `pixops.a.b.c` names: the longest importable module, then attributes."""
    parts = dotted.split(".")
    for split in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:split]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[split:]:
            found = getattr(found, attribute)
        return found
    raise ModuleNotFoundError(dotted)


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_every_pixops_name_a_page_mentions_exists(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    missing = []
    for dotted in sorted(set(DOTTED_NAME.findall(text))):
        try:
            resolve(dotted)
        except (AttributeError, ModuleNotFoundError):
            missing.append(dotted)
    assert not missing, f"{page.name} names what does not exist: {missing}"


def test_the_readme_reaches_every_page_and_notebook() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = set(LINK.findall(text))
    for page in [*sorted((ROOT / "docs").glob("*.md")), ROOT / "notebooks" / "README.md"]:
        assert page.relative_to(ROOT).as_posix() in targets, f"README does not link {page}"
    assert "data/README.md" in targets


def subcommand_parsers(
    parser: argparse.ArgumentParser, prefix: str = "pixops"
) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield f"{prefix} {name}", child
                yield from subcommand_parsers(child, f"{prefix} {name}")


def test_the_readme_names_every_command() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    for command, _parser in subcommand_parsers(build_parser()):
        top = " ".join(command.split()[:2])
        assert f"`{top}" in text or f"{top} " in text, f"README never mentions {top}"


def test_every_command_and_argument_says_what_it_is() -> None:
    parser = build_parser()
    assert parser.epilog is not None
    assert "PIXOPS_BASE_URL" in parser.epilog
    for command, child in subcommand_parsers(parser):
        assert child.description, f"{command} --help has no description"
        for action in child._actions:
            if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
                continue
            assert action.help, f"{command}: {action.option_strings or action.dest} has no help"
