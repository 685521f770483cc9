"""The one SQL text means the same on Spark as on DuckDB, checked without Java: every step
and every output query (with its LOOKUPS joined, as the Spark host runs it) parses as
Spark SQL, and sqlglot's DuckDB-to-Spark translation of it is the text itself, so no
construct is read differently by the two engines. `test_spark_parity` proves it by running."""

from __future__ import annotations

import pytest
import sqlglot
from sqlglot import exp

from pixops.recon import OUTPUTS, STEPS
from pixops.recon._sql import EXACT
from pixops.recon.spark._host import output_sql

QUERIES = (
    [(name, sql) for name, sql, _ in STEPS]
    + [(f"{name} (exact)", sql) for name, (_, sql) in EXACT.items()]
    + [(f"output {name}", output_sql(name)) for name in OUTPUTS]
)

#: Functions that exist in both engines but give different answers (hash: 64-bit in
#: DuckDB, 32-bit in Spark); the text must not call them.
DIFFERENT_FUNCTIONS = {"HASH"}


def _null_safe(node: exp.Expression) -> bool:
    """A CONCAT argument that can never be NULL: text, COALESCE ending in text, or a
    CONCAT or CASE (with a default) made only of these."""
    if isinstance(node, exp.Literal):
        return node.is_string
    if isinstance(node, exp.Coalesce):
        arguments = [node.this, *node.expressions]
        return _null_safe(arguments[-1])
    if isinstance(node, exp.Concat):  # adjacent literals ('a' 'b') are one
        return all(_null_safe(argument) for argument in node.expressions)
    if isinstance(node, exp.Case):
        default = node.args.get("default")
        branches = [branch.args["true"] for branch in node.args.get("ifs", [])]
        return default is not None and all(_null_safe(b) for b in [*branches, default])
    return False


def _without_null_guards(tree: exp.Expression) -> exp.Expression:
    """DuckDB's CONCAT skips NULLs (sqlglot marks it ``coalesce``, and guards each argument
    with COALESCE(x, '') for Spark): the same as Spark's CONCAT when every argument is
    already NULL-safe, which the text must make it. Such a CONCAT is unmarked here."""
    for concat in tree.find_all(exp.Concat):
        if all(_null_safe(argument) for argument in concat.expressions):
            concat.set("coalesce", False)
    return tree


@pytest.mark.parametrize(("name", "sql"), QUERIES, ids=[name for name, _ in QUERIES])
def test_the_text_reads_the_same_in_spark_as_in_duckdb(name: str, sql: str) -> None:
    as_spark = sqlglot.parse_one(sql, read="spark")
    from_duckdb = _without_null_guards(sqlglot.parse_one(sql, read="duckdb").copy())
    assert from_duckdb.sql("spark") == as_spark.sql("spark"), name


@pytest.mark.parametrize(("name", "sql"), QUERIES, ids=[name for name, _ in QUERIES])
def test_no_construct_that_differs_between_the_engines(name: str, sql: str) -> None:
    tree = sqlglot.parse_one(sql, read="spark")
    called = {
        (node.name if isinstance(node, exp.Anonymous) else node.sql_name()).upper()
        for node in tree.find_all(exp.Func)
    }
    assert not called & DIFFERENT_FUNCTIONS, f"{name} calls {called & DIFFERENT_FUNCTIONS}"
    for concat in tree.find_all(exp.Concat):
        arguments = concat.expressions
        unsafe = [arg.sql("spark") for arg in arguments if not _null_safe(arg)]
        assert not unsafe, f"{name}: CONCAT argument may be NULL (NULL in Spark): {unsafe}"


def test_the_checks_catch_what_they_are_for() -> None:
    """The two traps the issue found: both are caught when put back."""
    hashed = "SELECT sn FROM statement_in WHERE hash(id) IN (SELECT hash(id) FROM statement_in)"
    tree = sqlglot.parse_one(hashed, read="spark")
    called = {
        (n.name if isinstance(n, exp.Anonymous) else n.sql_name()).upper()
        for n in tree.find_all(exp.Func)
    }
    assert "HASH" in called
    bare = "SELECT CONCAT('webhook says ', s.webhook_status) AS detail FROM hook_hits s"
    concat = next(sqlglot.parse_one(bare, read="spark").find_all(exp.Concat))
    assert not all(_null_safe(arg) for arg in concat.expressions)
    from_duckdb = _without_null_guards(sqlglot.parse_one(bare, read="duckdb"))
    assert from_duckdb.sql("spark") != sqlglot.parse_one(bare, read="spark").sql("spark")
