"""How the panels show things to a finance or support reader: reais, local times, tables.

Money is always shown in pt-BR reais (``R$ 1.234,56``), never as base units; times in
São Paulo, where the merchant's business day is counted.
"""

from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any, Final
from zoneinfo import ZoneInfo

from pixops import money
from pixops.widgets._api import Record, base_units, is_missing, parse_time

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "BUSINESS_TZ",
    "ID_STYLE",
    "MED_VERDICTS",
    "HtmlBlock",
    "brl",
    "count_text",
    "event_label",
    "frame_table",
    "html_table",
    "label",
    "local_time",
    "mask_document",
    "message",
    "outcome",
    "pairs",
    "plural",
    "problem",
    "readable",
    "table_shell",
    "text_of",
    "wire_json",
]

BUSINESS_TZ: Final = ZoneInfo("America/Sao_Paulo")
#: A closed MED case's ``analysis_result`` in words (the MED panel and the inspector).
MED_VERDICTS: Final = {
    "AGREED": "the central bank agreed with the payer",
    "DISAGREED": "the central bank sided with the merchant",
}

_TONES: Final = {
    "info": "#1f4e79",
    "ok": "#1b5e20",
    "warn": "#8a5300",
    "error": "#b00020",
}


def brl(amount_base: object) -> str:
    """Base units as reais by the one rule (`pixops.money.format_brl_base`: no non-zero
    digit hidden), or an em dash when there is no amount."""
    value = base_units(amount_base)
    return "—" if value is None else money.format_brl_base(value)


def count_text(number: Real | float) -> str:
    """A count the pt-BR way, with a dot between thousands (``9.483``); a number with a
    fraction with a comma before it (``1.234,5``), as a reader in Brazil writes it."""
    if isinstance(number, bool) or not isinstance(number, Real):
        raise TypeError(f"count_text takes a number, got {number!r}")
    if isinstance(number, Integral):
        return f"{int(number):,}".replace(",", ".")
    value = float(number)
    if value.is_integer():
        return f"{int(value):,}".replace(",", ".")
    return f"{value:,}".translate(_PT_BR_MARKS)


_PT_BR_MARKS: Final = str.maketrans(",.", ".,")


def plural(number: int, one: str, many: str | None = None) -> str:
    """A count with its noun, singular for one: ``1 day``, ``47 days``, ``1.200 cases``."""
    noun = one if number == 1 else (many or f"{one}s")
    return f"{count_text(number)} {noun}"


#: Codes that name one state twice, so a reader sees one word for one state: the
#: statement says ``completed`` where the transaction says ``settled``; a payment's first
#: answer says ``accepted`` (HTTP 202) where its record says ``processing``.
_SAME_STATE: Final = {
    "completed": "Settled",
    "accepted": "Processing (accepted by the service)",
}


def label(code: object) -> str:
    """A status or reason code as words: ``OPEN`` → ``Open``, ``REFUND_REQUEST`` →
    ``Refund request``, ``completed`` → ``Settled``; an em dash when there is none."""
    if code is None or code == "":
        return "—"
    if str(code) in _SAME_STATE:
        return _SAME_STATE[str(code)]
    words = str(code).replace("_", " ").lower()
    return words[:1].upper() + words[1:]


def zone_text(tz: object) -> str:
    """A time zone as a reader names it: "São Paulo time", else the zone's name + "time"."""
    return "São Paulo time" if str(tz) == "America/Sao_Paulo" else f"{tz} time"


#: What the central bank's decision on a MED case did to the money (a bare "Agreed"
#: left support asking: with whom?), short so a table fits beside the file browser.
_DECISIONS: Final = {"AGREED": "Payer refunded", "DISAGREED": "Money kept"}


def decision_label(result: object) -> str:
    """A MED case's analysis result in words: ``AGREED`` → ``Payer refunded``,
    ``DISAGREED`` → ``Money kept``; any other code as `label` writes it."""
    return _DECISIONS.get(str(result)) or label(result)


#: The service's notices in a reader's words; an unknown one is spelled out from its code.
_EVENT_WORDS: Final = {
    "pix.charge.paid": "Charge paid",
    "pix.payout.queued": "Payment queued",
    "pix.payout.confirmed": "Payment delivered",
    "pix.payout.rejected": "Payment rejected",
    "pix.payout.failed": "Payment failed",
    # The service's other name for a refund's completion (same refund, same data).
    "pix.payout.returned": "Refund completed",
    # The central bank's infraction notice: a MED case, whatever its reason (not always a
    # payer asking for the money back; the case says fraud, flaw or refund request).
    "pix.refund.requested": "MED case notified by the central bank",
    "pix.refund.completed": "Refund completed",
}


