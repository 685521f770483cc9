"""The whole reconciliation as portable SQL: the ONE place its rules live (this package:
`_matching` goes from identifiers to pairs, `_findings` says what they show, and the
order they run in is here).

The host registers the inputs as views and sets the session time zone (a balance's day is
``CAST(closing_at AS DATE)`` in that zone), then runs `STEPS` in order, each a temporary
table or view named by the step (DuckDB: ``CREATE OR REPLACE TEMP TABLE name AS ...``;
Spark: ``spark.sql(sql).createOrReplaceTempView(name)``), and reads `OUTPUTS`, adding
their `LOOKUPS`. The text keeps to what DuckDB 2.0 and Spark 4 run the same way: no
QUALIFY, no integer division, dates only compared or moved by ``± 1``, no double-quoted
identifiers, ``NULLS LAST``/``FIRST`` always written, money sums cast back to BIGINT,
no ``hash()`` (64-bit in DuckDB, 32-bit in Spark), every nullable ``CONCAT`` argument in
``COALESCE`` (DuckDB skips a NULL, Spark returns NULL). `pixops.recon.spark` runs the same
text on Spark; tests/recon/test_spark_parity.py proves the outputs equal row for row.

Inputs (``sn`` and ``ln`` are the rows' positions 1, 2, ..., added by the host: they break
ties deterministically, and once identifiers are matched every join is on them):
- ``statement_in``: ``sn``, ``business_date`` (the day of ``created_at`` in the zone, a
  DATE: the host converts the column once, vectorised, as `pixops.frames.local_dates`;
  Spark: ``CAST(created_at AS DATE)`` with ``spark.sql.session.timeZone`` set to the zone,
  which is exact; ``to_date(from_utc_timestamp(created_at, zone))`` under that setting
  shifts twice and misdates about one row in eight), then the statement schema
  (`pixops.frames.STATEMENT_SCHEMA`).
  Last, ``created_s``: ``created_at`` as whole seconds since the epoch (BIGINT; Spark:
  ``unix_seconds(created_at)``), the form inferred pairs compare times in.
- ``ledger_in``: ``ln`` plus `pixops.recon.LEDGER_SCHEMA` (``reference`` may be NULL),
  then ``document``, ``name``, ``settlement``, ``kind`` (text, NULL when the mapping names
  no such column) and ``booked_at_s`` (seconds since the epoch): `_ledger_extras.padded`.
- ``rules_in``: one row, `pixops.recon.Tolerances.table` (amount_base, amount_bp,
  fee_base, day_window, window_s, by_reference, tolerance_text).
- ``decisions_in``: the review file's decisions (entry_id, statement_id, decision,
  decided_by, decided_at as text).
- ``webhooks_in``: event_type, transaction_id, original_transaction_id, created_at.
- ``balances_in``: as_of (timestamp), balance_base.
- ``scope_in``: one row, first_day and last_day (DATE, NULL = open) and
  ledger_step_base (BIGINT: the precision the ledger keeps, 1 base unit or 100 for one
  in centavos; an amount or fee that differs by less is ``rounding``, not a difference).
- ``categories_in``: category, position (the categories reported, in order).
"""

from __future__ import annotations

from typing import Final

from pixops.recon._sql._findings import (
    BALANCE_BREAKS,
    DISCREPANCIES,
    DOUBLE_BOOKED,
    HOOK_HITS,
    HOOK_STATUS,
    MATCHED,
    NEAR_PAIRS,
    ORIGINALS,
    PAIR_ISSUES,
    REFUND_ENTRIES,
    REFUND_ROWS,
    REFUNDS,
    ROLLFORWARD,
    SNAPSHOTS,
    SUMMARY,
    UNCLAIMED,
    UNPAIRED,
    UNPICKED,
)
from pixops.recon._sql._matching import (
    CAND,
    CAND_EXACT,
    CLAIMS,
    COPIES,
    HOOK_LINKS,
    LED,
    PAIRS,
    PICKS,
    STMT,
    STMT_KEYS,
    STMT_LINKS,
)
from pixops.recon._sql._rules import (
    DAY_GROUPS,
    DAY_TOTALS,
    DECISIONS,
    ENTRY_GROUPS,
    FEW_LED,
    FEW_LEDGER,
    FEW_LN,
    FEW_SN,
    FEW_STATEMENT,
    FEW_STMT,
    GROUP_CLAIMS,
    GROUP_EXTRA,
    INFER_CAND,
    INFERRED,
    REF_GROUPS,
    RULE_MATCHED,
    RULE_PAIRS,
    SHARED_PICKS,
    TAKEN,
)

__all__ = ["EXACT", "IDENTIFIER_RULE", "LOOKUPS", "OUTPUTS", "STEPS", "TAKEN"]


