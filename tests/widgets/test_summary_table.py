"""The summary a reconciliation shows (notebook 03, the dashboard, the CLI): one verdict
per run, the balance "not checked" when no balances were given (issue 27 §4), and the
ledger's figure above the statement's so the table fits at 800 px (§5)."""

from __future__ import annotations

import re

from pixops.recon import NOT_CHECKED, ReconResult, reconcile
from pixops.widgets import findings_figure, summary_table
from tests.recon.builders import DAY, clean_pair
from tests.recon.test_balance_breaks import _reconcile


def _texts(markup: str) -> list[list[str]]:
    rows = re.findall(r"<tr>(.*?)</tr>", markup, flags=re.DOTALL)
    return [[p for p in re.split(r"<[^>]+>", row) if p.strip()] for row in rows]


def _without_balances() -> ReconResult:
    return reconcile(*clean_pair(3), start=DAY, end=DAY)


def test_without_balances_the_balance_is_not_checked_everywhere() -> None:
    result = _without_balances()
    assert not result.balances_checked
    assert result.category_summary("balance_difference") == NOT_CHECKED
    lines = result.summary_text().splitlines()
    line = next(line for line in lines if line.startswith("Balance does not close"))
    assert line.endswith(NOT_CHECKED)
    assert "R$" not in line  # no "0 ... R$ 0,00" read as a balance that closes
    assert NOT_CHECKED in result._repr_html_()
    rows = _texts(summary_table(result).markup)
    assert ["Balance does not close", NOT_CHECKED] in rows
    assert lines[-1] == "Tolerances: exact (no tolerance)"  # the rules beyond identifiers
    assert "Tolerances: exact (no tolerance)" in summary_table(result).markup
    # The charts too: neither the findings' bar nor the summary's hover reads "0 items".
    bars = findings_figure(result).data[0]
    at = next(i for i, name in enumerate(bars.y) if "Balance" in name)
    assert NOT_CHECKED in bars.y[at].replace("<br>", " ")
    assert bars.hovertext[at].replace("<br>", " ").endswith(NOT_CHECKED)
    assert "0 items" not in bars.hovertext[at]
    summary = result.summary_figure().data[0]
    at = list(summary.x).index("Balance does not close")
    assert summary.hovertext[at] == f"Balance does not close<br>{NOT_CHECKED}"


def test_with_balances_the_balance_row_has_its_figures() -> None:
    result = _reconcile(-1_500_000)
    assert result.balances_checked
    assert result.category_summary("balance_difference") is None
    assert NOT_CHECKED not in result.summary_text()
    rows = _texts(summary_table(result).markup)
    assert ["Balance does not close", "1 item", "—", "—", "-R$ 150,00"] in rows
    bars = findings_figure(result).data[0]
    at = next(i for i, name in enumerate(bars.y) if "Balance" in name)
    assert "not checked" not in bars.y[at]
    assert "1 item, difference -R$ 150,00" in bars.hovertext[at]


def test_the_ledger_sits_above_the_statement_in_three_columns() -> None:
    result = _without_balances()
    markup = summary_table(result).markup
    header = re.findall(r"<th[^>]*>(.*?)</th>", markup, flags=re.DOTALL)
    assert len(header) == 3  # Category, Ledger over Statement, Difference
    rows = _texts(markup)
    assert rows[0] == ["Category", "Ledger", "Statement", "Difference"]
    assert rows[1] == ["Matched", "3 items", "R$ 300,00", "R$ 300,00", "R$ 0,00"]
