"""How the panels show things to a finance or support reader: reais, local times, tables.

Money is always shown in pt-BR reais (``R$ 1.234,56``), never as base units; times in
São Paulo, where the merchant's business day is counted.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Sequence
from datetime import date, datetime
from typing import Any, Final
from zoneinfo import ZoneInfo

from pixops import money
from pixops.widgets._api import Record, base_units, parse_time

__all__ = [
    "BUSINESS_TZ",
    "HtmlBlock",
    "brl",
    "html_table",
    "local_time",
    "message",
    "pairs",
    "wire_json",
]

BUSINESS_TZ: Final = ZoneInfo("America/Sao_Paulo")

_TONES: Final = {
    "info": "#1f4e79",
    "ok": "#1b5e20",
    "warn": "#8a5300",
    "error": "#b00020",
}


def brl(amount_base: Any) -> str:
    """Base units as reais to the centavo, or an em dash when there is no amount."""
    value = base_units(amount_base)
    return "—" if value is None else money.format_brl_display(value)


#: A JSON line whose value is a whole number under a key that holds money on the wire
#: (`amount`, `fee_amount`, `net_amount`, `total_refunded`, `remaining_refundable`, the
#: balance figures, ...), in snake_case or camelCase.
_MONEY_LINE: Final = re.compile(
    r'^(?P<line>\s*"(?P<key>[A-Za-z_]*(?:amount|Amount|balance|Balance|refunded|Refunded'
    r'|refundable|Refundable|ceiling|Ceiling))": (?P<value>-?\d+)(?P<comma>,?))$'
)


def wire_json(data: Any, *, sort_keys: bool = False) -> str:
    """An API answer as indented JSON, each money field followed by its value in reais
    (``"amount": 50000,   ← R$ 5,00``): the wire's base units never stand alone."""
    lines = []
    for line in json.dumps(data, indent=2, ensure_ascii=False, sort_keys=sort_keys).splitlines():
        found = _MONEY_LINE.match(line)
        if found is not None:
            line = f"{line}   ← {money.format_brl_display(int(found['value']))}"
        lines.append(line)
    return "\n".join(lines)


def local_time(value: Any, *, seconds: bool = False) -> str:
    """An API timestamp as São Paulo time, ``13/02/2026 17:21``; a dash when absent."""
    moment = parse_time(value) if not isinstance(value, datetime) else value
    if moment is None:
        return "—"
    shown = moment.astimezone(BUSINESS_TZ)
    return shown.strftime("%d/%m/%Y %H:%M:%S" if seconds else "%d/%m/%Y %H:%M")


def message(text: str, tone: str = "info") -> str:
    """A one-line coloured message for an `HTML` widget (text is escaped)."""
    colour = _TONES.get(tone, _TONES["info"])
    return f'<div style="color:{colour};padding:2px 0">{html.escape(text)}</div>'


#: Amounts, times and one-word cells (ids, dates) never break, so they read and copy
#: whole; prose wraps, but at a readable width rather than a word per line.
_NO_BREAK: Final = "white-space:nowrap"
_PROSE: Final = "white-space:normal;min-width:16em"


def html_table(
    rows: Iterable[Record],
    columns: Sequence[tuple[str, str]],
    *,
    money_columns: Iterable[str] = (),
    time_columns: Iterable[str] = (),
    empty: str = "Nothing to show.",
) -> str:
    """Rows as an HTML table; money columns in reais (right-aligned), times in São Paulo."""
    money_set, time_set = set(money_columns), set(time_columns)
    head = "".join(
        f'<th style="text-align:{"right" if key in money_set else "left"};padding:2px 8px">'
        f"{html.escape(label)}</th>"
        for key, label in columns
    )
    body: list[str] = []
    for row in rows:
        cells = []
        for key, _ in columns:
            value = row.get(key)
            if key in money_set:
                text, align, wrap = brl(value), "right", _NO_BREAK
            elif key in time_set:
                text, align, wrap = local_time(value), "left", _NO_BREAK
            else:
                text = _cell_text(value)
                align, wrap = "left", _NO_BREAK if " " not in text.strip() else _PROSE
            cells.append(
                f'<td style="text-align:{align};padding:2px 8px;{wrap};'
                f'vertical-align:top">{html.escape(text)}</td>'
            )
        body.append("<tr>" + "".join(cells) + "</tr>")
    if not body:
        return f"<p><i>{html.escape(empty)}</i></p>"
    return (
        # `width:0; min-width:100%`: the table adds no width to the boxes around it (which
        # would grow past the notebook and clip it), yet fills them and scrolls sideways.
        '<div style="overflow-x:auto;width:0;min-width:100%">'
        '<table style="border-collapse:collapse;font-size:13px">'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
    )


def _cell_text(value: Any) -> str:
    """A plain cell: dates the pt-BR way (``15/01/2026``), missing values as a dash."""
    if value is None or value == "":
        return "—"
    if isinstance(value, date) and not isinstance(value, datetime):
        return value.strftime("%d/%m/%Y")
    return str(value)


def pairs(items: Iterable[tuple[str, str]]) -> str:
    """Label/value pairs as a compact two-column HTML table (values escaped)."""
    rows = "".join(
        f'<tr><th style="text-align:left;padding:1px 10px 1px 0;font-weight:600">'
        f"{html.escape(label)}</th><td>{html.escape(value)}</td></tr>"
        for label, value in items
    )
    return f'<table style="font-size:13px">{rows}</table>'


class HtmlBlock:
    """HTML for `Output.append_display_data`: rendered as HTML, readable as plain text."""

    def __init__(self, markup: str) -> None:
        self.markup = markup

    def _repr_html_(self) -> str:
        return self.markup

    def __repr__(self) -> str:
        return re.sub(r"<[^>]+>", " ", html.unescape(self.markup)).strip()
