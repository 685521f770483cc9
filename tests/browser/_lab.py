"""Driving JupyterLab, Voilà and static pages with Playwright: the few moves every test needs."""

from __future__ import annotations

import os
import re
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"
#: Chromium flags that work as root in a container (no sandbox, no GPU, small /dev/shm).
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
#: What points the notebooks at a real service: never passed to the servers under test.
SERVICE_VARIABLES = frozenset({"PIXOPS_BASE_URL", "PIXOPS_CLIENT_ID", "PIXOPS_CLIENT_SECRET"})
_PROMPT_DONE = re.compile(r"^\[\d+\]:$")
_TRACEBACK = re.compile(r"Traceback|^\w*Error\b|\n\w*Error\b")


@dataclass(frozen=True)
class Server:
    """A running JupyterLab or Voilà: where it answers and the token it wants."""

    base_url: str
    token: str = ""


def sandbox_environment() -> dict[str, str]:
    """This process's environment without the variables that select a real service."""
    return {name: value for name, value in os.environ.items() if name not in SERVICE_VARIABLES}


def screenshot(page: Page, name: str, *, element: Any = None) -> Path:
    """Save a screenshot under tests/browser/screenshots/ (git-ignored) and return its path."""
    SCREENSHOTS.mkdir(exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    (element or page).screenshot(path=str(path))
    return path


#: The notebook tab in front; hidden tabs keep their cells in the page.
CURRENT = ".jp-NotebookPanel:not(.lm-mod-hidden)"
_IDLE = f"{CURRENT} .jp-Notebook-ExecutionIndicator[data-status='idle']"


@dataclass(frozen=True)
class Running:
    """The ids of the sessions and kernels a server has at one moment."""

    sessions: tuple[str, ...]
    kernels: tuple[str, ...]
    paths: frozenset[str] = frozenset()

    def without_kernel(self, kernel: str) -> tuple[Running, str | None]:
        """These sessions and kernels but `kernel` and its session, and that session's id
        (None when no session holds `kernel`)."""
        kept = self.session_of.get(kernel)
        others = Running(
            tuple(s for s in self.sessions if s != kept),
            tuple(k for k in self.kernels if k != kernel),
        )
        return others, kept

    session_of: dict[str, str] = field(default_factory=dict)  # kernel id -> session id


def _api(lab: Server) -> httpx.Client:
    headers = {"Authorization": f"token {lab.token}"}
    return httpx.Client(base_url=lab.base_url, headers=headers, timeout=60)


def running(lab: Server) -> Running:
    """The sessions and kernels the server has now."""
    with _api(lab) as api:
        sessions = api.get("/api/sessions").raise_for_status().json()
        kernels = api.get("/api/kernels").raise_for_status().json()
    return Running(
        tuple(s["id"] for s in sessions),
        tuple(k["id"] for k in kernels),
        frozenset(s["path"] for s in sessions),
        {s["kernel"]["id"]: s["id"] for s in sessions if s.get("kernel")},
    )


def shutdown_kernels(lab: Server, ending: Running | None = None) -> None:
    """End the sessions and kernels of `ending` (every one the server has, unless told):
    each test starts on one fresh kernel.

    Sessions go first: a session left pointing at a stopped kernel makes Lab ask which
    kernel to start when its notebook opens again. A kernel already gone with its
    session (404) is ended.
    """
    ending = ending or running(lab)
    with _api(lab) as api:
        for session in ending.sessions:
            api.delete(f"/api/sessions/{session}").raise_for_status()
        for kernel in ending.kernels:
            answer = api.delete(f"/api/kernels/{kernel}")
            if answer.status_code != 404:
                answer.raise_for_status()


#: Resolves after the browser has drawn two frames: a scroll's effects (Lab drawing the
#: cells it brings into view) are on screen, without a fixed sleep.
_TWO_FRAMES_JS = """() => new Promise(done =>
  requestAnimationFrame(() => requestAnimationFrame(() => done(null))))"""


def drawn(page: Page) -> None:
    """Wait until the browser has drawn what the last scroll or click changed."""
    page.evaluate(_TWO_FRAMES_JS)


def screenshot_at(page: Page, target: Any, name: str) -> Path:
    """A screenshot of the window with `target` (say, a panel's answer) scrolled into view."""
    target.scroll_into_view_if_needed()
    drawn(page)
    return screenshot(page, name)


def move_session(lab: Server, session: str, name: str) -> None:
    """Point `session` (and its kernel) at the notebook `name`: Lab opening `name` then
    attaches to that kernel."""
    with _api(lab) as api:
        api.patch(f"/api/sessions/{session}", json={"path": name, "name": name}).raise_for_status()


def start_session(lab: Server, name: str, kernel: str = "python3") -> None:
    """Start the notebook's kernel on the server first: Lab then attaches to it on opening,
    instead of deciding (or asking) which kernel to start, which can end in "No Kernel"."""
    headers = {"Authorization": f"token {lab.token}"}
    session = {"path": name, "name": name, "type": "notebook", "kernel": {"name": kernel}}
    with httpx.Client(base_url=lab.base_url, headers=headers, timeout=60) as api:
        api.post("/api/sessions", json=session).raise_for_status()


#: JupyterLab's application object, which the tests' Lab exposes
#: (``--LabApp.expose_app_in_browser``): a loaded Lab opens the next notebook in place.
_APP_READY_JS = """() => Boolean(window.jupyterapp)
  && document.querySelector('.jp-Dialog') === null
  && document.querySelector('.lm-Menu') === null"""
#: Save every open document (what Lab's autosave would do), then close every tab: no
#: "save your work?" question, and no widget of the last notebook left in the page.
_CLOSE_ALL_JS = """async () => {
  await window.jupyterapp.commands.execute('docmanager:save-all');
  await window.jupyterapp.commands.execute('application:close-all');
}"""
#: What the kernel of the notebook in front runs (silently, no prompt counted) before it
#: serves the next notebook: its widgets closed (Lab would otherwise load them into the next
#: notebook), its names cleared, its prompts counted from [1] again. Its imports stay.
_CLEAR_KERNEL_CODE = (
    "import ipywidgets as _widgets\n"
    "_widgets.Widget.close_all()\n"
    "get_ipython().reset(new_session=True)  # a new history session: prompts from [1]\n"
)
#: Clear the kernel of the notebook in front when it is idle (see `_CLEAR_KERNEL_CODE`) and
#: give its id; null when it is busy or does not answer in 10 s. A notebook shown on no
#: kernel gives the one kept cleared while it was open (`_SPARE_KERNEL_JS`), if any.
_CLEAR_KERNEL_JS = """async code => {
  const spare = window.pixopsSpareKernel || null;
  window.pixopsSpareKernel = null;
  const widget = window.jupyterapp.shell.currentWidget;
  const kernel = widget && widget.sessionContext && widget.sessionContext.session
    && widget.sessionContext.session.kernel;
  if (!kernel) return spare;
  if (kernel.status !== 'idle') return null;
  const future = kernel.requestExecute({code, silent: true, store_history: false});
  const reply = await Promise.race([
    future.done, new Promise(done => setTimeout(() => done(null), 10000))]);
  return reply && reply.content.status === 'ok' ? kernel.id : null;
}"""
#: Keep a cleared kernel's id in the page while a notebook is shown on no kernel.
_SPARE_KERNEL_JS = "id => { window.pixopsSpareKernel = id; }"
#: Open `path` (with `kernel` false, on no kernel: Lab's "No Kernel", none started), wait
#: until its cells are in the page, then close the Launcher Lab shows in an empty main area.
_OPEN_JS = """async ([path, kernel]) => {
  const app = window.jupyterapp;
  const kernelPreference = kernel ? undefined : {shouldStart: false, autoStartDefault: false};
  const widget = await app.commands.execute('docmanager:open', {path, kernelPreference});
  await widget.context.ready;
  await widget.revealed;
  for (const each of Array.from(app.shell.widgets('main'))) {
    if (each.id.startsWith('launcher')) each.close();
  }
}"""
#: The left sidebar's file browser tab (current when the file browser is open).
_FILE_BROWSER_TAB = ".jp-SideBar.jp-mod-left .lm-TabBar-tab[data-id='filebrowser']"


def open_notebook(page: Page, lab: Server, name: str, *, kernel: bool = True) -> None:
    """Open `name` alone in JupyterLab on an idle kernel with nothing defined (with `kernel`
    false, on no kernel: its stored outputs, none started), at 1280 px with the file
    browser open, as a freshly loaded Lab shows it.

    A page that already shows Lab closes its tabs and opens `name` in place (loading
    Lab's scripts again took most of a test's first ten seconds); any other page, or one
    with a dialog or menu left open, loads Lab anew (`reset` forgets earlier tabs).

    In place, the kernel of the notebook in front serves the next one, cleared
    (`_CLEAR_KERNEL_CODE`): a new kernel's start, ~2-3 s of CPU (its imports: ipykernel,
    pixops' client and engine, pandas), is paid once per module, not once per notebook.
    nbval runs every notebook on a fresh kernel. A failed test's page is closed, so the
    next test starts a new kernel.
    """
    in_place = page.url.startswith(lab.base_url) and bool(page.evaluate(_APP_READY_JS))
    reused: str | None = None
    if in_place:
        reused = page.evaluate(_CLEAR_KERNEL_JS, _CLEAR_KERNEL_CODE)
        page.evaluate(_CLOSE_ALL_JS)
        expect(page.locator(".jp-NotebookPanel")).to_have_count(0)
    # The earlier kernels end while this one starts and Lab opens the notebook (ending
    # one takes seconds); the new session is never among them (the server would hand
    # back a session of the same notebook, so that one ends first).
    earlier = running(lab)
    kept: str | None = None
    if reused is not None:
        earlier, kept = earlier.without_kernel(reused)
    if kernel and kept is None and name in earlier.paths:
        shutdown_kernels(lab, earlier)
        earlier = Running((), ())
    with ThreadPoolExecutor(max_workers=1) as pool:
        ended = pool.submit(shutdown_kernels, lab, earlier)
        if kernel and kept is not None:
            move_session(lab, kept, name)
        elif kernel:
            start_session(lab, name)
        if not in_place and not kernel:
            # Lab loaded on no notebook (the URL of one would start its kernel), then the
            # notebook opened in place with no kernel.
            page.goto(f"{lab.base_url}/lab?reset&token={lab.token}")
            page.wait_for_function(_APP_READY_JS)
            in_place = True
        if in_place:
            page.set_viewport_size({"width": 1280, "height": 1000})
            _open_file_browser(page)
            page.evaluate(_OPEN_JS, [name, kernel])
        else:
            page.goto(f"{lab.base_url}/lab/tree/{name}?reset&token={lab.token}")
        kernel_name = page.locator(f"{CURRENT} .jp-Toolbar-kernelName")
        if kernel:
            expect(page.locator(f"{_IDLE}, .jp-Dialog").first).to_be_visible(timeout=90_000)
            dismiss_kernel_dialog(page)
            expect(page.locator(_IDLE)).to_be_visible(timeout=90_000)
            expect(kernel_name).not_to_have_text("No Kernel", timeout=90_000)
        else:
            expect(kernel_name).to_have_text("No Kernel")
        ended.result()
    if not kernel:
        assert name not in running(lab).paths, f"{name} started a kernel"
        if kept is not None:  # the cleared kernel waits for the next notebook
            page.evaluate(_SPARE_KERNEL_JS, reused)


def dismiss_kernel_dialog(page: Page) -> None:
    """Accept JupyterLab's "Select Kernel" question (the notebook's own kernel is preselected).

    Lab asks it when the kernel list arrives after the notebook; any other dialog is a
    failure worth reading, so its text is raised.
    """
    dialog = page.locator(".jp-Dialog")
    if dialog.count() == 0:
        return
    text = dialog.first.inner_text()
    if "Select Kernel" not in text:
        raise AssertionError(f"JupyterLab shows a dialog: {text}")
    dialog.first.locator(".jp-Dialog-button.jp-mod-accept").click()
    expect(dialog).to_have_count(0)


def code_prompts(page: Page) -> list[str]:
    """The execution prompts (`[ ]:`, `[*]:`, `[3]:`) of every code cell, in order."""
    prompts: list[str] = page.evaluate(
        f"Array.from(document.querySelectorAll('{CURRENT} .jp-CodeCell .jp-InputPrompt'))"
        ".map(e => e.textContent.trim())"
    )
    return prompts


def run_all_cells(page: Page, *, timeout_seconds: float = 420.0) -> None:
    """Run → Run All Cells, then wait until every code cell has run and the kernel is idle.

    On a loaded machine Lab can drop requests sent while the kernel is still settling:
    when nothing is queued after a few seconds, or the kernel sits idle with cells never
    run, the run resumes from the first cell that has not run (never re-running one that
    has, so no side effect happens twice).
    """
    deadline = time.monotonic() + timeout_seconds
    _menu(page, "Run All Cells")
    resumes = 0
    last_prompts: list[str] = []
    unchanged_since = time.monotonic()
    while time.monotonic() < deadline:
        dismiss_kernel_dialog(page)
        prompts = code_prompts(page)
        idle = page.locator(_IDLE).count() > 0
        failures = error_outputs(page) if idle else []
        if failures:
            raise AssertionError(f"a cell failed: {failures[0][-1500:]}")
        if idle and prompts and all(_PROMPT_DONE.match(prompt) for prompt in prompts):
            return
        if prompts != last_prompts:
            last_prompts, unchanged_since = prompts, time.monotonic()
        stalled = time.monotonic() - unchanged_since > 10.0
        if idle and stalled and "[*]:" not in prompts and resumes < 3:
            _resume_from(page, prompts.index("[ ]:"))
            resumes += 1
            unchanged_since = time.monotonic()
        _until_changed(page, _run_state(page))
    raise AssertionError(
        f"the notebook did not finish in {timeout_seconds:.0f} s: {code_prompts(page)}"
    )


#: What `run_all_cells` watches: every code cell's prompt, whether the kernel is idle and
#: whether a dialog is open, as one string.
_RUN_STATE_JS = f"""() => [
  ...Array.from(document.querySelectorAll('{CURRENT} .jp-CodeCell .jp-InputPrompt'))
    .map(e => e.textContent.trim()),
  document.querySelector("{_IDLE}") ? 'idle' : 'busy',
  document.querySelector('.jp-Dialog') ? 'dialog' : '',
].join('|')"""
_CHANGED_JS = f"before => ({_RUN_STATE_JS})() !== before"


def _run_state(page: Page) -> str:
    state: str = page.evaluate(_RUN_STATE_JS)
    return state


def _until_changed(page: Page, before: str, *, at_most_ms: float = 2000) -> None:
    """Return as soon as a prompt, the kernel's state or a dialog changes (the page checks
    every 100 ms), or after `at_most_ms` (the caller's stall and deadline checks run)."""
    try:
        page.wait_for_function(_CHANGED_JS, arg=before, polling=100, timeout=at_most_ms)
    except PlaywrightTimeoutError:
        return


def show_tab(page: Page, panel: Any, name: str) -> None:
    """Click the widget tab `name` in `panel`, then wait until it is the selected tab and
    the browser has drawn its page (instead of a fixed 300 ms)."""
    tab = panel.get_by_role("tab", name=name)
    tab.click()
    expect(tab).to_have_attribute("aria-selected", "true")
    drawn(page)


def _menu(page: Page, item: str) -> None:
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.get_by_role("menuitem", name=item, exact=True).click()


def _resume_from(page: Page, index: int) -> None:
    """Select the `index`-th code cell and run it and every cell below it."""
    cell = page.locator(f"{CURRENT} .jp-CodeCell").nth(index)
    cell.scroll_into_view_if_needed()
    cell.locator(".jp-InputPrompt").click()
    _menu(page, "Run Selected Cell and All Below")


def error_outputs(page: Page) -> list[str]:
    """The text of every output that shows an exception (warnings on stderr do not count)."""
    texts: list[str] = page.evaluate(
        "Array.from(document.querySelectorAll("
        f"'{CURRENT} .jp-OutputArea-output[data-mime-type=\"application/vnd.jupyter.stderr\"]'))"
        ".map(e => e.textContent)"
    )
    return [text for text in texts if _TRACEBACK.search(text)]


#: Tables in outputs that run past the right edge of their cell (which clips them) with
#: no sideways scroll in between: what a reader would see cut off.
_CLIPPED_TABLES_JS = """() => {
  const clipped = [];
  for (const table of document.querySelectorAll('.jp-OutputArea-output table')) {
    const area = table.closest('.jp-Cell');
    const right = table.getBoundingClientRect().right;
    if (right <= area.getBoundingClientRect().right + 1) continue;
    let scrolls = false;
    for (let e = table.parentElement; e && e !== area; e = e.parentElement) {
      const overflow = getComputedStyle(e).overflowX;
      if ((overflow === 'auto' || overflow === 'scroll') && e.scrollWidth > e.clientWidth) {
        scrolls = e.getBoundingClientRect().right <= area.getBoundingClientRect().right + 1;
        break;
      }
    }
    if (!scrolls) clipped.push(table.innerText.slice(0, 80));
  }
  return clipped;
}"""


_SCROLLING_TABLES_JS = """panel => {
  const found = [];
  for (const table of panel.querySelectorAll('table')) {
    for (let e = table.parentElement; e && e !== panel; e = e.parentElement) {
      if (e.scrollWidth > e.clientWidth + 1) {
        found.push(table.innerText.slice(0, 80));
        break;
      }
    }
  }
  return found;
}"""


#: Cells of a table that take more than one line for a text that should never break (an
#: amount, a case id): each a line box of its own, counted with a Range. A row of one
#: cell spanning the columns is not one of the column's cells.
_BROKEN_CELLS_JS = """(table, column) => {
  const broken = [];
  for (const row of table.tBodies[0].rows) {
    // A row of one cell across the columns (a MED case's id under its row) has none.
    if (row.cells.length === 1 && row.cells[0].colSpan > 1) continue;
    const cell = row.cells[column < 0 ? row.cells.length + column : column];
    const range = document.createRange();
    range.selectNodeContents(cell);
    const tops = new Set(Array.from(range.getClientRects()).map(r => Math.round(r.top)));
    if (tops.size > 1) broken.push(`${cell.innerText.replace(/\\s+/g, ' ')} (${tops.size} lines)`);
  }
  return broken;
}"""


def broken_cells(table: Any, column: int) -> list[str]:
    """The cells of `column` (from the end when negative) whose text runs over more than
    one line (empty when none)."""
    found: list[str] = table.evaluate(_BROKEN_CELLS_JS, column)
    return found


def scrolling_tables(panel: Any) -> list[str]:
    """The start of every table in `panel` wider than its box (it scrolls or is cut off)."""
    found: list[str] = panel.evaluate(_SCROLLING_TABLES_JS)
    return found


#: Every control (a text box, a dropdown, a button) whose right edge runs past the right
#: edge of `panel`: at a phone's width its end (a dropdown's arrow) is cut off.
_CONTROLS_PAST_EDGE_JS = """panel => {
  const edge = panel.getBoundingClientRect().right;
  return [...panel.querySelectorAll('select, input, button, textarea')]
    .filter(e => e.offsetParent !== null && e.getBoundingClientRect().right > edge + 0.5)
    .map(e => `${e.tagName.toLowerCase()} ${(e.value || e.textContent || '').slice(0, 40)}`
      + ` ends at ${Math.round(e.getBoundingClientRect().right)} px, past ${Math.round(edge)}`);
}"""


def controls_past_edge(panel: Any) -> list[str]:
    """Each visible control in `panel` running past its right edge (empty when none)."""
    found: list[str] = panel.evaluate(_CONTROLS_PAST_EDGE_JS)
    return found


def clipped_tables(page: Page) -> list[str]:
    """The start of every output table that is cut off on the right (empty when none)."""
    found: list[str] = page.evaluate(_CLIPPED_TABLES_JS)
    return found


#: Text of a plotly chart (title, axis titles, legend, bar labels) that runs past its
#: figure, which clips it: a plotly title does not wrap.
_CLIPPED_CHART_TEXT_JS = """() => {
  const clipped = [];
  for (const chart of document.querySelectorAll('.js-plotly-plot')) {
    const box = chart.querySelector('.main-svg').getBoundingClientRect();
    for (const text of chart.querySelectorAll('text')) {
      const r = text.getBoundingClientRect();
      if (r.width === 0 || !text.textContent.trim()) continue;
      if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1
          || r.bottom > box.bottom + 1) {
        const at = [r.left, r.top, r.right, r.bottom].map(Math.round).join(',');
        const within = [box.left, box.top, box.right, box.bottom].map(Math.round).join(',');
        clipped.push(`${text.textContent.slice(0, 80)} [${at} outside ${within}]`);
      }
    }
  }
  return clipped;
}"""


def clipped_chart_text(page: Page) -> list[str]:
    """The start of every text of a chart that runs past its figure (empty when none)."""
    found: list[str] = page.evaluate(_CLIPPED_CHART_TEXT_JS)
    return found


#: The amounts under a chart's x axis drawn smaller than `min_px` (a label of the
#: roll-forward's axis is a step's name and, below it, its amount): text and font size.
_SMALL_AMOUNT_LABELS_JS = """min_px => {
  const small = [];
  for (const text of document.querySelectorAll('.js-plotly-plot .xtick text')) {
    if (!text.textContent.includes('R$')) continue;
    const size = parseFloat(getComputedStyle(text).fontSize);
    if (size < min_px) small.push(`${text.textContent} [${size.toFixed(1)} px]`);
  }
  return small;
}"""


def small_amount_labels(page: Page, min_px: float = 11.0) -> list[str]:
    """Every amount under a chart's x axis drawn less than `min_px` high (empty when none)."""
    found: list[str] = page.evaluate(_SMALL_AMOUNT_LABELS_JS, min_px)
    return found


def amount_labels(page: Page) -> int:
    """How many labels under the charts' x axes carry an amount (``R$``)."""
    count: int = page.evaluate(
        "[...document.querySelectorAll('.js-plotly-plot .xtick text')]"
        ".filter(text => text.textContent.includes('R$')).length"
    )
    return count


def widget_button(page: Page, label: str) -> Any:
    """The first ipywidgets button whose label is exactly `label`."""
    return (
        page.locator(".widget-button")
        .filter(has_text=re.compile(rf"^\s*{re.escape(label)}\s*$"))
        .first
    )


_SCROLLER = f"{CURRENT} .jp-WindowedPanel-outer"


#: ``PIXOPS_SCREENSHOTS=all`` also saves every screenful of each notebook the tests run
#: (`screenshot_notebook`): ~50 more PNGs, ~15 s more CPU of Chromium encoding them.
SCREENSHOTS_VARIABLE = "PIXOPS_SCREENSHOTS"


def screenshot_notebook(
    page: Page, name: str, *, max_parts: int = 8, capture: bool | None = None
) -> list[Path]:
    """Scroll the open notebook top to bottom, a screenful at a time, each drawn (Lab
    draws a cell's outputs as they come into view); with `capture` (unless told: when
    ``PIXOPS_SCREENSHOTS=all``) save each screenful and return their paths."""
    if capture is None:
        capture = os.environ.get(SCREENSHOTS_VARIABLE) == "all"
    scroller = page.locator(_SCROLLER).first
    paths: list[Path] = []
    scroller.evaluate("node => { node.scrollTop = 0; }")
    for part in range(1, max_parts + 1):
        drawn(page)
        if capture:
            paths.append(screenshot(page, f"{name}-{part}"))
        moved: bool = scroller.evaluate(
            "node => { const before = node.scrollTop;"
            " node.scrollTop = before + node.clientHeight - 40;"
            " return node.scrollTop > before; }"
        )
        if not moved:
            break
    return paths


#: Widgets (inputs, pickers, buttons, labels) of an output whose right edge runs past the
#: output's: Lab clips them, so a date, a filter or a button is cut off.
_CUT_WIDGETS_JS = """() => {
  const cut = [];
  for (const area of document.querySelectorAll('.jp-OutputArea-output')) {
    const edge = area.getBoundingClientRect().right;
    for (const el of area.querySelectorAll('.jupyter-widgets:not(.widget-box)')) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.right > edge + 4) {
        cut.push(`${(el.innerText || '').trim().slice(0, 40)} [right ${Math.round(r.right)}`
          + ` > ${Math.round(edge)}]`);
      }
    }
  }
  return cut;
}"""


def cut_widgets(page: Page) -> list[str]:
    """Every widget that runs past the right edge of its output (empty when none)."""
    found: list[str] = page.evaluate(_CUT_WIDGETS_JS)
    return found


#: The narrowest window of the browser audit: a laptop's half screen, or 800 px, with
#: JupyterLab's file browser open beside the notebook (about 450 px for the outputs).
NARROWEST = 800


def narrow_with_file_browser(page: Page, width: int = 1024) -> None:
    """A `width` px window (1024 unless told) with JupyterLab's file browser open beside
    the notebook."""
    page.set_viewport_size({"width": width, "height": 900})
    _open_file_browser(page)
    page.wait_for_timeout(500)  # the notebook settles at its narrower width


def _open_file_browser(page: Page) -> None:
    """Show the file browser in the left sidebar (a click on its tab when it is not)."""
    tab = page.locator(_FILE_BROWSER_TAB).first
    if "lm-mod-current" not in (tab.get_attribute("class") or ""):
        tab.click()
    expect(page.locator(".jp-FileBrowser").first).to_be_visible()


#: A chart's title and legend whose boxes cross (a legend right of the title ran over a
#: narrow figure's title): the title's text for each.
_TITLE_UNDER_LEGEND_JS = """() => {
  const crossed = [];
  for (const chart of document.querySelectorAll('.js-plotly-plot')) {
    const title = chart.querySelector('.gtitle');
    const legend = chart.querySelector('.legend');
    if (!title || !legend) continue;
    const a = title.getBoundingClientRect();
    const b = legend.getBoundingClientRect();
    if (a.right > b.left && b.right > a.left && a.bottom > b.top && b.bottom > a.top) {
      crossed.push(title.textContent.slice(0, 80));
    }
  }
  return crossed;
}"""


def legend_over_title(page: Page) -> list[str]:
    """The title of every chart whose legend crosses it (empty when none)."""
    found: list[str] = page.evaluate(_TITLE_UNDER_LEGEND_JS)
    return found


#: Matches of ``pattern`` in the `<pre>`s under ``selector`` whose text matches ``only``
#: that run over two lines, each measured with a Range: Lab and Voilà break a printed
#: line anywhere when it is too long.
_SPLIT_MATCHES_JS = r"""([selector, only, pattern]) => {
  const split = [];
  for (const pre of document.querySelectorAll(selector)) {
    const text = pre.firstChild;
    if (!text || text.nodeType !== Node.TEXT_NODE) continue;
    if (!new RegExp(only).test(text.textContent)) continue;
    for (const match of text.textContent.matchAll(new RegExp(pattern, "g"))) {
      const range = document.createRange();
      range.setStart(text, match.index);
      range.setEnd(text, match.index + match[0].length);
      const tops = new Set(Array.from(range.getClientRects()).map(r => Math.round(r.top)));
      if (tops.size > 1) split.push(match[0]);
    }
  }
  return split;
}"""
#: The line `pixops.connect()` shows, which says the service ("Using the sandbox: ...").
_CONNECTION_LINE = r"^Using the (sandbox|PIX service)"


def _split_matches(page: Page, selector: str, only: str, pattern: str) -> list[str]:
    found: list[str] = page.evaluate(_SPLIT_MATCHES_JS, [selector, only, pattern])
    return found


def split_printed_values(page: Page) -> list[str]:
    """Every date, time or amount of printed output that runs over two lines."""
    values = r"\d\d/\d\d/\d{4}|\d\d:\d\d|-?R\$\s[\d.]+,\d\d"
    return _split_matches(page, ".jp-OutputArea-output pre", "", values)


def split_connection_words(page: Page) -> list[str]:
    """Every word of the connection line that runs over two lines (none when it is not
    shown): it is text of its own, which wraps between words."""
    return _split_matches(page, "pre", _CONNECTION_LINE, r"\S+")


def connection_lines(page: Page) -> int:
    """How many connection lines the page shows (so a check of their words checks something)."""
    count: int = page.evaluate(
        "only => [...document.querySelectorAll('pre')]"
        ".filter(e => new RegExp(only).test(e.textContent)).length",
        _CONNECTION_LINE,
    )
    return count
