"""Small notebooks written on the fly: a `parameters` cell, a plotly chart, a widget."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

_KERNEL = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}

_CHART = """\
import plotly.graph_objects as go
go.Figure(go.Bar(x=["pix", "ted"], y=[count, 2]), layout={"title": f"Volumes {business_date}"})"""

_WIDGET = """\
import ipywidgets as w
from pixops.money import format_brl_base
panel_output = w.Output()
panel_output.append_display_data(go.Figure(go.Scatter(x=[1, 2, 3], y=[3, 1, 2])))
SECRET_SOURCE_MARKER = 1
total = w.HTML(f"<b>Total {format_brl_base(12_345_600)}</b>")
w.VBox([total, w.Button(description="Export"), panel_output])"""

#: The report notebook's code cells and its `parameters` cell.
REPORT_CELLS = (_CHART, _WIDGET)
REPORT_PARAMETERS = 'business_date = "2026-01-01"\ncount = 3'


def write_notebook(path: Path, *code: str, parameters: str | None = None) -> Path:
    cells = [new_markdown_cell("# Report under test")]
    if parameters is not None:
        cells.append(new_code_cell(parameters, metadata={"tags": ["parameters"]}))
    cells.extend(new_code_cell(source) for source in code)
    nbformat.write(new_notebook(cells=cells, metadata=_KERNEL), path)
    return path


@pytest.fixture
def report_notebook(tmp_path: Path) -> Path:
    """A chart that shows its parameters and a widget holding pt-BR money and a chart."""
    return write_notebook(
        tmp_path / "daily_check.ipynb", *REPORT_CELLS, parameters=REPORT_PARAMETERS
    )
