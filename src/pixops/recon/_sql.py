"""The whole reconciliation as portable SQL: the ONE place its rules live.

The host registers the inputs as views and sets the session time zone (business days are
``CAST(created_at AS DATE)`` in that zone), then runs `STEPS` in order, each a temporary
table or view named by the step (DuckDB: ``CREATE OR REPLACE TEMP TABLE name AS ...``;
Spark: ``spark.sql(sql).createOrReplaceTempView(name)``), and reads `OUTPUTS`, adding
their `LOOKUPS`. The text keeps to what DuckDB 2.0 and Spark 4 run the same way: no
QUALIFY, no integer division, dates only compared or moved by ``± 1``, no double-quoted
identifiers, ``NULLS LAST``/``FIRST`` always written, money sums cast back to BIGINT.

Inputs (``sn`` and ``ln`` are the rows' positions 1, 2, ..., added by the host: they break
ties deterministically, and once identifiers are matched every join is on them):
- ``statement_in``: ``sn`` plus the statement schema (`pixops.frames.STATEMENT_SCHEMA`).
- ``ledger_in``: ``ln`` plus `pixops.recon.LEDGER_SCHEMA`.
- ``webhooks_in``: event_type, transaction_id, original_transaction_id, created_at.
- ``balances_in``: as_of (timestamp), balance_base.
- ``scope_in``: one row, first_day and last_day (DATE, NULL = open).
- ``categories_in``: category, position (the categories reported, in order).
"""

from __future__ import annotations

from typing import Final

__all__ = ["LOOKUPS", "OUTPUTS", "STEPS"]

# Webhook events that name a refund's original (the statement does not).
_HOOK_LINKS = """
SELECT transaction_id, MAX(original_transaction_id) AS original_transaction_id
FROM webhooks_in WHERE original_transaction_id IS NOT NULL
GROUP BY transaction_id
"""

# Ids listed more than once (overlapping exports); the newest state of each is kept.
_COPIES = """
SELECT sn FROM (
    SELECT s.sn, ROW_NUMBER() OVER (PARTITION BY s.id
                                    ORDER BY s.completed_at DESC NULLS LAST,
                                             s.sn DESC NULLS LAST) AS copy_rank
    FROM statement_in s
    WHERE hash(s.id) IN (SELECT hash(id) FROM statement_in GROUP BY hash(id)
                         HAVING COUNT(*) > 1)
) x
WHERE x.copy_rank > 1
"""

# The statement rows kept (copies left out) without their text, which is read back by
# ``sn`` for the rows an output shows; the business day (a time-zone conversion) once.
_STMT = """
SELECT d.*,
       (sc.first_day IS NULL OR d.business_date >= sc.first_day)
       AND (sc.last_day IS NULL OR d.business_date <= sc.last_day) AS in_scope
FROM (
    SELECT s.sn, CAST(s.payment_status AS STRING) AS payment_status,
           CAST(s.direction AS STRING) AS direction,
           s.amount_base, s.fee_base, s.completed_at,
           CAST(s.created_at AS DATE) AS business_date
    FROM statement_in s LEFT JOIN copies c ON c.sn = s.sn
    WHERE c.sn IS NULL
) d
CROSS JOIN scope_in sc
"""

# Refunds and returns (few rows): the original named by the statement or by a webhook.
_STMT_LINKS = """
SELECT s.sn, s.transaction_id,
       COALESCE(s.original_transaction_id, h.original_transaction_id)
           AS original_transaction_id
FROM statement_in s
LEFT JOIN hook_links h ON h.transaction_id = s.transaction_id
LEFT JOIN copies c ON c.sn = s.sn
WHERE (s.original_transaction_id IS NOT NULL OR h.original_transaction_id IS NOT NULL)
  AND c.sn IS NULL
"""

_LED = """
SELECT l.ln, l.entry_id, l.reference, l.direction, l.amount_base, l.fee_base,
       COALESCE(l.status, 'settled') AS status, l.booked_on,
       (sc.first_day IS NULL OR l.booked_on >= sc.first_day)
       AND (sc.last_day IS NULL OR l.booked_on <= sc.last_day) AS in_scope
FROM ledger_in l CROSS JOIN scope_in sc
"""

