"""What the pairs and the rows left over show: the findings and their ids, the matched
rows, refunds linked to their originals, the balance roll-forward and the summary."""

from __future__ import annotations

__all__ = [
    "BALANCE_BREAKS",
    "COPY_DETAIL",
    "DISCREPANCIES",
    "DOUBLE_BOOKED",
    "HOOK_HITS",
    "HOOK_STATUS",
    "MATCHED",
    "NEAR_PAIRS",
    "ORIGINALS",
    "PAIR_ISSUES",
    "REFUNDS",
    "REFUND_ENTRIES",
    "REFUND_ROWS",
    "ROLLFORWARD",
    "SNAPSHOTS",
    "SUMMARY",
    "UNCLAIMED",
    "UNPAIRED",
    "UNPICKED",
]

#: The detail of a statement row whose id an earlier row already has (`reconcile` warns).
COPY_DETAIL = "the same statement id is listed more than once"

# Pairs in scope that differ in anything (few; a ledger kept in centavos: each pair whose
# fee has a fraction of a centavo), with both sides' values and what differs: by the
# ledger's precision or more (``amount_differs``, ``fee_differs``), or by less
# (``amount_rounded``, ``fee_rounded``: rounding, counted apart); ``tolerated``: the pair
# agrees within the tolerances of ``rules_in`` (beyond rounding: it is matched). A pair a
# rule other than the identifier placed is left out. The pairs are read off `few_led`,
# whose entries carry their pair when it differs (no pass over the million pairs here).
NEAR_PAIRS = """
SELECT l.ln, l.pair_sn AS sn, l.pair_in_scope AS in_scope, l.step_base,
       l.pair_rounded
       AND NOT (l.amount_base <> s.amount_base
                AND ABS(l.amount_base - s.amount_base) < l.step_base)
       AND NOT (l.fee_base IS NOT NULL AND l.fee_base <> s.fee_base
                AND ABS(l.fee_base - s.fee_base) < l.step_base) AS tolerated,
       ABS(l.amount_base - s.amount_base) >= l.step_base AS amount_differs,
       l.amount_base <> s.amount_base
       AND ABS(l.amount_base - s.amount_base) < l.step_base AS amount_rounded,
       l.fee_base IS NOT NULL AND ABS(l.fee_base - s.fee_base) >= l.step_base AS fee_differs,
       l.fee_base IS NOT NULL AND l.fee_base <> s.fee_base
       AND ABS(l.fee_base - s.fee_base) < l.step_base AS fee_rounded,
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
FROM few_led l
JOIN few_stmt s ON s.sn = l.pair_sn
WHERE NOT EXISTS (SELECT 1 FROM rule_pairs x WHERE x.ln = l.ln)
"""

# The pairs that differ in something but no tolerance allows: what the findings show.
PAIR_ISSUES = "SELECT * FROM near_pairs WHERE NOT tolerated"

# Statement rows in scope that moved money and are paired with no entry (few rows); a
# rule may still place them (`pixops.recon._sql._rules`).
UNCLAIMED = """
SELECT s.sn FROM stmt s
WHERE s.in_scope AND s.payment_status IN ('settled', 'processing') AND s.ln IS NULL
"""

# `referenced`: some entry names them (then a settled one was paid twice): the unclaimed
# rows some candidate names are `group_extra`'s (``extra``), read there rather than by a
# second pass over every candidate. The unclaimed rows are all in `few_stmt`.
UNPAIRED = """
SELECT s.sn, s.direction, s.payment_status, s.amount_base, s.fee_base, s.business_date,
       k.original_transaction_id, s.extra AS referenced
FROM few_stmt s
LEFT JOIN stmt_links k ON k.sn = s.sn
WHERE s.unclaimed AND NOT EXISTS (SELECT 1 FROM rule_pairs x WHERE x.sn = s.sn)
"""

