"""Real-browser tests: one JupyterLab per session on a copy of the notebooks, Debian's Chromium.

Every test here carries the `browser` marker. With PIXOPS_SKIP_BROWSER=1 (what
`.ci/dev.py test --no-browser` sets) they are deselected, and the run says so at the top
and at the end; without it a missing Chromium fails the tests with the way out named.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from nbformat.sign import NotebookNotary
from playwright.sync_api import (
    Browser,
    BrowserContext,
    Page,
    Playwright,
    ViewportSize,
    expect,
    sync_playwright,
)

from pixops.desk import lab_command, start, stop
from tests.browser._lab import CHROMIUM_ARGS, Server, sandbox_environment, screenshot

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path(os.environ.get("PIXOPS_CHROMIUM", "/usr/bin/chromium"))
SKIP_VARIABLE = "PIXOPS_SKIP_BROWSER"
_HERE = Path(__file__).resolve().parent
_FAILED = pytest.StashKey[bool]()
# Assertions on the page wait up to a minute (not 5 s): the machine is shared, and a
# kernel busy with a panel's request answers late.
expect.set_options(timeout=60_000)
_SKIPPED_NOTICE = (
    f"{SKIP_VARIABLE}=1: the real-browser tests in tests/browser are DESELECTED in this run"
)


def _skipping() -> bool:
    return os.environ.get(SKIP_VARIABLE) == "1"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "browser: drives JupyterLab, Voilà or a report in Debian's Chromium"
    )


def pytest_report_header(config: pytest.Config) -> str | None:
    return f"*** {_SKIPPED_NOTICE} ***" if _skipping() else None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    mine = [item for item in items if _HERE in Path(str(item.path)).parents]
    for item in mine:
        item.add_marker(pytest.mark.browser)
    if _skipping() and mine:
        config.hook.pytest_deselected(items=mine)
        items[:] = [item for item in items if item not in mine]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _skipping():
        terminalreporter.write_sep("!", _SKIPPED_NOTICE, yellow=True, bold=True)


# Module scope, not session: sync Playwright keeps an asyncio loop running in this
# thread while it is open, and `asyncio.run` in a later test file on the same worker
# (the async client's tests) would fail with "cannot be called from a running loop".
@pytest.fixture(scope="module")
def playwright_session() -> Iterator[Playwright]:
    if not CHROMIUM.exists():
        pytest.fail(
            f"Chromium is not at {CHROMIUM}: install the Debian packages chromium and"
            " fonts-dejavu-core (`.ci/dev.py test` does it when run as root), point"
            f" PIXOPS_CHROMIUM at another Chromium, or opt out with {SKIP_VARIABLE}=1"
            " (`.ci/dev.py test --no-browser`)"
        )
    with sync_playwright() as playwright:
        yield playwright


@pytest.fixture(scope="module")
def browser(playwright_session: Playwright) -> Iterator[Browser]:
    launched = playwright_session.chromium.launch(
        executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
    )
    yield launched
    launched.close()


@pytest.fixture(scope="session")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of notebooks/ and data/ side by side: Lab autosaves what it opens."""
    root = tmp_path_factory.mktemp("workspace")
    shutil.copytree(
        ROOT / "notebooks", root / "notebooks", ignore=shutil.ignore_patterns(".ipynb_checkpoints")
    )
    shutil.copytree(ROOT / "data", root / "data", ignore=shutil.ignore_patterns("out"))
    return root


@pytest.fixture(scope="session")
def lab_state(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tests' Lab's own settings, workspaces and notebook signatures."""
    return tmp_path_factory.mktemp("lab-state")


@pytest.fixture(scope="session")
def notary(lab_state: Path) -> NotebookNotary:
    """The signatures the tests' Lab trusts (its own database and secret, never the
    user's): a notebook signed here opens with its stored outputs trusted, as after a run."""
    made = NotebookNotary(
        db_file=str(lab_state / "nbsignatures.db"), secret_file=str(lab_state / "notebook_secret")
    )
    assert made.secret  # the secret file written now, before Lab reads it
    return made


@pytest.fixture(scope="session")
def lab(workspace: Path, lab_state: Path, notary: NotebookNotary) -> Iterator[Server]:
    """JupyterLab on loopback with a token, started the way `pixops lab` starts it."""
    state = lab_state
    # Start the notebook's own kernel without asking (Lab may otherwise show "Select
    # Kernel" when a notebook opens, which would block the clicks that follow).
    tracker = state / "settings" / "@jupyterlab" / "notebook-extension"
    tracker.mkdir(parents=True)
    (tracker / "tracker.jupyterlab-settings").write_text('{"autoStartDefaultKernel": true}')
    # The notebooks must find the sandbox, never a service configured in this shell.
    env = sandbox_environment()
    command = lab_command(
        workspace / "notebooks", token="browser-tests", state_dir=state, base_env=env
    )
    # `window.jupyterapp`: a page showing Lab opens the next notebook in place
    # (tests/browser/_lab.py `open_notebook`) instead of loading Lab's scripts again.
    # The notary's files: a notebook the tests sign (`notary`) opens trusted.
    trust = (
        f"--NotebookNotary.db_file={notary.db_file}",
        f"--NotebookNotary.secret_file={notary.secret_file}",
    )
    # No search for language servers: jupyter-lsp ran `npm prefix -g` (~1 s of node's CPU)
    # to look for some in node's folders; none is installed, and no test uses one.
    quiet = "--LanguageServerManager.autodetect=False"
    command = replace(
        command, argv=(*command.argv, "--LabApp.expose_app_in_browser=True", quiet, *trust)
    )
    with (state / "lab.log").open("wb") as log:
        process = start(command, log=log)
        try:
            yield Server(f"http://{command.host}:{command.port}", "browser-tests")
        finally:
            stop(process)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> object:
    report = yield
    if report.when == "call":
        item.stash[_FAILED] = report.failed
    return report


_VIEWPORT: ViewportSize = {"width": 1280, "height": 1000}


class _Tab:
    """One browser tab kept for a module's tests: JupyterLab stays loaded from one test
    to the next (its scripts took seconds to load and start each time). A test that
    fails leaves it to be closed, so the next test starts in a new context."""

    def __init__(self, browser: Browser) -> None:
        self.browser = browser
        self.context: BrowserContext | None = None
        self.page: Page | None = None

    def get(self) -> Page:
        if self.page is None:
            self.context = self.browser.new_context(viewport=_VIEWPORT, locale="pt-BR")
            self.page = self.context.new_page()
            self.page.set_default_timeout(60_000)
        self.page.set_viewport_size(_VIEWPORT)
        return self.page

    def close(self) -> None:
        if self.context is not None:
            self.context.close()
        self.context = self.page = None


@pytest.fixture(scope="module")
def _tab(browser: Browser) -> Iterator[_Tab]:
    tab = _Tab(browser)
    yield tab
    tab.close()


@pytest.fixture
def page(_tab: _Tab, request: pytest.FixtureRequest) -> Iterator[Page]:
    """A page at 1280 px in pt-BR, the module's tab (a new one after a failed test)."""
    opened = _tab.get()
    yield opened
    if request.node.stash.get(_FAILED, False):
        screenshot(opened, f"FAILED-{request.node.name}")
        _tab.close()
