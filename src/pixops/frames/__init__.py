"""Statements and transactions as strict-integer, Arrow-backed frames (pandas, Arrow, DuckDB).

    import pixops
    from pixops.frames import LocalStore, as_relation, brl_text, load_statement, read_statement
    client = pixops.connect()
    statement = load_statement(client, "2026-01-15", "2026-01-15", tz="America/Sao_Paulo")
    statement["amount_base"].dtype               # int64[pyarrow]: base units, never float
    brl_text(statement["net_base"])              # "R$ 1.234,56" for people
    as_relation(statement).aggregate("CAST(SUM(net_base) AS BIGINT)")

    store = LocalStore("pix.duckdb")             # a month downloaded once, then by delta
    store.sync(client, "2026-01-01", "2026-01-31", tz="America/Sao_Paulo")

    statement.to_parquet("january.parquet")      # kept; read_statement gives it back
    read_statement("january.parquet")            # exact types (CSV too: to_csv(index=False))

`load_transactions` does the same for the transaction list. Everything is read through
the client (``client.statement.iter_raw``), never the engine: pointed at the real
service, the same code gives the same frames. Columns and types are declared in
`STATEMENT_SCHEMA`; `check_frame` raises `SchemaDriftError` on any drift.
"""

from pixops.errors import name_errors_by_package
from pixops.frames._days import (
    BUSINESS_TZ,
    DayWindow,
    day_window,
    local_dates,
    parse_day,
    parse_tz,
    zone_meant,
)
from pixops.frames._files import read_statement, read_transactions
from pixops.frames._load import (
    WINDOW_ATTR,
    as_relation,
    as_table,
    link_refund_originals,
    load_statement,
    load_statement_table,
    load_transactions,
    load_transactions_table,
)
from pixops.frames._money import MONEY_DTYPE, brl_text, money_column, reais_decimal
from pixops.frames._parse import PageParseError, deduplicate_by_id, parse_pages
from pixops.frames._schema import (
    CATEGORICAL_COLUMNS,
    MONEY_COLUMNS,
    STATEMENT_SCHEMA,
    TRANSACTIONS_SCHEMA,
    SchemaDriftError,
    check_frame,
    check_table,
    conform_table,
    to_frame,
)
from pixops.frames._store import LocalStore, SyncReport, service_now

__all__ = [
    "BUSINESS_TZ",
    "CATEGORICAL_COLUMNS",
    "MONEY_COLUMNS",
    "MONEY_DTYPE",
    "STATEMENT_SCHEMA",
    "TRANSACTIONS_SCHEMA",
    "WINDOW_ATTR",
    "DayWindow",
    "LocalStore",
    "PageParseError",
    "SchemaDriftError",
    "SyncReport",
    "as_relation",
    "as_table",
    "brl_text",
    "check_frame",
    "check_table",
    "conform_table",
    "day_window",
    "deduplicate_by_id",
    "link_refund_originals",
    "load_statement",
    "load_statement_table",
    "load_transactions",
    "load_transactions_table",
    "local_dates",
    "money_column",
    "parse_day",
    "parse_pages",
    "parse_tz",
    "read_statement",
    "read_transactions",
    "reais_decimal",
    "service_now",
    "to_frame",
    "zone_meant",
]

name_errors_by_package(__name__, globals(), __all__)
