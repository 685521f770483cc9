"""The daily report of a ledger that pairs with nothing says why, in one sentence on top."""

from __future__ import annotations

import html
import re
from datetime import date
from pathlib import Path

import pytest

from pixops.report import daily_report
from tests.recon.builders import foreign_ledger

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "03_daily_reconciliation.ipynb"

pytestmark = pytest.mark.timeout(600)


def test_the_report_names_a_ledger_of_other_books(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PIXOPS_BASE_URL", raising=False)
    ledger = foreign_ledger(tmp_path / "books.csv")
    said: list[str] = []
    day, page = date(2026, 1, 15), tmp_path / "recon.html"
    # Without balances (`pixops recon --html` without --balances): the headline says the
    # balance was not checked; notebook 03's stored output has the checked line (nbval).
    out = daily_report(
        day, page, notebook=NOTEBOOK, ledger=ledger, without_balances=True, say=said.append
    )
    text = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", out.read_text("utf-8"))))
    heading = text.index("Business day 15/01/2026 (São Paulo time): 599 findings to check")
    warning = text.index(
        "None of the 301 ledger entries pairs with any of the 298 statement movements of"
        " 15/01/2026: the ledger file books.csv is most likely not this account's (or not"
        " this day's); set ledger_path in the settings cell (--ledger on the command line)"
        " to your account's ledger file."
    )
    assert heading < warning < text.index("What to check")
    # A scheduler's log shows no page: the run says which service, the verdict and why.
    assert said[0].startswith("Using the sandbox: demo month of 'Loja Simulada'")
    assert said[1:] == [
        "Business day 15/01/2026 (São Paulo time): 599 findings to check",
        "None of the 301 ledger entries pairs with any of the 298 statement movements of"
        " 15/01/2026: the ledger file books.csv is most likely not this account's (or not"
        " this day's); set ledger_path in the settings cell (--ledger on the command line)"
        " to your account's ledger file.",
        # How the ledger was read, last (docs/ledger-mapping.md).
        "Ledger books.csv read as: comma, UTF-8, whole numbers, yyyy-mm-dd, amounts in base units.",
        "Balance not checked (no balances given).",
    ]
