"""The reconciliation's inputs as Spark DataFrames, each numbered densely in a defined
order, with the same names, columns and checks as the DuckDB host's (`prepare_inputs`).

Driver-side inputs (pandas or Arrow; a CSV ledger, read by `read_ledger`) are prepared by
`pixops.recon._run.prepare_inputs` itself, so both hosts read them alike. A statement or
ledger already on the cluster (a Spark DataFrame, or Parquet that Spark reads) is checked
and numbered on the cluster: a DataFrame in its own order (partition by partition; sort
it first when the order matters), Parquet in the files' order (by path, then row), which
is the order the DuckDB host reads the same files in.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final, TypeAlias

import pyarrow as pa
from pyspark.errors import PySparkException
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as sf
from pyspark.sql import types as st
from pyspark.sql.pandas.types import from_arrow_schema

from pixops.frames import STATEMENT_SCHEMA
from pixops.recon._inputs import LEDGER_SCHEMA
from pixops.recon._ledger_extras import EXTRA_FIELDS
from pixops.recon._mapping import CANONICAL_MAPPING, PER_UNIT, LedgerError, LedgerMapping, Unit
from pixops.recon._reading import LedgerReading

__all__ = [
    "SparkInput",
    "cluster_reading",
    "conformed",
    "ledger_frame",
    "numbered",
    "on_cluster",
    "statement_frame",
    "to_spark",
]

#: What `reconcile` takes for the statement or the ledger and leaves on the cluster.
SparkInput: TypeAlias = DataFrame | str | Path

_MID: Final = "_pixops_mid"
#: `monotonically_increasing_id` puts the partition above bit 33 and the row below it.
_ROW_BITS: Final = 33
_INTEGERS: Final = (st.ByteType, st.ShortType, st.IntegerType, st.LongType)
_DIRECTIONS: Final = ("inbound", "outbound")
_STATUSES: Final = ("settled", "rejected", "failed", "processing")


def on_cluster(source: object) -> bool:
    """Whether ``source`` is read by Spark: a DataFrame, or a path that is not a CSV file
    (a CSV ledger is read on the driver, with `read_ledger`'s strict integer rules)."""
    if isinstance(source, DataFrame):
        return True
    if isinstance(source, (str, Path)):
        return Path(str(source)).suffix.lower() not in (".csv", ".txt")
    return False


def to_spark(spark: SparkSession, table: pa.Table) -> DataFrame:
    """An Arrow input on the cluster (categories as text, as the SQL compares them)."""
    columns = [
        column.cast(column.type.value_type) if pa.types.is_dictionary(column.type) else column
        for column in table.columns
    ]
    plain = pa.Table.from_arrays(columns, names=table.column_names)
    if plain.num_rows == 0:  # Spark Connect cannot infer a schema from no rows
        schema = from_arrow_schema(plain.schema, prefer_timestamp_ntz=False)
        return spark.createDataFrame([], schema=schema)
    return spark.createDataFrame(plain)


def _read(spark: SparkSession, source: SparkInput, what: str) -> tuple[DataFrame, bool]:
    """The DataFrame, and whether it came from files (then ordered by path and row)."""
    if isinstance(source, DataFrame):
        return source, False
    text = str(source)
    if "://" not in text and not Path(text).exists():
        raise FileNotFoundError(f"no such {what} file or folder: {text}")
    try:
        frame = spark.read.parquet(text)
    except PySparkException as error:
        raise ValueError(
            f"cannot read the {what} at {text} as Parquet: {_first_line(error)}"
        ) from None
    return frame.select("*", "_metadata.file_path", "_metadata.row_index"), True


def numbered(frame: DataFrame, name: str, *, from_files: bool = False) -> DataFrame:
    """``frame`` with a first column ``name``: 1, 2, ... N, dense, in the frame's order
    (or the files' order), materialised (`localCheckpoint`) so the numbers never change.
    Rows are counted per partition and each partition's first number added, so no step
    puts every row in one partition (`monotonically_increasing_id` alone is not dense)."""
    spark = frame.sparkSession
    columns = [f"`{c}`" for c in frame.columns if c not in ("file_path", "row_index")]
    if from_files:
        frame = frame.orderBy("file_path", "row_index")
    marked = frame.selectExpr(f"monotonically_increasing_id() AS {_MID}", *columns)
    marked = marked.localCheckpoint(eager=True)
    counted = marked.select(sf.shiftright(marked[_MID], _ROW_BITS).alias("part"))
    parts = sorted((int(row[0]), int(row[1])) for row in counted.groupBy("part").count().collect())
    firsts, total = [], 0
    for part, count in parts:
        firsts.append((part, total))
        total += count
    table = spark.createDataFrame(firsts, "part BIGINT, first BIGINT")
    joined = marked.join(
        sf.broadcast(table), sf.shiftright(marked[_MID], _ROW_BITS) == table["part"]
    )
    low = (1 << _ROW_BITS) - 1
    return joined.selectExpr(f"first + ({_MID} & {low}) + 1 AS {name}", *columns).localCheckpoint(
        eager=True
    )


def statement_frame(spark: SparkSession, source: SparkInput) -> DataFrame:
    """``statement_in`` from a statement on the cluster: ``sn``, ``business_date`` (the
    day of ``created_at`` under the session time zone, which the host has set), then
    `STATEMENT_SCHEMA`'s columns as text, BIGINT and TIMESTAMP; extra columns (a hive
    partition column) are left out. A column that is missing, of another type, or empty
    where the schema forbids it is a `ValueError` naming it."""
    frame, from_files = _read(spark, source, "statement")
    types = {field.name: field.dataType for field in frame.schema.fields}
    selected = []
    for field in STATEMENT_SCHEMA:
        found = types.get(field.name)
        if found is None:
            raise ValueError(f"the statement has no column {field.name!r}")
        selected.append(_statement_column(field, found))
    extra = ["file_path", "row_index"] if from_files else []
    frame = frame.selectExpr(*selected, *extra)
    required = [field.name for field in STATEMENT_SCHEMA if not field.nullable]
    empty = frame.selectExpr(*[f"count_if({name} IS NULL) AS {name}" for name in required])
    for name, nulls in empty.first().asDict().items():  # type: ignore[union-attr]
        if nulls:
            raise ValueError(f"{nulls} statement rows without {name}")
    with_number = numbered(frame, "sn", from_files=from_files)
    return with_number.selectExpr(
        "sn", "CAST(created_at AS DATE) AS business_date", *STATEMENT_SCHEMA.names
    )


def _statement_column(field: pa.Field, found: st.DataType) -> str:
    name = str(field.name)
    if pa.types.is_integer(field.type):
        if not isinstance(found, _INTEGERS):
            raise ValueError(
                f"statement column {name!r} is {found.simpleString()}: money is integers of"
                " base units (BIGINT), never floats or decimals"
            )
        return f"CAST({name} AS BIGINT) AS {name}"
    if pa.types.is_timestamp(field.type):
        if not isinstance(found, st.TimestampType):
            raise ValueError(
                f"statement column {name!r} is {found.simpleString()}: it must be an instant"
                " (TIMESTAMP, with its time zone), not a time without one"
            )
        return name
    if not isinstance(found, st.StringType):
        raise ValueError(f"statement column {name!r} is {found.simpleString()}, not text")
    return name


def ledger_frame(
    spark: SparkSession, source: SparkInput, mapping: LedgerMapping | None
) -> DataFrame:
    """``ledger_in`` from a ledger on the cluster: ``ln`` and `LEDGER_SCHEMA`, checked as
    `read_ledger` checks a table. Amounts must be integers of ``mapping.amount_unit``
    there (text is read on the driver: give a CSV file, or `read_ledger`'s table); days
    must be DATE. A bad value is a `LedgerError` naming the column."""
    mapping = CANONICAL_MAPPING if mapping is None else mapping
    if not isinstance(mapping, LedgerMapping):
        raise LedgerError("mapping must be a LedgerMapping")
    unit = _cluster_unit(mapping)
    extras = [f.name for f in EXTRA_FIELDS if getattr(mapping, f.name, None) is not None]
    if extras:
        raise LedgerError(
            f"a ledger on the cluster is read without the mapping's {extras}: give it as a"
            " CSV file or a table read here (pixops.recon.read_ledger) to use them"
        )
    frame, from_files = _read(spark, source, "ledger")
    types = {field.name: field.dataType for field in frame.schema.fields}
    factor = PER_UNIT[unit]

    def column(field: str) -> tuple[str, st.DataType]:
        name = getattr(mapping, field)
        if name not in types:
            raise LedgerError(
                f"ledger has no column {name!r} (its columns: {', '.join(frame.columns)});"
                f" name yours with LedgerMapping({field}='...')"
            )
        return f"`{name}`", types[name]

    def text(field: str) -> str:
        name, found = column(field)
        if not isinstance(found, st.StringType):
            shown = name.strip("`")
            raise LedgerError(f"column {shown!r} must be text, not {found.simpleString()}")
        return name

    def money(field: str) -> str:
        name, found = column(field)
        if not isinstance(found, _INTEGERS):
            raise LedgerError(
                f"column {name.strip('`')!r} is {found.simpleString()}: a ledger on the cluster"
                f" holds integers of {unit}; text or decimal amounts are read"
                " on the driver (a CSV file, or pixops.recon.read_ledger's table)"
            )
        return f"CAST({name} AS BIGINT) * {factor}"

    amount = money("amount")
    if mapping.direction is None:
        direction = f"CASE WHEN {amount} < 0 THEN 'outbound' ELSE 'inbound' END"
        amount = f"abs({amount})"
    else:
        direction = text("direction")
    fee = "CAST(NULL AS BIGINT)" if mapping.fee is None else money("fee")
    status = "CAST(NULL AS STRING)" if mapping.status is None else text("status")
    booked_name, booked_type = column("booked_on")
    if not isinstance(booked_type, st.DateType):
        raise LedgerError(
            f"column {booked_name.strip('`')!r} is {booked_type.simpleString()}: a ledger on"
            " the cluster books days as DATE"
        )
    extra = ["file_path", "row_index"] if from_files else []
    frame = frame.selectExpr(
        f"{text('entry_id')} AS entry_id",
        f"{text('reference')} AS reference",
        f"{direction} AS direction",
        f"{amount} AS amount_base",
        f"{fee} AS fee_base",
        f"{status} AS status",
        f"{booked_name} AS booked_on",
        *extra,
    )
    _check_ledger(frame)
    with_number = numbered(frame, "ln", from_files=from_files)
    return with_number.select("ln", *LEDGER_SCHEMA.names)


def _cluster_unit(mapping: LedgerMapping) -> Unit:
    """The unit of a ledger's integer amounts on the cluster: the mapping's, or the one
    its amount column's name says (``amount_base``, ``valor_centavos``)."""
    unit = mapping.unit_for(mapping.amount)
    if unit is None:
        raise LedgerError(
            f"say the unit of column {mapping.amount!r}: LedgerMapping(amount_unit='base',"
            " 'centavos' or 'reais') (a ledger on the cluster is not read cell by cell)"
        )
    return unit


def cluster_reading(mapping: LedgerMapping | None) -> LedgerReading:
    """How a ledger on the cluster is read: integers of its unit, days as DATE; compared
    to the centavo unless in base units (whole reais are whole centavos too)."""
    unit = _cluster_unit(CANONICAL_MAPPING if mapping is None else mapping)
    return LedgerReading(
        separator=None,
        encoding=None,
        decimal="whole",
        date_format=None,
        amount_unit=unit,
        step_base=1 if unit == "base" else 100,
    )


def _check_ledger(frame: DataFrame) -> None:
    """`read_ledger`'s checks, in one pass over the rows and one over the ids."""
    directions = ", ".join(f"'{value}'" for value in _DIRECTIONS)
    statuses = ", ".join(f"'{value}'" for value in _STATUSES)
    found = frame.selectExpr(
        *[
            f"count_if({field.name} IS NULL) AS null_{field.name}"
            for field in LEDGER_SCHEMA
            if not field.nullable
        ],
        "count_if(reference = '') AS empty_reference",
        "count_if(amount_base < 0) AS negative_amount",
        "count_if(fee_base < 0) AS negative_fee",
        f"min(CASE WHEN direction NOT IN ({directions}) THEN direction END) AS bad_direction",
        f"min(CASE WHEN status NOT IN ({statuses}) THEN status END) AS bad_status",
    ).first()
    assert found is not None  # an aggregate always has its one row
    for field in LEDGER_SCHEMA:
        nulls = found.asDict().get(f"null_{field.name}")
        if nulls:
            raise LedgerError(f"{nulls} ledger rows without {field.name}")
    if found["empty_reference"]:
        raise LedgerError(f"{found['empty_reference']} ledger rows with an empty reference")
    if found["negative_amount"]:
        raise LedgerError("with a direction column, amounts must not be negative")
    if found["negative_fee"]:
        raise LedgerError(
            f"{found['negative_fee']} ledger rows with a negative fee: a fee is what the"
            " service charged, written as a positive amount"
        )
    if found["bad_direction"] is not None:
        bad = found["bad_direction"]
        raise LedgerError(f"column 'direction': {bad!r} is not one of {list(_DIRECTIONS)}")
    if found["bad_status"] is not None:
        bad = found["bad_status"]
        raise LedgerError(f"column 'status': {bad!r} is not one of {list(_STATUSES)}")
    repeated = (
        frame.groupBy("entry_id").count().where("count > 1").orderBy("entry_id").limit(3).collect()
    )
    if repeated:
        raise LedgerError(f"entry_id must be unique; repeated: {[row[0] for row in repeated]}")


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


#: Spark SQL's name of each Arrow type an input column has.
_SQL_TYPES: Final = {
    pa.string(): "STRING",
    pa.int64(): "BIGINT",
    pa.int32(): "INT",
    pa.bool_(): "BOOLEAN",
    pa.date32(): "DATE",
    pa.timestamp("us", tz="UTC"): "TIMESTAMP",
}
#: Columns the DuckDB host derives from others, and how Spark derives them.
_DERIVED: Final = {"created_s": "unix_seconds(created_at)"}


def conformed(frame: DataFrame, like: pa.Table) -> DataFrame:
    """``frame`` with exactly the columns, in order, of the input the DuckDB host prepares
    (``like``, prepared from no rows): a column derived there is derived here
    (`_DERIVED`); one the rules read but a cluster input cannot have (a ledger's
    counterparty document, when read on the driver from a mapping) is empty."""
    have = set(frame.columns)
    selected = []
    for field in like.schema:
        name = str(field.name)
        kind = field.type.value_type if pa.types.is_dictionary(field.type) else field.type
        if name in have:
            selected.append(f"`{name}`")
        elif name in _DERIVED:
            selected.append(f"{_DERIVED[name]} AS {name}")
        else:
            selected.append(f"CAST(NULL AS {_SQL_TYPES[kind]}) AS {name}")
    return frame.selectExpr(*selected)
