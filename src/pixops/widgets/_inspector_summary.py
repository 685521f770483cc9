"""What the inspector's Summary and Receipt tabs draw, from `InspectorFlow`'s state."""

from __future__ import annotations

from pixops.schema import ReceiptParty
from pixops.widgets._format import brl, label, local_time, message
from pixops.widgets._inspector_flow import InspectorFlow
from pixops.widgets._inspector_html import (
    Fact,
    fact_table,
    failure_facts,
    status_text,
    type_of,
)

__all__ = ["receipt_html", "summary_html"]


def summary_html(flow: InspectorFlow) -> str:
    """The transaction shown in facts: ids, kind, where it stands, money, who, when, why it
    failed, what was refunded and which MED cases dispute it; empty for none."""
    movement = flow.movement
    if movement is None:
        return ""
    inbound = movement.direction in ("inbound", "credit")
    rows: list[Fact] = [
        ("Transaction", movement.transaction_id, True),
        ("End-to-end id", movement.end_to_end_id or "—", True),
        ("External id", movement.external_id or "—", True),
        ("Type", type_of(movement)),
        ("Direction", "received" if inbound else "sent"),
        ("Status", status_text(movement)),
        ("Amount", brl(movement.amount)),
        ("Fee", brl(movement.fee_amount)),
        ("Net (amount − fee)" if inbound else "Total (amount + fee)", brl(movement.net_amount)),
        ("Counterparty", movement.counterparty_name or "—"),
        ("Bank", flow.bank()),
        ("Created", local_time(movement.created_at)),
    ]
    if movement.failed_at:  # a failure never completes: when it ended instead
        rows.append((status_text(movement), local_time(movement.failed_at)))
    else:
        rows.append(("Completed", local_time(movement.completed_at)))
    if movement.description:  # a refund's says why ("Devolução MED med_…")
        rows.append(("Description", movement.description))
    rows.extend(failure_facts(movement))
    if movement.original_transaction_id:
        rows.append(("Refund of", movement.original_transaction_id, True))
    if flow.refunds:
        left = movement.amount - flow.refunded_base
        rows.append(("Refunded", brl(flow.refunded_base)))
        rows.append(("Left to refund", brl(max(0, left))))
    if flow.cases:
        cases = ", ".join(f"{c.id} ({label(c.status)})" for c in flow.cases)
        rows.append(("MED cases", cases))
    return fact_table(rows)


def receipt_html(flow: InspectorFlow) -> str:
    """The receipt of the transaction shown, or why there is none."""
    receipt = flow.receipt
    if receipt is None:
        shown = "—" if flow.movement is None else status_text(flow.movement)
        return message(
            f"A receipt exists only for settled transactions: this one is {shown.lower()}.",
            "info",
        )
    payer, recipient = receipt.payer, receipt.recipient
    return fact_table(
        [
            ("Receipt", receipt.receipt_id, True),
            ("Amount", brl(receipt.amount)),
            ("Paid by", f"{_name(payer)} ({_bank(payer)})"),
            ("Paid to", f"{_name(recipient)} ({_bank(recipient)})"),
            ("Settled", local_time(receipt.completed_at, seconds=True)),
            ("End-to-end id", receipt.end_to_end_id or "—", True),
            ("Authentication code", receipt.authentication_code or "—", True),
        ]
    )


def _name(party: ReceiptParty | None) -> str:
    return (None if party is None else party.name) or "—"


def _bank(party: ReceiptParty | None) -> str:
    return (None if party is None else party.bank_name) or "—"
