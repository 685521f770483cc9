"""`pixops report` prints the output of the cells tagged `headline`: a scheduler's log
shows no page, so the verdict (and a ledger that pairs with nothing) is in the log too."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from pixops.cli import main
from pixops.report import HEADLINE_TAG, ReportError, headline_lines, render_report
from tests.report.conftest import write_notebook


def _executed(*cells: object) -> object:
    return new_notebook(cells=list(cells))


def test_the_tagged_cells_outputs_become_plain_lines() -> None:
    verdict = new_code_cell(
        "Markdown(heading)",
        metadata={"tags": [HEADLINE_TAG]},
        outputs=[
            new_output("stream", name="stdout", text="Using the sandbox.\n\n"),
            new_output(
                "execute_result",
                data={
                    "text/markdown": "### Business day 15/01/2026: 2 findings to check\n\n"
                    "**None of the 3 ledger entries pairs with `books.csv`.**",
                    "text/plain": "<IPython.core.display.Markdown object>",
                },
                execution_count=2,
            ),
        ],
    )
    untagged = new_code_cell(
        "print('detail')", outputs=[new_output("stream", name="stdout", text="detail\n")]
    )
    prose = new_markdown_cell("### Not an output", metadata={"tags": [HEADLINE_TAG]})
    assert headline_lines(_executed(prose, verdict, untagged)) == [
        "Using the sandbox.",
        "Business day 15/01/2026: 2 findings to check",
        "None of the 3 ledger entries pairs with books.csv.",
    ]


def test_a_notebook_without_the_tag_says_nothing() -> None:
    cell = new_code_cell("1", outputs=[new_output("stream", name="stdout", text="1\n")])
    assert headline_lines(_executed(cell)) == []


def _headline_notebook(path: Path) -> Path:
    notebook = write_notebook(path, parameters="day = 1")
    content = nbformat.read(notebook, as_version=4)
    content.cells.append(
        new_code_cell(
            "from IPython.display import Markdown\nMarkdown(f'### Day {day}: **all clear**')",
            metadata={"tags": [HEADLINE_TAG]},
        )
    )
    nbformat.write(content, notebook)
    return notebook


def test_render_report_says_the_headline_once_the_page_is_written(tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    said: list[str] = []

    def say(line: str) -> None:
        said.append(f"{line} (page written: {out.exists()})")

    render_report(_headline_notebook(tmp_path / "n.ipynb"), out, parameters={"day": 7}, say=say)
    assert said == ["Day 7: all clear (page written: True)"]
    with pytest.raises(ReportError, match="say must be a function"):
        render_report(tmp_path / "n.ipynb", out, say="print")  # type: ignore[arg-type]


def test_pixops_report_prints_the_headline_before_the_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notebook = _headline_notebook(tmp_path / "n.ipynb")
    out = tmp_path / "r.html"
    assert main(["report", "run", str(notebook), "--html", str(out), "-p", "day=3"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed == ["Day 3: all clear", f"report: {out.resolve()}"]
