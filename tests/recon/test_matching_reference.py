"""Property: the shipped steps give exactly the result of the matching as it was written.

`tests.recon.legacy_matching` holds the steps `cand`, `picks`, `claims`, `pairs` and
`matched` as they were before the pairs' bits were decided in the candidate join. Both
run on generated inputs full of what the ranking has to settle: ids listed twice (copies),
identifiers shared between rows and repeated inside one, entries naming the same row,
several rows, or none, values missing, days on both sides of the scope.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any
from unittest import mock

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pixops.recon import ReconResult, reconcile
from tests.recon.builders import ledger_table, statement_row, statement_table
from tests.recon.legacy_matching import legacy_steps

# Copies of an id are these tests' input on purpose; `reconcile` warns of them for analysts.
pytestmark = pytest.mark.filterwarnings("ignore:.*repeat an id of another row:UserWarning")

KEYS = ["k0", "k1", "k2", "k3"]  # identifiers rows and entries may share
DAYS = [date(2026, 1, 14), date(2026, 1, 15), date(2026, 1, 16)]
# 02:30 UTC is 23:30 the day before in São Paulo: business days straddle UTC days.
START = datetime(2026, 1, 14, 2, 30, tzinfo=UTC)


def _key(draw: Any, own: str, nullable: bool) -> str | None:
    options = st.sampled_from([*KEYS, own])
    return draw(st.none() | options) if nullable else draw(options)


@st.composite
def statement_rows(draw: Any) -> list[dict[str, Any]]:
    rows = []
    for n in range(draw(st.integers(min_value=0, max_value=10))):
        direction = draw(st.sampled_from(["inbound", "outbound"]))
        row = statement_row(
            n,
            amount_base=draw(st.sampled_from([100, 200, 10_000, 20_000])),
            fee_base=draw(st.sampled_from([0, 5])),
            direction=direction,
            status=draw(st.sampled_from(["settled", "settled", "processing", "rejected"])),
            created_at=START + timedelta(hours=draw(st.integers(0, 60))),
            original=draw(st.none() | st.sampled_from(["k0", "tx-1"])),
            row_id=draw(st.sampled_from(["id-a", "id-b", f"id-{n}", f"id-{n}"])),
        )
        if draw(st.integers(0, 9)) == 0:  # a value missing: the pair can neither match nor differ
            row[draw(st.sampled_from(["payment_status", "direction"]))] = None
        row["transaction_id"] = _key(draw, f"tx-{n}", nullable=False)
        row["end_to_end_id"] = _key(draw, f"e2e-{n}", nullable=True)
        row["external_id"] = _key(draw, f"ext-{n}", nullable=True)
        row["tag"] = _key(draw, f"tag-{n}", nullable=True)
        rows.append(row)
    return rows


@st.composite
def ledger_rows(draw: Any) -> list[dict[str, Any]]:
    references = [*KEYS, "tx-0", "tx-1", "e2e-2", "ext-3", "tag-4", "pedido-9"]
    return [
        {
            "entry_id": f"L{n}",
            "reference": draw(st.sampled_from(references)),
            "direction": draw(st.sampled_from([None, "inbound", "outbound"])),
            "amount_base": draw(st.sampled_from([100, 200, 10_000, 20_000])),
            "fee_base": draw(st.sampled_from([None, 0, 5])),
            "status": draw(st.sampled_from([None, "settled", "processing", "rejected"])),
            "booked_on": draw(st.sampled_from(DAYS)),
        }
        for n in range(draw(st.integers(min_value=0, max_value=10)))
    ]


def _rows(frame: pd.DataFrame) -> list[tuple[str, ...]]:
    """The frame's rows in a canonical order (rows that tie on the sort keys may come out
    in either order from either run)."""
    return sorted(tuple(str(value) for value in row) for row in frame.itertuples(index=False))


def _outputs(result: ReconResult) -> dict[str, Any]:
    return {
        "matched": _rows(result.matched),
        "discrepancies": _rows(result.discrepancies),
        "refunds": _rows(result.refunds),
        "rollforward": _rows(result.rollforward),
        "summary": list(result.summary.itertuples(index=False)),
        "dtypes": [
            list(frame.dtypes) for frame in (result.matched, result.discrepancies, result.summary)
        ],
    }


#: Independent cases reconciled together in one run: a run's cost is mostly fixed (the
#: steps' SQL), so six cases cost about one. Each case's ids, keys and references carry
#: its own prefix, so a case's rows pair only among themselves, as they would alone.
CASES = 6
_STATEMENT_IDS = (
    "id",
    "transaction_id",
    "end_to_end_id",
    "external_id",
    "tag",
    "original_transaction_id",
)
_LEDGER_IDS = ("entry_id", "reference")


def _apart(rows: list[dict[str, Any]], fields: tuple[str, ...], case: int) -> list[dict[str, Any]]:
    """`rows` with each identifier in `fields` prefixed by the case's number."""
    return [
        {
            name: f"c{case}:{value}" if name in fields and value is not None else value
            for name, value in row.items()
        }
        for row in rows
    ]


def _together(
    cases: list[tuple[list[dict[str, Any]], list[dict[str, Any]]]],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The cases' statement rows and ledger entries as one input, each case apart."""
    statement = [r for n, (rows, _) in enumerate(cases) for r in _apart(rows, _STATEMENT_IDS, n)]
    ledger = [r for n, (_, rows) in enumerate(cases) for r in _apart(rows, _LEDGER_IDS, n)]
    return statement, ledger


# 7 examples of six cases each: 42 cases, as many as the 40 single ones before.
@settings(max_examples=7, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(statement_rows(), ledger_rows()), min_size=CASES, max_size=CASES),
    st.sampled_from([None, *DAYS]),
)
def test_the_shipped_steps_match_the_matching_as_it_was(
    cases: list[tuple[list[dict[str, Any]], list[dict[str, Any]]]], day: date | None
) -> None:
    statement, ledger = _together(cases)
    stmt, led = statement_table(statement), ledger_table(ledger)
    balances = [(START, 10**9), (START + timedelta(days=3), 10**9 + 1)]

    def run() -> ReconResult:
        return reconcile(stmt, led, balances=balances, start=day, end=day)

    shipped = run()
    with mock.patch("pixops.recon._steps.STEPS", legacy_steps()):
        legacy = run()
    assert _outputs(shipped) == _outputs(legacy)


def test_the_reference_runs_other_text() -> None:
    """A comparison of the shipped steps with themselves would prove nothing."""
    from pixops.recon import STEPS

    old = {name: sql for name, sql, _ in legacy_steps()}
    new = {name: sql for name, sql, _ in STEPS}
    assert set(old) == set(new)
    assert {name for name in old if old[name] != new[name]} == {
        "stmt_keys",
        "cand",
        "picks",
        "claims",
        "pairs",
        "matched",
        "stmt",
        "unclaimed",
    }
