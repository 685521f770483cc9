"""Run the reconciliation SQL on Spark: the host beside `pixops.recon._run` (DuckDB).

The rules are in `pixops.recon._sql` only. This module registers the inputs as temp
views, sets the session time zone and ANSI mode (an overflow raises instead of wrapping),
runs `STEPS` in order (a materialised step through ``localCheckpoint``: plain views were
re-planned into minutes at 6k rows; but one that a single later query reads stays a view,
`READ_ONCE`), reads each of `OUTPUTS` with its `LOOKUPS` joined on the row numbers,
materialises it, and drops every view it made and restores the settings.
"""

from __future__ import annotations

import contextlib
import re
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime, tzinfo
from pathlib import Path
from typing import Final, TypeAlias

import pandas as pd
import pyarrow as pa
from pyspark.errors import ArithmeticException
from pyspark.sql import DataFrame, SparkSession

from pixops.frames import STATEMENT_SCHEMA
from pixops.money import MoneyError
from pixops.recon._inputs import (
    LEDGER_SCHEMA,
    LedgerMapping,
    LoadedLedger,
    days_or_none,
    load_ledger,
)
from pixops.recon._review import ReviewFile
from pixops.recon._run import (
    _loaded_window,
    _snapshots_inside,
    _warn_if_not_loaded,
    _warn_of_stale,
    _zone_name,
    prepare_inputs,
)
from pixops.recon._sql import IDENTIFIER_RULE, LOOKUPS, OUTPUTS, STEPS
from pixops.recon._sql._findings import COPY_DETAIL
from pixops.recon._tolerances import Tolerances
from pixops.recon.spark._inputs import (
    SparkInput,
    cluster_reading,
    conformed,
    ledger_frame,
    on_cluster,
    statement_frame,
    to_spark,
)
from pixops.recon.spark._result import SparkReconResult

__all__ = ["READ_ONCE", "SESSION_SETTINGS", "reconcile"]

#: Settings the run needs, set for its duration and then put back as they were.
SESSION_SETTINGS: Final = ("spark.sql.session.timeZone", "spark.sql.ansi.enabled")

Statement: TypeAlias = pd.DataFrame | pa.Table | SparkInput
Ledger: TypeAlias = str | Path | pd.DataFrame | pa.Table | DataFrame | LoadedLedger


