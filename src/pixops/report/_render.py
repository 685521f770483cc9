"""A notebook, run with parameters, written as an offline HTML report in one step."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

from pixops.report._errors import ReportError
from pixops.report._execute import execute_notebook
from pixops.report._export import export_html
from pixops.report._headline import headline_findings, headline_lines

#: Readable by the team like any file a scheduler writes (mkstemp would leave 0600).
_REPORT_MODE = 0o644


def render_report(
    notebook: str | Path,
    out: str | Path,
    *,
    parameters: Mapping[str, str | int | bool] | None = None,
    title: str | None = None,
    timeout_seconds: int = 300,
    say: Callable[[str], object] | None = None,
    findings: Callable[[int | None], object] | None = None,
) -> Path:
    """Execute `notebook` headless with `parameters` and write its HTML report to `out`.

    The page is written to a temporary file beside `out` and renamed into place, so a
    failed run never leaves a half-written report where a scheduler expects the last one.
    ``say`` is called with each line of the cells tagged `HEADLINE_TAG` once the page
    is written (`pixops report` prints them: a scheduler's log shows no page);
    ``findings`` with the number of findings its headline states (`headline_findings`).
    """
    if say is not None and not callable(say):
        raise ReportError(f"say must be a function of one line of text, not {say!r}")
    notebook_path = _path(notebook, "notebook")
    if notebook_path.suffix.lower() != ".ipynb":
        raise ReportError(f"a report runs a notebook: give a .ipynb file, not {notebook_path.name}")
    out_path = _path(out, "out")
    if out_path.suffix.lower() not in {".html", ".htm"}:
        raise ReportError(f"the report is HTML: give a .html path, not {out_path.name}")
    try:  # a missing folder is made, as `pixops recon --out` makes its own
        out_path.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise ReportError(f"{out_path} is under a file, not a folder") from None
    executed = execute_notebook(notebook_path, parameters or {}, timeout_seconds=timeout_seconds)
    page = export_html(executed, title=title or _default_title(notebook_path, parameters or {}))
    handle, temporary = tempfile.mkstemp(dir=out_path.parent, suffix=".html.tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(page)
        os.chmod(temporary, _REPORT_MODE)
        os.replace(temporary, out_path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    if say is not None:
        for line in headline_lines(executed):
            say(line)
    if findings is not None:
        findings(headline_findings(executed))
    return out_path


def _path(value: str | Path, name: str) -> Path:
    if isinstance(value, Path):
        return value
    if isinstance(value, str) and value.strip():
        return Path(value)
    raise ReportError(f"{name} must be a path, not {value!r}")


def _default_title(notebook: Path, parameters: Mapping[str, str | int | bool]) -> str:
    """The notebook's name and the values it ran with ("02 statement analysis (month
    2026-02)"): a month's report and the next one's read alike in a browser's tabs."""
    name = notebook.stem.replace("_", " ")
    given = ", ".join(f"{key} {value}" for key, value in parameters.items())
    return f"{name} ({given})" if given else name
