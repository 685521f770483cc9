"""Reconciliation of the PIX statement against a merchant ledger, webhooks and balances.

    import pixops
    from pixops.frames import load_statement
    from pixops.recon import read_balances, reconcile
    client = pixops.connect()
    statement = load_statement(client, "2026-01-14", "2026-01-16", tz="America/Sao_Paulo")
    snapshots = read_balances("data/balances.csv")[14:16]  # 2026-01-15T03:00Z, 2026-01-16T03:00Z
    result = reconcile(statement, "data/sample_ledger.csv",
                       start="2026-01-15", end="2026-01-15", balances=snapshots)
    result.counts                     # {"matched": 291, "missing_in_statement": 1, ...}
    result.category("unit_error")     # one frame per finding
    result.write("data/out/recon")    # Parquet, CSV and an Excel-friendly CSV
    result.summary_figure()           # plotly, amounts in pt-BR
    result.ledger_warning("data/sample_ledger.csv")  # None: entries paired (see `unpaired`)

Balance snapshots are `(as_of, balance_base)` pairs inside the statement's span;
`balance_snapshot(client)` is the live `GET /balance`, for a statement loaded up to now.
`run_days(client, first, last, ledger=..., balances=...)` is the whole run of business
days (the statement a day either side, the opening, inside and live snapshots, a day not
yet come refused) that `pixops recon --help` (with an exit status for schedulers) and
the `ReconDashboard` both make. The ledger's columns are mapped by
`LedgerMapping` (its defaults are those of `data/sample_ledger.csv`, described in
`data/README.md`), or by a mapping file (`read_mapping`, `write_mapping`; saved beside the
ledger, `find_mapping` finds it; docs/ledger-mapping.md); `load_ledger` says how a
ledger was read (`LedgerReading.line`) and `ReconResult.unit_hint` when its unit looks
wrong.

All rules live in ONE portable SQL text (`STEPS`) run by DuckDB with the inputs
registered as views and the session time zone set; the same text runs on Spark. The
outputs are `OUTPUTS`; the matched rows' ids are read from the inputs by row number
after the SQL (`LOOKUPS`: by position here, a join on the number elsewhere).
Categories: `CATEGORIES`. The result's frames are described in `ReconResult`.

Beyond identifiers (docs/reconciliation-rules.md): `Tolerances` (amounts, fees, days,
inferred pairs by amount, payer and time, groups by reference), the ledger columns
`LedgerMapping` names for them (booked_at, document, name, settlement, kind), and the
review file (`ReviewFile`, beside the ledger: `review_path`) whose confirmations and
rejections every later run applies:

    from pixops.recon import ReviewFile, Tolerances, review_path
    result = reconcile(statement, "data/sample_ledger.csv", mapping=..., start=..., end=...,
                       tolerances=Tolerances(inferred_seconds=300, groups=True),
                       review_file=review_path("data/sample_ledger.csv"))
    result.category("needs_review")   # two equally good candidates, side by side
    result.matched["rule"]            # transaction_id, group of 12 rows = settlement ...
"""

from pixops.errors import name_errors_by_package
from pixops.recon._balances import BALANCES_SCHEMA, balances_table, read_balances
from pixops.recon._categories import ATTENTION_CATEGORIES, CATEGORIES, CATEGORY_LABELS
from pixops.recon._days import (
    DayNotComeError,
    DaysInputs,
    DaysRun,
    NoOpeningBalanceError,
    RunInputError,
    load_days,
    run_days,
)
from pixops.recon._inputs import (
    LEDGER_SCHEMA,
    WEBHOOKS_SCHEMA,
    LedgerError,
    LedgerHead,
    LedgerMapping,
    LedgerReading,
    LoadedLedger,
    ledger_head,
    load_ledger,
    read_ledger,
    webhooks_table,
)
from pixops.recon._mapping_file import (
    find_mapping,
    mapping_beside,
    read_mapping,
    read_tolerances,
    write_mapping,
)
from pixops.recon._result import NOT_CHECKED, SAMPLE_LEDGER_NAME, ReconResult
from pixops.recon._review import Decision, ReviewError, ReviewFile, review_path
from pixops.recon._run import balance_snapshot, reconcile
from pixops.recon._sql import LOOKUPS, OUTPUTS, STEPS
from pixops.recon._tolerances import ToleranceError, Tolerances

__all__ = [
    "ATTENTION_CATEGORIES",
    "BALANCES_SCHEMA",
    "CATEGORIES",
    "CATEGORY_LABELS",
    "LEDGER_SCHEMA",
    "LOOKUPS",
    "NOT_CHECKED",
    "OUTPUTS",
    "SAMPLE_LEDGER_NAME",
    "STEPS",
    "WEBHOOKS_SCHEMA",
    "DayNotComeError",
    "DaysInputs",
    "DaysRun",
    "Decision",
    "LedgerError",
    "LedgerHead",
    "LedgerMapping",
    "LedgerReading",
    "LoadedLedger",
    "NoOpeningBalanceError",
    "ReconResult",
    "ReviewError",
    "ReviewFile",
    "RunInputError",
    "ToleranceError",
    "Tolerances",
    "balance_snapshot",
    "balances_table",
    "find_mapping",
    "ledger_head",
    "load_days",
    "load_ledger",
    "mapping_beside",
    "read_balances",
    "read_ledger",
    "read_mapping",
    "read_tolerances",
    "reconcile",
    "review_path",
    "run_days",
    "webhooks_table",
    "write_mapping",
]

name_errors_by_package(__name__, globals(), __all__)
