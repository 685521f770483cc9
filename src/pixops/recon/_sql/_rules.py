"""Matches beyond one identifier: groups (one entry against several rows, several entries
against one row, a day's rows of a kind), pairs inferred from amount, payer and time, the
person's decisions from the review file, and the ambiguous candidates left for review.

They run on what the identifier matching left over (few rows), so the million-row part of
the reconciliation is untouched. Every search is bounded: a group is the rows one entry's
reference or settlement key names, or the rows one entry's day and kind select; never a
subset of rows chosen to make a sum. What a named group cannot close is reported with its
remainder (an ``amount_mismatch``). All the rules read their settings from ``rules_in``
(one row: see `pixops.recon._sql`); with its defaults they change nothing.
"""

from __future__ import annotations

from typing import Final

from pixops.recon._sql._matching import ENTRY_COLUMNS

__all__ = [
    "DAY_GROUPS",
    "DAY_TOTALS",
    "DECISIONS",
    "ENTRY_GROUPS",
    "FEW_LED",
    "FEW_LEDGER",
    "FEW_LN",
    "FEW_SN",
    "FEW_STATEMENT",
    "FEW_STMT",
    "GROUP_CLAIMS",
    "GROUP_EXTRA",
    "INFERRED",
    "INFER_CAND",
    "REF_GROUPS",
    "RULE_MATCHED",
    "RULE_PAIRS",
    "SHARED_PICKS",
    "TAKEN",
]

# The review file's decisions on row numbers (few): a statement id listed twice is read on
# its kept row; a decision naming an entry or a row these inputs lack is dropped here (the
# host warns of it by name).
DECISIONS = """
SELECT l.ln, s.sn, d.decision, d.decided_by, d.decided_at
FROM decisions_in d
JOIN (SELECT ln, entry_id FROM ledger_in
      WHERE entry_id IN (SELECT entry_id FROM decisions_in)) l ON l.entry_id = d.entry_id
JOIN (SELECT sn, id FROM statement_in
      WHERE id IN (SELECT statement_id FROM decisions_in)) s ON s.id = d.statement_id
LEFT JOIN copies c ON c.sn = s.sn
WHERE c.sn IS NULL
"""

# Unclaimed rows an entry's reference (or settlement key) names besides its own pick: the
# other parts of a group; a row named by several entries goes to the first booking.
GROUP_EXTRA = """
SELECT x.sn, MIN(x.ln) AS ln
FROM (SELECT DISTINCT c.ln, c.sn FROM cand c JOIN unclaimed u ON u.sn = c.sn) x
GROUP BY x.sn
"""

# Entries whose pick is a row several entries picked, with the first booking of it
# (``first_ln``, which keeps the row): groups of entries and double bookings, read by the
# rules and findings from here (one pass over the million picks and claims, not five).
SHARED_PICKS = """
SELECT p.ln, p.sn, c.ln AS first_ln
FROM picks p JOIN claims c ON c.sn = p.sn
WHERE c.claimants > 1
"""

# The pairs of the entries that head a possible group (`group_extra`): their own pick.
GROUP_CLAIMS = """
SELECT c.ln, c.sn FROM claims c WHERE c.ln IN (SELECT ln FROM group_extra)
"""

# The few entries and rows the rules below look at (those an identifier left unpaired,
# and the pairs of possible groups; and the entries of pairs that differ, which
# `near_pairs` reads here rather than by another scan of every entry), with what they
# compare: every rule joins these, not the million rows. Their numbers first (`few_ln`,
# `few_sn`), then those rows of the inputs (`few_ledger`, `few_statement`: `TAKEN`), then
# what the rules compare (`few_led`, `few_stmt`). Only the columns the rules read. The
# rows are read from `statement_in` alone: `few_sn` holds no copy of an id (an unclaimed
# row is a kept one, and a pick is never a copy), so `stmt` has nothing to add. Each
# carries what set it is in (``unpicked``; ``unclaimed`` and ``extra``, in `group_extra`),
# which the rules then read here instead of joining those sets again. An unpicked entry
# has no candidate row that is kept, so it is none of the others (which all have one):
# each number is listed once.
# An entry whose pair differs (`pairs.differs`) carries that pair (``pair_sn``,
# ``pair_rounded``, ``pair_in_scope``), which `few_sn` and `near_pairs` read here: the
# million pairs are scanned for them once, not three times (an entry has one pair).
FEW_LN = """
SELECT ln, TRUE AS unpicked, CAST(NULL AS BIGINT) AS pair_sn,
       CAST(NULL AS BOOLEAN) AS pair_rounded, CAST(NULL AS BOOLEAN) AS pair_in_scope
FROM unpicked
UNION ALL
SELECT COALESCE(o.ln, d.ln), FALSE, d.sn, d.rounded, d.in_scope
FROM (SELECT ln FROM group_extra
      UNION SELECT ln FROM shared_picks) o
FULL OUTER JOIN (SELECT ln, sn, rounded, in_scope FROM pairs WHERE differs) d ON d.ln = o.ln
"""

