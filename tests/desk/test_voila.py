"""The desk's Voilà: the notebook's cells for notebook readers are left out."""

from __future__ import annotations

import re

import nbformat

from pixops.desk import default_notebooks_dir, find_investigation_notebook
from pixops.desk._voila import without_notebook_only


def test_the_desk_leaves_out_the_cells_for_notebook_readers() -> None:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_markdown_cell("# Support"),
        nbformat.v4.new_markdown_cell("Where this runs", metadata={"tags": ["notebook-only"]}),
        nbformat.v4.new_code_cell("panel"),
        nbformat.v4.new_code_cell("panel.inspect('demo')", metadata={"tags": ["notebook-only"]}),
    ]
    kept = without_notebook_only(None, notebook, ".")
    assert [cell.source for cell in kept.cells] == ["# Support", "panel"]


def test_the_desk_notebook_tags_its_example_and_connection_notes() -> None:
    notebook = nbformat.read(find_investigation_notebook(default_notebooks_dir()), as_version=4)
    shown = without_notebook_only(None, notebook, ".").cells
    text = "\n".join(cell.source for cell in shown)
    assert "TransactionInspector(client)" in text
    assert "PIXOPS_BASE_URL" not in text
    assert ".inspect(" not in text
    assert re.search(r"med_\w", text) is None  # no demo case id; "med_…" names the form
