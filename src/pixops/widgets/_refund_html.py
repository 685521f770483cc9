"""What the refund panel draws: the payment picked (what was refunded, what is left), the
"Refund sent" card, and the service's notices about a refund."""

from __future__ import annotations

from typing import Final

from pixops.widgets._format import HtmlBlock, brl, html_table, label, local_time, message, outcome
from pixops.widgets._format import pairs as pairs_table
from pixops.widgets._inspector_tables import refund_records_table
from pixops.widgets._refund_flow import RefundFlow, SentCard, completed_at
from pixops.widgets._refund_words import disputed

__all__ = ["details_html", "notices_block", "sent_block"]

_EVENT_COLUMNS: Final = (("created_at", "When"), ("type", "What happened"), ("status", "Status"))


def details_html(flow: RefundFlow) -> str:
    """The payment picked: what it was, what was refunded, what is left; its refunds
    (the inspector's table) and a warning when a MED case still disputes it."""
    payment = flow.selected
    if payment is None:
        return ""
    summary = pairs_table(
        [
            ("Payment", payment.transaction_id),
            ("Received", local_time(payment.completed_at or payment.created_at)),
            ("Payer", payment.counterparty_name or "—"),
            ("Payer's bank", payment.payer_bank_name or "—"),
            ("Amount received", brl(payment.amount)),
            ("Fee", brl(payment.fee_amount)),
            ("Already refunded", brl(flow.refunded_base)),
            ("Left to refund", brl(flow.remaining_base)),
        ]
    )
    table = refund_records_table(flow.refunds, empty="No refund yet.")  # the inspector's too
    warning = message(disputed(flow.disputes), "warn") if flow.disputes else ""
    return f"{warning}{summary}<h4 style='margin:6px 0 2px'>Refunds</h4>{table}"


def sent_block(card: SentCard) -> HtmlBlock:
    """The "Refund sent" card with the refund's latest status (and when it completed)."""
    items = [*card.items[:3], ("Status", label(card.answer.status))]
    done = completed_at(card.answer)
    if done is not None:
        items.append(("Completed", local_time(done)))
    return outcome("Refund sent", [*items, *card.items[3:]], card.answer.model_dump(mode="json"))


def notices_block(card: SentCard) -> HtmlBlock:
    """The service's notices about the refund, kept by the webhook inbox."""
    rows = [{**e, "status": (e.get("data") or {}).get("status")} for e in card.notices or []]
    return HtmlBlock(
        "<b>The service's notices about this refund</b>"
        + html_table(
            rows,
            _EVENT_COLUMNS,
            time_columns={"created_at"},
            code_columns={"status"},
            event_columns={"type"},
            empty="No notice received yet (or none kept here).",
        )
    )