# Every identifier a ledger may have written down for a movement, copies included: they
# are ranked last in `cand` (filtering 2M keys against `copies` costs more than that);
# with the values `cand` compares.
_STMT_KEYS = """
SELECT k.match_key, k.sn, CAST(k.direction AS STRING) AS direction,
       CAST(k.payment_status AS STRING) AS payment_status, k.amount_base, k.fee_base,
       k.created_at
FROM (
    SELECT transaction_id AS match_key, sn, direction, payment_status, amount_base,
           fee_base, created_at
    FROM statement_in
    UNION ALL
    SELECT end_to_end_id, sn, direction, payment_status, amount_base, fee_base, created_at
    FROM statement_in WHERE end_to_end_id IS NOT NULL
    UNION ALL
    SELECT external_id, sn, direction, payment_status, amount_base, fee_base, created_at
    FROM statement_in WHERE external_id IS NOT NULL
    UNION ALL
    SELECT tag, sn, direction, payment_status, amount_base, fee_base, created_at
    FROM statement_in WHERE tag IS NOT NULL
) k
"""

# Every (entry, statement row) pair an identifier links (an entry linking none: once, no
# row), ranked in one integer in the join: a copy of an id last (8), then same direction
# (4), settled (2), the same amount (1), flags above the bits of `sn`; then the first in
# statement order. Below the rank, what the pair would be (`pair_bits`), decided here so
# the chosen pairs need no join back to a million rows: the two sides agree on everything
# (1) or not (2; neither when a side lacks a value to compare: then the pair is neither
# matched nor an issue), either side's day is in scope (4), the amounts differ (8). So
# ``pick_key`` = flags * 2^36 + sn * 16 + pair_bits. A join on the text: on 64-bit hashes
# of it (measured at 1M x 1M) the join saves about what hashing 3M strings costs, and
# confirming the picked pairs' text afterwards (a collision must never pair two different
# ids) adds ~0.1 s of CPU.
_CAND = """
SELECT x.ln, x.sn,
       x.rank_key * 16
       + CASE WHEN x.agrees THEN 1 WHEN NOT x.agrees THEN 2 ELSE 0 END
       + CASE WHEN x.ledger_in_scope
                   OR ((sc.first_day IS NULL OR x.business_date >= sc.first_day)
                       AND (sc.last_day IS NULL OR x.business_date <= sc.last_day))
              THEN 4 ELSE 0 END
       + CASE WHEN x.amounts_differ THEN 8 ELSE 0 END AS pick_key
FROM (
    SELECT l.ln, k.sn,
           (CASE WHEN c.sn IS NULL THEN 0 ELSE 8 END
            + CASE WHEN l.direction IS NULL OR l.direction = k.direction THEN 0 ELSE 4 END
            + CASE WHEN k.payment_status = 'settled' THEN 0 ELSE 2 END
            + CASE WHEN k.amount_base = l.amount_base THEN 0 ELSE 1 END) * 4294967296
           + k.sn AS rank_key,
           CAST(k.created_at AS DATE) AS business_date, l.in_scope AS ledger_in_scope,
           l.amount_base <> k.amount_base AS amounts_differ,
           l.amount_base = k.amount_base
           AND (l.fee_base IS NULL OR l.fee_base = k.fee_base)
           AND l.booked_on = CAST(k.created_at AS DATE)
           AND (l.direction IS NULL OR l.direction = k.direction)
           AND l.status = k.payment_status AS agrees
    FROM led l
    LEFT JOIN stmt_keys k ON k.match_key = l.reference
    LEFT JOIN copies c ON c.sn = k.sn
) x
CROSS JOIN scope_in sc
"""

# Each ledger entry picks its best-ranked candidate: one MIN of `pick_key`, whose rank
# decides (two candidates tie only when they are one row met through two of its
# identifiers, bits and all); its `sn` and `pair_bits` are read back out of it (the
# division is exact: a multiple of 16, below 2^53). NULL when no statement row carries its
# reference, or only copies do (a copy ranks after every kept row, so the best is a copy
# only when no kept row is a candidate).
_PICKS = """
SELECT ln,
       CASE WHEN k < 8 * 68719476736
            THEN CAST((k % 68719476736 - k % 16) / 16 AS BIGINT) END AS sn,
       CASE WHEN k < 8 * 68719476736 THEN k % 16 END AS pair_bits
FROM (SELECT ln, MIN(pick_key) AS k FROM cand GROUP BY ln) m
"""

