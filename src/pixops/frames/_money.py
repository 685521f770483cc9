"""Money columns for people: pt-BR text and exact Decimal reais, never a float in between."""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from decimal import Decimal

import numpy as np
import pandas as pd
import pyarrow as pa

from pixops.money import MoneyError, check_int64, format_brl_base

__all__ = ["MONEY_DTYPE", "brl_text", "money_column", "reais_decimal"]

#: Base units per real is 10**4.
_BASE_PLACES = 4

#: The one dtype of a money column: 64-bit integers in base units, nullable, Arrow-backed.
MONEY_DTYPE = pd.ArrowDtype(pa.int64())


def money_column(values: pd.Series | Iterable[int | None], *, name: str | None = None) -> pd.Series:
    """Base-unit integers as an ``int64[pyarrow]`` Series; a float or text is refused.

    A float Series is refused even when every value looks whole: the precision may
    already be gone (2**53) and the unit is unknown.
    """
    index: pd.Index | None = None
    label: Hashable = name
    if isinstance(values, pd.DataFrame):
        raise TypeError("money_column takes one column (frame['amount_base']), not a DataFrame")
    if isinstance(values, np.ndarray):
        values = pd.Series(values)  # its dtype says whether it is integers
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise TypeError(
            "money must be a Series or a list of integers in base units,"
            f" not {type(values).__name__}"
        )
    if isinstance(values, pd.Series):
        dtype = values.dtype
        label = values.name if name is None else name
        if (isinstance(dtype, pd.ArrowDtype) and pa.types.is_integer(dtype.pyarrow_dtype)) or (
            pd.api.types.is_integer_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)
        ):
            try:
                converted: pd.Series = values.astype(MONEY_DTYPE)  # a new Series
            except (pa.ArrowInvalid, OverflowError):  # uint64 past the signed range
                raise MoneyError(
                    f"money column {values.name!r} holds amounts outside the signed 64-bit range"
                ) from None
            converted.name = label
            return converted
        if not pd.api.types.is_object_dtype(dtype):
            raise TypeError(f"money must be integers in base units, not {dtype}")
        index = values.index  # rows keep their labels: a result must align with its source
        values = values.tolist()
    checked: list[int | None] = []
    for value in values:
        if value is None or value is pd.NA:
            checked.append(None)
            continue
        # A NumPy integer (a value taken from a frame or an array) is an exact integer.
        if not pd.api.types.is_integer(value):
            raise TypeError(f"money must be integers in base units, not {value!r}")
        checked.append(check_int64(int(value)))
    series: pd.Series = pa.array(checked, type=pa.int64()).to_pandas(types_mapper=pd.ArrowDtype)
    if index is not None:
        series.index = index
    series.name = label
    return series


def brl_text(values: pd.Series | Iterable[int | None]) -> pd.Series:
    """Base units as pt-BR text by the one rule, `pixops.money.format_brl_base`
    (``"R$ 1.234,56"``, ``"R$ 0,1305"``: no non-zero digit hidden); a missing value is
    empty text."""
    column = money_column(values)
    shown = ["" if value is None else format_brl_base(value) for value in _ints(column)]
    return pd.Series(shown, index=column.index, dtype=pd.ArrowDtype(pa.string()))


def reais_decimal(values: pd.Series | Iterable[int | None]) -> pd.Series:
    """Base units as exact ``Decimal`` reais (object Series); a missing value is None."""
    column = money_column(values)
    shown = [
        None if value is None else Decimal(value).scaleb(-_BASE_PLACES) for value in _ints(column)
    ]
    return pd.Series(shown, index=column.index, dtype=object)


def _ints(column: pd.Series) -> list[int | None]:
    """Python ints (None for missing) of a money column, without a float in between."""
    return [None if value is pd.NA else int(value) for value in column.tolist()]
