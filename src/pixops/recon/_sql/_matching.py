"""From identifiers to pairs: copies of an id, the statement and ledger rows, every
candidate an identifier links, each entry's pick and each row's first booking."""

from __future__ import annotations

__all__ = [
    "CAND",
    "CAND_EXACT",
    "CLAIMS",
    "COPIES",
    "ENTRY_COLUMNS",
    "HOOK_LINKS",
    "LED",
    "PAIRS",
    "PICKS",
    "STMT",
    "STMT_KEYS",
    "STMT_LINKS",
]

# Webhook events that name a refund's original (the statement does not).
HOOK_LINKS = """
SELECT transaction_id, MAX(original_transaction_id) AS original_transaction_id
FROM webhooks_in WHERE original_transaction_id IS NOT NULL
GROUP BY transaction_id
"""

# Ids listed more than once (overlapping exports); the newest state of each is kept.
COPIES = """
SELECT sn FROM (
    SELECT s.sn, ROW_NUMBER() OVER (PARTITION BY s.id
                                    ORDER BY s.completed_at DESC NULLS LAST,
                                             s.sn DESC NULLS LAST) AS copy_rank
    FROM statement_in s
    WHERE s.id IN (SELECT id FROM statement_in GROUP BY id HAVING COUNT(*) > 1)
) x
WHERE x.copy_rank > 1
"""

# The statement rows kept (copies left out) without their text, which is read back by
# ``sn`` for the rows an output shows; with the entry each is paired with, if any
# (``ln``), and that pair's bits: the matched rows and the unpaired ones are then read
# off this one join (two joins of a million rows each cost twice as much).
STMT = """
SELECT d.*,
       (sc.first_day IS NULL OR d.business_date >= sc.first_day)
       AND (sc.last_day IS NULL OR d.business_date <= sc.last_day) AS in_scope,
       p.ln, p.matches AS pair_matches
FROM (
    SELECT s.sn, CAST(s.payment_status AS STRING) AS payment_status,
           CAST(s.direction AS STRING) AS direction,
           s.amount_base, s.fee_base, s.completed_at, s.business_date
    FROM statement_in s LEFT JOIN copies c ON c.sn = s.sn
    WHERE c.sn IS NULL
) d
LEFT JOIN pairs p ON p.sn = d.sn
CROSS JOIN scope_in sc
"""

# Refunds and returns (few rows): the original named by the statement or by a webhook.
STMT_LINKS = """
SELECT s.sn, s.transaction_id,
       COALESCE(s.original_transaction_id, h.original_transaction_id)
           AS original_transaction_id
FROM statement_in s
LEFT JOIN hook_links h ON h.transaction_id = s.transaction_id
LEFT JOIN copies c ON c.sn = s.sn
WHERE (s.original_transaction_id IS NOT NULL OR h.original_transaction_id IS NOT NULL)
  AND c.sn IS NULL
"""

# The entries, with what the identifier rules compare: ``reference`` is the entry's
# settlement key when it has one (its group is the rows carrying that key), else its own
# reference; the name in lower case, without the spaces around it. ``step_base``: the
# precision the ledger keeps (1 base unit; 100 for a ledger in centavos), at which its
# amounts and fees are compared (see `cand`). `ENTRY_COLUMNS` (of ``ledger_in l`` and
# ``scope_in sc``) are also what `few_led` computes for the few entries the rules read.
ENTRY_COLUMNS = """
       COALESCE(l.settlement, l.reference) AS reference, l.direction,
       l.amount_base, l.fee_base, COALESCE(l.status, 'settled') AS status, l.booked_on,
       (sc.first_day IS NULL OR l.booked_on >= sc.first_day)
       AND (sc.last_day IS NULL OR l.booked_on <= sc.last_day) AS in_scope,
       sc.ledger_step_base AS step_base,
       l.settlement, l.kind, l.document, LOWER(TRIM(l.name)) AS name, l.booked_at_s"""

LED = f"""
SELECT l.ln, l.entry_id, {ENTRY_COLUMNS}
FROM ledger_in l CROSS JOIN scope_in sc
"""  # noqa: S608 (fixed fragments of this module, no input)