# A statement row picked by several entries belongs to the first booking: one MIN of
# ``ln * 16 + pair_bits`` gives it with the bits of its pick.
_CLAIMS = """
SELECT sn, CAST((k - k % 16) / 16 AS BIGINT) AS ln, claimants, k % 16 AS pair_bits
FROM (SELECT sn, MIN(ln * 16 + pair_bits) AS k, COUNT(*) AS claimants
      FROM picks WHERE sn IS NOT NULL GROUP BY sn) m
"""

# The pairs: the claims with their bits read out (see `cand`).
_PAIRS = """
SELECT ln, sn,
       CASE WHEN pair_bits % 4 = 1 THEN TRUE WHEN pair_bits % 4 = 2 THEN FALSE END AS agrees,
       pair_bits % 8 >= 4 AS in_scope,
       pair_bits >= 8 AS amounts_differ
FROM claims
"""

# Pairs in scope that differ in anything (few), with both sides' values and what differs.
_PAIR_ISSUES = """
SELECT p.ln, p.sn, p.in_scope,
       l.amount_base AS ledger_amount_base, s.amount_base AS statement_amount_base,
       l.fee_base AS ledger_fee_base, s.fee_base AS statement_fee_base,
       l.booked_on, s.business_date,
       CASE WHEN l.amount_base = s.amount_base THEN FALSE
            ELSE CAST(l.amount_base AS DECIMAL(38, 0)) * 100 = s.amount_base
                 OR CAST(l.amount_base AS DECIMAL(38, 0)) * 10000 = s.amount_base
                 OR CAST(s.amount_base AS DECIMAL(38, 0)) * 100 = l.amount_base
                 OR CAST(s.amount_base AS DECIMAL(38, 0)) * 10000 = l.amount_base
       END AS unit_error,
       (l.direction IS NOT NULL AND l.direction <> s.direction) AS direction_differs,
       l.direction AS ledger_direction, s.direction AS statement_direction,
       l.status AS ledger_status, s.payment_status AS statement_status
FROM pairs p
JOIN led l ON l.ln = p.ln
JOIN stmt s ON s.sn = p.sn
WHERE p.in_scope AND NOT p.agrees
"""

# Statement rows in scope that moved money and are paired with no entry (few rows).
_UNCLAIMED = """
SELECT s.sn FROM stmt s
WHERE s.in_scope AND s.payment_status IN ('settled', 'processing')
  AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.sn = s.sn)
"""

# `referenced`: some entry names them (then a settled one was paid twice).
_UNPAIRED = """
SELECT s.sn, s.direction, s.payment_status, s.amount_base, s.fee_base, s.business_date,
       k.original_transaction_id, r.sn IS NOT NULL AS referenced
FROM stmt s
JOIN unclaimed u ON u.sn = s.sn
LEFT JOIN stmt_links k ON k.sn = s.sn
LEFT JOIN (SELECT DISTINCT c.sn FROM cand c JOIN unclaimed x ON x.sn = c.sn) r ON r.sn = s.sn
"""

_UNPICKED = "SELECT ln FROM picks WHERE sn IS NULL"  # no row carries their reference

# Entries whose pick was claimed by an earlier booking.
_DOUBLE_BOOKED = """
SELECT p.ln, p.sn
FROM picks p JOIN (SELECT sn, ln FROM claims WHERE claimants > 1) c ON c.sn = p.sn
WHERE c.ln <> p.ln
"""

_PAIR_COLUMNS = """
       p.ln, p.sn, p.ledger_amount_base, p.statement_amount_base,
       p.statement_amount_base - p.ledger_amount_base AS difference_base,
       p.ledger_fee_base, p.statement_fee_base, p.ledger_status, p.statement_status,
       p.booked_on, p.business_date"""


