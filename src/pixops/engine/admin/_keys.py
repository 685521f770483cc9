"""What an administrator may see of the API keys: everything except the secret."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pixops.engine.clock import db_to_wire, from_db, to_db


@dataclass(frozen=True)
class KeyInfo:
    """One stored API key; its secret is never stored, so it is never shown."""

    client_id: str
    merchant_id: str
    merchant_name: str
    active: bool
    expires_at: datetime | None
    permissions: tuple[str, ...]
    ip_whitelist: tuple[str, ...]
    hmac: bool
    created_at: datetime

    def usable_at(self, now: datetime) -> bool:
        """Active and not expired at `now`, as the API's credential check judges it."""
        return self.active and (self.expires_at is None or to_db(self.expires_at) > to_db(now))

    def resource(self) -> dict[str, Any]:
        """The wire shape shown by the test helpers."""
        return {
            "client_id": self.client_id,
            "merchant_id": self.merchant_id,
            "merchant_name": self.merchant_name,
            "active": self.active,
            "expires_at": db_to_wire(None if self.expires_at is None else to_db(self.expires_at)),
            "permissions": list(self.permissions),
            "ip_whitelist": list(self.ip_whitelist),
            "hmac": self.hmac,
            "created_at": db_to_wire(to_db(self.created_at)),
        }


def list_keys(conn: sqlite3.Connection, merchant_id: str | None = None) -> list[KeyInfo]:
    """Every key (or one merchant's), oldest first."""
    if merchant_id is not None and not isinstance(merchant_id, str):
        raise TypeError("merchant_id must be a string or None")
    sql = (
        "SELECT k.client_id, k.merchant_id, m.name, k.active, k.expires_at, k.permissions,"
        " k.ip_whitelist, k.hmac_enabled, k.created_at FROM api_keys AS k"
        " JOIN merchants AS m ON m.id = k.merchant_id"
    )
    parameters: tuple[str, ...] = ()
    if merchant_id is not None:
        sql += " WHERE k.merchant_id = ?"
        parameters = (merchant_id,)
    rows = conn.execute(sql + " ORDER BY k.created_at, k.client_id", parameters).fetchall()
    return [
        KeyInfo(
            client_id=row[0],
            merchant_id=row[1],
            merchant_name=row[2],
            active=bool(row[3]),
            expires_at=None if row[4] is None else from_db(row[4]),
            permissions=tuple(json.loads(row[5])),
            ip_whitelist=tuple(json.loads(row[6])),
            hmac=bool(row[7]),
            created_at=from_db(row[8]),
        )
        for row in rows
    ]