# Every identifier a ledger may have written down for a movement, copies included: they
# are ranked last in `cand` (filtering 2M keys against `copies` costs more than that);
# with the values `cand` compares.
STMT_KEYS = """
SELECT k.match_key, k.sn, CAST(k.direction AS STRING) AS direction,
       CAST(k.payment_status AS STRING) AS payment_status, k.amount_base, k.fee_base,
       k.business_date
FROM (
    SELECT transaction_id AS match_key, sn, direction, payment_status, amount_base,
           fee_base, business_date
    FROM statement_in
    UNION ALL
    SELECT end_to_end_id, sn, direction, payment_status, amount_base, fee_base,
           business_date
    FROM statement_in WHERE end_to_end_id IS NOT NULL
    UNION ALL
    SELECT external_id, sn, direction, payment_status, amount_base, fee_base, business_date
    FROM statement_in WHERE external_id IS NOT NULL
    UNION ALL
    SELECT tag, sn, direction, payment_status, amount_base, fee_base, business_date
    FROM statement_in WHERE tag IS NOT NULL
) k
"""

# What `CAND` and `CAND_EXACT` share: each pair's rank and whether it agrees exactly, the
# pairs an identifier links, and the scope and amount bits of ``pick_key``.
_RANKED = """l.ln, k.sn,
           (CASE WHEN c.sn IS NULL THEN 0 ELSE 8 END
            + CASE WHEN l.direction IS NULL OR l.direction = k.direction THEN 0 ELSE 4 END
            + CASE WHEN k.payment_status = 'settled' THEN 0 ELSE 2 END
            + CASE WHEN k.amount_base = l.amount_base THEN 0 ELSE 1 END) * 4294967296
           + k.sn AS rank_key,
           k.business_date, l.in_scope AS ledger_in_scope,
           l.amount_base <> k.amount_base AS amounts_differ,
           l.amount_base = k.amount_base
           AND (l.fee_base IS NULL OR l.fee_base = k.fee_base)
           AND l.booked_on = k.business_date
           AND (l.direction IS NULL OR l.direction = k.direction)
           AND l.status = k.payment_status AS exact"""
_LINKED = """FROM led l
    LEFT JOIN stmt_keys k ON k.match_key = l.reference
    LEFT JOIN copies c ON c.sn = k.sn"""
_SCOPE_BITS = """+ CASE WHEN x.ledger_in_scope
                   OR ((sc.first_day IS NULL OR x.business_date >= sc.first_day)
                       AND (sc.last_day IS NULL OR x.business_date <= sc.last_day))
              THEN 4 ELSE 0 END
       + CASE WHEN x.amounts_differ THEN 8 ELSE 0 END AS pick_key"""

# Every (entry, statement row) pair an identifier links (an entry linking none: once, no
# row), ranked in one integer in the join: a copy of an id last (8), then same direction
# (4), settled (2), the same amount (1), flags above the bits of `sn`; then the first in
# statement order. Below the rank, what the pair would be (`pair_bits`), decided here so
# the chosen pairs need no join back to a million rows: the two sides agree on everything
# (1), agree only at the ledger's precision (an amount or fee differs by less than its
# `step_base`, which is rounding) or within the tolerances of ``rules_in`` (3), or not (2;
# none of these when a side lacks a value to compare: then the pair is neither matched
# nor an issue), either side's day is in scope (4), the amounts differ (8). So
# ``pick_key`` = flags * 2^36 + sn * 16 + pair_bits. A join on the text: on 64-bit hashes
# of it (measured at 1M x 1M) the join saves about what hashing 3M strings costs, and
# confirming the picked pairs' text afterwards (a collision must never pair two different
# ids) adds ~0.1 s of CPU. The tolerances are read only for a pair that does not agree.
CAND = f"""
SELECT x.ln, x.sn,
       x.rank_key * 16
       + CASE WHEN x.exact THEN 1 WHEN x.agrees THEN 3
              WHEN x.agrees IS NULL THEN 0
              WHEN (ABS(x.ledger_amount_base - x.amount_base) <= r.amount_base
                    OR CAST(ABS(x.ledger_amount_base - x.amount_base) AS DECIMAL(38, 0))
                       * 10000 <= CAST(x.ledger_amount_base AS DECIMAL(38, 0)) * r.amount_bp)
                   AND (x.ledger_fee_base IS NULL
                        OR ABS(x.ledger_fee_base - x.fee_base) <= r.fee_base)
                   AND x.business_date >= x.booked_on - r.day_window
                   AND x.business_date <= x.booked_on + r.day_window
                   AND x.same_direction AND x.same_status
              THEN 3 ELSE 2 END
       {_SCOPE_BITS}
FROM (
    SELECT {_RANKED},
           ABS(l.amount_base - k.amount_base) < l.step_base
           AND (l.fee_base IS NULL OR ABS(l.fee_base - k.fee_base) < l.step_base)
           AND l.booked_on = k.business_date
           AND (l.direction IS NULL OR l.direction = k.direction)
           AND l.status = k.payment_status AS agrees,
           l.amount_base AS ledger_amount_base, k.amount_base, l.fee_base AS ledger_fee_base,
           k.fee_base, l.booked_on,
           l.direction IS NULL OR l.direction = k.direction AS same_direction,
           l.status = k.payment_status AS same_status
    {_LINKED}
) x
CROSS JOIN scope_in sc
CROSS JOIN rules_in r
"""  # noqa: S608 (fixed fragments of this module, no input)