def _stmt_columns(alias: str, ledger_status: str = "CAST(NULL AS STRING)") -> str:
    """The finding columns of a statement row that no ledger entry is paired with."""
    return f"""
       CAST(NULL AS BIGINT) AS ln, {alias}.sn,
       CAST(NULL AS BIGINT) AS ledger_amount_base, {alias}.amount_base AS statement_amount_base,
       {alias}.amount_base AS difference_base,
       CAST(NULL AS BIGINT) AS ledger_fee_base, {alias}.fee_base AS statement_fee_base,
       {ledger_status} AS ledger_status, {alias}.payment_status AS statement_status,
       CAST(NULL AS DATE) AS booked_on, {alias}.business_date"""


_HOOK_STATUS = """
SELECT transaction_id, webhook_status FROM (
    SELECT w.transaction_id,
           CASE w.event_type
               WHEN 'pix.payout.confirmed' THEN 'settled'
               WHEN 'pix.charge.paid' THEN 'settled'
               WHEN 'pix.refund.completed' THEN 'settled'
               WHEN 'pix.payout.returned' THEN 'settled'
               WHEN 'pix.payout.rejected' THEN 'rejected'
               WHEN 'pix.payout.failed' THEN 'failed'
           END AS webhook_status,
           ROW_NUMBER() OVER (PARTITION BY w.transaction_id
                              ORDER BY w.created_at DESC NULLS LAST) AS latest
    FROM webhooks_in w
    WHERE w.event_type IN ('pix.payout.confirmed', 'pix.charge.paid', 'pix.refund.completed',
                           'pix.payout.returned', 'pix.payout.rejected', 'pix.payout.failed')
) x
WHERE x.latest = 1
"""

# Statement rows (copies left out) with a final status from a webhook (few rows).
_HOOK_HITS = """
SELECT s.sn, s.direction, s.payment_status, s.amount_base, s.fee_base, s.business_date,
       s.in_scope, h.webhook_status
FROM statement_in t
JOIN hook_status h ON h.transaction_id = t.transaction_id
JOIN stmt s ON s.sn = t.sn
"""

