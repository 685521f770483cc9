"""Property: a statement reconciled against its own ledger is all matched, exactly."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pandas as pd
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from pixops.recon import CATEGORIES, reconcile
from tests.recon.builders import ledger_row, ledger_table, statement_row, statement_table

SP = ZoneInfo("America/Sao_Paulo")
START = datetime(2026, 1, 14, 0, 0, tzinfo=UTC)


@st.composite
def statements(draw: Any) -> list[dict[str, Any]]:
    count = draw(st.integers(min_value=0, max_value=25))
    rows = []
    for n in range(count):
        direction = draw(st.sampled_from(["inbound", "outbound"]))
        rows.append(
            statement_row(
                n,
                amount_base=draw(st.integers(min_value=1, max_value=10**15)),
                fee_base=draw(st.integers(min_value=0, max_value=10**6)),
                direction=direction,
                status=draw(st.sampled_from(["settled", "processing", "rejected", "failed"])),
                created_at=START + timedelta(seconds=draw(st.integers(0, 3 * 86_400))),
                external_id=draw(st.none() | st.just(f"pedido-{n}")),
                original=draw(st.none() | st.just("PIXIN999999")),
            )
        )
    return rows


def own_ledger(rows: list[dict[str, Any]]) -> pa.Table:
    """What a perfect back office would have booked for these rows."""
    return ledger_table(
        [
            ledger_row(
                f"L{n}",
                row["external_id"] or row["transaction_id"],
                amount_base=row["amount_base"],
                direction=row["direction"],
                fee_base=row["fee_base"],
                status=row["payment_status"],
                booked_on=(row["created_at"]).astimezone(SP).date(),
            )
            for n, row in enumerate(rows)
        ]
    )


@settings(max_examples=40, deadline=None)
@given(statements(), st.booleans())
def test_a_statement_against_itself_is_all_matched(
    rows: list[dict[str, Any]], scoped: bool
) -> None:
    statement = statement_table(rows)
    first = (START + timedelta(days=1)).date() if scoped else None
    result = reconcile(statement, own_ledger(rows), start=first, end=first)
    in_scope = [
        row for row in rows if first is None or row["created_at"].astimezone(SP).date() == first
    ]
    assert result.counts == dict.fromkeys(CATEGORIES, 0) | {"matched": len(in_scope)}
    assert result.discrepancies.empty
    total = sum(row["amount_base"] for row in in_scope)
    matched = result.summary.set_index("category").loc["matched", "ledger_amount_base"]
    assert int(matched) == total
    assert result.summary["ledger_amount_base"].dtype == pd.ArrowDtype(pa.int64())


@st.composite
def near_ledgers(draw: Any, rows: list[dict[str, Any]]) -> pa.Table:
    """A ledger for these rows with each value perhaps off: amount and fee by a little,
    the fee missing, another status, direction or day, a reference naming nothing."""
    entries = []
    for n, row in enumerate(rows):
        reference = draw(st.sampled_from([row["transaction_id"], row["external_id"], "nada"]))
        fee = row["fee_base"] + draw(st.sampled_from([0, 0, 1, -1]))
        entries.append(
            ledger_row(
                f"L{n}",
                reference or "nada",
                amount_base=row["amount_base"] + draw(st.sampled_from([0, 0, 1, 99, -1])),
                direction=draw(st.sampled_from([row["direction"], "inbound", "outbound"])),
                fee_base=draw(st.none() | st.just(max(fee, 0))),
                status=draw(st.sampled_from([row["payment_status"], "settled", "failed"])),
                booked_on=(row["created_at"] + timedelta(days=draw(st.integers(-1, 1))))
                .astimezone(SP)
                .date(),
            )
        )
    return ledger_table(entries)


@settings(max_examples=20, deadline=None)
@given(st.data(), statements())
def test_the_exact_candidates_are_the_candidates_with_no_tolerance(
    data: st.DataObject, rows: list[dict[str, Any]]
) -> None:
    """`EXACT`'s `cand` (no tolerance, a ledger in base units) ranks and marks every
    candidate as `CAND` does, whatever differs between the two sides."""
    from pixops.recon._database import cursor
    from pixops.recon._run import prepare_inputs
    from pixops.recon._steps import _exact, run_steps

    inputs = prepare_inputs(statement_table(rows), data.draw(near_ledgers(rows)))
    assert _exact(inputs)
    found = []
    for shortcuts in (True, False):
        con = cursor()
        with run_steps(con, "America/Sao_Paulo", inputs, until="cand", shortcuts=shortcuts):
            found.append(con.sql("SELECT * FROM cand ORDER BY ALL").fetchall())
        con.close()
    assert found[0] == found[1]
    assert len(found[0]) >= len(rows)
