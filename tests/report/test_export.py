"""Export alone, no kernel: charts kept only as plotly JSON inside widgets become drawable."""

from __future__ import annotations

import json
import re

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook, new_output

from pixops.report import ReportError, export_html, remote_references

_FIGURE = {"data": [{"type": "bar", "x": ["a", "b"], "y": [1, 2]}], "layout": {}}


def _notebook_with_widget_chart() -> nbformat.NotebookNode:
    view = {"version_major": 2, "version_minor": 0, "model_id": "out1"}
    cell = new_code_cell(
        "dashboard",
        outputs=[
            new_output(
                "display_data",
                data={"application/vnd.jupyter.widget-view+json": view, "text/plain": "Out"},
            )
        ],
    )
    output_model = {
        "model_module": "@jupyter-widgets/output",
        "model_module_version": "1.0.0",
        "model_name": "OutputModel",
        "state": {
            "outputs": [
                {
                    "output_type": "display_data",
                    "metadata": {},
                    "data": {
                        "application/vnd.plotly.v1+json": _FIGURE,
                        "text/plain": "[chart: volumes]",
                    },
                }
            ]
        },
    }
    state = {"version_major": 2, "version_minor": 0, "state": {"out1": output_model}}
    return new_notebook(
        cells=[cell],
        metadata={"widgets": {"application/vnd.jupyter.widget-state+json": state}},
    )


def _widget_state(page: str) -> dict[str, object]:
    found = re.search(
        r'<script type="application/vnd.jupyter.widget-state\+json">(.*?)</script>', page, re.S
    )
    assert found is not None
    state: dict[str, object] = json.loads(found.group(1))
    return state


def test_a_plotly_chart_inside_a_widget_gets_html_and_the_page_gets_plotly_js() -> None:
    page = export_html(_notebook_with_widget_chart(), title="Widget chart")

    state = _widget_state(page)
    outputs = state["state"]["out1"]["state"]["outputs"]  # type: ignore[index]
    html = outputs[0]["data"]["text/html"]
    assert "Plotly.newPlot" in html
    assert "window.PlotlyConfig" in page  # plotly.js inlined once, from the package
    assert remote_references(page) == []


def test_the_source_notebook_is_left_untouched() -> None:
    notebook = _notebook_with_widget_chart()
    before = nbformat.writes(notebook)
    export_html(notebook, title="Widget chart")
    assert nbformat.writes(notebook) == before


@pytest.mark.parametrize("title", ["", "   ", None])
def test_a_title_is_required(title: object) -> None:
    with pytest.raises(ReportError, match="title"):
        export_html(_notebook_with_widget_chart(), title=title)  # type: ignore[arg-type]


@pytest.mark.parametrize("notebook", [None, {}, {"cells": "x"}, ["cells"]])
def test_what_is_no_notebook_is_a_report_error(notebook: object) -> None:
    with pytest.raises(ReportError, match="takes an executed notebook"):
        export_html(notebook, title="Daily")


def test_notebook_only_cells_are_left_out_of_the_page() -> None:
    from nbformat.v4 import new_markdown_cell

    from pixops.report import NOTEBOOK_ONLY_TAG

    kept = new_markdown_cell("The day's summary.")
    live = new_markdown_cell("Choose other days below.")
    live.metadata["tags"] = [NOTEBOOK_ONLY_TAG]
    printed = new_code_cell(
        "print('x')",
        outputs=[new_output("stream", name="stdout", text="live controls here\n")],
    )
    printed.metadata["tags"] = [NOTEBOOK_ONLY_TAG, "other"]
    notebook = new_notebook(cells=[kept, live, printed])
    page = export_html(notebook, title="Daily")
    assert "The day&#39;s summary." in page or "The day's summary." in page
    assert "Choose other days" not in page
    assert "live controls here" not in page
    assert len(notebook.cells) == 3  # the notebook itself is untouched


def test_the_page_title_is_the_one_given_not_the_notebook_s() -> None:
    """A browser tab (and a list of saved reports) tells the days apart: the daily
    notebook's own title, "Daily reconciliation", named none."""
    notebook = _notebook_with_widget_chart()
    notebook.metadata["title"] = "Daily reconciliation"
    page = export_html(notebook, title="Reconciliation 15/01/2026 (São Paulo time)")
    assert "<title>Reconciliation 15/01/2026 (São Paulo time)</title>" in page
    assert "<title>Daily reconciliation</title>" not in page
    assert notebook.metadata["title"] == "Daily reconciliation"  # the notebook is untouched
