"""An executed notebook as one self-contained HTML page: no code, no network."""

from __future__ import annotations

import copy
from typing import Any

from pixops.report._assets import TEMPLATE_NAME, TEMPLATES_DIR, widget_renderer_data_url
from pixops.report._errors import ReportError
from pixops.report._offline import (
    remote_references,
    strip_remote_scripts,
    strip_remote_scripts_in,
)

_WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def export_html(notebook: Any, *, title: str) -> str:
    """The page of an executed `nbformat` notebook: outputs and prose, inputs hidden.

    Charts keep the plotly.js their cells inlined, widgets are drawn by the renderer that
    ships with pixops, and a page that would still fetch anything from the web is refused.
    """
    from nbconvert import HTMLExporter

    if not isinstance(title, str) or not title.strip():
        raise ReportError("a report needs a non-empty title")
    offline = _without_remote_scripts(notebook)
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
    """A copy of `notebook` whose HTML outputs and widget state load nothing remote."""
    cleaned = copy.deepcopy(notebook)
    for cell in cleaned.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if isinstance(data.get("text/html"), str):
                data["text/html"] = strip_remote_scripts(data["text/html"])
    widgets = cleaned.metadata.get("widgets", {})
    if _WIDGET_STATE in widgets:
        widgets[_WIDGET_STATE] = strip_remote_scripts_in(widgets[_WIDGET_STATE])
    return cleaned