UNPICKED = "SELECT ln FROM picks WHERE sn IS NULL"  # no row carries their reference

# Entries whose pick was claimed by an earlier booking (unless they are a group).
DOUBLE_BOOKED = """
SELECT p.ln, p.sn
FROM shared_picks p
WHERE p.first_ln <> p.ln AND NOT EXISTS (SELECT 1 FROM rule_pairs x WHERE x.ln = p.ln)
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


HOOK_STATUS = """
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
HOOK_HITS = """
SELECT s.sn, s.direction, s.payment_status, s.amount_base, s.fee_base, s.business_date,
       s.in_scope, h.webhook_status
FROM statement_in t
JOIN hook_status h ON h.transaction_id = t.transaction_id
JOIN stmt s ON s.sn = t.sn
"""

# Every finding on row numbers (``ln``, ``sn``); the host reads their ids by position
# (`LOOKUPS`), which costs nothing beside filtering a million rows' text by them. The
# entries missing a movement or booking one twice are among `few_led` (unpicked, or
# picking a row several picked): read there, not in a scan of every entry.
# Each row adds up: difference = statement - ledger, a side with nothing counted as 0 (an
# entry booking a movement already booked has no statement amount of its own).
DISCREPANCIES = f"""
SELECT 'unit_error' AS category, {_PAIR_COLUMNS},
       'amounts differ by a factor of 100 or 10000: one side is in another unit' AS detail
FROM pair_issues p WHERE p.in_scope AND p.unit_error
UNION ALL
SELECT 'amount_mismatch', {_PAIR_COLUMNS},
       CASE WHEN p.direction_differs
            THEN CONCAT('direction ', COALESCE(p.ledger_direction, ''), ' in the ledger, ',
                        COALESCE(p.statement_direction, ''), ' in the statement')
            ELSE 'amounts differ' END
FROM pair_issues p
WHERE p.in_scope AND ((p.amount_differs AND NOT p.unit_error) OR p.direction_differs)
UNION ALL
SELECT 'fee_mismatch', {_PAIR_COLUMNS}, 'fees differ'
FROM pair_issues p
WHERE p.in_scope AND p.fee_differs
UNION ALL
SELECT 'rounding', {_PAIR_COLUMNS},
       CONCAT(CASE WHEN p.amount_rounded AND p.fee_rounded THEN 'amount and fee'
                   WHEN p.amount_rounded THEN 'amount' ELSE 'fee' END,
              ' rounded ',
              CASE WHEN (CASE WHEN p.amount_rounded THEN p.statement_amount_base
                              ELSE p.statement_fee_base END)
                        > (CASE WHEN p.amount_rounded THEN p.ledger_amount_base
                                ELSE p.ledger_fee_base END)
                   THEN 'down' ELSE 'up' END,
              ' to ',
              CASE WHEN p.step_base = 100 THEN 'the centavo'
                   ELSE 'the precision of the ledger' END,
              ' in the ledger: under its precision, not a difference')
FROM pair_issues p
WHERE p.in_scope AND (p.amount_rounded OR p.fee_rounded)
UNION ALL
SELECT 'status_mismatch', {_PAIR_COLUMNS},
       CONCAT('ledger expects ', COALESCE(p.ledger_status, ''), ', statement shows ',
              COALESCE(p.statement_status, ''))
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
       CASE WHEN l.kind IS NOT NULL
            THEN CONCAT('no settled movement of its kind (', COALESCE(l.kind, ''),
                        ') on its day')
            WHEN l.reference IS NULL
            THEN CASE WHEN r.window_s IS NULL
                      THEN 'no reference, and inferred matching is off (set a time window)'
                      ELSE 'no reference, and no movement matches its amount, payer and time'
                 END
            ELSE 'no statement movement carries this reference' END
FROM few_led l
CROSS JOIN rules_in r
WHERE l.unpicked AND l.in_scope AND NOT EXISTS (SELECT 1 FROM rule_pairs x WHERE x.ln = l.ln)
UNION ALL
SELECT 'duplicate', l.ln, s.sn,
       l.amount_base, CAST(NULL AS BIGINT), 0 - l.amount_base,
       l.fee_base, CAST(NULL AS BIGINT), l.status, s.payment_status, l.booked_on,
       s.business_date,
       'ledger entry books a movement another entry already booked'
FROM double_booked d
JOIN few_led l ON l.ln = d.ln
JOIN stmt s ON s.sn = d.sn
WHERE l.in_scope OR s.in_scope
UNION ALL
SELECT 'duplicate', {_stmt_columns("s")},
       'a second movement for a reference the ledger booked once'
FROM unpaired s WHERE s.referenced AND s.payment_status = 'settled'
UNION ALL
SELECT 'duplicate', {_stmt_columns("r")},
       '{COPY_DETAIL}'
FROM (
    SELECT d.* FROM (
        SELECT s.sn, s.amount_base, s.fee_base,
               CAST(s.payment_status AS STRING) AS payment_status,
               s.business_date
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
              COALESCE(s.original_transaction_id, ''), ' not booked in the ledger')
FROM unpaired s WHERE NOT s.referenced AND s.original_transaction_id IS NOT NULL
UNION ALL
SELECT 'status_mismatch', {_stmt_columns("s", "s.webhook_status")},
       CONCAT('webhook says ', COALESCE(s.webhook_status, ''), ', statement shows ',
              COALESCE(s.payment_status, ''))
FROM hook_hits s
WHERE s.in_scope AND s.payment_status IN ('settled', 'rejected', 'failed')
  AND s.webhook_status <> s.payment_status
UNION ALL
SELECT 'needs_review', i.ln, i.sn, i.ledger_amount_base, i.statement_amount_base,
       i.statement_amount_base - i.ledger_amount_base, i.ledger_fee_base,
       i.statement_fee_base, l.status, s.payment_status, i.booked_on,
       i.business_date,
       CONCAT('one of ', COALESCE(CAST(GREATEST(i.entry_best, i.row_best) AS STRING), ''),
              ' equally good candidates (', COALESCE(p.rule, ''),
              '): confirm or reject it in the review file')
FROM inferred i JOIN rule_pairs p ON p.ln = i.ln AND p.sn = i.sn AND p.outcome = 'review'
JOIN few_led l ON l.ln = i.ln
JOIN few_stmt s ON s.sn = i.sn
WHERE i.outcome = 'review'
UNION ALL
SELECT 'amount_mismatch', g.ln, CAST(NULL AS BIGINT), l.amount_base, g.amount_sum_base,
       g.amount_sum_base - l.amount_base, l.fee_base, g.fee_sum_base, l.status,
       CAST(NULL AS STRING), l.booked_on, CAST(NULL AS DATE),
       CONCAT('group of ', COALESCE(CAST(g.rows_in_group AS STRING), ''), ' rows = settlement ',
              COALESCE(l.settlement, ''), ' does not close: ',
              CASE WHEN g.amount_closes THEN 'the fees differ'
                   ELSE 'the difference is what remains' END)
FROM ref_groups g JOIN few_led l ON l.ln = g.ln
WHERE g.explicit AND NOT (g.amount_closes AND g.fee_closes) AND l.in_scope
UNION ALL
SELECT 'amount_mismatch', t.ln, CAST(NULL AS BIGINT), t.amount_base, t.sum_base,
       t.sum_base - t.amount_base, l.fee_base, CAST(NULL AS BIGINT), l.status,
       CAST(NULL AS STRING), l.booked_on, t.booked_on,
       CONCAT('group of ', COALESCE(CAST(t.rows_in_group AS STRING), ''), ' rows = ',
              COALESCE(t.kind, ''), ' of ', COALESCE(CAST(t.booked_on AS STRING), ''),
              ' does not close: the difference is what remains')
FROM day_totals t JOIN few_led l ON l.ln = t.ln
WHERE NOT t.closes
UNION ALL
SELECT 'balance_difference', CAST(NULL AS BIGINT), CAST(NULL AS BIGINT),
       b.expected_closing_base, b.closing_base, b.closing_base - b.expected_closing_base,
       CAST(NULL AS BIGINT), CAST(NULL AS BIGINT), CAST(NULL AS STRING), CAST(NULL AS STRING),
       CAST(NULL AS DATE), b.closing_day,
       CONCAT('the reported balance is ',
              CASE WHEN b.expected_closing_base > b.closing_base THEN 'below' ELSE 'above' END,
              ' the opening plus the settled movements',
              CASE WHEN b.next_closes_from_it
                   THEN '; the next period opens from it and is off by as much the other'
                        ' way, so this balance is the one to check, not the movements'
                   ELSE '' END)
FROM balance_breaks b
"""  # noqa: S608 (fixed fragments of this module, no input)

