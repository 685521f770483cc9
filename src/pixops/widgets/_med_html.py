"""What the MED panel draws: a case with its payment and history, and the "Defense
received" card."""

from __future__ import annotations

from typing import Final

from pixops.schema import FailedInbound, QrFallback, SettledTransaction, Transaction
from pixops.widgets._format import HtmlBlock, brl, html_table, label, local_time, message, outcome
from pixops.widgets._format import pairs as pairs_table
from pixops.widgets._med_flow import REASONS, MedFlow, Receipt
from pixops.widgets._med_rules import DECISIONS, case_heading

__all__ = ["case_html", "receipt_block"]

_HISTORY_COLUMNS: Final = (("at", "When"), ("what", "What happened"))


def case_html(flow: MedFlow) -> str:
    """The case shown: where it stands, its payment, and its history; empty for none."""
    case, payment = flow.case, flow.payment
    if case is None or payment is None:
        return ""
    heading = case_heading(case, flow.read_at or flow.now())
    decision = DECISIONS.get(str(case.analysis_result))
    summary = pairs_table(
        [
            ("Case", case.id),
            ("Status", label(case.status)),
            ("Decision", label(case.analysis_result) if decision else "not yet"),
            ("Reason", REASONS.get(str(case.reason), str(case.reason))),
            ("Disputed amount", brl(case.amount)),
            ("Blocked meanwhile", brl(case.blocked_amount)),
            ("Defense deadline", local_time(case.defense_deadline)),
            ("Payment", payment.transaction_id),
            ("Paid by", _payer(payment) or "—"),
            ("Payer's bank", _payer_bank(payment) or "—"),
            ("Payment amount", brl(payment.amount)),
            ("Paid at", local_time(_paid_at(payment))),
        ]
    )
    rows = [{"at": step.at, "what": step.what} for step in flow.history]
    history = html_table(rows, _HISTORY_COLUMNS, time_columns={"at"}, empty="No history.")
    return (
        f"{message(heading.text, heading.tone)}{summary}"
        f"<h4 style='margin:6px 0 2px'>History</h4>{history}"
    )


def receipt_block(receipt: Receipt) -> HtmlBlock:
    """The "Defense received" card, the service's answer folded away under it."""
    return outcome("Defense received", receipt.items, receipt.answer.model_dump(mode="json"))


def _payer(payment: Transaction) -> str | None:
    return None if isinstance(payment, FailedInbound) else payment.counterparty_name


def _payer_bank(payment: Transaction) -> str | None:
    if isinstance(payment, SettledTransaction | QrFallback):
        return payment.payer_bank_name
    return None


def _paid_at(payment: Transaction) -> object:
    if isinstance(payment, FailedInbound):
        return None
    return payment.completed_at or payment.created_at
