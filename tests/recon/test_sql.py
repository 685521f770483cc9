"""The reconciliation SQL keeps to the subset DuckDB and Spark run the same way."""

from __future__ import annotations

import re

import pytest

from pixops.recon import OUTPUTS, STEPS
from pixops.recon._sql import EXACT, TAKEN

TEXTS = (
    [(name, sql) for name, sql, _ in STEPS]
    + [(f"{name} (exact)", sql) for name, (_, sql) in EXACT.items()]
    + [(f"output {name}", f"ORDER BY {order}") for name, (_, order) in OUTPUTS.items()]
)


def _order_items(sql: str) -> list[str]:
    """Every item of every ORDER BY, split on top-level commas."""
    items = []
    for match in re.finditer(r"ORDER BY", sql):
        depth, item = 0, ""
        for char in sql[match.end() :]:
            if char == "(":
                depth += 1
            elif char == ")":
                if depth == 0:
                    break
                depth -= 1
            elif char == "," and depth == 0:
                items.append(item)
                item = ""
                continue
            item += char
        items.append(item)
    return [item.strip() for item in items]


@pytest.mark.parametrize(("name", "sql"), TEXTS)
def test_only_the_portable_subset(name: str, sql: str) -> None:
    upper = sql.upper()
    for banned in ("QUALIFY", "//", "DATE_DIFF", "DATEDIFF", "INTERVAL", "EXCLUDE", "::"):
        assert banned not in upper, (name, banned)
    assert '"' not in sql, name  # a string literal in Spark, an identifier in DuckDB
    for item in _order_items(sql):
        assert re.search(r"NULLS (LAST|FIRST)$", item), (name, item)


@pytest.mark.parametrize(("name", "sql"), TEXTS)
def test_money_sums_are_cast_back_to_bigint(name: str, sql: str) -> None:
    for match in re.finditer(r"SUM\(", sql):
        before = sql[: match.start()].rstrip()
        assert before.endswith("CAST("), (name, sql[match.start() - 20 : match.end() + 20])


def test_every_step_has_a_unique_name() -> None:
    names = [name for name, _, _ in STEPS]
    assert len(names) == len(set(names))
    assert set(OUTPUTS) <= set(names)


def test_lookups_read_the_input_row_their_number_points_at() -> None:
    """The text the host takes by position is what a join on the row numbers gives."""
    import duckdb

    from pixops.recon import LOOKUPS, reconcile
    from pixops.recon._run import _numbered
    from tests.recon.builders import ledger_row, ledger_table, statement_row, statement_table

    statement = statement_table([statement_row(n) for n in range(6)])
    ledger = ledger_table(
        [ledger_row(f"L{n}", f"PIXIN{n:06d}") for n in (5, 3, 1, 0, 4, 2)]  # shuffled
    )
    matched = reconcile(statement, ledger).matched
    assert len(matched) == 6
    with duckdb.connect() as con:
        con.register("statement_in", _numbered(statement, "sn"))
        con.register("ledger_in", _numbered(ledger, "ln"))
        # Every entry names its row's transaction_id: these are the matched pairs, by ln.
        con.execute(
            "CREATE TEMP TABLE pairs AS SELECT l.ln, s.sn FROM ledger_in l"
            " JOIN statement_in s ON s.transaction_id = l.reference"
        )
        for output, source, column, number in LOOKUPS["matched"]:
            joined = con.execute(
                f"SELECT CAST(i.{column} AS STRING) FROM pairs p"
                f" JOIN {source} i ON i.{number} = p.{number} ORDER BY p.ln"
            ).fetchall()
            assert list(matched[output]) == [row[0] for row in joined], output


def test_pick_and_claim_keys_decode_exactly_at_their_limits() -> None:
    """`sn` up to 2^32 - 1, every flag and bit set: `picks` and `claims` read back the
    row, the bits and the first booking exactly (the division is of a multiple of 16)."""
    import duckdb

    from pixops.recon import STEPS

    sql = {name: text for name, text, _ in STEPS}
    top = 2**32 - 1
    with duckdb.connect() as con:
        con.execute("CREATE TEMP TABLE cand (ln BIGINT, sn BIGINT, pick_key BIGINT)")
        rows = [  # (ln, sn, flags, bits)
            (1, top, 7, 15),  # not a copy: picked, every bit kept
            (1, top - 1, 15, 0),  # a copy ranks after it
            (2, top, 8, 5),  # only a copy: no pick
            (3, None, None, None),  # no candidate
            (4, top, 0, 6),  # picks it too: entry 1 booked it first
            (5, 1, 0, 9),
        ]
        for ln, sn, flags, bits in rows:
            key = None if sn is None else flags * 2**36 + sn * 16 + bits
            con.execute("INSERT INTO cand VALUES (?, ?, ?)", [ln, sn, key])
        con.execute(f"CREATE TEMP TABLE picks AS {sql['picks']}")
        picks = con.execute("SELECT ln, sn, pair_bits FROM picks ORDER BY ln").fetchall()
        assert picks == [(1, top, 15), (2, None, None), (3, None, None), (4, top, 6), (5, 1, 9)]
        claims = con.execute(
            f"SELECT sn, ln, claimants, pair_bits FROM ({sql['claims']}) c ORDER BY sn"
        ).fetchall()
        assert claims == [(1, 5, 1, 9), (top, 1, 2, 15)]


def test_the_host_shortcuts_name_steps_and_inputs_that_exist() -> None:
    """`EXACT` replaces steps by name; a `TAKEN` step reads an input after the step
    listing its numbers, and that input's columns (`run_steps` takes them by name); the
    steps the DuckDB host keeps as Arrow are steps written as tables (read several
    times), none of them taken."""
    from pixops.recon._steps import _ARROW_STEPS

    names = [name for name, _, _ in STEPS]
    assert set(EXACT) <= set(names)
    tables = {name for name, _, materialise in STEPS if materialise}
    assert _ARROW_STEPS.issubset(tables - set(TAKEN))
    for name, (source, number, numbers, columns) in TAKEN.items():
        assert names.index(numbers) < names.index(name), name
        assert source in ("ledger_in", "statement_in")
        assert number in ("ln", "sn")
        assert number not in columns
        assert len(set(columns)) == len(columns)
