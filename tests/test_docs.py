"""The README and docs/ stand alone: links resolve inside the repository, the names they
mention exist, every command is documented, and the shell examples they show work when
pasted against a served engine. (tests/test_docs_examples.py runs the Python examples.)"""

from __future__ import annotations

import argparse
import importlib
import itertools
import json
import os
import re
import shlex
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

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
        ROOT / "benchmarks" / "README.md",
        *(ROOT / "docs").rglob("*.md"),
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


def anchors(page: Path) -> set[str]:
    """The `#fragment` each heading of a page gets (GitHub's rule: lower case, punctuation
    dropped, spaces to hyphens)."""
    headings = re.findall(r"^#+ (.+)$", page.read_text(encoding="utf-8"), re.MULTILINE)
    return {
        re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-") for heading in headings
    }


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_every_link_to_a_heading_finds_it(page: Path) -> None:
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target) or "#" not in target:
            continue
        path, fragment = target.split("#", 1)
        linked = (page.parent / path).resolve() if path else page
        if linked.suffix == ".md":
            assert fragment in anchors(linked), f"{page.name}: {target} names no heading"


def test_headings_give_the_anchors_github_gives() -> None:
    assert {"your-own-account", "server-mode", "two-commands"} <= anchors(ROOT / "README.md")


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


def shell_commands(page: Path) -> list[str]:
    """Every command line of a page's ```bash blocks, continuations joined, comments and a
    trailing `&` dropped."""
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", page.read_text(encoding="utf-8"), re.DOTALL):
        for line in block.replace("\\\n", " ").splitlines():
            command = re.sub(r"\s+#.*$", "", line).strip().removesuffix("&").strip()
            if command:
                commands.append(command)
    return commands


PIXOPS_COMMANDS = [
    (page, command)
    for page in PAGES
    for command in shell_commands(page)
    if re.match(r"(\.venv/bin/)?pixops ", command) and "[" not in command  # `[...]`: a synopsis
]


def test_the_pages_show_pixops_commands() -> None:
    assert len(PIXOPS_COMMANDS) >= 15


@pytest.mark.parametrize(
    ("page", "command"),
    PIXOPS_COMMANDS,
    ids=[f"{page.name}: {command[:60]}" for page, command in PIXOPS_COMMANDS],
)
def test_a_documented_pixops_command_is_one_pixops_takes(
    page: Path, command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A renamed flag or command makes the page's line a usage error here, and a file it
    reads (a notebook, the ledger, the balances) must be in the repository."""
    arguments = shlex.split(command)[1:]
    monkeypatch.chdir(tmp_path)
    for made_earlier in (arg for arg in arguments if arg.endswith(".pem")):  # by dev-cert
        (tmp_path / made_earlier).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / made_earlier).touch()
    try:
        build_parser().parse_args(arguments)
    except SystemExit as stopped:  # exit 0: `--version` or `--help`, which print and stop
        if stopped.code != 0:
            pytest.fail(f"{page.name}: `{command}` is refused by pixops (exit {stopped.code})")
    reads = [
        value
        for flag, value in itertools.pairwise(["", *arguments])
        if flag in {"--ledger", "--balances", "--notebook", "--notebooks"}
        or value.endswith(".ipynb")
    ]
    for path in reads:
        assert (ROOT / path).exists(), f"{page.name}: `{command}` reads {path}, which is missing"


def test_the_dev_commands_the_pages_show_exist() -> None:
    shown = {
        command.split()[2]
        for page in PAGES
        for command in shell_commands(page)
        if command.startswith("python3 .ci/dev.py ")
    }
    assert shown >= {"lab", "test"}
    source = (ROOT / ".ci" / "dev.py").read_text(encoding="utf-8")
    for name in shown:
        assert f'"{name}"' in source, f"python3 .ci/dev.py {name} is not a dev.py command"


def simulated_month_counts(cache_dir: Path | None = None) -> dict[str, int]:
    """The counts of `bench_simulate.py`'s default month (`Sandbox(seed=0)`, 30 days,
    seed 0), kept as JSON beside the demo month under the same fingerprint of the sources
    that shape a month (`pixops.demo`): simulated again (~9 s of CPU) whenever one of
    them changes, read back otherwise, as `demo_month()` reads its snapshot."""
    from pixops import demo
    from pixops.sandbox import Sandbox

    folder = demo._cache_dir(cache_dir)
    kept = folder / f"bench-simulate-month-{demo._source_fingerprint()}.json"
    if kept.exists():
        counts: dict[str, int] = json.loads(kept.read_text(encoding="utf-8"))
        return counts
    counts = dict(Sandbox(seed=0).simulate(days=30, seed=0).counts)
    folder.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=folder, suffix=".json.tmp")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        json.dump(counts, out)
    os.replace(temporary, kept)  # a concurrent run never reads a half-written file
    return counts


@pytest.mark.timeout(120)
def test_the_month_benchmarks_readme_shows_is_what_simulate_does() -> None:
    """benchmarks/README.md shows what `bench_simulate.py` prints for its default month
    (seed 0, in memory): the counts must be today's, not an older engine's."""
    text = (ROOT / "benchmarks" / "README.md").read_text(encoding="utf-8")
    section = text.split("## bench_simulate.py", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```\n(.*?)```", section, re.DOTALL)
    shown = {name: int(count) for name, count in re.findall(r"^\s+(\w+)\s+(\d+)$", block, re.M)}
    assert len(shown) >= 8
    assert shown == simulated_month_counts()


def test_the_simulated_month_is_kept_by_the_engine_s_fingerprint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the check above reads back is what `simulate` gave for the same sources: a
    kept file of another fingerprint is never read, and one of this fingerprint is."""
    from pixops import demo
    from pixops.sandbox import Sandbox

    simulated: list[int] = []

    def simulate(self: Sandbox, *args: object, **given: int) -> object:
        simulated.append(given["days"])
        return SimpleNamespace(counts={"charges_created": 7})

    monkeypatch.setattr(Sandbox, "simulate", simulate)
    (tmp_path / "bench-simulate-month-0000000000000000.json").write_text('{"stale": 1}')
    assert simulated_month_counts(tmp_path) == {"charges_created": 7}
    assert simulated == [30]
    kept = tmp_path / f"bench-simulate-month-{demo._source_fingerprint()}.json"
    assert json.loads(kept.read_text(encoding="utf-8")) == {"charges_created": 7}
    assert simulated_month_counts(tmp_path) == {"charges_created": 7}
    assert simulated == [30]  # read back, not simulated again
    assert [path.name for path in tmp_path.iterdir() if path.suffix == ".tmp"] == []