# Every finding on row numbers (``ln``, ``sn``); their ids are read in `discrepancies`.
_FINDINGS = f"""
SELECT 'unit_error' AS category, {_PAIR_COLUMNS},
       'amounts differ by a factor of 100 or 10000 (centavos, base units, reais)' AS detail
FROM pair_issues p WHERE p.in_scope AND p.unit_error
UNION ALL
SELECT 'amount_mismatch', {_PAIR_COLUMNS},
       CASE WHEN p.direction_differs
            THEN CONCAT('direction ', p.ledger_direction, ' in the ledger, ',
                        p.statement_direction, ' in the statement')
            ELSE 'amounts differ' END
FROM pair_issues p
WHERE p.in_scope AND ((p.ledger_amount_base <> p.statement_amount_base AND NOT p.unit_error)
                      OR p.direction_differs)
UNION ALL
SELECT 'fee_mismatch', {_PAIR_COLUMNS}, 'fees differ'
FROM pair_issues p
WHERE p.in_scope AND p.ledger_fee_base IS NOT NULL AND p.ledger_fee_base <> p.statement_fee_base
UNION ALL
SELECT 'status_mismatch', {_PAIR_COLUMNS},
       CONCAT('ledger expects ', p.ledger_status, ', statement shows ', p.statement_status)
FROM pair_issues p WHERE p.in_scope AND p.ledger_status <> p.statement_status
UNION ALL
SELECT 'timing_difference', {_PAIR_COLUMNS},
       CASE WHEN p.business_date = p.booked_on + 1 THEN 'statement one business day later'
            WHEN p.business_date = p.booked_on - 1 THEN 'statement one business day earlier'
            ELSE 'booked on another business day' END
FROM pair_issues p WHERE p.in_scope AND p.booked_on <> p.business_date
UNION ALL
SELECT 'missing_in_statement', l.ln, CAST(NULL AS BIGINT),
       l.amount_base, CAST(NULL AS BIGINT), 0 - l.amount_base,
       l.fee_base, CAST(NULL AS BIGINT), l.status, CAST(NULL AS STRING),
       l.booked_on, CAST(NULL AS DATE),
       'no statement movement carries this reference'
FROM led l JOIN unpicked u ON u.ln = l.ln
WHERE l.in_scope
UNION ALL
SELECT 'duplicate', l.ln, s.sn,
       l.amount_base, s.amount_base, 0 - l.amount_base,
       l.fee_base, s.fee_base, l.status, s.payment_status, l.booked_on, s.business_date,
       'ledger entry books a movement another entry already booked'
FROM double_booked d
JOIN led l ON l.ln = d.ln
JOIN stmt s ON s.sn = d.sn
WHERE l.in_scope OR s.in_scope
UNION ALL
SELECT 'duplicate', {_stmt_columns("s")},
       'a second movement for a reference the ledger booked once'
FROM unpaired s WHERE s.referenced AND s.payment_status = 'settled'
UNION ALL
SELECT 'duplicate', {_stmt_columns("r")},
       'the same statement id is listed more than once'
FROM (
    SELECT d.* FROM (
        SELECT s.sn, s.amount_base, s.fee_base,
               CAST(s.payment_status AS STRING) AS payment_status,
               CAST(s.created_at AS DATE) AS business_date
        FROM statement_in s JOIN copies c ON c.sn = s.sn
    ) d
    CROSS JOIN scope_in sc
    WHERE (sc.first_day IS NULL OR d.business_date >= sc.first_day)
      AND (sc.last_day IS NULL OR d.business_date <= sc.last_day)
) r
UNION ALL
SELECT 'missing_in_ledger', {_stmt_columns("s")}, 'no ledger entry references this movement'
FROM unpaired s WHERE NOT s.referenced AND s.original_transaction_id IS NULL
UNION ALL
SELECT 'unbooked_refund', {_stmt_columns("s")},
       CONCAT(CASE WHEN s.direction = 'outbound' THEN 'refund of ' ELSE 'return of ' END,
              s.original_transaction_id, ' not booked in the ledger')
FROM unpaired s WHERE NOT s.referenced AND s.original_transaction_id IS NOT NULL
UNION ALL
SELECT 'status_mismatch', {_stmt_columns("s", "s.webhook_status")},
       CONCAT('webhook says ', s.webhook_status, ', statement shows ', s.payment_status)
FROM hook_hits s
WHERE s.in_scope AND s.payment_status IN ('settled', 'rejected', 'failed')
  AND s.webhook_status <> s.payment_status
UNION ALL
SELECT 'balance_difference', CAST(NULL AS BIGINT), CAST(NULL AS BIGINT),
       b.expected_closing_base, b.closing_base, b.difference_base,
       CAST(NULL AS BIGINT), CAST(NULL AS BIGINT), CAST(NULL AS STRING), CAST(NULL AS STRING),
       CAST(NULL AS DATE), CAST(b.closing_at AS DATE),
       'opening balance plus settled movements does not reach the closing balance'
FROM rollforward b WHERE b.difference_base <> 0
"""  # noqa: S608 (fixed fragments of this module, no input)

# The findings' ids: the inputs filtered to the findings' rows first, so each join builds
# on a few rows instead of a million rows' text.
_DISCREPANCIES = """
SELECT f.category, l.entry_id, l.reference, t.transaction_id, t.id AS statement_id,
       f.ledger_amount_base, f.statement_amount_base, f.difference_base,
       f.ledger_fee_base, f.statement_fee_base, f.ledger_status, f.statement_status,
       f.booked_on, f.business_date, f.detail
FROM findings f
LEFT JOIN (SELECT ln, entry_id, reference FROM ledger_in
           WHERE ln IN (SELECT ln FROM findings)) l ON l.ln = f.ln
LEFT JOIN (SELECT sn, transaction_id, id FROM statement_in
           WHERE sn IN (SELECT sn FROM findings)) t ON t.sn = f.sn
"""

# Pairs that agree on everything, on row numbers; their ids are added by `LOOKUPS`.
_MATCHED = """
SELECT p.ln, p.sn, s.amount_base, s.fee_base, s.business_date AS booked_on, s.business_date
FROM pairs p
JOIN stmt s ON s.sn = p.sn
WHERE p.in_scope AND p.agrees
"""

