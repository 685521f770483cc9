"""The statement's status mapping: display status and filter status of a row.

The statement's internal status codes: 1 a completed movement, 2 one in flight. Each
displays one way and is filtered another (spec, States and transitions): code 2
(stage below 3) displays `pending` and is filtered as `processing`; code 1 (settled)
displays `completed` and is filtered as `settled`; any other terminal status
(`rejected`, `failed`) displays and filters as itself.
"""

from __future__ import annotations

from typing import Final

from pixops.engine.rows import TransactionRow

_DISPLAY_BY_CODE: Final = {1: "completed", 2: "pending"}
_FILTER_BY_CODE: Final = {1: "settled", 2: "processing"}


def statement_status(row: TransactionRow) -> tuple[str, str]:
    """(display status, filter status) of a row."""
    if int(row.stage) < 3:
        code = 2
    elif row.status == "settled":
        code = 1
    else:
        return str(row.status), str(row.status)
    return _DISPLAY_BY_CODE[code], _FILTER_BY_CODE[code]
