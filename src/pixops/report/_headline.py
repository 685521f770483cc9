"""What a report says in the terminal: the output of its cells tagged `HEADLINE_TAG`.

A scheduled run's log shows no page. The daily notebook tags the cell of its verdict
("Business day 15/01/2026 (São Paulo time): 10 findings to check", and the sentence
under it when the ledger pairs with nothing), and `pixops report` prints those lines,
as plain text, before the report's path.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["HEADLINE_TAG", "headline_lines"]

#: The tag of a notebook cell whose output `pixops report` prints in the terminal.
HEADLINE_TAG = "headline"

_HEADING_MARK = re.compile(r"^\s{0,3}#{1,6}\s+")
_EMPHASIS = re.compile(r"(\*\*|__|\*|`)")


def headline_lines(executed: Any) -> list[str]:
    """The lines of text that the executed notebook's cells tagged `HEADLINE_TAG` show,
    Markdown marks (``###``, ``**``) taken off, blank lines left out."""
    lines: list[str] = []
    for cell in executed.cells:
        if HEADLINE_TAG in cell.get("metadata", {}).get("tags", []):
            for output in cell.get("outputs", []):  # a Markdown cell has none
                lines.extend(_text_lines(output))
    return lines


def _text_lines(output: Any) -> list[str]:
    if output.get("output_type") == "stream":
        text = output.get("text", "")
    else:
        data = output.get("data", {})
        text = data.get("text/markdown") or data.get("text/plain") or ""
    plain = (_EMPHASIS.sub("", _HEADING_MARK.sub("", line)).strip() for line in text.splitlines())
    return [line for line in plain if line]
