"""`pixops.recon.reconcile`: every category planted and found, nothing else on clean data."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from itertools import pairwise

import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pixops.recon import CATEGORIES, reconcile
from tests.recon.builders import (
    DAY,
    NOON,
    clean_pair,
    ledger_row,
    ledger_table,
    statement_row,
    statement_table,
)

# Copies of an id are these tests' input on purpose; `reconcile` warns of them for analysts.
pytestmark = pytest.mark.filterwarnings("ignore:.*repeat an id of another row:UserWarning")

OPENING_AT = datetime(2026, 1, 15, 3, 0, tzinfo=UTC)
CLOSING_AT = datetime(2026, 1, 17, 3, 0, tzinfo=UTC)


def _balances(statement: pa.Table, opening_base: int, off_by_base: int = 0) -> list:
    frame = statement.to_pandas(types_mapper=pd.ArrowDtype)
    settled = frame[frame["payment_status"] == "settled"]
    signed = settled["net_base"].where(settled["direction"] == "inbound", -settled["net_base"])
    closing = opening_base + int(signed.sum()) + off_by_base
    return [(OPENING_AT, opening_base), (CLOSING_AT, closing)]


def test_clean_data_is_all_matched_and_nothing_else() -> None:
    statement, ledger = clean_pair(20)
    result = reconcile(
        statement, ledger, balances=_balances(statement, 5_000_000), start=DAY, end=DAY
    )
    assert result.counts == dict.fromkeys(CATEGORIES, 0) | {"matched": 20}
    assert not result.needs_attention
    assert result.discrepancies.empty
    assert int(result.rollforward["difference_base"].iloc[0]) == 0
    # A ledger in base units cannot round: its summary has no rounding row.
    assert list(result.summary["category"]) == [c for c in CATEGORIES if c != "rounding"]


def _planted() -> tuple[pa.Table, pa.Table, pd.DataFrame, list]:
    stmt = [statement_row(n) for n in range(5)]  # 0-4 clean
    ledger = [ledger_row(f"L{n}", f"PIXIN{n:06d}") for n in range(5)]
    # missing in statement: the ledger expects a payment that never came
    ledger.append(ledger_row("L-miss", "pedido-404"))
    # missing in ledger: a settled payment nobody booked
    stmt.append(statement_row(10))
    # amount mismatch
    stmt.append(statement_row(11, amount_base=1_050_000))
    ledger.append(ledger_row("L-amount", "PIXIN000011"))
    # fee mismatch
    stmt.append(statement_row(12))
    ledger.append(ledger_row("L-fee", "PIXIN000012", fee_base=5_000))
    # status mismatch: the ledger expects a settled payout, the central bank rejected it
    stmt.append(statement_row(13, direction="outbound", status="rejected", fee_base=5_000))
    ledger.append(ledger_row("L-status", "PIXOUT000013", direction="outbound"))
    # duplicate, ledger side: two entries book the same payment
    stmt.append(statement_row(14))
    ledger.append(ledger_row("L-dup-a", "PIXIN000014"))
    ledger.append(ledger_row("L-dup-b", "PIXIN000014"))
    # duplicate, statement side: the customer paid order 77 twice
    stmt.append(statement_row(15, external_id="pedido-77"))
    stmt.append(statement_row(16, external_id="pedido-77"))
    ledger.append(ledger_row("L-77", "pedido-77"))
    # duplicate, statement side: the same id exported twice
    stmt.append(statement_row(17))
    stmt.append(statement_row(17))
    ledger.append(ledger_row("L-17", "PIXIN000017"))
    # timing: paid 00:30 on the 16th in São Paulo, booked on the 15th
    late = datetime(2026, 1, 16, 3, 30, tzinfo=UTC) - timedelta(seconds=18)
    stmt.append(statement_row(18, created_at=late))
    ledger.append(ledger_row("L-late", "PIXIN000018"))
    # refund of payment 0, not booked
    stmt.append(
        statement_row(
            19, direction="outbound", fee_base=0, amount_base=400_000, original="PIXIN000000"
        )
    )
    # unit error: centavos written where base units belong (100x)
    stmt.append(statement_row(20))
    ledger.append(ledger_row("L-unit", "PIXIN000020", amount_base=10_000))
    statement = statement_table(stmt)
    hooks = pd.DataFrame(
        {
            "type": ["pix.payout.confirmed"],
            "transaction_id": ["PIXOUT000013"],
            "original_transaction_id": [None],
            "created_at": [NOON],
        }
    ).astype({"created_at": "datetime64[us, UTC]"})
    balances = _balances(statement.slice(0, statement.num_rows - 1), 5_000_000, off_by_base=-300)
    return statement, ledger_table(ledger), hooks, balances


@pytest.fixture(scope="module")
def planted() -> object:
    statement, ledger, hooks, balances = _planted()
    return reconcile(statement, ledger, webhooks=hooks, balances=balances, start=DAY, end=DAY)


def test_every_category_is_found(planted: object) -> None:
    counts = planted.counts  # type: ignore[attr-defined]
    assert counts == {
        "matched": 8,  # 0-4, and the first booking of payments 14, 15 and 17
        "rounding": 0,  # a ledger in base units: nothing to round
        "missing_in_statement": 1,
        "missing_in_ledger": 1,
        "amount_mismatch": 1,
        "fee_mismatch": 1,
        "status_mismatch": 2,
        "duplicate": 3,
        "timing_difference": 1,
        "unbooked_refund": 1,
        "unit_error": 1,
        "balance_difference": 1,
        "needs_review": 0,
    }
    assert planted.needs_attention  # type: ignore[attr-defined]


def test_findings_name_the_right_rows(planted: object) -> None:
    result = planted
    by = result.category  # type: ignore[attr-defined]
    assert list(by("missing_in_statement")["entry_id"]) == ["L-miss"]
    assert list(by("missing_in_ledger")["transaction_id"]) == ["PIXIN000010"]
    amount = by("amount_mismatch").iloc[0]
    assert (amount["entry_id"], int(amount["difference_base"])) == ("L-amount", 50_000)
    fee = by("fee_mismatch").iloc[0]
    assert (int(fee["ledger_fee_base"]), int(fee["statement_fee_base"])) == (5_000, 9_900)
    status = by("status_mismatch")
    assert set(status["transaction_id"]) == {"PIXOUT000013"}
    assert set(status["detail"]) == {
        "ledger expects settled, statement shows rejected",
        "webhook says settled, statement shows rejected",
    }
    duplicates = by("duplicate")
    assert set(duplicates["entry_id"].dropna()) == {"L-dup-b"}
    assert set(duplicates["transaction_id"]) == {"PIXIN000014", "PIXIN000016", "PIXIN000017"}
    timing = by("timing_difference").iloc[0]
    assert timing["detail"] == "statement one business day later"
    assert (timing["booked_on"], timing["business_date"]) == (DAY, date(2026, 1, 16))
    assert list(by("unbooked_refund")["transaction_id"]) == ["PIXOUT000019"]
    assert list(by("unit_error")["entry_id"]) == ["L-unit"]
    # Reported minus expected, as in the roll-forward: the balance is 300 short.
    assert int(by("balance_difference")["difference_base"].iloc[0]) == -300
    assert int(result.rollforward["difference_base"].iloc[0]) == -300  # type: ignore[attr-defined]


def test_refunds_are_linked_with_the_refundable_remainder(planted: object) -> None:
    refunds = planted.refunds  # type: ignore[attr-defined]
    row = refunds.iloc[0]
    assert row["refund_transaction_id"] == "PIXOUT000019"
    assert row["original_transaction_id"] == "PIXIN000000"
    assert row["original_entry_id"] == "L0"
    assert int(row["original_amount_base"]) == 1_000_000
    assert int(row["total_refunded_base"]) == 400_000
    assert int(row["remaining_refundable_base"]) == 600_000


def test_webhooks_link_a_refund_the_statement_did_not(planted: object) -> None:
    stmt = [statement_row(0), statement_row(1, direction="outbound", fee_base=0, amount_base=5)]
    hooks = pd.DataFrame(
        {
            "type": ["pix.refund.completed"],
            "transaction_id": ["PIXOUT000001"],
            "original_transaction_id": ["PIXIN000000"],
            "created_at": [NOON],
        }
    ).astype({"created_at": "datetime64[us, UTC]"})
    result = reconcile(
        statement_table(stmt), ledger_table([ledger_row("L0", "PIXIN000000")]), webhooks=hooks
    )
    assert result.counts["unbooked_refund"] == 1
    assert int(result.refunds["remaining_refundable_base"].iloc[0]) == 999_995


def test_rows_outside_the_scope_are_not_reported() -> None:
    early = NOON - timedelta(days=3)
    stmt = [statement_row(0, created_at=early), statement_row(1)]
    ledger = [ledger_row("L-old", "pedido-velho", booked_on=DAY - timedelta(days=3))]
    result = reconcile(
        statement_table(stmt),
        ledger_table([*ledger, ledger_row("L1", "PIXIN000001")]),
        start=DAY,
        end=DAY,
    )
    assert result.counts["matched"] == 1
    assert not result.needs_attention


def test_unit_error_in_both_directions_and_10000x() -> None:
    stmt = [statement_row(n, amount_base=1_000_000) for n in range(3)]
    ledger = [
        ledger_row("L0", "PIXIN000000", amount_base=100),  # reais written as base units
        ledger_row("L1", "PIXIN000001", amount_base=100_000_000),  # centavos -> base twice
        ledger_row("L2", "PIXIN000002", amount_base=10_000_000_000),  # 10000x
    ]
    result = reconcile(statement_table(stmt), ledger_table(ledger))
    assert result.counts["unit_error"] == 3
    assert result.counts["amount_mismatch"] == 0


def test_direction_difference_is_an_amount_mismatch() -> None:
    result = reconcile(
        statement_table([statement_row(0)]),
        ledger_table([ledger_row("L0", "PIXIN000000", direction="outbound")]),
    )
    assert result.category("amount_mismatch")["detail"].iloc[0] == (
        "direction outbound in the ledger, inbound in the statement"
    )


def test_unknown_category_is_refused(planted: object) -> None:
    with pytest.raises(ValueError, match="unknown category"):
        planted.category("lost")  # type: ignore[attr-defined]


def test_end_before_start_is_refused() -> None:
    statement, ledger = clean_pair(1)
    with pytest.raises(ValueError, match="before start"):
        reconcile(statement, ledger, start="2026-01-15", end="2026-01-14")


def test_bad_time_zone_is_refused() -> None:
    statement, ledger = clean_pair(1)
    with pytest.raises(ValueError, match="time zone"):
        reconcile(statement, ledger, tz="Mars/Olympus")


def test_a_connection_that_is_not_duckdbs_is_refused() -> None:
    statement, ledger = clean_pair(1)
    with pytest.raises(TypeError, match=r"DuckDB connection.*not str"):
        reconcile(statement, ledger, connection="pix.duckdb")  # type: ignore[arg-type]


def test_a_caller_connection_is_left_open_and_clean() -> None:
    import duckdb

    statement, ledger = clean_pair(2)
    con = duckdb.connect()
    reconcile(statement, ledger, connection=con)
    assert con.execute("SELECT 1").fetchone() == (1,)
    tables = con.execute("SELECT table_name FROM duckdb_tables()").fetchall()
    assert tables == []


def test_a_cursor_of_its_own_is_closed_with_its_steps_and_frees_their_memory() -> None:
    """Without a connection `reconcile` leaves its steps to the cursor it closes (no drop
    of each one): the process's database holds no table and no memory after it."""
    from pixops.recon._database import cursor

    memory = "SELECT COALESCE(SUM(memory_usage_bytes), 0) FROM duckdb_memory()"
    views = "SELECT COUNT(*) FROM duckdb_views() WHERE temporary AND NOT internal"
    with cursor() as con:
        before = con.execute(memory).fetchone()
    statement, ledger = clean_pair(3)
    result = reconcile(statement, ledger, start=DAY, end=DAY)
    assert result.counts["matched"] == 3
    with cursor() as con:
        assert con.execute("SELECT COUNT(*) FROM duckdb_tables()").fetchone() == (0,)
        assert con.execute(views).fetchone() == (0,)
        assert con.execute(memory).fetchone() == before


