"""ipywidgets panels for the people who run a PIX account day to day.

    import pixops
    from pixops.frames import load_statement
    from pixops.recon import reconcile
    from pixops.widgets import (
        LedgerMapPanel, MedDefensePanel, ReconDashboard, RefundPanel, TransactionInspector,
        check_service, findings_table, summary_table,
    )
    client = pixops.connect()
    check_service(client)          # a notebook's first cell: stop in one line if it is down
    RefundPanel(client)            # find a received payment, refund it, follow the outcome
    MedDefensePanel(client)        # MED disputes by deadline, submit a defense
    TransactionInspector(client)   # support: any identifier -> everything about it
    ReconDashboard(client, "data/sample_ledger.csv", day="2026-01-15",
                   balances="data/balances.csv")   # finance's day, explored and exported
    LedgerMapPanel("docs/examples/razao.csv")  # which column is what, amounts in R$;
                                   # saves razao.mapping.toml beside it for the next run
    statement = load_statement(client, "2026-01-14", "2026-01-16", tz="America/Sao_Paulo")
    result = reconcile(statement, "data/sample_ledger.csv", start="2026-01-15", end="2026-01-15")
    summary_table(result)          # a reconciliation per category (balances: checked?)
    findings_table(result)         # a reconciliation's findings, what to check first

The statement charts (`volume_by_day_figure`, `fees_by_day_figure`,
`status_by_day_figure`, `payer_banks_figure`, `received_by_hour_figure`) take a frame
from `pixops.frames.load_statement`. The panels hold no business rules: they ask the
client (the same API a merchant's own code uses) and show money in pt-BR reais. Each
also works headless: set its widgets' values and call its methods (or
`button.click()`), then read its widgets.

Importing `pixops.widgets` is cheap: each name loads its module (and ipywidgets, plotly,
pandas, DuckDB or the client, as that module needs) when first used (PEP 562).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pixops.widgets._base import ServiceStopped, Stopped, check_service, month_days
    from pixops.widgets._charts import (
        fees_by_day_figure,
        findings_figure,
        payer_banks_figure,
        received_by_hour_figure,
        status_by_day_figure,
        volume_by_day_figure,
    )
    from pixops.widgets._findings_table import findings_table, summary_table
    from pixops.widgets._format import (
        brl,
        count_text,
        decision_label,
        event_label,
        frame_table,
        label,
        local_time,
        plural,
        zone_text,
    )
    from pixops.widgets._inspector import TransactionInspector
    from pixops.widgets._inspector_html import movement_text
    from pixops.widgets._ledger_map import LedgerMapPanel
    from pixops.widgets._ledger_map_model import LedgerMapDraft
    from pixops.widgets._med import MAX_DEFENSE_CHARS, MedDefensePanel, urgency
    from pixops.widgets._recon import ReconDashboard, read_balance_snapshots
    from pixops.widgets._refund import RefundPanel
    from pixops.widgets._refund_words import REFUND_REASONS, RefundReason

__all__ = [
    "MAX_DEFENSE_CHARS",
    "REFUND_REASONS",
    "LedgerMapDraft",
    "LedgerMapPanel",
    "MedDefensePanel",
    "ReconDashboard",
    "RefundPanel",
    "RefundReason",
    "ServiceStopped",
    "Stopped",
    "TransactionInspector",
    "brl",
    "check_service",
    "count_text",
    "decision_label",
    "event_label",
    "fees_by_day_figure",
    "findings_figure",
    "findings_table",
    "frame_table",
    "label",
    "local_time",
    "month_days",
    "movement_text",
    "payer_banks_figure",
    "plural",
    "read_balance_snapshots",
    "received_by_hour_figure",
    "status_by_day_figure",
    "summary_table",
    "urgency",
    "volume_by_day_figure",
    "zone_text",
]

#: Where each public name lives; loaded on first access.
_LAZY = {
    "LedgerMapDraft": "pixops.widgets._ledger_map_model",
    "LedgerMapPanel": "pixops.widgets._ledger_map",
    "MAX_DEFENSE_CHARS": "pixops.widgets._med",
    "MedDefensePanel": "pixops.widgets._med",
    "REFUND_REASONS": "pixops.widgets._refund_words",
    "ReconDashboard": "pixops.widgets._recon",
    "RefundPanel": "pixops.widgets._refund",
    "RefundReason": "pixops.widgets._refund_words",
    "ServiceStopped": "pixops.widgets._base",
    "Stopped": "pixops.widgets._base",
    "TransactionInspector": "pixops.widgets._inspector",
    "brl": "pixops.widgets._format",
    "check_service": "pixops.widgets._base",
    "count_text": "pixops.widgets._format",
    "decision_label": "pixops.widgets._format",
    "event_label": "pixops.widgets._format",
    "fees_by_day_figure": "pixops.widgets._charts",
    "findings_figure": "pixops.widgets._charts",
    "findings_table": "pixops.widgets._findings_table",
    "frame_table": "pixops.widgets._format",
    "label": "pixops.widgets._format",
    "local_time": "pixops.widgets._format",
    "month_days": "pixops.widgets._base",
    "movement_text": "pixops.widgets._inspector_html",
    "payer_banks_figure": "pixops.widgets._charts",
    "plural": "pixops.widgets._format",
    "read_balance_snapshots": "pixops.widgets._recon",
    "received_by_hour_figure": "pixops.widgets._charts",
    "status_by_day_figure": "pixops.widgets._charts",
    "summary_table": "pixops.widgets._findings_table",
    "urgency": "pixops.widgets._med",
    "volume_by_day_figure": "pixops.widgets._charts",
    "zone_text": "pixops.widgets._format",
}


def __getattr__(name: str) -> Any:
    """Load a public name's module on first access (PEP 562)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'pixops.widgets' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
