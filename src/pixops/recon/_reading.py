"""`LedgerReading`: how a ledger was read, stated in one line for people and logs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from pixops.recon._mapping import Unit

__all__ = ["LedgerReading"]

_ENCODING_WORDS: Final = {"utf-8": "UTF-8", "windows-1252": "Windows-1252"}
_UNIT_WORDS: Final = {"reais": "reais", "centavos": "centavos", "base": "base units"}
_STEP_WORDS: Final = {1: "R$ 0,0001", 10: "R$ 0,001", 100: "the centavo"}


@dataclass(frozen=True)
class LedgerReading:
    """What a ledger was read as: its separator and encoding (None for a frame or
    Parquet), its decimal mark (``comma``, ``point`` or ``whole``: digits only), the form
    of its days (None for a column of dates), the unit of its amounts, and the precision
    it keeps (``step_base``: 100 for centavos, 1 for base units), at which it is compared."""

    separator: str | None
    encoding: str | None
    decimal: str
    date_format: str | None
    amount_unit: Unit
    step_base: int = 1

    def line(self) -> str:
        """``read as: semicolon, Windows-1252, decimal comma, dd/mm/yyyy, amounts in reais``."""
        words = [
            *([self.separator] if self.separator else []),
            *([_ENCODING_WORDS.get(self.encoding, self.encoding)] if self.encoding else []),
            "whole numbers" if self.decimal == "whole" else f"decimal {self.decimal}",
            *([self.date_format] if self.date_format else []),
            f"amounts in {_UNIT_WORDS[self.amount_unit]}",
        ]
        if self.step_base > 1:
            words[-1] += f" (compared to {_STEP_WORDS.get(self.step_base, 'its precision')})"
        return "read as: " + ", ".join(words)