def test_rows_that_tie_on_the_sort_keys_come_out_in_one_order() -> None:
    # Two statement rows share a transaction_id (different ids): the refund of it links
    # to both, and only the first is booked; its refunds rows tie on both ids.
    stmt = [
        statement_row(0),
        statement_row(0, row_id="00000000-0000-4000-8000-00000000000b"),
        statement_row(5, direction="outbound", fee_base=0, amount_base=100, original="PIXIN000000"),
    ]
    ledger = ledger_table([ledger_row("L0", "PIXIN000000")])
    runs = [reconcile(statement_table(stmt), ledger).refunds for _ in range(5)]
    assert runs[0]["original_entry_id"].iloc[0] == "L0"
    assert pd.isna(runs[0]["original_entry_id"].iloc[1])
    for refunds in runs[1:]:
        assert refunds.equals(runs[0])


def test_a_copy_of_an_id_is_never_picked_even_when_it_alone_carries_the_reference() -> None:
    # The same id exported twice: the older listing (the copy) still had an external_id
    # that the newer one lost. An entry naming it has no kept row to match: it is missing
    # from the statement, and the kept row is missing from the ledger.
    newer = statement_row(3, created_at=NOON + timedelta(minutes=5), row_id="same-id")
    older = statement_row(3, external_id="pedido-3", row_id="same-id")
    stmt = [statement_row(0), older, newer]
    ledger = [ledger_row("L0", "PIXIN000000"), ledger_row("L-copy", "pedido-3")]
    result = reconcile(statement_table(stmt), ledger_table(ledger), start=DAY, end=DAY)
    assert result.counts["matched"] == 1
    assert list(result.category("missing_in_statement")["entry_id"]) == ["L-copy"]
    missing = result.category("missing_in_ledger")
    assert list(missing["transaction_id"]) == ["PIXIN000003"]
    assert list(result.category("duplicate")["detail"]) == [
        "the same statement id is listed more than once"
    ]


