"""Balance snapshots: the treasury's CSV and the `balances` argument of `reconcile`.

A snapshot is an instant (``as_of``, time-zone aware) and the balance then
(``balance_base``, an integer of base units); consecutive snapshots are rolled forward.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, cast

import pandas as pd
import pyarrow as pa

from pixops.money import MoneyError, check_int64
from pixops.recon._arrow import frame_table
from pixops.recon._encoding import csv_encoding, csv_separator, not_text_message

__all__ = ["BALANCES_SCHEMA", "balances_table", "read_balances"]

BALANCES_SCHEMA: Final = pa.schema(
    [
        pa.field("as_of", pa.timestamp("us", tz="UTC"), nullable=False),
        pa.field("balance_base", pa.int64(), nullable=False),
    ]
)


def read_balances(path: str | Path) -> list[tuple[datetime, int]]:
    """Balance snapshots from a CSV of ``as_of`` (ISO 8601 with a zone) and ``balance_base``
    (an integer of base units), oldest first; anything else is a ValueError naming the line.

    Its fields are separated by commas, semicolons (a pt-BR Excel's) or tabs, as a
    ledger's are. The balance is ASCII digits with an optional ``-`` (as in the ledger):
    ``int()`` alone would also take ``5_000`` or Arabic-Indic digits. Two snapshots at one
    instant are refused rather than one of them silently chosen. The text is UTF-8 or
    Windows-1252 (see `pixops.recon._encoding`); a file in neither raises from its decode
    error, which callers may look for.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(
            "path must be the snapshots CSV's path (str or pathlib.Path),"
            f" not {type(path).__name__}"
        )
    file = Path(path)
    if file.is_dir():
        raise ValueError(f"{file} is a folder, not a balance snapshots CSV file")
    if not file.is_file():
        raise ValueError(f"there is no balance snapshots file at {file}")
    snapshots: dict[datetime, int] = {}
    try:
        encoding = csv_encoding(file)
    except UnicodeDecodeError as error:
        raise ValueError(not_text_message(file, error)) from error
    try:
        with file.open(encoding=encoding, newline="") as handle:
            separator = csv_separator(handle.readline())
            handle.seek(0)
            reader = csv.DictReader(handle, delimiter=separator)
            names = list(reader.fieldnames or ())
            if not {"as_of", "balance_base"} <= set(names):
                raise ValueError(f"{file}: needs the columns as_of and balance_base")
            repeated = [name for name in ("as_of", "balance_base") if names.count(name) > 1]
            if repeated:
                raise ValueError(
                    f"{file}: the header names {repeated} more than once; which one is meant?"
                )
            for number, row in enumerate(reader, start=2):
                moment, amount = _balance_row(f"{file}, line {number}", row)
                if moment in snapshots:
                    raise ValueError(
                        f"{file}, line {number}: a second snapshot at {moment.isoformat()}"
                    )
                snapshots[moment] = amount
    except csv.Error as error:
        raise ValueError(f"{file}: {error}") from None
    return sorted(snapshots.items())


def _balance_row(where: str, row: dict[str, Any]) -> tuple[datetime, int]:
    try:
        moment = datetime.fromisoformat(row["as_of"].strip().replace("Z", "+00:00"))
    except (ValueError, AttributeError):
        raise ValueError(f"{where}: as_of is not an ISO 8601 instant") from None
    if moment.tzinfo is None:
        raise ValueError(f"{where}: as_of needs a time zone")
    text = row["balance_base"].strip() if isinstance(row["balance_base"], str) else ""
    digits = text.removeprefix("-")
    if not (digits.isascii() and digits.isdigit()):
        raise ValueError(
            f"{where}: balance_base must be a whole number of base units, without separators"
            f" (R$ 1,00 is 10000, so R$ 1.234,56 is 12345600), not {text[:40]!r}"
        )
    try:
        return moment.astimezone(UTC), check_int64(int(digits) * (-1 if text[0] == "-" else 1))
    except MoneyError as error:
        raise ValueError(f"{where}: balance_base: {error}") from None


def balances_table(
    balances: str | Path | pd.DataFrame | pa.Table | Sequence[tuple[datetime, int]] | None,
) -> pa.Table:
    """Balance snapshots (``as_of``, ``balance_base``) as `BALANCES_SCHEMA`, validated;
    a path is a snapshots CSV, read with `read_balances` (like a ledger's path)."""
    if balances is None:
        return BALANCES_SCHEMA.empty_table()
    if isinstance(balances, (str, Path)):
        return balances_table(read_balances(balances))
    if isinstance(balances, pd.DataFrame):
        balances = frame_table(balances, "balances")
    if isinstance(balances, pa.Table):
        missing = {"as_of", "balance_base"} - set(balances.column_names)
        if missing:
            raise ValueError(f"balances lack columns {sorted(missing)}")
        pairs = list(
            zip(
                balances.column("as_of").to_pylist(),
                balances.column("balance_base").to_pylist(),
                strict=True,
            )
        )
        if not pa.types.is_integer(balances.column("balance_base").type):
            raise TypeError("balance_base must be integers in base units")
    elif isinstance(balances, Sequence) and not isinstance(balances, (str, bytes)):
        pairs = list(cast("Sequence[Any]", balances))  # a path was read above
    else:
        raise TypeError(
            "balances must be a CSV path, a DataFrame, a pyarrow.Table or (as_of, base) pairs"
        )
    as_of: list[datetime] = []
    amounts: list[int] = []
    for number, pair in enumerate(pairs, start=1):
        moment, amount = _snapshot(pair, number)
        as_of.append(moment)
        amounts.append(amount)
    if len(set(as_of)) != len(as_of):
        raise ValueError("two balance snapshots at the same instant")
    return pa.Table.from_arrays(
        [pa.array(as_of, type=pa.timestamp("us", tz="UTC")), pa.array(amounts, type=pa.int64())],
        schema=BALANCES_SCHEMA,
    )


def _snapshot(pair: Any, number: int) -> tuple[datetime, int]:
    if not isinstance(pair, tuple) or len(pair) != 2:
        raise TypeError(f"balance snapshot {number} must be (as_of, balance_base)")
    moment, amount = pair
    if isinstance(moment, pd.Timestamp):
        moment = moment.to_pydatetime()
    if not isinstance(moment, datetime) or moment.tzinfo is None:
        raise ValueError(f"balance snapshot {number}: as_of must be a time-zone-aware datetime")
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise TypeError(f"balance snapshot {number}: balance_base must be an int, not {amount!r}")
    return moment.astimezone(UTC), check_int64(amount)
