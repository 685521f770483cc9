"""API key and merchant rows remembered per connection, forgotten on any change to them.

Every request reads its API key's row (with its merchant's active flag), and most read
the merchant's row: the same few rows, thousands of times a second, changing almost
never. A connection keeps them while it can prove nothing changed: no write of its own
to `api_keys` or `merchants` since (temporary triggers count them,
`Connection.credential_changes`, rolled back or not) and the same `PRAGMA data_version`
as the snapshot the request reads (`Connection.read_version`, which the engine sets
around each request; another connection's commit moves it). Only rows read while the
open transaction has written nothing are kept, so a kept row was committed. Where the
version is not known (a database file outside a request), rows are read every time.

What a row decides (a key expired, a secret that matches) is still decided per request.
"""

from __future__ import annotations

import sqlite3
from typing import Final

from pixops.engine.rows import MerchantRow
from pixops.engine.store import Connection

#: Rows kept per kind and connection; past it, no more are kept until the next change.
LIMIT: Final = 4_096

KEY_QUERY: Final = (
    "SELECT k.merchant_id, k.secret_sha256, k.active, k.expires_at, k.permissions,"
    " k.ip_whitelist, k.hmac_enabled, m.active AS account_active FROM api_keys AS k"
    " LEFT JOIN merchants AS m ON m.id = k.merchant_id WHERE k.client_id = ?"
)


class _Rows:
    __slots__ = ("changes", "keys", "merchants", "version")

    def __init__(self) -> None:
        self.changes = -1
        self.version: int | None = None
        self.keys: dict[str, sqlite3.Row] = {}
        self.merchants: dict[str, MerchantRow] = {}


def key_row(conn: sqlite3.Connection, client_id: str) -> sqlite3.Row | None:
    """The API key's row with its merchant's active flag (`KEY_QUERY`); None if unknown."""
    rows = _rows(conn)
    if rows is not None:
        found = rows.keys.get(client_id)
        if found is not None:
            return found
    row: sqlite3.Row | None = conn.execute(KEY_QUERY, (client_id,)).fetchone()
    if row is not None and rows is not None and _keepable(conn) and len(rows.keys) < LIMIT:
        rows.keys[client_id] = row
    return row


def merchant_row(conn: sqlite3.Connection, merchant_id: str) -> MerchantRow | None:
    """The merchant's row; None if there is none."""
    rows = _rows(conn)
    if rows is not None:
        found = rows.merchants.get(merchant_id)
        if found is not None:
            return found
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM merchants WHERE id = ?", (merchant_id,)
    ).fetchone()
    if row is None:
        return None
    merchant = MerchantRow.from_db(row)
    if rows is not None and _keepable(conn) and len(rows.merchants) < LIMIT:
        rows.merchants[merchant_id] = merchant
    return merchant


def _rows(conn: sqlite3.Connection) -> _Rows | None:
    """The connection's kept rows, emptied if anything may have changed; None when it
    cannot know (not the engine's connection, or a file read outside a request)."""
    if not isinstance(conn, Connection) or not hasattr(conn, "credential_changes"):
        return None
    version = conn.read_version
    if version is None and not conn.private:
        return None
    rows = conn.row_cache
    if not isinstance(rows, _Rows):
        rows = conn.row_cache = _Rows()
    changes = conn.credential_changes.count
    if rows.changes != changes or rows.version != version:
        rows.keys.clear()
        rows.merchants.clear()
        rows.changes = changes
        rows.version = version
    return rows


def _keepable(conn: sqlite3.Connection) -> bool:
    """Whether what was just read is committed: the open transaction changed nothing."""
    assert isinstance(conn, Connection)
    return not conn.in_transaction or conn.total_changes == conn.changes_at_begin
