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
        if "pixops-findings" in html:
            return _table_rows(html)
    raise AssertionError("the notebook shows no 'What to check' table")


def _finding_lines(cell: str) -> list[str]:
    """A finding cell's lines: the category, the reference, the detail."""
    return [re.sub(r"<[^>]+>", "", line).strip() for line in cell.split("<br>")]


def _texts(cells: list[str]) -> list[str]:
    """The texts of cells, each line of a stacked cell (statement under ledger) apart."""
    parts = (re.sub(r"<[^>]+>", "", part).strip() for c in cells for part in c.split("<br>"))
    return [part for part in parts if part]


def _markdown() -> str:
    notebook = nbformat.read(_NOTEBOOK, as_version=4)  # type: ignore[no-untyped-call]
    return "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")


def test_the_fee_finding_shows_the_fees_as_the_summary_does() -> None:
    """The summary's 'Fee differs' row reads R$ 0,40 against R$ 0,50, difference R$ 0,10:
    the finding's row below says the same, not the agreeing amounts and 'R$ 0,00'."""
    rows = _what_to_check()
    assert _texts(rows[0]) == ["Finding", "Ledger", "Statement", "Difference"]
    fee = next(row for row in rows if _finding_lines(row[0])[0] == "Fee differs")
    assert _texts(fee[1:]) == ["R$ 0,40", "R$ 0,50", "R$ 0,10"]
    assert _finding_lines(fee[0])[1:] == [
        "payout-1211383-14305",
        "fees differ; the amount, R$\u00a03.477,32, agrees",
    ]


def test_what_to_check_fits_a_narrow_notebook() -> None:
    """Six columns (category, reference, three amounts, detail) did not fit Lab at 1024 px
    with the file browser open: the detail shrank to a letter a line, the difference ran
    off. The category, the reference and the detail share one column that wraps, and the
    statement's figure goes under the ledger's (four columns did not fit at 800 px)."""
    rows = _what_to_check()
    assert {len(row) for row in rows} == {3}
    assert all(len(_finding_lines(row[0])) == 3 for row in rows[1:])
    # A finding is at most a comfortable line wide: in the report's full-width page the
    # long balance detail pushed the amounts some 900 px away from their finding.
    assert all(row[0].startswith('<div style="max-width:32em">') for row in rows[1:])


def test_the_findings_are_listed_in_the_summarys_order() -> None:
    """The summary, the chart and this table list the categories in one order."""
    from pixops.recon import ATTENTION_CATEGORIES, CATEGORY_LABELS

    shown = [_finding_lines(row[0])[0] for row in _what_to_check()[1:]]
    order = [CATEGORY_LABELS[c] for c in ATTENTION_CATEGORIES]
    assert shown == sorted(shown, key=order.index)


def test_the_balance_finding_reads_as_the_text_above_it_says() -> None:
    """A balance finding's Ledger is opening + movements and its Statement the reported
    balance (the roll-forward's Expected and Reported): the notes said the other way round."""
    balance = next(
        row for row in _what_to_check() if _finding_lines(row[0])[0] == "Balance does not close"
    )
    assert _texts(balance[1:]) == ["R$ 8.399.739,0198", "R$ 8.399.589,0198", "-R$ 150,00"]
    figures = [o["data"][_PLOTLY] for o in _outputs() if _PLOTLY in o.get("data", {})]
    (waterfall,) = [f for f in figures if f["data"][0]["type"] == "waterfall"]
    axis = waterfall["layout"]["xaxis"]
    amounts = [text.split("<br>")[1] for text in axis["ticktext"]]
    steps = dict(zip(axis["tickvals"], amounts, strict=True))
    assert [steps["Expected"], steps["Reported"]] == _texts(balance[1:])[:2]
    notes = " ".join(_markdown().split())
    assert "*Ledger* is what the balance should be" in notes
    assert "*Statement* the balance reported" in notes
    # The summary's balance row shows only the difference: its note says which way it goes.
    assert "*Balance does not close* row it is the balance reported minus what it should be" in (
        notes
    )


def test_the_roll_forward_says_the_treasury_closing_is_short() -> None:
    figures = [o["data"][_PLOTLY] for o in _outputs() if _PLOTLY in o.get("data", {})]
    titles = [figure["layout"]["title"]["text"] for figure in figures]
    balance = [title for title in titles if title.startswith("Balance ")]
    assert balance == [
        "Balance 15/01/2026 00:00 to 16/01/2026 00:00<br>Reported closing is R$ 150,00 short"
        " of<br>opening + movements"
    ]
