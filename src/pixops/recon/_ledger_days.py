"""A ledger's day column: dates, timestamps, or text in one of the forms a back office
writes (ISO, or pt-BR day first), detected or given, and never rolled over."""

from __future__ import annotations

from datetime import tzinfo
from typing import Final

import pyarrow as pa
import pyarrow.compute as pc

from pixops.recon._ledger_source import column_of
from pixops.recon._mapping import DATE_FORMATS, LedgerError

__all__ = ["day_column"]


#: The forms a ledger day is detected in: ISO, and the pt-BR form Excel in Brazil
#: writes beside its ``;`` separator (day first, like the Excel-friendly export).
_DETECTED_DAYS: Final = ("yyyy-mm-dd", "dd/mm/yyyy")


def day_column(
    table: pa.Table, name: str, zone: tzinfo, given: str | None
) -> tuple[pa.Array, str | None]:
    """The column as days, with the form its text was read in (None: not text)."""
    column = column_of(table, name, pa.date32()).combine_chunks()
    if pa.types.is_date32(column.type):
        return column, None
    if pa.types.is_date64(column.type):
        return column.cast(pa.date32()), None
    if pa.types.is_timestamp(column.type):
        if column.type.tz is None:
            # A naive midnight is a day (``pd.to_datetime`` of "2026-01-15"); a naive time
            # of day would need a zone to say which day it is.
            midnight = pc.equal(column, pc.floor_temporal(column, unit="day"))
            if pc.all(midnight).as_py() is False:
                raise LedgerError(
                    f"column {name!r} holds times of day without a time zone: give days"
                    " (`.dt.date`) or time-zone-aware timestamps (`.dt.tz_localize`)"
                )
            return column.cast(pa.date32()), None
        values = [None if v is None else v.astimezone(zone).date() for v in column.to_pylist()]
        return pa.array(values, type=pa.date32()), None
    if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
        column = pc.utf8_trim_whitespace(column)
        for shown in (given,) if given is not None else _DETECTED_DAYS:
            form = DATE_FORMATS[shown]
            try:
                days = pc.strptime(column, format=form, unit="s").cast(pa.date32())
            except pa.ArrowInvalid:
                if given is not None:
                    bad = _first_not_a_day(column, form)
                    raise LedgerError(
                        f"column {name!r}: {bad!r} is not a day written {shown.upper()}"
                    ) from None
                continue
            # strptime rolls an impossible day over (2026-02-30 reads as 2026-03-02): only
            # a day that writes back as the cell's own text is that day.
            changed = pc.invert(pc.equal(pc.strftime(days, format=form), column))
            if pc.any(changed).as_py():
                first = pc.filter(column, changed)[0].as_py()
                raise LedgerError(
                    f"column {name!r}: {first!r} is not a day written {shown.upper()}"
                )
            return days, shown
        raise LedgerError(
            f"column {name!r} must hold days as YYYY-MM-DD or DD/MM/YYYY, all in one form;"
            f" for another form give --date-format ({', '.join(DATE_FORMATS)})"
        )
    raise LedgerError(f"column {name!r} must hold dates, not {column.type}")


def _first_not_a_day(column: pa.Array, form: str) -> str:
    """The first cell that is not a day in ``form`` (cells are few to look at: it stops)."""
    from datetime import datetime

    for cell in column.to_pylist():
        if cell is None:
            continue
        try:
            datetime.strptime(cell, form)
        except ValueError:
            return str(cell)
    return ""