# Pairs that agree on everything (or within the tolerances), on row numbers, then the
# pairs the other rules made; their ids are added by `LOOKUPS`. ``rule``: NULL for a pair
# an identifier made (the host names the identifier: `IDENTIFIER_RULE`); ``tolerance``:
# the tolerances in words when the pair needed them.
MATCHED = """
SELECT s.ln, s.sn, s.amount_base, s.fee_base, s.business_date AS booked_on, s.business_date,
       CAST(NULL AS STRING) AS rule, CAST(NULL AS STRING) AS tolerance
FROM stmt s
WHERE s.pair_matches
UNION ALL
SELECT p.ln, p.sn, p.statement_amount_base, p.statement_fee_base, p.booked_on,
       p.business_date, CAST(NULL AS STRING), r.tolerance_text
FROM near_pairs p CROSS JOIN rules_in r
WHERE p.tolerated
UNION ALL
SELECT m.ln, m.sn, m.amount_base, m.fee_base, m.booked_on, m.business_date, m.rule,
       CASE WHEN m.tolerated THEN r.tolerance_text END
FROM rule_matched m CROSS JOIN rules_in r
"""

# Refund rows with their amounts (few rows), and the originals they name.
REFUND_ROWS = """
SELECT k.sn, k.transaction_id, k.original_transaction_id, s.direction, s.payment_status,
       s.business_date, s.amount_base, s.in_scope
FROM stmt_links k JOIN stmt s ON s.sn = k.sn
"""

