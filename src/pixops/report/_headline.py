"""What a report says in the terminal: the output of its cells tagged `HEADLINE_TAG`.

A scheduled run's log shows no page. The daily notebook tags the cell of its verdict
("Business day 15/01/2026 (São Paulo time): 10 findings to check", and the sentence
under it when the ledger pairs with nothing), and `pixops report` prints those lines,
as plain text, before the report's path.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["FINDINGS_KEY", "HEADLINE_TAG", "Verdict", "headline_findings", "headline_lines"]

#: The tag of a notebook cell whose output `pixops report` prints in the terminal.
HEADLINE_TAG = "headline"
#: The key of a headline output's metadata holding the run's number of findings.
FINDINGS_KEY = "pixops_findings"


class Verdict:
    """A notebook's verdict: Markdown for people, with its number of findings in the
    output's metadata, from which `pixops report daily` takes its exit status (1 with
    findings, as `pixops recon`), so a scheduler can alert on either."""

    def __init__(self, markdown: str, findings: int) -> None:
        if isinstance(findings, bool) or not isinstance(findings, int) or findings < 0:
            raise TypeError(f"findings must be a count (an int of 0 or more), not {findings!r}")
        self.markdown = str(markdown)
        self.findings = findings

    def _repr_markdown_(self) -> tuple[str, dict[str, int]]:
        return self.markdown, {FINDINGS_KEY: self.findings}

    def __repr__(self) -> str:
        return self.markdown


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


def headline_findings(executed: Any) -> int | None:
    """The number of findings a `Verdict` in a headline cell stated; None when no
    headline cell stated one (a notebook of the merchant's own, say)."""
    found: int | None = None
    for cell in executed.cells:
        if HEADLINE_TAG not in cell.get("metadata", {}).get("tags", []):
            continue
        for output in cell.get("outputs", []):
            for meta in dict(output.get("metadata", {})).values():
                value = meta.get(FINDINGS_KEY) if isinstance(meta, dict) else None
                if isinstance(value, int) and not isinstance(value, bool):
                    found = (found or 0) + value
    return found


def _text_lines(output: Any) -> list[str]:
    if output.get("output_type") == "stream":
        text = output.get("text", "")
    else:
        data = output.get("data", {})
        text = data.get("text/markdown") or data.get("text/plain") or ""
    plain = (_EMPHASIS.sub("", _HEADING_MARK.sub("", line)).strip() for line in text.splitlines())
    return [line for line in plain if line]
