"""The summary chart's hover label reads like the summary table: counts pt-BR, and the
difference, the one figure a balance row has."""

from __future__ import annotations

from pixops.recon import reconcile
from tests.recon.builders import DAY, ledger_row, ledger_table, statement_row, statement_table


def test_the_summary_hover_groups_counts_and_gives_the_difference() -> None:
    amounts = [10_000 + n for n in range(1_200)]
    statement = [statement_row(n, amount_base=amount) for n, amount in enumerate(amounts)]
    ledger = [
        ledger_row(f"L{n}", f"PIXIN{n:06d}", amount_base=amount) for n, amount in enumerate(amounts)
    ]
    ledger.append(ledger_row("L-x", "pedido-1", amount_base=5_000_000))
    result = reconcile(statement_table(statement), ledger_table(ledger), start=DAY, end=DAY)
    texts = result.summary_figure().data[0].hovertext
    hover = dict(zip(result.summary["category"], texts, strict=True))
    assert "items: 1.200<br>" in hover["matched"]
    assert hover["matched"].endswith("difference: R$ 0,00")
    assert hover["missing_in_statement"].endswith("difference: -R$ 500,00")
