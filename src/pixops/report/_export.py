"""An executed notebook as one self-contained HTML page: no code, no network."""

from __future__ import annotations

import copy
from typing import Any

from pixops._cells import shared_cells
from pixops.report._assets import TEMPLATE_NAME, TEMPLATES_DIR, widget_renderer_data_url
from pixops.report._errors import ReportError
from pixops.report._offline import (
    remote_references,
    strip_remote_scripts,
    strip_remote_scripts_in,
)

_WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
_PLOTLY_JSON = "application/vnd.plotly.v1+json"
#: What plotly's notebook renderer writes once with plotly.js inlined.
_PLOTLY_JS_MARK = "window.PlotlyConfig"


def export_html(notebook: Any, *, title: str) -> str:
    """The page of an executed `nbformat` notebook: outputs and prose, inputs hidden, and
    cells tagged `NOTEBOOK_ONLY_TAG` left out.

    Charts keep the plotly.js their cells inlined, widgets are drawn by the renderer that
    ships with pixops, and a page that would still fetch anything from the web is refused.
    """
    from nbconvert import HTMLExporter

    if not isinstance(title, str) or not title.strip():
        raise ReportError("a report needs a non-empty title")
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        raise ReportError(
            f"export_html takes an executed notebook (nbformat), not {type(notebook).__name__}"
        )
    offline = _without_remote_scripts(notebook)
    # The page's title is the one given: the lab template prefers the notebook's own
    # (`metadata.title`, "Daily reconciliation"), which names no day.
    offline.metadata["title"] = title.strip()
    exporter = HTMLExporter(  # type: ignore[no-untyped-call]
        template_name=TEMPLATE_NAME,
        extra_template_basedirs=[str(TEMPLATES_DIR)],
        exclude_input=True,
        exclude_input_prompt=True,
        exclude_output_prompt=True,
    )
    resources = {
        "metadata": {"name": title.strip()},
        "pixops_widget_renderer_url": widget_renderer_data_url(),
    }
    page, _ = exporter.from_notebook_node(offline, resources=resources)
    remote = remote_references(page)
    if remote:
        raise ReportError(f"the report would load from the web: {remote[:3]}")
    text: str = page
    return text


def _without_remote_scripts(notebook: Any) -> Any:
    """A copy of `notebook` without its notebook-only cells, whose HTML outputs and widget
    state load nothing remote."""
    cleaned = copy.deepcopy(notebook)
    cleaned.cells = shared_cells(cleaned.cells)
    for cell in cleaned.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if isinstance(data.get("text/html"), str):
                data["text/html"] = strip_remote_scripts(data["text/html"])
    widgets = cleaned.metadata.get("widgets", {})
    if _WIDGET_STATE in widgets:
        state = strip_remote_scripts_in(widgets[_WIDGET_STATE])
        if _draw_widget_charts(state) and not _has_plotly_js(cleaned):
            _add_plotly_js(cleaned)
        widgets[_WIDGET_STATE] = state
    return cleaned


def _draw_widget_charts(state: Any) -> int:
    """Give every plotly figure inside an `Output` widget an HTML form the page can draw.

    The widget renderer has no plotly renderer: a figure stored only as plotly's JSON
    would show as its text fallback. Returns how many figures were given HTML.
    """
    import plotly.io

    drawn = 0
    for model in state.get("state", {}).values():
        if model.get("model_name") != "OutputModel":
            continue
        for output in model.get("state", {}).get("outputs", []):
            data = output.get("data", {})
            if _PLOTLY_JSON in data and "text/html" not in data:
                data["text/html"] = plotly.io.to_html(
                    data[_PLOTLY_JSON],
                    include_plotlyjs=False,
                    full_html=False,
                    validate=False,
                    default_width="100%",
                )
                drawn += 1
    return drawn


def _has_plotly_js(notebook: Any) -> bool:
    return any(
        _PLOTLY_JS_MARK in output.get("data", {}).get("text/html", "")
        for cell in notebook.cells
        for output in cell.get("outputs", [])
    )


def _add_plotly_js(notebook: Any) -> None:
    """Put plotly.js (inline, no CDN) in the page once, before any output that needs it."""
    import nbformat
    from plotly.offline import get_plotlyjs

    script = "<script>window.PlotlyConfig = {MathJaxConfig: 'local'};</script>"
    script += f"<script>{get_plotlyjs()}</script>"
    carrier = nbformat.v4.new_code_cell(source="")  # type: ignore[no-untyped-call]
    shown = nbformat.v4.new_output("display_data", data={"text/html": script})  # type: ignore[no-untyped-call]
    carrier.outputs = [shown]
    notebook.cells.insert(0, carrier)