def event_label(kind: object) -> str:
    """A webhook event type as words: ``pix.refund.completed`` → ``Refund completed``."""
    known = _EVENT_WORDS.get(str(kind))
    return known or label(str(kind).removeprefix("pix.").replace(".", " "))


_CPF: Final = re.compile(r"\d{3}\.?\d{3}\.?\d{3}-?\d{2}")


def mask_document(value: str) -> str:
    """A CPF as receipts print it (``***.003.748-**``); a CNPJ is public and stays whole."""
    if not _CPF.fullmatch(value):
        return value
    digits = re.sub(r"\D", "", value)
    return f"***.{digits[3:6]}.{digits[6:9]}-**"


#: Keys that hold money on the wire (`amount`, `fee_amount`, `net_amount`,
#: `total_refunded`, `remaining_refundable`, the balance figures, ...), any case.
_MONEY_KEY: Final = re.compile(r"(amount|balance|refunded|refundable|ceiling)$", re.IGNORECASE)


def readable(data: Any) -> Any:
    """A copy of an API answer for people: money fields in reais, CPFs masked."""
    if isinstance(data, dict):
        return {key: _readable_field(str(key), value) for key, value in data.items()}
    if isinstance(data, list):
        return [readable(item) for item in data]
    return data


def _readable_field(key: str, value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool) and _MONEY_KEY.search(key):
        return money.format_brl_base(value)
    if isinstance(value, str) and "document" in key.lower():
        return mask_document(value)
    return readable(value)


def wire_json(data: object, *, sort_keys: bool = False) -> str:
    """An API answer as indented JSON for reading: money fields as reais text
    (``"amount": "R$ 5,00"``, never the wire's base units) and CPFs masked."""
    return json.dumps(readable(data), indent=2, ensure_ascii=False, sort_keys=sort_keys)


def local_time(value: object, *, seconds: bool = False) -> str:
    """An API timestamp as São Paulo time, ``13/02/2026 17:21``; a dash when absent. A
    time without a zone (a DataFrame's own local times) is shown as it is written."""
    if is_missing(value):
        return "—"
    moment = parse_time(value) if not isinstance(value, datetime) else value
    if moment is None:
        return "—"
    shown = moment if moment.tzinfo is None else moment.astimezone(BUSINESS_TZ)
    return shown.strftime("%d/%m/%Y %H:%M:%S" if seconds else "%d/%m/%Y %H:%M")


#: A service refusal's own message is shown up to this many characters (one line).
_MESSAGE_CHARS: Final = 200
#: pixops' own messages (a ledger's cell, a file) up to this many: whole, as written,
#: unless a cell they quote is huge.
_OWN_MESSAGE_CHARS: Final = 600
#: A word with a path separator or a file extension (``ledger.csv``, ``out/x``).
_PATH_LIKE: Final = re.compile(r"[/\\]|\.[A-Za-z0-9]{1,8}$")


def problem(error: BaseException) -> str:
    """What went wrong, as one plain sentence for a support or finance reader: never the
    HTTP status, the API's error code or a Python exception's name.

    The service's own message is kept for the refusals it explains (a rule, a missing
    record); failures of the connection, the credentials or the service itself get the
    words and the next step a person needs.
    """
    from pixops.client import (
        ApiError,
        AuthenticationError,
        ConflictError,
        PermissionDeniedError,
        RateLimitError,
        ResponseValidationError,
        ServerError,
        TransportError,
        WaitTimeoutError,
    )

    if isinstance(error, TransportError):
        return (
            "The PIX service could not be reached (no answer after several tries): check "
            "the network connection and the service address (PIXOPS_BASE_URL), then try again."
        )
    if isinstance(error, AuthenticationError):
        return (
            "The PIX service did not accept this account's credentials (PIXOPS_CLIENT_ID "
            "and PIXOPS_CLIENT_SECRET): ask whoever manages the API keys to check them."
        )
    if isinstance(error, PermissionDeniedError):
        return _sentence(
            "The PIX service refused access",
            getattr(error, "message", ""),
            "this computer's address may not be on the account's list, or the key lacks a "
            "permission; ask whoever manages the API keys",
        )
    if isinstance(error, RateLimitError):
        return "The PIX service is receiving too many requests: wait a minute and try again."
    if isinstance(error, ServerError):
        return "The PIX service had a problem on its side: try again in a few minutes."
    if isinstance(error, ConflictError):  # 409: the same request (its key) not answered yet
        return "The PIX service is still working on this same request."
    if isinstance(error, ResponseValidationError):
        return (
            "The PIX service answered something this version of pixops cannot read: "
            "tell the team that maintains pixops."
        )
    if isinstance(error, WaitTimeoutError):
        return "The service has not given a final answer yet: try again in a few minutes."
    if isinstance(error, ApiError):
        return _sentence(str(error.message or "").strip() or "Something went wrong")
    text = str(error).strip() or "Something went wrong"
    return _sentence(text, limit=_OWN_MESSAGE_CHARS)


