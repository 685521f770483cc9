"""The notebooks the browser tests expect, found by name in a notebooks folder."""

from __future__ import annotations

from pathlib import Path

#: A received payment of the demo month (R$ 13,22 from Marcelo Nascimento Pereira,
#: 2026-01-01, R$ 3,49 of it refunded during the month).
PAYMENT = "PIXINE60746948202601011419i3rKpF8aczs"
PAYMENT_AMOUNT_TEXT = "R$ 13,22"
PAYMENT_LEFT_TEXT = "R$ 9,73"
PAYMENT_PAYER = "Marcelo Nascimento Pereira"


def notebook_named(folder: Path, pattern: str) -> str:
    """The one notebook of `folder` matching `pattern`; a clear failure when not exactly one."""
    found = sorted(path.name for path in folder.glob(pattern))
    assert len(found) == 1, f"expected one notebook {pattern} in {folder}, found {found}"
    return found[0]
