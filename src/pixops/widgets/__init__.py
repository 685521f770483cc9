"""ipywidgets panels for the people who run a PIX account day to day.

    import pixops
    from pixops.frames import load_statement
    from pixops.recon import reconcile
    from pixops.widgets import (
        LedgerMapPanel, MedDefensePanel, ReconDashboard, RefundPanel, TransactionInspector,
        check_service, findings_table,
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
"""

from pixops.widgets._base import Stopped, check_service, month_days
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