ORIGINALS = """
SELECT s.sn, t.transaction_id, s.amount_base
FROM statement_in t
JOIN stmt s ON s.sn = t.sn
WHERE t.transaction_id IN (SELECT original_transaction_id FROM stmt_links)
"""

# The ledger entries paired with refunds and their originals (few rows).
REFUND_ENTRIES = """
SELECT p.sn, e.entry_id
FROM (SELECT sn, ln FROM pairs
      WHERE sn IN (SELECT sn FROM refund_rows UNION ALL SELECT sn FROM originals)) p
JOIN ledger_in e ON e.ln = p.ln
"""

REFUNDS = """
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

SNAPSHOTS = """
SELECT as_of, balance_base, ROW_NUMBER() OVER (ORDER BY as_of ASC NULLS LAST) AS n
FROM balances_in
"""

ROLLFORWARD = """
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

# The periods that do not close. A reported balance that is off by d breaks both periods
# it bounds, by -d and then by d; such a pair is ONE finding, on that balance, and the
# later period is not listed again. Within a run of periods each off by the opposite of
# the one before, they pair up in order (1st with 2nd, 3rd with 4th, ...), so a run of
# three still lists its third. ``closing_day``: the business day the balance closes (a
# balance at midnight closes the day before).
BALANCE_BREAKS = """
SELECT closing_at, closing_day, expected_closing_base, closing_base,
       pos < run_size AS next_closes_from_it
FROM (
    SELECT r.*, ROW_NUMBER() OVER (PARTITION BY run ORDER BY n ASC NULLS LAST) AS pos,
           COUNT(*) OVER (PARTITION BY run) AS run_size
    FROM (
        SELECT c.*,
               COUNT(CASE WHEN NOT c.continues THEN 1 END)
                   OVER (ORDER BY n ASC NULLS LAST) AS run
        FROM (
            SELECT f.*,
                   f.difference_base <> 0
                   AND COALESCE(LAG(f.difference_base) OVER (ORDER BY n ASC NULLS LAST), 0)
                       = 0 - f.difference_base AS continues
            FROM (
                SELECT ROW_NUMBER() OVER (ORDER BY opening_at ASC NULLS LAST) AS n,
                       closing_at,
                       CASE WHEN HOUR(closing_at) = 0 AND MINUTE(closing_at) = 0
                                 AND SECOND(closing_at) = 0
                            THEN CAST(closing_at AS DATE) - 1
                            ELSE CAST(closing_at AS DATE) END AS closing_day,
                       expected_closing_base, closing_base, difference_base
                FROM rollforward
            ) f
        ) c
    ) r
) x
WHERE difference_base <> 0 AND pos % 2 = 1
"""