def _sentence(
    text: str, detail: str = "", fallback: str = "", *, limit: int = _MESSAGE_CHARS
) -> str:
    """`text` (and `detail` after a colon, else `fallback`) as one capitalised sentence,
    each part at most `limit` characters: a longer one is cut after a word, with "…"."""
    extra = _clipped(str(detail), limit) or fallback
    whole = _clipped(text, limit)
    if extra:
        whole = f"{whole.rstrip('.:')}: {extra}"
    if not _starts_with_a_path(whole):  # "data is a folder" must not read "Data is ..."
        whole = whole[:1].upper() + whole[1:]
    return whole if whole.endswith((".", "!", "?", "…")) else whole + "."


def _clipped(text: str, limit: int) -> str:
    """`text` on one line, cut after its last whole word within `limit` characters and
    marked "…" when it was longer (a cut message said "…is no real amount:.")."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    words = cut.rsplit(" ", 1)[0] if " " in cut else cut
    return words.rstrip(" .,:;") + "…"


def _starts_with_a_path(text: str) -> bool:
    """Whether the first word of `text` names a file or folder: it has a separator or an
    extension (``ledger.csv``), or it exists (``data``)."""
    first = text.split(maxsplit=1)[0].rstrip(":,;") if text.strip() else ""
    if not first:
        return False
    return bool(_PATH_LIKE.search(first)) or os.path.exists(first)


def text_of(markup: str) -> str:
    """The text a reader sees in a `message()` (tags dropped, entities read)."""
    return html.unescape(re.sub(r"<[^>]+>", "", markup)).strip()


def message(text: str, tone: str = "info") -> str:
    """A one-line coloured message for an `HTML` widget (text is escaped)."""
    colour = _TONES.get(tone, _TONES["info"])
    # A long message wraps at a reading line height, not the widget row's 28 px; a long
    # unbroken word (a note without spaces quoted back) breaks rather than run off the panel.
    style = f"color:{colour};padding:2px 0;line-height:1.45;overflow-wrap:anywhere"
    return f'<div style="{style}">{html.escape(text)}</div>'


#: Amounts, times, one-word cells (ids, dates) and short phrases never break, so they
#: read and copy whole; longer prose wraps, but at a readable width, not a word per line.
_NO_BREAK: Final = "white-space:nowrap"
#: An id: it breaks anywhere rather than widen its table past a narrow notebook, and one
#: click selects it whole (copied, a wrapped id is one unbroken string).
ID_STYLE: Final = "overflow-wrap:anywhere;word-break:break-all;user-select:all"
#: A long unbroken word in prose (a refund id in a timeline step) breaks where it must,
#: rather than push the table past a narrow notebook and hide its end.
_PROSE: Final = "white-space:normal;overflow-wrap:anywhere;min-width:{}"
_SHORT_PHRASE: Final = 20


def html_table(
    rows: Iterable[Record],
    columns: Sequence[tuple[str, str]],
    *,
    money_columns: Iterable[str] = (),
    time_columns: Iterable[str] = (),
    code_columns: Iterable[str] = (),
    number_columns: Iterable[str] = (),
    event_columns: Iterable[str] = (),
    id_columns: Iterable[str] = (),
    under: Mapping[str, str] | None = None,
    detail: str | None = None,
    empty: str = "Nothing to show.",
    prose_width: str = "16em",
) -> str:
    """Rows as an HTML table: money in reais and counts pt-BR (both right-aligned), times
    in São Paulo, codes and webhook event types as words (the code itself in the
    tooltip), other text left; a long phrase wraps, at least `prose_width` wide; an id
    breaks anywhere when the table is short of room, and one click selects it whole.

    ``under`` stacks cells, as the inspector does, so a table fits 800 px beside
    JupyterLab's file browser: ``{"fee": "amount"}`` shows each row's fee under its
    amount, in grey, in the amount's column (whose header names both), not a column of
    its own; several columns under one are stacked in the table's order. ``detail``
    names a column of phrases shown as a line of their own under each row, the table's
    whole width, not a column that needs `prose_width` of its own."""
    kinds = _Kinds(
        money=set(money_columns),
        number=set(number_columns),
        time=set(time_columns),
        code=set(code_columns),
        event=set(event_columns),
        ids=set(id_columns),
        prose_width=prose_width,
    )
    stacked = dict(under or {})
    titles = dict(columns)
    unknown = sorted((set(stacked) | set(stacked.values())) - set(titles))
    if unknown:
        raise ValueError(f"under names columns the table does not have: {unknown}")
    if detail is not None and detail not in titles:
        raise ValueError(f"detail names a column the table does not have: {detail!r}")
    # Each column's cells stacked under it, in the table's order of columns.
    below: dict[str, list[str]] = {}
    for key, _ in columns:
        if key in stacked:
            below.setdefault(stacked[key], []).append(key)
    shown = [(key, title) for key, title in columns if key not in stacked and key != detail]
    head = "".join(
        f'<th style="text-align:{kinds.align(key)};padding:2px 8px">{html.escape(title)}'
        + "".join(
            f'<br><span style="{_UNDER}">{html.escape(titles[child])}</span>'
            for child in below.get(key, ())
        )
        + "</th>"
        for key, title in shown
    )
    body: list[str] = []
    for row in rows:
        cells = []
        for key, _ in shown:
            text, align, wrap, tip = kinds.cell(key, row.get(key))
            content = html.escape(text)
            for child in below.get(key, ()):
                child_text, _, child_wrap, _ = kinds.cell(child, row.get(child))
                content += (
                    f'<br><span style="{_UNDER};{child_wrap}">{html.escape(child_text)}</span>'
                )
            cells.append(
                f'<td style="text-align:{align};padding:2px 8px;{wrap};'
                f'vertical-align:top"{tip}>{content}</td>'
            )
        if detail is None:
            body.append("<tr>" + "".join(cells) + "</tr>")
            continue
        # A row and its phrase read as one: a rule above the row, none between them.
        body.append('<tr style="border-top:1px solid #ddd">' + "".join(cells) + "</tr>")
        line = _cell_text(row.get(detail))
        if line == "—":
            continue
        body.append(
            f'<tr><td colspan="{len(shown)}" style="padding:0 8px 6px;color:#333;'
            f'white-space:normal;overflow-wrap:anywhere">{html.escape(line)}</td></tr>'
        )
    if not body:
        return f"<p><i>{html.escape(empty)}</i></p>"
    return table_shell(head, "".join(body))


#: A stacked cell's second line (`html_table`'s ``under``).
_UNDER: Final = "color:#555"


@dataclass(frozen=True)
class _Kinds:
    """How each column of an `html_table` shows its values."""

    money: set[str]
    number: set[str]
    time: set[str]
    code: set[str]
    event: set[str]
    ids: set[str]
    prose_width: str

    def align(self, key: str) -> str:
        return "right" if key in self.money or key in self.number else "left"

    def cell(self, key: str, value: object) -> tuple[str, str, str, str]:
        """The text, alignment, wrapping and tooltip attribute of one value."""
        if key in self.money:
            return brl(value), "right", _NO_BREAK, ""
        if key in self.number:
            return _number_text(value), "right", _NO_BREAK, ""
        if key in self.time:
            return local_time(value), "left", _NO_BREAK, ""
        if key in self.ids:
            return _cell_text(value), "left", ID_STYLE, ""
        tip = ""
        if key in self.code or key in self.event:
            text = event_label(value) if key in self.event else label(value)
            tip = "" if value is None else f' title="{html.escape(str(value))}"'
        else:
            text = _cell_text(value)
        # Short phrases stay on one line (no minimum width); long ones wrap.
        short = " " not in text.strip() or len(text) <= _SHORT_PHRASE
        return text, "left", _NO_BREAK if short else _PROSE.format(self.prose_width), tip


def table_shell(head: str, body: str) -> str:
    """A table's header cells and rows in the box every panel table sits in."""
    return (
        # `width:0; min-width:100%`: the table adds no width to the boxes around it (which
        # would grow past the notebook and clip it), yet fills them and scrolls sideways.
        # The classes keep JupyterLab's math typesetting off: "R$ 1 ... R$ 2" is no formula.
        '<div class="tex2jax_ignore mathjax_ignore"'
        ' style="overflow-x:auto;width:0;min-width:100%">'
        '<table style="border-collapse:collapse;font-size:13px;line-height:1.45">'
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"
    )


