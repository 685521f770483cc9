"""Fee schedules: a percentage in basis points plus a fixed part, per operation.

Rounding: the percentage part is computed in base units and rounded half up to a
whole base unit (1/100 centavo), using integer arithmetic only.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from functools import lru_cache

from pixops.money import CENTAVO_IN_BASE


@dataclass(frozen=True)
class Fee:
    percent_bps: int = 0
    fixed_centavos: int = 0

    def __post_init__(self) -> None:
        for name in ("percent_bps", "fixed_centavos"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{name} must be a non-negative integer")
        if self.percent_bps > 10_000:
            raise ValueError("percent_bps cannot exceed 10000 (100%)")

    def fee_base(self, amount_base: int) -> int:
        """The fee in base units for an amount in base units."""
        percent_part = (amount_base * self.percent_bps + 5_000) // 10_000
        return self.fixed_centavos * CENTAVO_IN_BASE + percent_part


@dataclass(frozen=True)
class FeeSchedule:
    cash_in: Fee = field(default_factory=lambda: Fee(percent_bps=99))
    cash_out: Fee = field(default_factory=lambda: Fee(fixed_centavos=50))
    refund: Fee = field(default_factory=Fee)

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> FeeSchedule:
        """The schedule stored as `text` (parsed once per distinct text: they are few)."""
        return _parse_schedule(text)


DEFAULT_FEES = FeeSchedule()


@lru_cache(maxsize=256)
def _parse_schedule(text: str) -> FeeSchedule:
    raw = json.loads(text)
    return FeeSchedule(**{name: Fee(**raw[name]) for name in ("cash_in", "cash_out", "refund")})