#: Steps that are the rows of another step, each with some columns of the input row its
#: number points at: (input, number, the step listing the numbers, columns). Their SQL
#: says so (a join on the number); a host may make them by taking those rows by position
#: instead (row n is row n - 1 of its input), as the DuckDB host does: its join filter
#: does not reach a scan of an Arrow table, so the join read every one of the million
#: rows' text columns (~0.1 s for the entries, ~0.05 s for the statement rows).
TAKEN: Final[dict[str, tuple[str, str, str, tuple[str, ...]]]] = {
    "few_ledger": (
        "ledger_in",
        "ln",
        "few_ln",
        (
            "reference",
            "settlement",
            "direction",
            "amount_base",
            "fee_base",
            "status",
            "booked_on",
            "kind",
            "document",
            "name",
            "booked_at_s",
        ),
    ),
    "few_statement": (
        "statement_in",
        "sn",
        "few_sn",
        (
            "payment_status",
            "direction",
            "amount_base",
            "fee_base",
            "business_date",
            "created_s",
            "payer_document",
            "recipient_document",
            "counterparty_name",
        ),
    ),
}


def _taken(name: str) -> str:
    source, number, numbers, columns = TAKEN[name]
    return (
        f"SELECT f.*, {', '.join(f'x.{column}' for column in columns)}"  # noqa: S608
        f" FROM {numbers} f JOIN {source} x ON x.{number} = f.{number}"
    )


FEW_LEDGER = _taken("few_ledger")
FEW_STATEMENT = _taken("few_statement")

FEW_LED = f"""
SELECT l.ln, {ENTRY_COLUMNS}, l.unpicked, l.pair_sn, l.pair_rounded,
       l.pair_in_scope
FROM few_ledger l CROSS JOIN scope_in sc
"""  # noqa: S608 (fixed fragments of these modules, no input)

FEW_STMT = """
SELECT t.sn, CAST(t.payment_status AS STRING) AS payment_status,
       CAST(t.direction AS STRING) AS direction, t.amount_base, t.fee_base,
       t.business_date, t.created_s,
       CASE WHEN t.direction = 'outbound' THEN t.recipient_document
            ELSE t.payer_document END AS document,
       LOWER(TRIM(t.counterparty_name)) AS name, t.unclaimed, t.extra
FROM few_statement t
"""

# The rows: unclaimed (some in `group_extra`, which holds only unclaimed rows), and,
# paired so never unclaimed, those picked by several entries or by a group's entry, and
# those paired but differing (which `near_pairs` reads).
FEW_SN = """
SELECT u.sn, TRUE AS unclaimed, x.sn IS NOT NULL AS extra
FROM unclaimed u LEFT JOIN group_extra x ON x.sn = u.sn
UNION ALL
SELECT sn, FALSE, FALSE
FROM (SELECT sn FROM shared_picks
      UNION SELECT sn FROM group_claims
      UNION SELECT pair_sn FROM few_ln WHERE pair_sn IS NOT NULL) o
"""

