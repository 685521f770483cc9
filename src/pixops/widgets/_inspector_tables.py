"""The inspector's Timeline and Refunds tables (the refund panel's refunds too), made to
read on a phone (the Voilà desk at about 420 px, some 350 px for a table), at 800 px
beside JupyterLab's file browser, and in a wide notebook.

The general `html_table` keeps a time on one line and gives a prose column at least 16em:
on a phone the timeline came out 500 px wide and the refunds table 536 px, their ends
(what happened, the amount, the status) hidden behind a sideways scroll. Here a time may
put its hour under its date (the date and the hour never break), the source's words wrap,
the step's prose wraps with no minimum width, and a refund's completion goes under its
status instead of taking a column of its own. Wide, every row still reads on one line.

The tab bar wraps too (`TAB_STYLE`): six tabs at their natural width, on two rows when
the panel is narrow, instead of labels cut to "Summa" and "Timelin".
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from typing import TYPE_CHECKING, Final

from pixops.widgets._format import ID_STYLE, brl, label, local_time, table_shell
from pixops.widgets._reads import RefundRecord

if TYPE_CHECKING:
    from pixops.widgets._inspector_flow import TimelineStep

__all__ = [
    "TABS_CLASS",
    "TAB_STYLE",
    "refund_records_table",
    "timeline_table",
]

#: The class the inspector's `Tab` carries, which `TAB_STYLE` is scoped to.
TABS_CLASS: Final = "pixops-inspector-tabs"
#: Tabs as wide as their labels, on as many rows as they need (ipywidgets gives each a
#: fixed 144 px share that shrinks to 35 px and cuts the label).
TAB_STYLE: Final = (
    "<style>"
    f".{TABS_CLASS} .lm-TabBar-content{{flex-wrap:wrap}}"
    # ipywidgets' own rule names more classes: `!important` rather than a longer selector.
    f".{TABS_CLASS} .lm-TabBar-tab{{flex:0 0 auto!important;min-width:0!important}}"
    f".{TABS_CLASS} .lm-TabBar{{height:auto;max-height:none;min-height:0}}"
    "</style>"
)
ZONE: Final = "São Paulo"
TIMELINE_HEADERS: Final = (f"When ({ZONE})", "Source", "What")
REFUND_HEADERS: Final = (f"Requested ({ZONE})", "Amount", "Status", "Refund")

_CELL: Final = "padding:2px 4px;vertical-align:top"  # 6 px a side: 7 px too wide at 800 px
_NO_BREAK: Final = "white-space:nowrap"
#: Words wrap between them; a long id inside a step breaks where it must.
_PROSE: Final = "white-space:normal;overflow-wrap:anywhere"
_WORDS: Final = "white-space:normal;overflow-wrap:normal;word-break:normal"
_UNDER: Final = "color:#555;font-size:12px"


def timeline_table(steps: Iterable[TimelineStep], *, empty: str = "No events.") -> str:
    """The timeline's steps (when, from where, what) as an HTML table."""
    rows = [
        _cell(_time(step.at))
        + _cell(html.escape(step.source or "—"), _WORDS)
        + _cell(_unbroken_money(step.what or "—"), _PROSE)
        for step in steps
    ]
    return _table(TIMELINE_HEADERS, rows, empty=empty)


def refund_records_table(refunds: Iterable[RefundRecord], *, empty: str) -> str:
    """A payment's refunds: when asked for, how much, where each stands (and when it
    completed, under its status), and the refund's id last (copied, not read)."""
    rows = [
        _refund_row(r.status, r.completed_at, r.created_at, r.amount, r.transaction_id)
        for r in refunds
    ]
    return _table(REFUND_HEADERS, rows, empty=empty, right={"Amount"})


def _refund_row(
    status: object, done: object, created: object, amount: object, refund_id: object
) -> str:
    shown = html.escape(label(status))
    if done:
        shown += f'<div style="{_UNDER}">{_time(done)}</div>'
    return (
        _cell(_time(created))
        + _cell(html.escape(brl(amount)), f"{_NO_BREAK};text-align:right")
        + _cell(shown)  # its label and the time under it wrap between words
        + _cell(html.escape(str(refund_id or "—")), ID_STYLE)
    )


def _time(value: object) -> str:
    """A time in São Paulo whose hour may go under its date; neither ever breaks."""
    parts = local_time(value).split(" ")
    return " ".join(f'<span style="{_NO_BREAK}">{html.escape(part)}</span>' for part in parts)


def _unbroken_money(text: str) -> str:
    """Prose, escaped, whose amounts keep "R$" beside their number ("Created (R$" above
    "17.636,83)" read as two things)."""
    return html.escape(text).replace("R$ ", "R$\N{NO-BREAK SPACE}")


def _cell(content: str, style: str = _WORDS) -> str:
    return f'<td style="{_CELL};{style}">{content}</td>'


def _table(
    headers: Iterable[str], rows: list[str], *, empty: str, right: Iterable[str] = ()
) -> str:
    if not rows:
        return f"<p><i>{html.escape(empty)}</i></p>"
    aligned = set(right)
    head = "".join(
        f'<th style="{_CELL};{_WORDS};text-align:{"right" if title in aligned else "left"}">'
        f"{html.escape(title)}</th>"
        for title in headers
    )
    return table_shell(head, "".join(f"<tr>{row}</tr>" for row in rows))