def test_a_booked_refund_names_both_entries() -> None:
    stmt = [
        statement_row(0),
        statement_row(1),
        statement_row(5, direction="outbound", fee_base=0, amount_base=250, original="PIXIN000000"),
    ]
    ledger = [
        ledger_row("L0", "PIXIN000000"),
        ledger_row("L1", "PIXIN000001"),
        ledger_row("L-refund", "PIXOUT000005", direction="outbound", amount_base=250, fee_base=0),
    ]
    result = reconcile(statement_table(stmt), ledger_table(ledger), start=DAY, end=DAY)
    assert not result.needs_attention
    refund = result.refunds.iloc[0]
    assert (refund["original_entry_id"], refund["refund_entry_id"]) == ("L0", "L-refund")
    assert int(refund["remaining_refundable_base"]) == 999_750


def test_hash_collisions_never_make_copies_or_pairs() -> None:
    # The SQL uses hash() only to narrow a search that the text then decides: with every
    # value hashing alike (a macro shadowing the built-in), the result is the same.
    import duckdb

    statement, ledger, hooks, balances = _planted()
    expected = reconcile(statement, ledger, webhooks=hooks, balances=balances, start=DAY, end=DAY)
    con = duckdb.connect()
    con.execute("CREATE TEMP MACRO hash(x) AS 7")
    assert con.execute("SELECT hash('a') = hash('b')").fetchall() == [(True,)]
    colliding = reconcile(
        statement, ledger, webhooks=hooks, balances=balances, start=DAY, end=DAY, connection=con
    )
    con.close()
    assert colliding.counts == expected.counts
    assert colliding.matched.equals(expected.matched)
    assert colliding.discrepancies.equals(expected.discrepancies)


