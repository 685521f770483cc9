"""A ledger that pairs with nothing (another account's or day's) is named in one sentence."""

from __future__ import annotations

from datetime import timedelta

import pytest

from pixops.recon import SAMPLE_LEDGER_NAME, ReconResult, reconcile
from tests.recon.builders import (
    DAY,
    clean_pair,
    ledger_row,
    ledger_table,
    statement_row,
    statement_table,
)


def _unrelated(entries: int, movements: int) -> ReconResult:
    """A statement and a ledger whose references name none of its movements."""
    stmt = statement_table([statement_row(n) for n in range(movements)])
    ledger = ledger_table([ledger_row(f"L{n}", f"other-books-{n}") for n in range(entries)])
    return reconcile(stmt, ledger, start=DAY, end=DAY)


def test_nothing_paired_names_both_sides_the_file_and_the_setting() -> None:
    result = _unrelated(3, 4)
    assert result.unpaired == (3, 4)
    assert result.ledger_warning("/books/ledger-2026.csv", setting="--ledger") == (
        "None of the 3 ledger entries pairs with any of the 4 statement movements of"
        " 15/01/2026: the ledger file ledger-2026.csv is most likely not this account's"
        " (or not this day's); set --ledger to your account's ledger file."
    )
    assert result.needs_attention  # the findings stay listed: the sentence explains them


def test_the_demo_months_ledger_is_named_as_such() -> None:
    text = _unrelated(2, 2).ledger_warning(f"../data/{SAMPLE_LEDGER_NAME}", setting="ledger_path")
    assert text is not None
    assert "sample_ledger.csv is the demo month's ledger, most likely not this account's" in text
    assert text.endswith("set ledger_path to your account's ledger file.")


def test_a_ledger_with_no_entry_on_the_day_says_so() -> None:
    result = _unrelated(0, 2)
    assert result.unpaired == (0, 2)
    text = result.ledger_warning()
    assert text is not None
    assert text.startswith("The ledger has no entry to pair with the 2 statement movements")
    assert text.endswith("set the ledger path to your account's ledger file.")


def test_a_range_of_days_says_these_days() -> None:
    stmt = statement_table([statement_row(1)])
    ledger = ledger_table([ledger_row("L1", "elsewhere")])
    text = reconcile(stmt, ledger, start=DAY, end=DAY + timedelta(days=1)).ledger_warning()
    assert text is not None
    assert "of 15/01/2026 to 16/01/2026" in text
    assert "(or not these days')" in text


@pytest.mark.parametrize("planted", ["amount", "match"])
def test_one_pair_is_enough_for_no_warning(planted: str) -> None:
    """A pair that differs (here the amount) still pairs: the ledger is this account's."""
    amount = 1_000_000 if planted == "match" else 2_000_000
    stmt = statement_table([statement_row(n) for n in range(3)])
    ledger = [ledger_row(f"L{n}", f"other-books-{n}") for n in range(3)]
    ledger.append(ledger_row("L-real", "PIXIN000001", amount_base=amount))
    result = reconcile(stmt, ledger_table(ledger), start=DAY, end=DAY)
    assert result.counts["matched" if planted == "match" else "amount_mismatch"] == 1
    assert (result.unpaired, result.ledger_warning("x.csv")) == (None, None)


def test_a_clean_day_and_an_empty_statement_give_no_warning() -> None:
    stmt, ledger = clean_pair(3)
    assert reconcile(stmt, ledger, start=DAY, end=DAY).ledger_warning() is None
    empty = reconcile(stmt.slice(0, 0), ledger, start=DAY, end=DAY)
    assert empty.counts["missing_in_statement"] == 3
    assert (empty.unpaired, empty.ledger_warning()) == (None, None)


@pytest.mark.parametrize(
    ("entries", "movements", "opening"),
    [
        (1, 1, "The one ledger entry does not pair with the one statement movement of"),
        (1, 3, "The one ledger entry does not pair with any of the 3 statement movements of"),
        (2, 1, "None of the 2 ledger entries pairs with the one statement movement of"),
        (0, 1, "The ledger has no entry to pair with the one statement movement of"),
    ],
)
def test_one_entry_or_one_movement_reads_in_the_singular(
    entries: int, movements: int, opening: str
) -> None:
    text = _unrelated(entries, movements).ledger_warning()
    assert text is not None
    assert text.startswith(opening)