# Balances do not add up across findings: their ledger and statement columns stay empty.
SUMMARY = """
SELECT k.category, k.position,
       COALESCE(d.items, 0) AS items,
       CASE WHEN k.category = 'balance_difference' THEN CAST(NULL AS BIGINT)
            ELSE COALESCE(d.ledger_amount_base, 0) END AS ledger_amount_base,
       CASE WHEN k.category = 'balance_difference' THEN CAST(NULL AS BIGINT)
            ELSE COALESCE(d.statement_amount_base, 0) END AS statement_amount_base,
       COALESCE(d.difference_base, 0) AS difference_base
FROM categories_in k
LEFT JOIN (
    SELECT category, COUNT(*) AS items,
           CAST(SUM(COALESCE(ledger_base, 0)) AS BIGINT) AS ledger_amount_base,
           CAST(SUM(COALESCE(statement_base, 0)) AS BIGINT) AS statement_amount_base,
           CAST(SUM(COALESCE(statement_base, 0) - COALESCE(ledger_base, 0)) AS BIGINT)
               AS difference_base
    FROM (
        -- A fee finding's row sums its fees: the amounts agree, and what differs is the fee.
        SELECT category,
               CASE WHEN category = 'fee_mismatch' THEN ledger_fee_base
                    ELSE ledger_amount_base END AS ledger_base,
               CASE WHEN category = 'fee_mismatch' THEN statement_fee_base
                    ELSE statement_amount_base END AS statement_base
        FROM discrepancies WHERE category <> 'rounding'
    ) f GROUP BY category
    UNION ALL
    -- Rounding sums what was rounded: the amounts where they were, else the fees (the
    -- amounts of a pair that also differs in amount are that finding's).
    SELECT 'rounding', COUNT(*),
           CAST(SUM(CASE WHEN amount_rounded THEN ledger_amount_base
                         ELSE ledger_fee_base END) AS BIGINT),
           CAST(SUM(CASE WHEN amount_rounded THEN statement_amount_base
                         ELSE statement_fee_base END) AS BIGINT),
           CAST(SUM(CASE WHEN amount_rounded THEN statement_amount_base - ledger_amount_base
                         ELSE statement_fee_base - ledger_fee_base END) AS BIGINT)
    FROM pair_issues WHERE in_scope AND (amount_rounded OR fee_rounded)
    UNION ALL
    SELECT 'matched', COUNT(*), CAST(SUM(amount_base) AS BIGINT),
           CAST(SUM(amount_base) AS BIGINT), 0
    FROM matched
) d ON d.category = k.category
"""
