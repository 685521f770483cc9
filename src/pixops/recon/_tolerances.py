"""`Tolerances`: how far a pair may differ and still match, and which other rules run.

The defaults are today's exact rules: equal amounts, fees and business days, no groups by
reference, no inferred pairs. Every value is an integer (base units, basis points, days,
seconds): a tolerance is money and never passes through a float.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Final

import pyarrow as pa

from pixops.errors import PixopsError
from pixops.money import format_brl_base

__all__ = ["MAX_DAY_WINDOW", "RULES_SCHEMA", "ToleranceError", "Tolerances"]

#: The widest day window: a week either side (a pair further apart is another payment).
MAX_DAY_WINDOW: Final = 7
#: The widest time window of an inferred pair: one day, in seconds.
MAX_WINDOW_SECONDS: Final = 86_400

#: ``rules_in``, the one-row input the SQL reads its settings from.
RULES_SCHEMA: Final = pa.schema(
    [
        ("amount_base", pa.int64()),
        ("amount_bp", pa.int64()),
        ("fee_base", pa.int64()),
        ("day_window", pa.int32()),
        ("window_s", pa.int64()),
        ("by_reference", pa.bool_()),
        ("tolerance_text", pa.string()),
    ]
)


class ToleranceError(PixopsError, ValueError):
    """A tolerance that is not a whole, non-negative number of its unit."""


@dataclass(frozen=True)
class Tolerances:
    """How far the two sides of a pair may differ and still match.

    - ``amount_base``: amounts may differ by this many base units (R$ 0,01 is 100);
    - ``amount_bp``: or by this share of the ledger amount, in basis points (100 = 1 %);
      the larger of the two applies;
    - ``fee_base``: fees may differ by this many base units;
    - ``days``: the business days may be this many days apart (0 to 7) and still match;
      an inferred pair of an entry without a time looks this many days either side;
    - ``inferred_seconds``: pair a ledger entry and a statement row that share no
      identifier when the amounts agree, the payer's document and name agree where both
      have one, and their times are at most this many seconds apart (None: off);
    - ``groups``: match an entry against the exact sum of the rows its reference names
      (an order paid in parts), and several entries against one row (entries with a
      settlement key are grouped whatever this says).
    """

    amount_base: int = 0
    amount_bp: int = 0
    fee_base: int = 0
    days: int = 0
    inferred_seconds: int | None = None
    groups: bool = False

    def __post_init__(self) -> None:
        for name, unit in (
            ("amount_base", "base units"),
            ("amount_bp", "basis points"),
            ("fee_base", "base units"),
            ("days", "days"),
        ):
            _whole(name, getattr(self, name), unit)
        if self.inferred_seconds is not None:
            _whole("inferred_seconds", self.inferred_seconds, "seconds")
            if not 1 <= self.inferred_seconds <= MAX_WINDOW_SECONDS:
                raise ToleranceError(
                    f"tolerance inferred_seconds must be 1 to {MAX_WINDOW_SECONDS} (a day),"
                    f" not {self.inferred_seconds}; None turns inferred pairs off"
                )
        if self.days > MAX_DAY_WINDOW:
            raise ToleranceError(f"tolerance days must be 0 to {MAX_DAY_WINDOW}, not {self.days}")
        if self.amount_bp > 10_000:
            raise ToleranceError(
                f"tolerance amount_bp must be 0 to 10000 (100 %), not {self.amount_bp}"
            )
        if not isinstance(self.groups, bool):
            raise ToleranceError(f"groups must be True or False, not {self.groups!r}")

    @property
    def exact(self) -> bool:
        """True for the defaults: today's exact rules."""
        return self == Tolerances()

    def describe(self) -> str:
        """The tolerances in words, as the summary and the report print them."""
        parts = []
        if self.amount_base or self.amount_bp:
            amount = [format_brl_base(self.amount_base)] if self.amount_base else []
            if self.amount_bp:
                amount.append(f"{_percent(self.amount_bp)} of the amount")
            parts.append(f"amount ± {' or '.join(amount)}")
        if self.fee_base:
            parts.append(f"fee ± {format_brl_base(self.fee_base)}")
        if self.days:
            parts.append(f"± {self.days} day{'s' if self.days > 1 else ''}")
        if self.inferred_seconds is not None:
            parts.append(f"inferred within {_duration(self.inferred_seconds)}")
        if self.groups:
            parts.append("groups by reference")
        return "; ".join(parts) if parts else "exact (no tolerance)"

    def table(self) -> pa.Table:
        """``rules_in``: one row the SQL reads."""
        row = {
            "amount_base": self.amount_base,
            "amount_bp": self.amount_bp,
            "fee_base": self.fee_base,
            "day_window": self.days,
            "window_s": self.inferred_seconds,
            "by_reference": self.groups,
            "tolerance_text": self.describe(),
        }
        return pa.Table.from_pylist([row], schema=RULES_SCHEMA)

    def as_dict(self) -> dict[str, int | bool | None]:
        """The settings by name (a summary's JSON)."""
        return {field.name: getattr(self, field.name) for field in fields(self)}


def _whole(name: str, value: object, unit: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ToleranceError(
            f"tolerance {name} must be a whole number of {unit}, not {value!r}"
            + (" (money is integers: R$ 0,05 is 500 base units)" if unit == "base units" else "")
        )
    if value < 0:
        raise ToleranceError(f"tolerance {name} must not be negative: {value}")


def _percent(bp: int) -> str:
    whole, rest = divmod(bp, 100)
    return f"{whole} %" if not rest else f"{whole},{rest:02d}".rstrip("0") + " %"


def _duration(seconds: int) -> str:
    if seconds % 3600 == 0:
        return f"{seconds // 3600} h"
    if seconds % 60 == 0:
        return f"{seconds // 60} min"
    return f"{seconds} s"