#: (name, SQL, materialise) in the order they run. A host makes each a temporary table
#: when `materialise` (it is read several times) and a temporary view otherwise: a step
#: one later step reads once, inlined there (writing even 60,000 rows to a table costs
#: more than the statement that reads them), and `matched`, read twice, by the summary's
#: count and the output, which together cost less than writing its million rows; it
#: comes as soon as what it reads is made, so a host can read it while the later steps
#: run.
STEPS: Final[tuple[tuple[str, str, bool], ...]] = (
    ("copies", COPIES, True),
    ("led", LED, False),
    ("stmt_keys", STMT_KEYS, False),
    ("cand", CAND, True),
    ("picks", PICKS, True),
    ("claims", CLAIMS, True),
    ("pairs", PAIRS, False),
    ("shared_picks", SHARED_PICKS, True),
    ("hook_links", HOOK_LINKS, False),
    ("stmt", STMT, True),
    ("stmt_links", STMT_LINKS, True),
    ("unpicked", UNPICKED, False),
    ("unclaimed", UNCLAIMED, True),
    ("decisions", DECISIONS, True),
    ("group_extra", GROUP_EXTRA, True),
    ("group_claims", GROUP_CLAIMS, True),
    ("few_ln", FEW_LN, True),
    ("few_ledger", FEW_LEDGER, False),
    ("few_led", FEW_LED, True),
    ("few_sn", FEW_SN, False),
    ("few_statement", FEW_STATEMENT, False),
    ("few_stmt", FEW_STMT, True),
    ("ref_groups", REF_GROUPS, True),
    ("entry_groups", ENTRY_GROUPS, False),
    ("day_groups", DAY_GROUPS, True),
    ("day_totals", DAY_TOTALS, False),
    ("infer_cand", INFER_CAND, True),
    ("inferred", INFERRED, True),
    ("rule_pairs", RULE_PAIRS, True),
    ("rule_matched", RULE_MATCHED, False),
    ("near_pairs", NEAR_PAIRS, True),
    ("matched", MATCHED, False),
    ("pair_issues", PAIR_ISSUES, False),
    ("double_booked", DOUBLE_BOOKED, False),
    ("unpaired", UNPAIRED, True),
    ("hook_status", HOOK_STATUS, False),
    ("hook_hits", HOOK_HITS, False),
    ("snapshots", SNAPSHOTS, True),
    ("rollforward", ROLLFORWARD, True),
    ("balance_breaks", BALANCE_BREAKS, False),
    ("discrepancies", DISCREPANCIES, True),
    ("refund_rows", REFUND_ROWS, True),
    ("originals", ORIGINALS, True),
    ("refund_entries", REFUND_ENTRIES, True),
    ("refunds", REFUNDS, True),
    ("summary", SUMMARY, True),
)

#: Steps' text when no tolerance is set and the ledger keeps base units (``rules_in``'s
#: amount_base, amount_bp, fee_base and day_window 0, ``scope_in.ledger_step_base`` 1):
#: the same rows, fewer columns compared (see `CAND_EXACT`): step -> (its text in `STEPS`,
#: the text a host may run instead). The DuckDB host does, where a step's text is that
#: one; Spark runs `STEPS` as they are.
EXACT: Final[dict[str, tuple[str, str]]] = {"cand": (CAND, CAND_EXACT)}

#: Output tables: (columns, row order). The result object exposes exactly these; an
#: output's `LOOKUPS` are not in its SQL, which has the row numbers they need instead.
OUTPUTS: Final[dict[str, tuple[str, str]]] = {
    "matched": (
        "entry_id, reference, transaction_id, statement_id, amount_base, fee_base,"
        " payment_status, booked_on, business_date, rule, tolerance",
        "ln ASC NULLS LAST, sn ASC NULLS LAST",
    ),
    "discrepancies": (
        "category, entry_id, reference, transaction_id, statement_id, ledger_amount_base,"
        " statement_amount_base, difference_base, ledger_fee_base, statement_fee_base,"
        " ledger_status, statement_status, booked_on, business_date, detail",
        "category ASC NULLS LAST, business_date ASC NULLS LAST, booked_on ASC NULLS LAST,"
        " entry_id ASC NULLS LAST, transaction_id ASC NULLS LAST,"
        " statement_id ASC NULLS LAST, reference ASC NULLS LAST, detail ASC NULLS LAST,"
        " sn ASC NULLS LAST, ln ASC NULLS LAST",
    ),
    "refunds": (
        "*",
        "original_transaction_id ASC NULLS LAST, refund_transaction_id ASC NULLS LAST,"
        " original_entry_id ASC NULLS LAST, refund_entry_id ASC NULLS LAST",
    ),
    "rollforward": ("*", "opening_at ASC NULLS LAST"),
    "summary": (
        "category, items, ledger_amount_base, statement_amount_base, difference_base",
        "position ASC NULLS LAST",
    ),
}

#: Where `matched` leaves ``rule`` NULL an identifier made the pair; the host names it: the
#: first of these statement columns equal to the entry's reference (``settlement`` when
#: the entry has a settlement key), read by the row number like `LOOKUPS`.
IDENTIFIER_RULE: Final[dict[str, tuple[str, ...]]] = {
    "matched": ("transaction_id", "end_to_end_id", "external_id", "tag"),
}

_IDS: Final = (
    ("entry_id", "ledger_in", "entry_id", "ln"),
    ("reference", "ledger_in", "reference", "ln"),
    ("transaction_id", "statement_in", "transaction_id", "sn"),
    ("statement_id", "statement_in", "id", "sn"),
)
#: Text an output takes, decoded, from the input row a number points at: (output column,
#: input, input column, number). Positions here (a join on the number elsewhere), so a
#: million matched rows carry no text through the joins and the sort; an output ordered
#: by such a column is sorted once it is taken (every order is ascending, nulls last).
LOOKUPS: Final[dict[str, tuple[tuple[str, str, str, str], ...]]] = {
    "matched": (*_IDS, ("payment_status", "statement_in", "payment_status", "sn")),
    "discrepancies": _IDS,
}
