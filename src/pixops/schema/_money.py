"""`Amount`: a response amount in base units that cannot be mistaken for centavos.

The service answers in base units (1.00 BRL = 10000) while requests carry centavos
(1.00 BRL = 100); mixing them is a 100x error. `Amount` is an `int` (so sums, pandas
and `int(amount)` give base units) that also says what it is: `.base`, `.centavos`
(exact, or an error), `.reais` (a `Decimal`) and `.format()` (pt-BR, `R$ 1.234,56`).
"""

from __future__ import annotations

from decimal import Decimal
from types import MethodType
from typing import Any

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema

from pixops import money

__all__ = ["BASE_UNITS_PER_REAL", "Amount"]

BASE_UNITS_PER_REAL = 10_000


class Amount(int):
    """An amount in base units (1.00 BRL = 10000); `int(amount)` is base units."""

    __slots__ = ()

    def __new__(cls, amount_base: int) -> Amount:
        money.check_int64(amount_base)
        return super().__new__(cls, amount_base)

    @property
    def base(self) -> int:
        """Base units, as a plain `int`."""
        return int(self)

    @property
    def centavos(self) -> int:
        """Whole centavos; raises `pixops.money.MoneyError` on a fraction of a centavo."""
        return money.base_to_centavos(int(self))

    @property
    def reais(self) -> Decimal:
        """Reais as an exact `Decimal` (four places)."""
        return Decimal(int(self)).scaleb(-4)

    def format(self) -> str:
        """pt-BR text by the one rule, `pixops.money.format_brl_base`: no non-zero digit
        hidden (`R$ 1.234,56`, `R$ 0,1305`)."""
        return money.format_brl_base(int(self))

    def __repr__(self) -> str:
        return f"Amount({int(self)} base units = {self.format()})"

    def _repr_html_(self) -> str:
        return f"<span title='{int(self)} base units'>{self.format()}</span>"

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        # The 64-bit range is checked by pydantic-core and the `Amount` made by
        # `int.__new__` itself: no Python frame per amount (a page holds 300 of them).
        # A bound method, not a `functools.partial`: a quarter cheaper to call.
        return core_schema.no_info_after_validator_function(
            MethodType(int.__new__, cls),
            core_schema.int_schema(strict=True, ge=money.INT64_MIN, le=money.INT64_MAX),
            serialization=core_schema.plain_serializer_function_ser_schema(
                int, return_schema=core_schema.int_schema()
            ),
        )

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {
            "type": "integer",
            "format": "int64",
            "description": "base units: 1.00 BRL = 10000 (1 centavo = 100)",
        }