# Refund rows with their amounts (few rows), and the originals they name.
_REFUND_ROWS = """
SELECT k.sn, k.transaction_id, k.original_transaction_id, s.direction, s.payment_status,
       s.business_date, s.amount_base, s.in_scope
FROM stmt_links k JOIN stmt s ON s.sn = k.sn
"""

_ORIGINALS = """
SELECT s.sn, t.transaction_id, s.amount_base
FROM statement_in t
JOIN stmt s ON s.sn = t.sn
WHERE t.transaction_id IN (SELECT original_transaction_id FROM stmt_links)
"""

# The ledger entries paired with refunds and their originals (few rows).
_REFUND_ENTRIES = """
SELECT p.sn, e.entry_id
FROM (SELECT sn, ln FROM pairs
      WHERE sn IN (SELECT sn FROM refund_rows UNION ALL SELECT sn FROM originals)) p
JOIN ledger_in e ON e.ln = p.ln
"""

_REFUNDS = """
SELECT r.transaction_id AS refund_transaction_id, r.original_transaction_id,
       r.direction, r.payment_status, r.business_date,
       r.amount_base AS refund_amount_base, o.amount_base AS original_amount_base,
       t.total_refunded_base,
       o.amount_base - t.total_refunded_base AS remaining_refundable_base,
       lo.entry_id AS original_entry_id, lr.entry_id AS refund_entry_id
FROM refund_rows r
LEFT JOIN originals o ON o.transaction_id = r.original_transaction_id
LEFT JOIN (SELECT original_transaction_id,
                  CAST(SUM(amount_base) AS BIGINT) AS total_refunded_base
           FROM refund_rows
           WHERE payment_status IN ('settled', 'processing')
           GROUP BY original_transaction_id) t
  ON t.original_transaction_id = r.original_transaction_id
LEFT JOIN refund_entries lo ON lo.sn = o.sn
LEFT JOIN refund_entries lr ON lr.sn = r.sn
WHERE r.in_scope
"""

_SNAPSHOTS = """
SELECT as_of, balance_base, ROW_NUMBER() OVER (ORDER BY as_of ASC NULLS LAST) AS n
FROM balances_in
"""

_ROLLFORWARD = """
SELECT a.as_of AS opening_at, b.as_of AS closing_at, a.balance_base AS opening_base,
       COALESCE(m.inflow_base, 0) AS inflow_base, COALESCE(m.outflow_base, 0) AS outflow_base,
       COALESCE(m.fees_base, 0) AS fees_base,
       a.balance_base + COALESCE(m.inflow_base, 0) - COALESCE(m.outflow_base, 0)
           - COALESCE(m.fees_base, 0) AS expected_closing_base,
       b.balance_base AS closing_base,
       b.balance_base - (a.balance_base + COALESCE(m.inflow_base, 0)
           - COALESCE(m.outflow_base, 0) - COALESCE(m.fees_base, 0)) AS difference_base
FROM snapshots a
JOIN snapshots b ON b.n = a.n + 1
LEFT JOIN (
    SELECT p.n,
           CAST(SUM(CASE WHEN s.direction = 'inbound' THEN s.amount_base ELSE 0 END)
                AS BIGINT) AS inflow_base,
           CAST(SUM(CASE WHEN s.direction = 'outbound' THEN s.amount_base ELSE 0 END)
                AS BIGINT) AS outflow_base,
           CAST(SUM(s.fee_base) AS BIGINT) AS fees_base
    FROM snapshots p
    JOIN snapshots q ON q.n = p.n + 1
    JOIN stmt s ON s.payment_status = 'settled'
               AND s.completed_at > p.as_of AND s.completed_at <= q.as_of
    GROUP BY p.n
) m ON m.n = a.n
"""

