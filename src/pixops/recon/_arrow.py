"""A caller's pandas frame (ledger, webhooks, balance snapshots) as an Arrow table, or an
error in words: Arrow refuses a repeated column name and a column of mixed Python types
with its own exceptions, raised from deep inside ``pa.Table.from_pandas``."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa

__all__ = ["frame_table"]


def frame_table(frame: pd.DataFrame, what: str, error: type[ValueError] = ValueError) -> pa.Table:
    """``frame`` as Arrow (its index left out); ``error`` names what Arrow cannot take."""
    names = [str(name) for name in frame.columns]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise error(
            f"{what} frame has columns named more than once: {repeated}; keep one of"
            " each (frame.loc[:, ~frame.columns.duplicated()]) or rename them"
        )
    try:
        return pa.Table.from_pandas(frame, preserve_index=False)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as failure:
        said = "; ".join(str(part) for part in failure.args)
        raise error(
            f"{what} frame: {said} (give each column one type of value,"
            " e.g. text with .astype(str) or integers)"
        ) from None