def reconcile(
    spark: SparkSession,
    statement: Statement,
    ledger: Ledger,
    *,
    balances: str | Path | pd.DataFrame | pa.Table | list[tuple[datetime, int]] | None = None,
    webhooks: pd.DataFrame | pa.Table | None = None,
    start: date | str | None = None,
    end: date | str | None = None,
    tz: str | tzinfo = "America/Sao_Paulo",
    mapping: LedgerMapping | None = None,
    tolerances: Tolerances | None = None,
    review_file: str | Path | ReviewFile | None = None,
) -> SparkReconResult:
    """Reconcile on Spark with exactly the rules `pixops.recon.reconcile` runs on DuckDB.

    ``statement``: a Spark DataFrame, a Parquet file or folder (hive partitions such as
    `LocalStore.write_parquet`'s are fine; any URI Spark reads), or a frame/table as
    `pixops.recon.reconcile` takes. ``ledger``: the same, or a CSV path (read on the
    driver by `read_ledger`). The other arguments are `pixops.recon.reconcile`'s.
    The result's frames are Spark DataFrames, computed and kept on the cluster; `counts`
    and `to_result` bring back what is asked. One run at a time per session: the steps
    are temp views named as in `STEPS` (a temp view of yours by such a name is refused).
    ``tolerances`` and ``review_file`` are `pixops.recon.reconcile`'s (stale decisions are
    warned of when the statement and the ledger are both given here, not on the cluster).
    """
    _check_session(spark)
    rules = Tolerances() if tolerances is None else tolerances
    if not isinstance(rules, Tolerances):
        raise TypeError(f"tolerances must be a Tolerances, not {type(rules).__name__}")
    if review_file is not None and not isinstance(review_file, ReviewFile):
        review_file = ReviewFile(review_file)
    decisions = [] if review_file is None else review_file.decisions()
    zone = _zone_name(tz)
    first = days_or_none(start, "start")
    last = days_or_none(end, "end")
    window = _loaded_window(statement)
    if window is not None:
        _warn_if_not_loaded(window, first, last, zone)
    statement_here = not on_cluster(statement)
    ledger_here = not on_cluster(ledger)
    if isinstance(ledger, LoadedLedger):
        loaded = ledger
    elif ledger_here:
        loaded = load_ledger(ledger, mapping, tz=zone)
    else:  # read on the cluster below; how is known from the mapping alone
        loaded = LoadedLedger(LEDGER_SCHEMA.empty_table(), cluster_reading(mapping))
    prepared = prepare_inputs(
        statement if statement_here else STATEMENT_SCHEMA.empty_table(),
        loaded,
        webhooks=webhooks,
        balances=balances,
        scope=(first, last),
        tz=zone,
        tolerances=rules,
        decisions=decisions,
    )
    if decisions and statement_here and ledger_here:
        _warn_of_stale(decisions, prepared, (first, last))
    if window is not None:
        prepared["balances_in"] = _snapshots_inside(prepared["balances_in"], window)
    names = [*prepared, *(name for name, _, _ in STEPS)]
    _refuse_taken_names(spark, names)
    with _settings(spark, zone), _views(spark) as made:
        try:
            for name, table in prepared.items():
                if name == "statement_in" and not statement_here:
                    frame = conformed(statement_frame(spark, statement), table)  # type: ignore[arg-type]
                elif name == "ledger_in" and not ledger_here:
                    frame = conformed(ledger_frame(spark, ledger, mapping), table)  # type: ignore[arg-type]
                else:
                    frame = to_spark(spark, table)
                    if name in ("statement_in", "ledger_in"):  # read by many steps
                        frame = frame.localCheckpoint(eager=True)
                made.append(name)
                frame.createOrReplaceTempView(name)
            for name, sql, materialise in STEPS:
                step = spark.sql(sql)
                if materialise and name not in READ_ONCE:
                    step = step.localCheckpoint(eager=True)
                made.append(name)
                step.createOrReplaceTempView(name)
            outputs = {
                name: spark.sql(output_sql(name)).localCheckpoint(eager=True) for name in OUTPUTS
            }
        except ArithmeticException as error:
            raise MoneyError(
                f"a sum or difference of base units overflows 64 bits: {_first_line(error)}"
            ) from None
    result = SparkReconResult(
        matched=outputs["matched"],
        discrepancies=outputs["discrepancies"],
        refunds=outputs["refunds"],
        rollforward=outputs["rollforward"],
        summary=outputs["summary"],
        first_day=first,
        last_day=last,
        tz=zone,
        ledger_reading=loaded.reading,
        tolerances=rules,
    )
    _warn_of_copies(result.discrepancies)
    return result


def _read_once() -> frozenset[str]:
    """The materialised steps that exactly one later step or output names, once: inlined
    into that one reader they are still computed once, and a checkpoint (a job of its own,
    ~0.1-0.5 s on tiny data) would buy nothing. A name also used as a column or a word
    counts as a read, which only keeps a checkpoint."""
    queries = [sql for _, sql, _ in STEPS] + [output_sql(name) for name in OUTPUTS]
    once = set()
    for index, (name, _, materialise) in enumerate(STEPS):
        word = re.compile(rf"\b{name}\b")
        if materialise and sum(len(word.findall(sql)) for sql in queries[index + 1 :]) == 1:
            once.add(name)
    return frozenset(once)