def frame_table(
    frame: pd.DataFrame,
    *,
    money_columns: Iterable[str] = (),
    number_columns: Iterable[str] = (),
    code_columns: Iterable[str] = (),
    id_columns: Iterable[str] = (),
    under: Mapping[str, str] | None = None,
    prose_width: str = "16em",
) -> HtmlBlock:
    """A small DataFrame for readers, without its index: text left-aligned, money (base
    units or `Money`) in reais and counts pt-BR, both right-aligned, API codes as words
    (the code in the tooltip); a phrase wraps, at least `prose_width` wide, and an id
    breaks anywhere when short of room; ``under`` stacks a column under another
    (``{"Fee": "Amount"}``, see `html_table`) so the table fits a narrow notebook.
    Column names are the headers; a column named that the frame lacks is refused (its
    amounts would show as base units)."""
    frame = _checked_frame(frame, money_columns, number_columns, code_columns, id_columns)
    columns = [(str(name), str(name)) for name in frame.columns]
    rows = [
        {str(name): value for name, value in row.items()} for row in frame.to_dict(orient="records")
    ]
    return HtmlBlock(
        html_table(
            rows,
            columns,
            money_columns=money_columns,
            number_columns=number_columns,
            code_columns=code_columns,
            id_columns=id_columns,
            under=under,
            prose_width=prose_width,
        )
    )