# One entry against the rows its reference names (when `rules_in.by_reference`) or its
# settlement key names (always): its own pick plus the extra rows, settled and in its
# direction. ``closes``: their sum is the entry's amount (within the amount tolerance) and
# their fees its fee when it has one. A settlement that does not close is still its group
# (reported with the remainder); a reference group that does not close is left to the
# identifier rules (a payment made twice is a duplicate, not a group).
REF_GROUPS = """
SELECT g.ln, g.rows_in_group, g.amount_sum_base, g.fee_sum_base, g.explicit,
       ABS(g.amount_sum_base - l.amount_base) <= r.amount_base
       OR CAST(ABS(g.amount_sum_base - l.amount_base) AS DECIMAL(38, 0)) * 10000
          <= CAST(l.amount_base AS DECIMAL(38, 0)) * r.amount_bp AS amount_closes,
       l.fee_base IS NULL OR ABS(g.fee_sum_base - l.fee_base) <= r.fee_base AS fee_closes
FROM (
    SELECT m.ln, COUNT(*) AS rows_in_group,
           CAST(SUM(s.amount_base) AS BIGINT) AS amount_sum_base,
           CAST(SUM(s.fee_base) AS BIGINT) AS fee_sum_base,
           MAX(CASE WHEN e.settlement IS NULL THEN 0 ELSE 1 END) = 1 AS explicit
    FROM (
        SELECT ln, sn FROM group_extra
        UNION ALL
        SELECT ln, sn FROM group_claims
    ) m
    JOIN few_led e ON e.ln = m.ln
    JOIN few_stmt s ON s.sn = m.sn
    CROSS JOIN rules_in r
    WHERE (r.by_reference OR e.settlement IS NOT NULL)
      AND s.payment_status = 'settled'
      AND (e.direction IS NULL OR e.direction = s.direction)
    GROUP BY m.ln
    HAVING COUNT(*) > 1
) g
JOIN few_led l ON l.ln = g.ln
CROSS JOIN rules_in r
"""

# Several entries against one row: the entries whose pick is a row several picked (when
# `rules_in.by_reference`, or all of them carry a settlement key), adding up to its amount.
ENTRY_GROUPS = """
SELECT p.ln, p.sn, g.entries_in_group, l.amount_base, l.fee_base,
       g.amount_sum_base <> s.amount_base AS tolerated
FROM (
    SELECT p.sn, COUNT(*) AS entries_in_group,
           CAST(SUM(l.amount_base) AS BIGINT) AS amount_sum_base,
           MIN(CASE WHEN l.settlement IS NULL THEN 0 ELSE 1 END) = 1 AS explicit
    FROM shared_picks p
    JOIN few_led l ON l.ln = p.ln
    JOIN few_stmt s ON s.sn = p.sn
    WHERE s.payment_status = 'settled'
      AND (l.direction IS NULL OR l.direction = s.direction)
    GROUP BY p.sn
) g
JOIN shared_picks p ON p.sn = g.sn
JOIN few_led l ON l.ln = p.ln
JOIN few_stmt s ON s.sn = g.sn
CROSS JOIN rules_in r
WHERE (r.by_reference OR g.explicit)
  AND (ABS(g.amount_sum_base - s.amount_base) <= r.amount_base
       OR CAST(ABS(g.amount_sum_base - s.amount_base) AS DECIMAL(38, 0)) * 10000
          <= CAST(s.amount_base AS DECIMAL(38, 0)) * r.amount_bp)
"""

# An entry of a kind (its `kind` column) against one business day's settled rows: ``fees``
# is the day's fees (every row; the rows stay matched on their own), ``inbound`` and
# ``outbound`` the day's rows of that direction no identifier or group claimed (a payout
# batch, a day's sales booked as one line). The first entry of a kind and day takes it.
DAY_GROUPS = """
SELECT e.ln, e.kind, e.booked_on, t.sn, t.amount_base, t.fee_base, t.business_date
FROM (
    SELECT l.ln, l.kind, l.booked_on,
           ROW_NUMBER() OVER (PARTITION BY l.kind, l.booked_on ORDER BY l.ln ASC NULLS LAST)
               AS nth
    FROM few_led l
    WHERE l.unpicked AND l.in_scope AND l.kind IS NOT NULL
) e
JOIN (
    SELECT s.sn, s.direction, s.amount_base, s.fee_base, s.business_date, 'fees' AS kind
    FROM stmt s WHERE s.payment_status = 'settled'
    UNION ALL
    SELECT s.sn, s.direction, s.amount_base, s.fee_base, s.business_date, s.direction
    FROM few_stmt s
    WHERE s.unclaimed AND NOT s.extra AND s.payment_status = 'settled'
) t ON t.business_date = e.booked_on AND t.kind = e.kind
WHERE e.nth = 1
"""