def output_sql(name: str) -> str:
    """The SELECT of one of `OUTPUTS`: its columns in order, each of its `LOOKUPS` a LEFT
    JOIN of the input on the row number (no number, no value), sorted by its order; where
    `IDENTIFIER_RULE` applies, ``rule`` named as the DuckDB host names it."""
    columns, order = OUTPUTS[name]
    lookups = LOOKUPS.get(name, ())
    naming = IDENTIFIER_RULE.get(name)
    if not lookups and naming is None:
        return f"SELECT {columns} FROM {name} ORDER BY {order}"  # noqa: S608
    aliases: dict[tuple[str, str], str] = {}
    needed = [(source, number) for _, source, _, number in lookups]
    if naming is not None:
        needed += [("statement_in", "sn"), ("ledger_in", "ln")]
    for key in needed:
        aliases.setdefault(key, f"j{len(aliases)}")
    taken = [
        f"{aliases[source, number]}.{column} AS {output}"
        for output, source, column, number in lookups
    ]
    if naming is not None:
        taken.append(f"{_identifier_rule(naming, aliases)} AS pixops_rule")
        columns = ", ".join(
            "pixops_rule AS rule" if column == "rule" else column for column in columns.split(", ")
        )
    joins = " ".join(
        f"LEFT JOIN {source} {alias} ON {alias}.{number} = o.{number}"
        for (source, number), alias in aliases.items()
    )
    inner = f"SELECT o.*, {', '.join(taken)} FROM {name} o {joins}"  # noqa: S608
    return f"SELECT {columns} FROM ({inner}) x ORDER BY {order}"  # noqa: S608


def _identifier_rule(naming: tuple[str, ...], aliases: dict[tuple[str, str], str]) -> str:
    """``rule`` where the SQL left it NULL, as `pixops.recon._outputs._identifier_rules`
    names it: the transaction id when it is the entry's reference, else ``settlement``
    for an entry with a settlement key, else the first identifier equal to the reference."""
    row, entry = aliases["statement_in", "sn"], aliases["ledger_in", "ln"]
    first = naming[0]
    whens = " ".join(
        f"WHEN {row}.{column} = {entry}.reference THEN '{column}'" for column in naming
    )
    return (
        f"COALESCE(o.rule, CASE WHEN {row}.{first} = {entry}.reference THEN '{first}'"
        f" WHEN {entry}.settlement IS NOT NULL THEN 'settlement' {whens} END)"
    )


def _check_session(spark: object) -> None:
    kinds: list[type] = [SparkSession]
    with contextlib.suppress(ImportError):  # Spark Connect's extra may not be installed
        from pyspark.sql.connect.session import SparkSession as ConnectSession

        kinds.append(ConnectSession)
    if not isinstance(spark, tuple(kinds)):
        raise TypeError(
            "spark must be a SparkSession (pixops.recon.spark.spark_session(), or your"
            f" cluster's), not {type(spark).__name__}"
        )


def _refuse_taken_names(spark: SparkSession, names: list[str]) -> None:
    """A temp view of the caller's named like an input or a step would be replaced."""
    views = {row["viewName"] for row in spark.sql("SHOW VIEWS").collect() if row["isTemporary"]}
    taken = sorted(views & set(names))
    if taken:
        raise ValueError(
            f"this session has temporary views named {taken}, which the reconciliation"
            " uses: drop or rename them, or run it in spark.newSession()"
        )


@contextmanager
def _settings(spark: SparkSession, zone: str) -> Iterator[None]:
    """The session time zone (business days) and ANSI mode for the run, then back."""
    before = {key: spark.conf.get(key, None) for key in SESSION_SETTINGS}
    spark.conf.set("spark.sql.session.timeZone", zone)
    spark.conf.set("spark.sql.ansi.enabled", "true")
    try:
        yield
    finally:
        for key, value in before.items():
            if value is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, value)


@contextmanager
def _views(spark: SparkSession) -> Iterator[list[str]]:
    """The names of the temp views made inside, dropped after it (the outputs are
    materialised first, so they do not need them)."""
    made: list[str] = []
    try:
        yield made
    finally:
        for name in reversed(made):
            spark.catalog.dropTempView(name)


def _warn_of_copies(discrepancies: DataFrame) -> None:
    """As the DuckDB host warns: copies of a statement id are most likely overlapping
    loads concatenated."""
    copies = discrepancies.where(discrepancies["detail"] == COPY_DETAIL).count()
    if copies:
        warnings.warn(
            f"{copies} statement rows repeat an id of another row and are reported as"
            " duplicate: if the statement joins overlapping loads, drop the copies first"
            " (statement.dropDuplicates(['id']) after ordering, or drop_duplicates('id',"
            " keep='last') in pandas)",
            UserWarning,
            stacklevel=3,
        )


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


#: Materialised steps the Spark host leaves as views (`_read_once`).
READ_ONCE: Final = _read_once()
