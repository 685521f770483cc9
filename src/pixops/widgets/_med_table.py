"""The MED panel's table of cases, made to read at 800 px beside JupyterLab's file browser.

There the panel is about 360 px wide. Five columns with the 28-character case id broke
the id a letter a line (rows a dozen lines tall) and still scrolled sideways, and a short
form ("syn68…") could not be copied; so three columns (where a case stands with its date
below it, the amount, the reason) and under them, across the row, the whole case id,
which one click selects. Words wrap at word boundaries only; an amount, a date, a time
and an id never break.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from pixops.widgets._format import brl, label, local_time

__all__ = ["CASE_HEADERS", "CaseRow", "cases_table"]


@dataclass(frozen=True)
class CaseRow:
    """A case as the table shows it: where it stands in words (`state`), and `when`,
    its deadline or (`decided`) the time of its decision."""

    id: str
    amount: int
    reason: str | None
    state: str
    when: datetime | None
    decided: bool


CASE_HEADERS: Final = ("Status", "Disputed", "Reason")
_CELL: Final = "padding:3px 5px;vertical-align:top"
#: Prose wraps between words, never inside one (no letter-a-line column).
_WORDS: Final = "white-space:normal;overflow-wrap:normal;word-break:normal"
_NO_BREAK: Final = "white-space:nowrap"
_DATE_STYLE: Final = "color:#555;font-size:12px"
#: The case id's line: whole, on one line, selected whole by one click, the row's end.
_ID_STYLE: Final = (
    "padding:0 5px 5px;white-space:nowrap;font-size:12px;color:#555;border-bottom:1px solid #e0e0e0"
)


def cases_table(rows: Sequence[CaseRow], *, empty: str) -> str:
    """The cases as an HTML table, one `CaseRow` each."""
    if not rows:
        return f"<p><i>{html.escape(empty)}</i></p>"
    head = "".join(
        f'<th style="{_CELL};text-align:{"right" if title == "Disputed" else "left"}">{title}</th>'
        for title in CASE_HEADERS
    )
    body = "".join(_row(row) for row in rows)
    return (
        # `width:0; min-width:100%`: the table adds no width to the boxes around it, yet
        # fills them (and would scroll rather than be cut, were it ever wider).
        # The classes keep JupyterLab's math typesetting off: "R$ 1 ... R$ 2" is no formula.
        '<div class="tex2jax_ignore mathjax_ignore pixops-med-cases"'
        ' style="overflow-x:auto;width:0;min-width:100%">'
        '<table style="border-collapse:collapse;font-size:13px;line-height:1.4">'
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"
    )


def _row(row: CaseRow) -> str:
    case_id = html.escape(row.id, quote=True)
    reason = row.reason
    reason_tip = "" if reason is None else f' title="{html.escape(str(reason), quote=True)}"'
    status = (
        f'<td style="{_CELL};{_WORDS}">'
        f'<div class="pixops-med-state">{html.escape(row.state)}</div>'
        f'<div class="pixops-med-when" style="{_DATE_STYLE}">{_when(row)}</div></td>'
    )
    money = html.escape(brl(row.amount))
    amount = f'<td style="{_CELL};text-align:right;{_NO_BREAK}">{money}</td>'
    reason_cell = f'<td style="{_CELL};{_WORDS}"{reason_tip}>{html.escape(label(reason))}</td>'
    case = (
        f'<tr><td class="pixops-med-case" colspan="{len(CASE_HEADERS)}" style="{_ID_STYLE}"'
        f' data-case="{case_id}">Case <code style="user-select:all">{case_id}</code></td></tr>'
    )
    return f"<tr>{status}{amount}{reason_cell}</tr>{case}"


def _when(row: CaseRow) -> str:
    """ "due 19/02/2026 01:09" or "decided 11/02/2026 22:09": the words, the date and the
    time may go on lines of their own, but the date and the time never break."""
    shown = local_time(row.when)
    parts = ["decided" if row.decided else "due", *shown.split(" ")]
    return " ".join(
        f'<span style="{_NO_BREAK}">{html.escape(part)}</span>' for part in parts if part
    )