# Each entry of a kind with its day's sum (fees, or amounts), what remains and whether it
# closes (within the tolerance of the amount, or of the fee for ``fees``).
DAY_TOTALS = """
SELECT t.*, t.amount_base - t.sum_base AS remainder_base,
       ABS(t.amount_base - t.sum_base)
       <= CASE WHEN t.kind = 'fees' THEN r.fee_base ELSE r.amount_base END
       OR (t.kind <> 'fees'
           AND CAST(ABS(t.amount_base - t.sum_base) AS DECIMAL(38, 0)) * 10000
               <= CAST(t.amount_base AS DECIMAL(38, 0)) * r.amount_bp) AS closes
FROM (
    SELECT d.ln, d.kind, d.booked_on, l.amount_base, COUNT(*) AS rows_in_group,
           CAST(SUM(CASE WHEN d.kind = 'fees' THEN d.fee_base ELSE d.amount_base END)
                AS BIGINT) AS sum_base
    FROM day_groups d JOIN few_led l ON l.ln = d.ln
    GROUP BY d.ln, d.kind, d.booked_on, l.amount_base
) t
CROSS JOIN rules_in r
"""

# Candidates for an inferred pair: an entry no identifier, group or decision placed (in
# scope), a settled row no identifier or group claimed, in one direction, amounts equal
# or within the amount tolerance, documents and names not contradicting each other, times
# within the window (`booked_at` given; else the business days within the day window),
# not rejected in the review file. ``score``: the document agrees (4), the name agrees
# (2), the amounts are equal (1). The two sides meet by equality on an amount bucket
# (``amount - amount % w``, w = the amount tolerance + 1: amounts within the tolerance
# are in the same bucket or the next one; with no tolerance the bucket is the amount), a
# hash join, where a join on the amount range took a range join (~5x the CPU at 1M rows).
# No status text: the few pairs left for review read theirs from `few_led` and `few_stmt`
# (two text columns of 50,000 candidates cost ~12 ms to write, here and in `inferred`).
INFER_CAND = """
SELECT x.*,
       CASE WHEN x.document_agrees THEN 4 ELSE 0 END
       + CASE WHEN x.name_agrees THEN 2 ELSE 0 END
       + CASE WHEN x.ledger_amount_base = x.statement_amount_base THEN 1 ELSE 0 END AS score
FROM (
    SELECT e.ln, s.sn, e.amount_base AS ledger_amount_base,
           s.amount_base AS statement_amount_base, e.fee_base AS ledger_fee_base,
           s.fee_base AS statement_fee_base, e.booked_on, s.business_date,
           e.document IS NOT NULL AND e.document = s.document AS document_agrees,
           LENGTH(e.document) AS document_length,
           e.name IS NOT NULL AND e.name = s.name AS name_agrees,
           ABS(s.created_s - e.booked_at_s) AS seconds_apart
    FROM (
        SELECT l.*,
               CASE WHEN b.k = 0 OR r.amount_base = 0
                    THEN l.amount_base - l.amount_base % (r.amount_base + 1)
                    ELSE l.amount_base - l.amount_base % (r.amount_base + 1)
                         + b.k * (r.amount_base + 1) END AS bucket
        FROM few_led l
        CROSS JOIN rules_in r
        CROSS JOIN (VALUES (-1), (0), (1)) AS b(k)
        LEFT JOIN (SELECT ln FROM decisions WHERE decision = 'confirmed') d ON d.ln = l.ln
        WHERE l.unpicked AND l.in_scope AND l.kind IS NULL AND r.window_s IS NOT NULL
          AND d.ln IS NULL
          AND (b.k = 0 OR r.amount_base > 0)
    ) e
    JOIN (
        SELECT s.sn, s.direction, s.payment_status, s.amount_base, s.fee_base,
               s.business_date, s.created_s, s.document, s.name,
               s.amount_base - s.amount_base % (r.amount_base + 1) AS bucket
        FROM few_stmt s
        CROSS JOIN rules_in r
        LEFT JOIN (SELECT DISTINCT sn FROM day_groups WHERE kind <> 'fees') g ON g.sn = s.sn
        LEFT JOIN (SELECT sn FROM decisions WHERE decision = 'confirmed') d ON d.sn = s.sn
        WHERE s.unclaimed AND NOT s.extra AND s.payment_status = 'settled' AND g.sn IS NULL
          AND d.sn IS NULL
    ) s ON s.bucket = e.bucket
    CROSS JOIN rules_in r
    LEFT JOIN (SELECT ln, sn FROM decisions WHERE decision = 'rejected') n
      ON n.ln = e.ln AND n.sn = s.sn
    WHERE n.ln IS NULL
      AND (e.direction IS NULL OR e.direction = s.direction)
      AND ABS(s.amount_base - e.amount_base) <= r.amount_base
      AND (e.document IS NULL OR s.document IS NULL OR e.document = s.document)
      AND (e.name IS NULL OR s.name IS NULL OR e.name = s.name)
      AND CASE WHEN e.booked_at_s IS NOT NULL
               THEN ABS(s.created_s - e.booked_at_s) <= r.window_s
               ELSE s.business_date >= e.booked_on - r.day_window
                    AND s.business_date <= e.booked_on + r.day_window END
) x
"""