def test_run_steps_stops_at_a_step_and_drops_everything_after() -> None:
    import duckdb

    from pixops.recon._run import prepare_inputs
    from pixops.recon._steps import run_steps

    statement, ledger = clean_pair(3)
    inputs = prepare_inputs(statement, ledger, scope=(DAY, DAY))
    con = duckdb.connect()
    with run_steps(con, "America/Sao_Paulo", inputs, until="pairs"):
        tables = {  # temporary tables and views
            row[0]
            for row in con.execute("SELECT table_name FROM information_schema.tables").fetchall()
        }
        assert "pairs" in tables
        assert "findings" not in tables
        assert con.execute("SELECT COUNT(*) FROM pairs").fetchall() == [(3,)]
    assert con.execute("SELECT table_name FROM duckdb_tables()").fetchall() == []
    with (
        pytest.raises(ValueError, match="no step named 'pear'"),
        run_steps(con, "America/Sao_Paulo", inputs, until="pear"),
    ):
        pass
    con.close()


def test_every_finding_adds_up(planted: object) -> None:
    """Difference = statement - ledger on every row, a side with nothing counted as 0: a
    finance reader checks a row by subtracting its two amounts."""
    found = planted.discrepancies  # type: ignore[attr-defined]
    for row in found.to_dict(orient="records"):
        ledger = 0 if row["ledger_amount_base"] is None else row["ledger_amount_base"]
        statement = 0 if row["statement_amount_base"] is None else row["statement_amount_base"]
        assert row["difference_base"] == statement - ledger, row
    double = found[found["detail"] == "ledger entry books a movement another entry already booked"]
    assert list(double["statement_amount_base"].isna()) == [True]


