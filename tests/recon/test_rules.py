"""Groups, inferred pairs, tolerances and the review file (issue 31), on small books."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from pixops.recon import (
    LedgerError,
    LedgerMapping,
    ReviewError,
    ReviewFile,
    ToleranceError,
    Tolerances,
    reconcile,
    review_path,
)
from tests.recon.builders import DAY, NOON, ledger_row, statement_row, statement_table

MAPPING = LedgerMapping(
    booked_at="booked_at", document="document", name="name", settlement="settlement", kind="kind"
)
INFER = Tolerances(inferred_seconds=300)


def entry(entry_id: str, reference: str | None, **extra: Any) -> dict[str, Any]:
    """A ledger row with the extra columns the rules read (empty unless given)."""
    base = {k: v for k, v in extra.items() if k in ("amount_base", "direction", "fee_base")}
    row = ledger_row(entry_id, reference or "", **base)
    row["reference"] = reference
    for name in ("booked_at", "document", "name", "settlement", "kind"):
        row[name] = extra.get(name)
    return row


def books(rows: list[dict[str, Any]]) -> pa.Table:
    schema = pa.schema(
        [
            ("entry_id", pa.string()),
            ("reference", pa.string()),
            ("direction", pa.string()),
            ("amount_base", pa.int64()),
            ("fee_base", pa.int64()),
            ("status", pa.string()),
            ("booked_on", pa.date32()),
            ("booked_at", pa.timestamp("us", tz="UTC")),
            ("document", pa.string()),
            ("name", pa.string()),
            ("settlement", pa.string()),
            ("kind", pa.string()),
        ]
    )
    return pa.Table.from_pylist(rows, schema=schema)


def row(n: int, **changes: Any) -> dict[str, Any]:
    document = changes.pop("payer_document", None)
    built = statement_row(n, **changes)
    built["payer_document"] = document
    return built


def run(statement: list[dict[str, Any]], ledger: list[dict[str, Any]], **options: Any) -> Any:
    return reconcile(
        statement_table(statement), books(ledger), mapping=MAPPING, start=DAY, end=DAY, **options
    )


def attention(result: Any) -> dict[str, int]:
    return {name: count for name, count in result.counts.items() if count and name != "matched"}


def test_identifier_matches_say_which_identifier() -> None:
    statement = [row(1), row(2, external_id="pedido-2")]
    ledger = [entry("L1", "PIXIN000001"), entry("L2", "pedido-2")]
    result = run(statement, ledger)
    assert list(result.matched["rule"]) == ["transaction_id", "external_id"]
    assert list(result.matched["tolerance"].isna()) == [True, True]


def test_a_payment_without_reference_is_inferred_by_amount_cpf_and_time() -> None:
    statement = [row(1, payer_document="52998224725"), row(2, amount_base=555_000)]
    at = NOON + timedelta(seconds=1 + 180)  # three minutes after the payment
    ledger = [entry("L1", None, booked_at=at, document="529.982.247-25"), entry("L2", None)]
    result = run(statement, ledger, tolerances=INFER)
    matched = result.matched
    assert list(matched["entry_id"]) == ["L1"]
    assert list(matched["rule"]) == ["inferred: amount + CPF + 3 min"]
    assert attention(result) == {"missing_in_statement": 1, "missing_in_ledger": 1}
    missing = result.category("missing_in_statement")
    assert list(missing["detail"]) == [
        "no reference, and no movement matches its amount, payer and time"
    ]
    # Off by default: today's result, and the entry says why it was not matched.
    exact = run(statement, ledger)
    assert len(exact.matched) == 0
    assert set(exact.category("missing_in_statement")["detail"]) == {
        "no reference, and inferred matching is off (set a time window)"
    }


def test_a_contradicting_document_or_a_time_outside_the_window_is_no_pair() -> None:
    later = NOON + timedelta(hours=1)
    statement = [row(1, payer_document="52998224725"), row(2, amount_base=7, created_at=later)]
    ledger = [
        entry("L1", None, booked_at=NOON, document="11144477735"),
        entry("L2", None, booked_at=NOON, amount_base=7),
    ]
    result = run(statement, ledger, tolerances=INFER)
    assert len(result.matched) == 0
    assert attention(result) == {"missing_in_statement": 2, "missing_in_ledger": 2}


def test_two_equally_good_candidates_go_to_review_side_by_side(tmp_path: Path) -> None:
    statement = [row(1), row(2)]  # the same amount, a second apart, no document
    ledger = [entry("L1", None, booked_at=NOON)]
    result = run(statement, ledger, tolerances=INFER)
    review = result.category("needs_review")
    assert list(review["entry_id"]) == ["L1", "L1"]
    assert list(review["transaction_id"]) == ["PIXIN000001", "PIXIN000002"]
    assert review["detail"].str.startswith("one of 2 equally good candidates").all()
    assert attention(result) == {"needs_review": 2}  # not also missing on either side

    file = ReviewFile(tmp_path / "ledger.review.csv")
    second = str(review["statement_id"][1])
    file.record("L1", second, "confirmed", by="ana", at=datetime(2026, 1, 16, 14, 3, tzinfo=UTC))
    confirmed = run(statement, ledger, tolerances=INFER, review_file=file.path)
    assert list(confirmed.matched["rule"]) == ["confirmed by ana on 2026-01-16 14:03 UTC"]
    assert list(confirmed.matched["transaction_id"]) == ["PIXIN000002"]
    assert attention(confirmed) == {"missing_in_ledger": 1}

    file.record("L1", second, "rejected", by="ana")  # a change of mind replaces it
    rejected = run(statement, ledger, tolerances=INFER, review_file=file.path)
    assert list(rejected.matched["transaction_id"]) == ["PIXIN000001"]
    assert list(rejected.matched["rule"]) == ["inferred: amount + 1 s"]
    text = file.path.read_text(encoding="utf-8")
    assert text.splitlines()[0] == "entry_id,statement_id,decision,decided_by,decided_at,note"
    assert len(text.splitlines()) == 3


def test_a_reimported_overlapping_statement_keeps_the_decision(tmp_path: Path) -> None:
    statement = [row(1), row(2)]
    ledger = [entry("L1", None, booked_at=NOON)]
    file = ReviewFile(tmp_path / "r.csv")
    file.record("L1", str(statement[1]["id"]), "confirmed", by="ana")
    overlapping = [*statement, row(3, created_at=NOON + timedelta(days=1))]
    again = run(overlapping, ledger, tolerances=INFER, review_file=file.path)
    assert list(again.matched["transaction_id"]) == ["PIXIN000002"]
    assert again.counts["needs_review"] == 0


def test_a_settlement_line_matches_its_rows_as_a_group() -> None:
    statement = [row(n, external_id="LOTE-7", amount_base=100_000 * n) for n in (1, 2, 3)]
    ledger = [entry("LED-9", "repasse", settlement="LOTE-7", amount_base=600_000, fee_base=None)]
    result = run(statement, ledger)
    assert list(result.matched["rule"]) == ["group of 3 rows = settlement LOTE-7"] * 3
    assert list(result.matched["entry_id"]) == ["LED-9"] * 3
    assert attention(result) == {}


def test_a_settlement_that_does_not_close_is_reported_with_its_remainder() -> None:
    statement = [row(n, external_id="LOTE-7", amount_base=100_000 * n) for n in (1, 2, 3)]
    ledger = [entry("LED-9", "repasse", settlement="LOTE-7", amount_base=650_000)]
    result = run(statement, ledger)
    assert len(result.matched) == 0
    assert attention(result) == {"amount_mismatch": 1}
    finding = result.category("amount_mismatch").iloc[0]
    assert finding["entry_id"] == "LED-9"
    assert finding["ledger_amount_base"] == 650_000
    assert finding["statement_amount_base"] == 600_000
    assert finding["difference_base"] == -50_000
    assert "group of 3 rows = settlement LOTE-7 does not close" in finding["detail"]


def test_an_order_paid_in_parts_is_a_group_only_when_asked() -> None:
    statement = [
        row(1, external_id="pedido-7", amount_base=300_000),
        row(2, external_id="pedido-7"),
    ]
    ledger = [entry("L7", "pedido-7", amount_base=1_300_000)]
    grouped = run(statement, ledger, tolerances=Tolerances(groups=True))
    assert list(grouped.matched["rule"]) == ["group of 2 rows = reference pedido-7"] * 2
    assert attention(grouped) == {}
    today = run(statement, ledger)
    assert attention(today) == {"amount_mismatch": 1, "duplicate": 1}


def test_a_payment_made_twice_stays_a_duplicate_when_grouping() -> None:
    statement = [row(1, external_id="pedido-7"), row(2, external_id="pedido-7")]
    ledger = [entry("L7", "pedido-7")]
    result = run(statement, ledger, tolerances=Tolerances(groups=True))
    assert attention(result) == {"duplicate": 1}


def test_one_payment_for_several_entries_is_a_group() -> None:
    statement = [row(1, amount_base=900_000)]
    ledger = [
        entry("NF-1", "PIXIN000001", amount_base=400_000),
        entry("NF-2", "PIXIN000001", amount_base=500_000),
    ]
    result = run(statement, ledger, tolerances=Tolerances(groups=True))
    assert list(result.matched["entry_id"]) == ["NF-1", "NF-2"]
    assert list(result.matched["amount_base"]) == [400_000, 500_000]
    assert set(result.matched["rule"]) == {"group of 2 entries = movement PIXIN000001"}
    assert attention(result) == {}


def test_a_days_fees_line_matches_the_sum_of_the_days_fees() -> None:
    statement = [row(n, fee_base=9_900) for n in range(3)]
    ledger = [entry(f"L{n}", f"PIXIN{n:06d}") for n in range(3)]
    ledger.append(entry("TAR-15", None, kind="fees", amount_base=29_700, direction="outbound"))
    result = run(statement, ledger)
    fees = result.matched[result.matched["entry_id"] == "TAR-15"]
    assert list(fees["rule"]) == ["group of 3 rows = fees of 2026-01-15"]
    assert list(fees["amount_base"]) == [29_700]
    assert attention(result) == {}
    ledger[-1]["amount_base"] = 30_000
    off = run(statement, ledger)
    assert list(off.category("amount_mismatch")["difference_base"]) == [-300]


def test_a_days_payout_batch_takes_the_unbooked_payouts_of_the_day() -> None:
    statement = [row(n, direction="outbound", amount_base=200_000) for n in range(4)]
    ledger = [
        entry("L0", "PIXOUT000000", direction="outbound", amount_base=200_000),
        entry("LOTE", None, kind="outbound", direction="outbound", amount_base=600_000),
    ]
    result = run(statement, ledger)
    batch = result.matched[result.matched["entry_id"] == "LOTE"]
    assert list(batch["rule"]) == ["group of 3 rows = outbound of 2026-01-15"] * 3
    assert attention(result) == {}


def test_tolerances_match_within_them_and_say_so() -> None:
    statement = [row(1, amount_base=1_000_003), row(2, created_at=NOON + timedelta(days=1))]
    ledger = [entry("L1", "PIXIN000001"), entry("L2", "PIXIN000002")]
    exact = reconcile(statement_table(statement), books(ledger), mapping=MAPPING)
    assert attention(exact) == {"amount_mismatch": 1, "timing_difference": 1}
    loose = Tolerances(amount_base=5, days=1)
    result = reconcile(statement_table(statement), books(ledger), mapping=MAPPING, tolerances=loose)
    assert attention(result) == {}
    assert list(result.matched["tolerance"]) == ["amount ± R$ 0,0005; ± 1 day"] * 2
    assert list(result.matched["booked_on"]) == [DAY, DAY]  # the ledger's day
    share = Tolerances(amount_bp=1)  # 0,01 % of R$ 100,00 is 100 base units
    assert (
        attention(reconcile(statement_table(statement[:1]), books(ledger[:1]), tolerances=share))
        == {}
    )


@pytest.mark.parametrize(
    ("settings", "said"),
    [
        ({"amount_base": -1}, "amount_base must not be negative: -1"),
        ({"fee_base": 0.5}, "fee_base must be a whole number of base units, not 0.5"),
        ({"amount_bp": True}, "amount_bp must be a whole number of basis points"),
        ({"days": 8}, "days must be 0 to 7"),
        ({"inferred_seconds": 0}, "inferred_seconds must be 1 to 86400"),
    ],
)
def test_a_bad_tolerance_is_named(settings: dict[str, Any], said: str) -> None:
    with pytest.raises(ToleranceError, match=said):
        Tolerances(**settings)


def test_a_settlement_column_the_ledger_lacks_is_named() -> None:
    ledger = books([entry("L1", "x")]).drop_columns(["settlement"])
    with pytest.raises(LedgerError, match=r"ledger has no column 'settlement'.*settlement key"):
        reconcile(statement_table([row(1)]), ledger, mapping=MAPPING)


def test_a_bad_kind_is_named_by_its_row() -> None:
    with pytest.raises(LedgerError, match="row 1, column 'kind': 'tarifas' is not a kind"):
        reconcile(
            statement_table([row(1)]), books([entry("L1", "x", kind="tarifas")]), mapping=MAPPING
        )


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("entry,statement\nL1,s\n", "the header lacks entry_id, statement_id, decision"),
        (
            "entry_id,statement_id,decision,decided_by,decided_at\nL1,s1,ok,ana,2026-01-16T10:00Z\n",
            "line 2: decision 'ok' is not one of",
        ),
        (
            "entry_id,statement_id,decision,decided_by,decided_at\nL1,s1,confirmed,ana,ontem\n",
            "line 2: decided_at 'ontem' is not a time with an offset",
        ),
        (
            "entry_id,statement_id,decision,decided_by,decided_at\n"
            "L1,s1,confirmed,ana,2026-01-16T10:00Z\nL1,s2,confirmed,bia,2026-01-16T11:00Z\n",
            "lines 2 and 3: entry_id 'L1' is confirmed with two different pairs",
        ),
        (
            "entry_id,statement_id,decision,decided_by,decided_at\n,s1,confirmed,ana,2026-01-16T10:00Z\n",
            "line 2: entry_id is empty",
        ),
    ],
)
def test_a_hand_edited_review_file_is_refused_naming_the_line(
    tmp_path: Path, text: str, said: str
) -> None:
    path = tmp_path / "ledger.review.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ReviewError, match=said):
        run([row(1)], [entry("L1", None, booked_at=NOON)], tolerances=INFER, review_file=path)


def test_a_decision_on_rows_that_no_longer_exist_is_a_warning(tmp_path: Path) -> None:
    file = ReviewFile(tmp_path / "r.csv")
    file.record("L-gone", "s-1", "confirmed", by="ana")
    file.record("L1", "row-gone", "rejected", by="bia")
    with pytest.warns(UserWarning, match="it is not applied") as caught:
        result = run(
            [row(1)], [entry("L1", None, booked_at=NOON)], tolerances=INFER, review_file=file.path
        )
    said = [str(w.message) for w in caught]
    assert any("line 2 (confirmed by ana) names entry 'L-gone'" in text for text in said)
    assert any("line 3 (rejected by bia) names statement row 'row-gone'" in text for text in said)
    assert len(result.matched) == 1  # nothing else changed


def test_the_review_file_lives_beside_the_ledger() -> None:
    assert review_path("data/sample_ledger.csv") == Path("data/sample_ledger.review.csv")


def test_the_summary_prints_the_tolerances() -> None:
    result = run([row(1)], [entry("L1", "PIXIN000001")], tolerances=Tolerances(amount_base=500))
    assert "Tolerances: amount ± R$ 0,05" in result.summary_text()
    assert "amount ± R$ 0,05" in result._repr_html_()
    assert date(2026, 1, 15) == result.first_day


@pytest.mark.parametrize(
    "tolerances", [INFER, Tolerances(amount_base=500, days=1, inferred_seconds=300)]
)
def test_the_rows_taken_by_position_are_the_rows_the_sql_joins(tolerances: Tolerances) -> None:
    """`TAKEN` steps: the DuckDB host takes the few entries and rows by position; every
    step's table is the same as when the SQL's join reads them (the Spark host's way)."""
    import duckdb

    from pixops.recon._run import prepare_inputs
    from pixops.recon._sql import STEPS, TAKEN
    from pixops.recon._steps import run_steps

    statement = [
        row(1, payer_document="52998224725"),
        *(row(n, external_id="LOTE-7", amount_base=100_000 * n) for n in (2, 3)),
        row(4, amount_base=1_000_300),
        row(5),
    ]
    statement[-1]["counterparty_name"] = " Ana  "
    ledger = [
        entry("L1", None, booked_at=NOON + timedelta(seconds=60), document="52998224725"),
        entry("LED-9", "repasse", settlement="LOTE-7", amount_base=500_000, fee_base=None),
        entry("L4", "PIXIN000004"),
        entry("L8", "nada", name="Ana", kind=None),
    ]
    inputs = prepare_inputs(
        statement_table(statement),
        books(ledger),
        scope=(DAY, DAY),
        mapping=MAPPING,
        tolerances=tolerances,
    )
    tables = {}
    for shortcuts in (True, False):
        con = duckdb.connect()
        with run_steps(con, "America/Sao_Paulo", inputs, shortcuts=shortcuts):
            tables[shortcuts] = {
                name: (
                    con.sql(f"SELECT * FROM {name}").columns,
                    [str(t) for t in con.sql(f"SELECT * FROM {name}").types],
                    con.sql(f"SELECT * FROM {name} ORDER BY ALL").fetchall(),
                )
                for name, _, _ in STEPS
            }
        con.close()
    assert tables[True] == tables[False]
    assert [len(tables[True][name][2]) for name in TAKEN] == [4, 5]