# The best candidates of each side. ``inferred``: the unique best of its entry and of its
# row; ``review``: best on both sides but tied with another (two equally good), listed
# side by side for a person to confirm or reject. Grouped, not windowed: four windows over
# the candidates (each partition sorted apart) cost ~20x these GROUP BYs. The best of an
# entry (a row) with one candidate is alone, so only the contested ones are counted again.
INFERRED = """
WITH best AS (
    SELECT c.*, e.top AS entry_top, w.top AS row_top, e.n AS entry_candidates,
           w.n AS row_candidates
    FROM infer_cand c
    JOIN (SELECT ln, MAX(score) AS top, COUNT(*) AS n FROM infer_cand GROUP BY ln) e
      ON e.ln = c.ln AND e.top = c.score
    JOIN (SELECT sn, MAX(score) AS top, COUNT(*) AS n FROM infer_cand GROUP BY sn) w
      ON w.sn = c.sn AND w.top = c.score
)
SELECT b.ln, b.sn, b.ledger_amount_base, b.statement_amount_base, b.ledger_fee_base,
       b.statement_fee_base, b.booked_on,
       b.business_date, b.document_agrees, b.document_length, b.name_agrees,
       b.seconds_apart, b.score, b.entry_top, b.row_top,
       COALESCE(e.n, 1) AS entry_best, COALESCE(w.n, 1) AS row_best,
       CASE WHEN COALESCE(e.n, 1) = 1 AND COALESCE(w.n, 1) = 1 THEN 'inferred' ELSE 'review'
       END AS outcome
FROM best b
LEFT JOIN (SELECT ln, COUNT(*) AS n FROM best WHERE entry_candidates > 1 GROUP BY ln) e
  ON e.ln = b.ln
LEFT JOIN (SELECT sn, COUNT(*) AS n FROM best WHERE row_candidates > 1 GROUP BY sn) w
  ON w.sn = b.sn
"""

_TIME_WORDS = """
CASE WHEN i.seconds_apart IS NULL
     THEN CASE WHEN i.business_date = i.booked_on THEN 'same day' ELSE 'within the day window'
          END
     WHEN i.seconds_apart < 60 THEN CONCAT(COALESCE(CAST(i.seconds_apart AS STRING), ''), ' s')
     ELSE CONCAT(COALESCE(CAST(CAST((i.seconds_apart - i.seconds_apart % 60) / 60 AS BIGINT)
                               AS STRING), ''),
                 ' min') END"""

