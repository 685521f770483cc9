"""The ledger mapping panel's HTML: the file's columns with their first values, and the
first rows as the mapping reads them. Every cell from the file is escaped."""

from __future__ import annotations

import html
from typing import Final

from pixops.widgets._format import ID_STYLE, table_shell
from pixops.widgets._ledger_map_model import PreviewRow

__all__ = ["columns_table", "preview_table"]

_CELL: Final = "padding:3px 8px;vertical-align:top;text-align:{}"
_UNDER: Final = '<br><span style="color:#666;font-size:12px">{}</span>'


def _th(label: str, align: str = "left") -> str:
    return f'<th style="{_CELL.format(align)}">{html.escape(label)}</th>'


def _td(text: str, under: str = "", *, align: str = "left", style: str = "") -> str:
    shown = html.escape(text) + (_UNDER.format(html.escape(under)) if under else "")
    return f'<td style="{_CELL.format(align)};{style}">{shown}</td>'


def columns_table(columns: list[str], rows: list[list[str | None]]) -> str:
    """The file's columns down the side, each with its first values as written: a
    ledger of any width reads in a narrow notebook, and a column is picked by its values."""
    body = "".join(
        "<tr>"
        + _td(column, style="font-weight:600;white-space:nowrap")
        + _td(
            " · ".join("—" if row[n] is None else str(row[n]) for row in rows if n < len(row)),
            style="overflow-wrap:anywhere",  # between values first, inside a long one if it must
        )
        + "</tr>"
        for n, column in enumerate(columns)
    )
    return table_shell(_th("Column") + _th("First values, as written"), body)


def preview_table(rows: list[PreviewRow]) -> str:
    """The first rows as the mapping reads them, four stacked columns (entry and reference,
    amount and way, fee, day and status): amounts in R$ never break."""
    nowrap = "white-space:nowrap"
    body = "".join(
        "<tr>"
        + _td(row.entry_id, row.reference, style=ID_STYLE.replace("user-select:all", ""))
        + _td(row.amount, row.direction, align="right", style=nowrap)
        + _td(row.fee, align="right", style=nowrap)
        + _td(row.booked_on, row.status, style=nowrap)
        + "</tr>"
        for row in rows
    )
    head = _th("Entry, reference") + _th("Amount", "right") + _th("Fee", "right") + _th("Booked on")
    return table_shell(head, body)
