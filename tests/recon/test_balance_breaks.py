"""Balance findings: each period of the roll-forward that does not close, with a reported
balance that is off (it breaks both periods it bounds) listed once, on that balance."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pandas as pd
import pyarrow as pa
import pytest

from pixops.recon import ReconResult, reconcile
from tests.recon.builders import DAY, clean_pair

OPENING_AT = datetime(2026, 1, 15, 3, 0, tzinfo=UTC)  # midnight in São Paulo
CLOSING_AT = datetime(2026, 1, 16, 3, 0, tzinfo=UTC)  # the close of the 15th
OPENING_BASE = 5_000_000


def _net_base(statement: pa.Table) -> int:
    frame = statement.to_pandas(types_mapper=pd.ArrowDtype)
    settled = frame[frame["payment_status"] == "settled"]
    signed = settled["net_base"].where(settled["direction"] == "inbound", -settled["net_base"])
    return int(signed.sum())


def _reconcile(*off_by_base: int) -> ReconResult:
    """The day reconciled against the opening, then one snapshot an hour from the close of
    the 15th per value of `off_by_base`, each reported off by that many base units."""
    statement, ledger = clean_pair(6)
    right = OPENING_BASE + _net_base(statement)
    later = [
        (CLOSING_AT + timedelta(hours=hour), right + off) for hour, off in enumerate(off_by_base)
    ]
    return reconcile(
        statement, ledger, balances=[(OPENING_AT, OPENING_BASE), *later], start=DAY, end=DAY
    )


def _balance_rows(result: ReconResult) -> pd.DataFrame:
    return result.category("balance_difference")


def test_balances_that_close_find_nothing() -> None:
    result = _reconcile(0, 0, 0)
    assert _balance_rows(result).empty
    assert list(result.rollforward["difference_base"]) == [0, 0, 0]


def test_one_balance_off_is_one_finding_on_that_balance() -> None:
    result = _reconcile(-300, 0)
    assert list(result.rollforward["difference_base"]) == [-300, 300]
    rows = _balance_rows(result)
    assert len(rows) == 1
    row = rows.iloc[0]
    # What the balance should be in the ledger column, the reported one beside it: the
    # difference is reported minus expected, with the roll-forward's sign.
    assert int(row["statement_amount_base"]) - int(row["ledger_amount_base"]) == -300
    assert int(row["difference_base"]) == -300 == result.rollforward["difference_base"][0]
    assert row["business_date"] == DAY  # a balance at midnight closes the day before
    assert row["detail"] == (
        "the reported balance is below the opening plus the settled movements; the next"
        " period opens from it and is off by as much the other way, so this balance is the"
        " one to check, not the movements"
    )
    summary = result.summary.set_index("category")
    assert int(summary.loc["balance_difference", "difference_base"]) == -300
    assert int(summary.loc["balance_difference", "items"]) == 1


def test_a_period_that_does_not_close_is_one_finding() -> None:
    result = _reconcile(0, -300)
    rows = _balance_rows(result)
    assert list(rows["difference_base"]) == [-300]
    assert rows.iloc[0]["detail"] == (
        "the reported balance is below the opening plus the settled movements"
    )
    assert rows.iloc[0]["business_date"] == date(2026, 1, 16)  # at 01:00 on the 16th


def test_a_balance_reported_too_high_says_above() -> None:
    rows = _balance_rows(_reconcile(0, 300))
    assert list(rows["difference_base"]) == [300]
    assert rows.iloc[0]["detail"] == (
        "the reported balance is above the opening plus the settled movements"
    )


@pytest.mark.parametrize(
    ("off_by_base", "expected"),
    [
        # s1 off: p1 -300, p2 +300; s3 off: p3 -300 (a run of three: the third stays)
        ((-300, 0, -300), [-300, -300]),
        # two balances off, each on its own: both listed once
        ((-300, 0, 0, -200, 0), [-300, -200]),
        # the same error carried on: every period breaks by the same amount, no pairs
        ((-300, -600, -900), [-300, -300, -300]),
    ],
)
def test_breaks_pair_up_only_with_the_next_opposite(
    off_by_base: tuple[int, ...], expected: list[int]
) -> None:
    rows = _balance_rows(_reconcile(*off_by_base))
    assert list(rows["difference_base"]) == expected


def test_the_summary_leaves_balances_unsummed_and_the_text_says_local_times() -> None:
    result = _reconcile(-300, 0)
    row = result.summary.set_index("category").loc["balance_difference"]
    assert pd.isna(row["ledger_amount_base"])
    assert pd.isna(row["statement_amount_base"])
    assert str(result.summary["ledger_amount_base"].dtype) == "int64[pyarrow]"
    text = result.summary_text()
    assert "Balance 15/01/2026 00:00 to 16/01/2026 00:00 (America/Sao_Paulo):" in text
    assert "R$ 0,03 short" in text  # the reported closing is 300 base units short
    assert "R$ 0,03 over" in text  # so the next period, opening from it, is over
    balance_line = next(line for line in text.splitlines() if line.startswith("Balance does"))
    assert "ledger                  —" in balance_line
    assert "—" in result._repr_html_()