# Every pair a rule other than an identifier made, with its reason (``rule``), and the
# review candidates: what the findings leave out (an entry or row in it: `NOT EXISTS`, an
# anti-join on its few rows, no DISTINCT of them first) and `matched` adds.
RULE_PAIRS = f"""
SELECT 'group' AS outcome, m.ln, m.sn, s.amount_base, s.fee_base, l.booked_on,
       s.business_date,
       CONCAT('group of ', COALESCE(CAST(g.rows_in_group AS STRING), ''), ' rows = ',
              CASE WHEN l.settlement IS NOT NULL
                   THEN CONCAT('settlement ', COALESCE(l.settlement, ''))
                   ELSE CONCAT('reference ', COALESCE(l.reference, '')) END) AS rule,
       g.amount_closes AND g.fee_closes AS closes,
       g.amount_sum_base <> l.amount_base
       OR (l.fee_base IS NOT NULL AND g.fee_sum_base <> l.fee_base) AS tolerated
FROM (
    SELECT ln, sn FROM group_extra
    UNION ALL
    SELECT ln, sn FROM group_claims
) m
JOIN ref_groups g ON g.ln = m.ln
JOIN few_led l ON l.ln = m.ln
JOIN few_stmt s ON s.sn = m.sn
WHERE (g.explicit OR (g.amount_closes AND g.fee_closes))
  AND s.payment_status = 'settled' AND (l.direction IS NULL OR l.direction = s.direction)
UNION ALL
SELECT 'group', g.ln, g.sn, g.amount_base, g.fee_base, l.booked_on, s.business_date,
       CONCAT('group of ', COALESCE(CAST(g.entries_in_group AS STRING), ''),
              ' entries = movement ',
              COALESCE(l.reference, '')),
       TRUE, g.tolerated
FROM entry_groups g JOIN few_stmt s ON s.sn = g.sn JOIN few_led l ON l.ln = g.ln
UNION ALL
SELECT 'day', d.ln, d.sn, d.amount_base, d.fee_base, d.booked_on, d.business_date,
       CONCAT('group of ', COALESCE(CAST(t.rows_in_group AS STRING), ''), ' rows = ',
              COALESCE(d.kind, ''), ' of ', COALESCE(CAST(d.booked_on AS STRING), '')),
       t.closes, t.remainder_base <> 0
FROM day_groups d JOIN day_totals t ON t.ln = d.ln
WHERE d.kind <> 'fees'
UNION ALL
SELECT 'day', t.ln, CAST(NULL AS BIGINT), t.sum_base, 0, t.booked_on, t.booked_on,
       CONCAT('group of ', COALESCE(CAST(t.rows_in_group AS STRING), ''), ' rows = fees of ',
              COALESCE(CAST(t.booked_on AS STRING), '')),
       t.closes, t.remainder_base <> 0
FROM day_totals t
WHERE t.kind = 'fees'
UNION ALL
SELECT i.outcome, i.ln, i.sn, i.statement_amount_base, i.statement_fee_base, i.booked_on,
       i.business_date,
       CONCAT('inferred: amount',
              CASE WHEN i.document_agrees AND i.document_length = 11 THEN ' + CPF'
                   WHEN i.document_agrees AND i.document_length = 14 THEN ' + CNPJ'
                   WHEN i.document_agrees THEN ' + document' ELSE '' END,
              CASE WHEN i.name_agrees THEN ' + name' ELSE '' END,
              ' + ', {_TIME_WORDS}),
       TRUE,
       i.ledger_amount_base <> i.statement_amount_base
       OR (i.ledger_fee_base IS NOT NULL AND i.ledger_fee_base <> i.statement_fee_base)
       OR i.booked_on <> i.business_date
FROM inferred i
UNION ALL
SELECT 'confirmed', d.ln, d.sn, s.amount_base, s.fee_base, l.booked_on, s.business_date,
       CONCAT('confirmed by ', COALESCE(d.decided_by, ''), ' on ',
              COALESCE(d.decided_at, '')),
       TRUE, FALSE
FROM decisions d
JOIN few_led l ON l.ln = d.ln
JOIN few_stmt s ON s.sn = d.sn
WHERE d.decision = 'confirmed' AND l.in_scope AND l.unpicked AND s.unclaimed
"""  # noqa: S608 (fixed fragments of this module, no input)

# The pairs a rule matched, for `matched` (a day's fees: one line, no row); a group that
# does not close is a finding with its remainder, not a match.
RULE_MATCHED = """
SELECT p.ln, p.sn, p.amount_base, p.fee_base, p.booked_on, p.business_date, p.rule,
       p.tolerated
FROM rule_pairs p
WHERE p.outcome IN ('inferred', 'confirmed') OR (p.outcome IN ('group', 'day') AND p.closes)
"""
