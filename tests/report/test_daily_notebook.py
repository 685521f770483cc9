"""What the daily reconciliation notebook (the scheduled report's page) shows a reader.

The stored outputs are the ones nbval checks against a fresh run of the notebook, so
reading them here checks what the notebook shows on the demo month.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import nbformat

_NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "03_daily_reconciliation.ipynb"
_PLOTLY = "application/vnd.plotly.v1+json"


def _outputs() -> list[dict[str, Any]]:
    notebook = nbformat.read(_NOTEBOOK, as_version=4)  # type: ignore[no-untyped-call]
    return [output for cell in notebook.cells for output in cell.get("outputs", [])]


def _table_rows(html: str) -> list[list[str]]:
    rows = re.findall(r"<tr>(.*?)</tr>", html, flags=re.DOTALL)
    cells = [re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, flags=re.DOTALL) for row in rows]
    return [[re.sub(r"[ \t\n]+", " ", cell).strip() for cell in row] for row in cells]


def _what_to_check() -> list[list[str]]:
    for output in _outputs():
        html = output.get("data", {}).get("text/html", "")
        if "what-to-check" in html:
            return _table_rows(html)
    raise AssertionError("the notebook shows no 'What to check' table")


def test_the_fee_finding_shows_the_fees_as_the_summary_does() -> None:
    """The summary's 'Fee differs' row reads R$ 0,40 against R$ 0,50, difference R$ 0,10:
    the finding's row below says the same, not the agreeing amounts and 'R$ 0,00'."""
    rows = _what_to_check()
    assert rows[0] == ["Category", "Reference", "Ledger", "Statement", "Difference", "Detail"]
    fee = next(row for row in rows if row[0] == "Fee differs")
    assert fee[2:5] == ["R$ 0,40", "R$ 0,50", "R$ 0,10"]
    assert fee[5] == "fees differ; the amount, R$\u00a03.477,32, agrees"


def test_the_roll_forward_says_the_treasury_closing_is_short() -> None:
    figures = [o["data"][_PLOTLY] for o in _outputs() if _PLOTLY in o.get("data", {})]
    titles = [figure["layout"]["title"]["text"] for figure in figures]
    balance = [title for title in titles if title.startswith("Balance ")]
    assert balance == [
        "Balance 15/01/2026 00:00 to 16/01/2026 00:00<br>Reported closing is R$ 150,00 short"
        " of opening + movements"
    ]