def _checked_frame(frame: Any, money: Iterable[str], *others: Iterable[str]) -> pd.DataFrame:
    """`frame`, after checking every column named is in it and no money column is float
    (a gap in a NumPy int64 column makes pandas store the amounts as floats)."""
    import pandas as pd

    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame_table takes a pandas DataFrame, got {type(frame).__name__}")
    money = set(money)
    have = {str(name) for name in frame.columns}
    lacking = sorted(name for name in money.union(*others) if name not in have)
    if lacking:
        raise ValueError(
            f"the frame has no column {', '.join(map(repr, lacking))}; "
            f"its columns are {', '.join(map(repr, sorted(have)))}"
        )
    for name, dtype in zip(frame.columns, frame.dtypes, strict=True):
        if str(name) in money and pd.api.types.is_float_dtype(dtype):
            raise TypeError(
                f"column {str(name)!r} holds floats ({dtype}): money stays integer base units."
                " A gap turns a NumPy int64 column float; build it as 'int64[pyarrow]' or"
                " 'Int64', which keep integers with gaps, as pixops.frames does"
            )
    return frame


def outcome(title: str, items: Iterable[tuple[str, str]], answer: object) -> HtmlBlock:
    """What the service answered: a readable summary, the full answer folded away below
    it (money in reais there too)."""
    return HtmlBlock(
        f"<b>{html.escape(title)}</b>{pairs(items)}"
        "<details><summary>Technical details (the service's answer)</summary>"
        f'<pre style="font-size:12px">{html.escape(wire_json(answer))}</pre></details>'
    )


def _number_text(value: object) -> str:
    if is_missing(value):
        return "—"
    if isinstance(value, bool) or not isinstance(value, Real):
        return str(value)
    return count_text(value)


def _cell_text(value: object) -> str:
    """A plain cell: dates the pt-BR way (``15/01/2026``), times in São Paulo, missing
    values (None, NaN, NaT) as a dash."""
    if is_missing(value) or (isinstance(value, str) and not value):
        return "—"
    if isinstance(value, datetime):
        return local_time(value)
    if isinstance(value, date):
        return value.strftime("%d/%m/%Y")
    return str(value)


def pairs(items: Iterable[tuple[str, str]]) -> str:
    """Label/value pairs as a compact two-column HTML table (values escaped)."""
    rows = "".join(
        '<tr><th style="text-align:left;padding:1px 10px 1px 0;font-weight:600;'
        f'white-space:nowrap">{html.escape(label)}</th>'
        '<td style="text-align:left;overflow-wrap:anywhere">'
        f"{html.escape(value)}</td></tr>"
        for label, value in items
    )
    # A long id wraps in a narrow notebook; two R$ in one card are not TeX's $…$.
    return (
        '<table class="tex2jax_ignore mathjax_ignore" '
        f'style="font-size:13px;line-height:1.45">{rows}</table>'
    )


class HtmlBlock:
    """HTML for `Output.append_display_data`: rendered as HTML, readable as plain text."""

    def __init__(self, markup: str) -> None:
        self.markup = markup

    def _repr_html_(self) -> str:
        return self.markup

    def __repr__(self) -> str:
        """The text, a table row per line, cells two spaces apart."""
        lines = re.sub(r"</tr>|</p>|<br>|</summary>", "\n", self.markup).splitlines()
        texts = (re.sub(r"<[^>]+>", "  ", line).strip() for line in lines)
        return "\n".join(
            re.sub(r" {3,}", "  ", html.unescape(text)) for text in texts if text
        ).strip()
