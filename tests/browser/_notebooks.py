"""The notebooks the browser tests expect, found by name in a notebooks folder."""

from __future__ import annotations

from pathlib import Path

#: A received payment of the demo month (R$ 26,12 from Juliana Lima Soares, 2026-01-01,
#: R$ 2,33 of it refunded during the month): the same one the widget tests use.
PAYMENT = "PIXINE085617012026010105031n5rFTOF5fL"
PAYMENT_AMOUNT_TEXT = "R$ 26,12"
PAYMENT_PAYER = "Juliana Lima Soares"


def notebook_named(folder: Path, pattern: str) -> str:
    """The one notebook of `folder` matching `pattern`; a clear failure when not exactly one."""
    found = sorted(path.name for path in folder.glob(pattern))
    assert len(found) == 1, f"expected one notebook {pattern} in {folder}, found {found}"
    return found[0]
