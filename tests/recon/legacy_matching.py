"""The matching as it was written before `cand` carried the pairs' bits: a reference.

`pixops.recon._sql` decides each pair in the candidate join (`pair_bits`) instead of
joining a million chosen pairs back to both sides; these are the steps it replaced, as
they were (commit 3fbbc97). `legacy_steps` puts them back in the STEPS they ran in, so
a test can run both on the same inputs and require the same result.
"""

from __future__ import annotations

from pixops.recon._sql import STEPS

_STMT_KEYS = """
SELECT k.match_key, k.sn, CAST(k.direction AS STRING) AS direction,
       CAST(k.payment_status AS STRING) AS payment_status, k.amount_base
FROM (
    SELECT transaction_id AS match_key, sn, direction, payment_status, amount_base
    FROM statement_in
    UNION ALL SELECT end_to_end_id, sn, direction, payment_status, amount_base
    FROM statement_in WHERE end_to_end_id IS NOT NULL
    UNION ALL SELECT external_id, sn, direction, payment_status, amount_base
    FROM statement_in WHERE external_id IS NOT NULL
    UNION ALL SELECT tag, sn, direction, payment_status, amount_base
    FROM statement_in WHERE tag IS NOT NULL
) k
"""

_CAND = """
SELECT l.ln, k.sn,
       (CASE WHEN c.sn IS NULL THEN 0 ELSE 8 END
        + CASE WHEN l.direction IS NULL OR l.direction = k.direction THEN 0 ELSE 4 END
        + CASE WHEN k.payment_status = 'settled' THEN 0 ELSE 2 END
        + CASE WHEN k.amount_base = l.amount_base THEN 0 ELSE 1 END) * 4294967296
       + k.sn AS rank_key
FROM led l
LEFT JOIN stmt_keys k ON k.match_key = l.reference
LEFT JOIN copies c ON c.sn = k.sn
"""

_PICKS = """
SELECT ln,
       CASE WHEN MIN(rank_key) < 8 * 4294967296 THEN MIN(rank_key) % 4294967296 END AS sn
FROM cand GROUP BY ln
"""

_CLAIMS = """
SELECT sn, MIN(ln) AS ln, COUNT(*) AS claimants FROM picks WHERE sn IS NOT NULL GROUP BY sn
"""

# ``differs`` and ``matches`` added since, as the rules and `stmt` read them.
_PAIRS = """
SELECT x.*, x.in_scope AND (NOT x.agrees OR x.rounded) AS differs,
       x.in_scope AND x.agrees AND NOT x.rounded AS matches
FROM (
SELECT p.ln, p.sn,
       l.amount_base AS ledger_amount_base, s.amount_base AS statement_amount_base,
       s.fee_base AS statement_fee_base, s.business_date,
       l.in_scope OR s.in_scope AS in_scope,
       l.amount_base = s.amount_base
       AND (l.fee_base IS NULL OR l.fee_base = s.fee_base)
       AND l.booked_on = s.business_date
       AND (l.direction IS NULL OR l.direction = s.direction)
       AND l.status = s.payment_status AS agrees,
       -- Added with the ledger's precision: a ledger of these tests keeps base units,
       -- which never round (what `pair_issues` reads of a pair now).
       FALSE AS rounded
FROM claims p
JOIN led l ON l.ln = p.ln
JOIN stmt s ON s.sn = p.sn
) x
"""

# With the columns `matched` gained since (issue 31) and what they are under the exact
# rules: no rule beyond the identifier (which the host names), no tolerance used.
_MATCHED = """
SELECT p.ln, p.sn, p.statement_amount_base AS amount_base,
       p.statement_fee_base AS fee_base, p.business_date AS booked_on, p.business_date,
       CAST(NULL AS STRING) AS rule, CAST(NULL AS STRING) AS tolerance
FROM pairs p
WHERE p.in_scope AND p.agrees
"""

# `stmt` and `unclaimed` as they were before `stmt` carried each row's pair, with the
# business day converted in SQL (the host now hands it over: an independent check of it).
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

_UNCLAIMED = """
SELECT s.sn FROM stmt s
WHERE s.in_scope AND s.payment_status IN ('settled', 'processing')
  AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.sn = s.sn)
"""

_REPLACED = {
    "stmt": _STMT,
    "unclaimed": _UNCLAIMED,
    "stmt_keys": _STMT_KEYS,
    "cand": _CAND,
    "picks": _PICKS,
    "claims": _CLAIMS,
    "pairs": _PAIRS,
    "matched": _MATCHED,
}
_ORDER = (
    "hook_links",
    "copies",
    "stmt",
    "stmt_links",
    "led",
    "stmt_keys",
    "cand",
    "picks",
    "claims",
    "pairs",
)


def legacy_steps() -> tuple[tuple[str, str, bool], ...]:
    """`STEPS` with the replaced steps as they were, in the order they ran."""
    current = {name: (sql, materialise) for name, sql, materialise in STEPS}
    materialised = {"pairs": True, "matched": False}
    names = [*_ORDER, *(name for name, _, _ in STEPS if name not in _ORDER)]
    return tuple(
        (
            name,
            _REPLACED.get(name, current[name][0]),
            materialised.get(name, current[name][1]),
        )
        for name in names
    )
