"""How the inspector's tabs read at any width: long ids and JSON lines wrap, never scroll.

The inspector runs at 1024 px with JupyterLab's file browser open (about 550 px for the
panel) and in the Voilà desk. A 38-character transaction id, a 64-character
authentication code or a JSON line of the API shapes would push a table or a ``<pre>``
past that width and hide its end behind a sideways scroll. Here every long value breaks
where it must; a one-click selection (``user-select:all``) still copies an id whole, and
a soft wrap adds no character to what is copied.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from pixops.schema import MedCase
from pixops.widgets._api import Record, is_refund_id, plain
from pixops.widgets._format import ID_STYLE, MED_VERDICTS, brl, label, local_time, wire_json
from pixops.widgets._movement import Movement

__all__ = [
    "case_facts",
    "cases_html",
    "fact_table",
    "failure_facts",
    "failure_text",
    "failure_words",
    "match_label",
    "movement_text",
    "shapes_html",
    "status_text",
    "type_of",
]

#: Prose: wraps between words (and inside a word only when one word is wider than the box).
_TEXT_STYLE: Final = "overflow-wrap:anywhere"
#: The classes keep JupyterLab's math typesetting off: "R$ 1 ... R$ 2" is no formula.
_NO_MATH: Final = "tex2jax_ignore mathjax_ignore"
#: A wrapped value reads as one paragraph, not at the widget row's 28 px line height.
_LINES: Final = "line-height:1.45"

Fact = tuple[str, str] | tuple[str, str, bool]

_TYPES: Final = {
    "pix": "PIX transfer",
    "pix_return": "PIX refund",
    "pix_qrcode": "QR code charge",
    "ted": "TED bank transfer",
    "internal": "Transfer between accounts",
}
#: The service's own failure codes, whose descriptions speak the central bank's protocol
#: ("No pacs.002 ..."), in a support person's words.
_FAILURE_WORDS: Final = {
    "orphan_force_voided": (
        "the central bank never confirmed the transfer (30 minutes without an answer),"
        " so it was cancelled"
    ),
    "DICT_QUEUE_TIMEOUT": (
        "the recipient's PIX key could not be looked up for 2 hours, so the payment was cancelled"
    ),
}
_ENDED_BADLY: Final = frozenset({"failed", "rejected", "refused", "canceled", "cancelled"})


def type_of(movement: Movement) -> str:
    """The kind of transaction in words; a refund says so, though the wire types it `pix`."""
    return _kind(movement.original_transaction_id, movement.transaction_id, movement.type)


def _kind(original_id: object, transaction_id: object, kind: object) -> str:
    if original_id or is_refund_id(str(transaction_id)):
        return _TYPES["pix_return"]
    return _TYPES.get(str(kind), label(kind))


def movement_text(row: Any) -> str:
    """A statement row or transaction in a few words, for a reader who sees only a list:
    "Refund to Maria Silva", "QR code charge paid by Ana Costa", "PIX from João"."""
    record = plain(row)
    name = record.get("counterparty_name")
    inbound = record.get("direction") == "inbound"
    kind = _kind(
        record.get("original_transaction_id"), record.get("transaction_id"), record.get("type")
    )
    if kind == _TYPES["pix_return"]:
        kind = "Refund"
    elif record.get("type") == "pix_qrcode":
        return f"{kind} paid by {name}" if name and inbound else kind
    elif record.get("type") == "pix":
        kind = "PIX"
    if not name:
        return kind
    return f"{kind} {'from' if inbound else 'to'} {name}"


def status_text(movement: Movement) -> str:
    """Where the payment stands, one word for one state wherever it shows: a statement
    row and a transaction both say "Rejected" for a payout the receiving bank refused
    (the transaction's own `status` says only "failed")."""
    return label(movement.payment_status or movement.status)


def failure_text(record: Record) -> str:
    """Why a transaction failed, in words, its code after (``Account blocked (code AC06)``)."""
    return failure_words(record.get("reason_code"), record.get("reason_description"))


def failure_words(reason_code: str | None, reason_description: str | None) -> str:
    """A failure's code and the service's description of it, in words, the code after."""
    code = str(reason_code or "")
    words = _FAILURE_WORDS.get(code) or str(reason_description or "")
    words = words[:1].upper() + words[1:] if words else "No reason given"
    return f"{words} (code {code})" if code else words


def failure_facts(movement: Movement) -> list[Fact]:
    """For a payment that did not go through: why, and what became of the money."""
    if not movement.reason_code and movement.status not in _ENDED_BADLY:
        return []
    facts: list[Fact] = [("Why", failure_words(movement.reason_code, movement.reason_description))]
    if movement.status not in _ENDED_BADLY:
        return facts
    if movement.direction in ("inbound", "credit"):
        money = (
            "Nothing was credited: this account refused the payment, and the payer's bank"
            " gives the money back to the payer. The payer can pay again once the cause is"
            " fixed."
        )
    else:
        money = (
            "Nothing left the account: the amount and its fee, held while the payment was"
            " tried, were released to the balance. Send it again once the cause is fixed."
        )
    facts.append(("The money", money))
    return facts


def match_label(movement: Movement) -> str:
    """A match's line: when, how much, which way, who (a name search finds several
    people), its status, then which: the long id last, where a narrow list cuts it."""
    when = local_time(movement.created_at)
    way = "received" if movement.direction in ("inbound", "credit") else "sent"
    amount = f"{brl(movement.amount)} {way}" if movement.direction else brl(movement.amount)
    parts = (when, amount, movement.counterparty_name, status_text(movement))
    return " · ".join(str(part) for part in (*parts, movement.transaction_id) if part)


def fact_table(items: Iterable[Fact]) -> str:
    """Label/value rows (values escaped) whose values wrap: a third item True marks an id
    (breaks anywhere, one click selects it). Labels stay on one line."""
    rows = []
    for item in items:
        name, value = item[0], item[1]
        is_id = len(item) > 2 and bool(item[2])
        style = ID_STYLE if is_id else _TEXT_STYLE
        rows.append(
            '<tr><th style="text-align:left;vertical-align:top;padding:1px 10px 1px 0;'
            f'font-weight:600;white-space:nowrap">{html.escape(name)}</th>'
            f'<td style="text-align:left;vertical-align:top;{style}">{html.escape(value)}</td>'
            "</tr>"
        )
    return (
        f'<table class="{_NO_MATH}" style="font-size:13px;{_LINES};'
        f'max-width:100%">{"".join(rows)}</table>'
    )


def case_facts(case: MedCase) -> list[Fact]:
    """One MED case as a support person reads it: why, where it stands, by when the
    merchant must answer (open cases), how the central bank decided (closed ones)."""
    status = case.status
    facts: list[Fact] = [
        ("MED case", case.id, True),
        ("Reason", label(case.reason)),
        ("Status", label(status)),
        ("Opened", local_time(case.opened_at)),
        ("Disputed", brl(case.amount)),
    ]
    if case.blocked_amount:
        facts.append(("Blocked meanwhile", brl(case.blocked_amount)))
    if case.defended_at:
        facts.append(("Defense sent", local_time(case.defended_at)))
    elif status != "CLOSED" and case.defense_deadline:
        facts.append(
            (
                "Defense due by",
                f"{local_time(case.defense_deadline)}: the merchant answers it in"
                " the MED disputes notebook",
            )
        )
    result = case.analysis_result
    if result:
        facts.append(("Decision", MED_VERDICTS.get(str(result), label(result))))
    if case.closed_at:
        facts.append(("Closed", local_time(case.closed_at)))
    if case.refund_transaction_id:
        facts.append(("Refunded by", case.refund_transaction_id, True))
    return facts


def cases_html(cases: Sequence[MedCase]) -> str:
    """Every MED case of a payment, one block of facts each."""
    if not cases:
        return "<p><i>No MED case on this transaction.</i></p>"
    return "<hr style='margin:6px 0'>".join(fact_table(case_facts(case)) for case in cases)


def shapes_html(note: str, shapes: Mapping[str, object]) -> str:
    """The API's answers as pre-wrapped JSON: a long line wraps inside the panel (money
    in reais, CPFs masked, by `wire_json`), each under the request that returns it."""
    parts = [f'<p style="margin:0 0 8px 0;{_TEXT_STYLE}">{html.escape(note)}</p>']
    for title, shape in shapes.items():
        parts.append(
            f'<div style="font-weight:600;margin-top:8px;{_TEXT_STYLE}">{html.escape(title)}</div>'
            '<pre style="white-space:pre-wrap;overflow-wrap:anywhere;margin:2px 0 0 0;'
            f'font-size:12px">{html.escape(wire_json(shape, sort_keys=True))}</pre>'
        )
    return f'<div class="{_NO_MATH}" style="max-width:100%;{_LINES}">{"".join(parts)}</div>'