_SUMMARY = """
SELECT k.category, k.position,
       COALESCE(d.items, 0) AS items,
       COALESCE(d.ledger_amount_base, 0) AS ledger_amount_base,
       COALESCE(d.statement_amount_base, 0) AS statement_amount_base,
       COALESCE(d.difference_base, 0) AS difference_base
FROM categories_in k
LEFT JOIN (
    SELECT category, COUNT(*) AS items,
           CAST(SUM(CASE WHEN category = 'balance_difference' THEN 0
                         ELSE COALESCE(ledger_amount_base, 0) END) AS BIGINT)
               AS ledger_amount_base,
           CAST(SUM(CASE WHEN category = 'balance_difference' THEN 0
                         ELSE COALESCE(statement_amount_base, 0) END) AS BIGINT)
               AS statement_amount_base,
           CAST(SUM(COALESCE(difference_base, 0)) AS BIGINT) AS difference_base
    FROM discrepancies GROUP BY category
    UNION ALL
    SELECT 'matched', COUNT(*), CAST(SUM(amount_base) AS BIGINT),
           CAST(SUM(amount_base) AS BIGINT), 0
    FROM matched
) d ON d.category = k.category
"""

#: (name, SQL, materialise) in the order they run. A host makes each a temporary table
#: when `materialise` (it is read several times) and a temporary view otherwise.
STEPS: Final[tuple[tuple[str, str, bool], ...]] = (
    ("copies", _COPIES, True),
    ("led", _LED, False),
    ("stmt_keys", _STMT_KEYS, False),
    ("cand", _CAND, True),
    ("picks", _PICKS, True),
    ("claims", _CLAIMS, True),
    ("pairs", _PAIRS, False),
    ("hook_links", _HOOK_LINKS, True),
    ("stmt", _STMT, True),
    ("stmt_links", _STMT_LINKS, True),
    ("pair_issues", _PAIR_ISSUES, True),
    ("double_booked", _DOUBLE_BOOKED, False),
    ("unpicked", _UNPICKED, True),
    ("unclaimed", _UNCLAIMED, True),
    ("unpaired", _UNPAIRED, True),
    ("hook_status", _HOOK_STATUS, True),
    ("hook_hits", _HOOK_HITS, True),
    ("snapshots", _SNAPSHOTS, True),
    ("rollforward", _ROLLFORWARD, True),
    ("findings", _FINDINGS, True),
    ("discrepancies", _DISCREPANCIES, True),
    ("matched", _MATCHED, True),
    ("refund_rows", _REFUND_ROWS, True),
    ("originals", _ORIGINALS, True),
    ("refund_entries", _REFUND_ENTRIES, True),
    ("refunds", _REFUNDS, True),
    ("summary", _SUMMARY, True),
)

#: Output tables: (columns, row order). The result object exposes exactly these; an
#: output's `LOOKUPS` are not in its SQL, which has the row numbers they need instead.
OUTPUTS: Final[dict[str, tuple[str, str]]] = {
    "matched": (
        "entry_id, reference, transaction_id, statement_id, amount_base, fee_base,"
        " payment_status, booked_on, business_date",
        "ln ASC NULLS LAST",
    ),
    "discrepancies": (
        "category, entry_id, reference, transaction_id, statement_id, ledger_amount_base,"
        " statement_amount_base, difference_base, ledger_fee_base, statement_fee_base,"
        " ledger_status, statement_status, booked_on, business_date, detail",
        "category ASC NULLS LAST, business_date ASC NULLS LAST, booked_on ASC NULLS LAST,"
        " entry_id ASC NULLS LAST, transaction_id ASC NULLS LAST,"
        " statement_id ASC NULLS LAST, reference ASC NULLS LAST, detail ASC NULLS LAST",
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

#: Text an output takes, decoded, from the input row a number points at: (output column,
#: input, input column, number). Positions here (a join on the number elsewhere), so a
#: million matched rows carry no text through the joins and the sort.
LOOKUPS: Final[dict[str, tuple[tuple[str, str, str, str], ...]]] = {
    "matched": (
        ("entry_id", "ledger_in", "entry_id", "ln"),
        ("reference", "ledger_in", "reference", "ln"),
        ("transaction_id", "statement_in", "transaction_id", "sn"),
        ("statement_id", "statement_in", "id", "sn"),
        ("payment_status", "statement_in", "payment_status", "sn"),
    ),
}