def test_the_summary_row_of_a_fee_difference_sums_fees(planted: object) -> None:
    """The amounts of a fee finding agree; its summary row shows the fees, so a reader sees
    by how much they differ (it read R$ 0,00 when it summed the amounts)."""
    summary = planted.summary.set_index("category")  # type: ignore[attr-defined]
    fee = summary.loc["fee_mismatch"]
    assert (fee["ledger_amount_base"], fee["statement_amount_base"]) == (5_000, 9_900)
    assert fee["difference_base"] == 4_900
    amounts = summary.loc["amount_mismatch"]  # every other row still sums amounts
    assert (
        amounts["difference_base"]
        == amounts["statement_amount_base"] - amounts["ledger_amount_base"]
    )
    assert str(summary["difference_base"].dtype) == "int64[pyarrow]"


def test_outputs_are_sorted_by_the_host_as_their_order_says() -> None:
    """The host sorts each output it read (Arrow, nulls last) by the SQL text's order; an
    order it cannot honour that way is refused, not silently changed."""
    from pixops.recon._outputs import _sort_keys

    keys = _sort_keys("ln ASC NULLS LAST, sn ASC NULLS LAST")
    assert keys == [("ln", "ascending", "at_end"), ("sn", "ascending", "at_end")]
    table = pa.table({"ln": [2, 1, None, 1], "sn": [1, None, 3, 2]})
    assert table.sort_by(keys).to_pydict() == {"ln": [1, 1, 2, None], "sn": [2, None, 1, 3]}
    with pytest.raises(ValueError, match="ascending, nulls last"):
        _sort_keys("ln DESC NULLS LAST")


_NUMBERS = st.one_of(st.none(), st.integers(0, 40), st.integers(-(2**40), 2**40))


@settings(max_examples=60)
@given(
    rows=st.lists(st.tuples(_NUMBERS, _NUMBERS, st.integers(0, 9)), max_size=30),
    chunks=st.integers(1, 3),
)
def test_the_row_number_sort_is_arrows_sort(
    rows: list[tuple[int | None, int | None, int]], chunks: int
) -> None:
    """`_sorted` orders by two row numbers through one int64 key and NumPy's stable sort:
    the same rows in the same order as Arrow's stable sort by the two columns, NULLs last,
    ties in input order (the third column tells them apart), in chunks or not; numbers
    too large or negative for the key are sorted by Arrow."""
    from pixops.recon._outputs import _sort_keys, _sorted

    keys = _sort_keys("ln ASC NULLS LAST, sn ASC NULLS LAST")
    table = pa.table(
        {
            "ln": pa.array([r[0] for r in rows], pa.int64()),
            "sn": pa.array([r[1] for r in rows], pa.int64()),
            "tag": pa.array([r[2] for r in rows], pa.int64()),
        }
    )
    size = max(1, len(rows) // chunks)
    chunked = pa.Table.from_batches(table.to_batches(max_chunksize=size), table.schema)
    assert _sorted(chunked, keys).to_pydict() == table.sort_by(keys).to_pydict()


@settings(max_examples=60)
@given(
    values=st.lists(st.one_of(st.none(), st.text(max_size=3)), min_size=1, max_size=30),
    cuts=st.lists(st.integers(0, 30), max_size=4),
    picks=st.lists(st.integers(0, 10_000), max_size=12),
)
def test_a_few_rows_taken_chunk_by_chunk_are_arrows_take(
    values: list[str | None], cuts: list[int], picks: list[int]
) -> None:
    """`_take_few` takes each row from the chunk that holds it (empty chunks, repeats and
    any order included): the same values as Arrow's take of the whole column."""
    from pixops.recon._outputs import _take_few

    bounds = sorted({0, len(values), *(min(c, len(values)) for c in cuts)})
    column = pa.chunked_array(
        [pa.array(values[a:b], pa.string()) for a, b in pairwise(bounds)]
        + [pa.array([], pa.string())],
        pa.string(),
    )
    positions = pa.array([p % len(values) for p in picks], pa.int64())
    assert _take_few(column, positions).equals(column.take(positions).combine_chunks())