# Each ledger entry picks its best-ranked candidate: one MIN of `pick_key`, whose rank
# decides (two candidates tie only when they are one row met through two of its
# identifiers, bits and all); its `sn` and `pair_bits` are read back out of it (the
# division is exact: a multiple of 16, below 2^53). NULL when no statement row carries its
# reference, or only copies do (a copy ranks after every kept row, so the best is a copy
# only when no kept row is a candidate).
PICKS = """
SELECT ln,
       CASE WHEN k < 8 * 68719476736
            THEN CAST((k % 68719476736 - k % 16) / 16 AS BIGINT) END AS sn,
       CASE WHEN k < 8 * 68719476736 THEN k % 16 END AS pair_bits
FROM (SELECT ln, MIN(pick_key) AS k FROM cand GROUP BY ln) m
"""

# A statement row picked by several entries belongs to the first booking: one MIN of
# ``ln * 16 + pair_bits`` gives it with the bits of its pick.
CLAIMS = """
SELECT sn, CAST((k - k % 16) / 16 AS BIGINT) AS ln, claimants, k % 16 AS pair_bits
FROM (SELECT sn, MIN(ln * 16 + pair_bits) AS k, COUNT(*) AS claimants
      FROM picks WHERE sn IS NOT NULL GROUP BY sn) m
"""

# The pairs: the claims with their bits read out (see `cand`); ``rounded``: they agree
# only at the ledger's precision or within the tolerances (`near_pairs` tells which);
# ``differs``: in scope and differing, beyond the tolerances or within them (``in_scope
# AND (NOT agrees OR rounded)``, one comparison on the bits: the rules filter the million
# pairs by it three times, and the CASE of ``agrees`` cost ~30 ms each time); ``matches``:
# in scope and agreeing exactly, what `matched` reads off `stmt` (one column of a million
# rows instead of the three it is made of, and no CASE over every pair).
PAIRS = """
SELECT ln, sn,
       CASE WHEN pair_bits % 4 IN (1, 3) THEN TRUE WHEN pair_bits % 4 = 2 THEN FALSE END
           AS agrees,
       pair_bits % 4 = 3 AS rounded,
       pair_bits % 8 >= 4 AS in_scope,
       pair_bits >= 8 AS amounts_differ,
       pair_bits % 8 >= 6 AS differs,
       pair_bits % 8 = 5 AS matches
FROM claims
"""

# `cand` when no tolerance is set (``rules_in``: amount_base, amount_bp, fee_base and
# day_window all 0) and the ledger keeps base units (step_base 1): then ``agrees`` is
# ``exact`` (``ABS(a - b) < 1`` on integers is ``a = b``, NULL alike) and the tolerance
# branch is ``exact`` again, so the pair's bits are read off ``exact`` alone: the same
# ``pick_key``, without carrying six columns of a million candidates to compare them. A
# host may run this text instead of `CAND` in that case (`EXACT`); Spark runs `CAND`.
CAND_EXACT = f"""
SELECT x.ln, x.sn,
       x.rank_key * 16
       + CASE WHEN x.exact THEN 1 WHEN x.exact IS NULL THEN 0 ELSE 2 END
       {_SCOPE_BITS}
FROM (
    SELECT {_RANKED}
    {_LINKED}
) x
CROSS JOIN scope_in sc
"""  # noqa: S608 (fixed fragments of this module, no input)
