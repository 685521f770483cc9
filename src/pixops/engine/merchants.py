"""Merchants, their accounts and their API keys: the service's administration side."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from pixops.engine import credentials, ipallow, ledger, rowcache
from pixops.engine.clock import to_db
from pixops.engine.errors import AdminError as AdminError
from pixops.engine.fees import DEFAULT_FEES, FeeSchedule
from pixops.engine.permissions import PERMISSIONS
from pixops.engine.rows import MerchantRow
from pixops.ids import new_prefixed_id
from pixops.money import centavos_to_base, check_int64

if TYPE_CHECKING:
    from pixops.engine.core import Engine


@dataclass(frozen=True)
class Merchant:
    id: str
    name: str
    document: str | None
    active: bool


@dataclass(frozen=True)
class ApiKey:
    """An issued credential. `client_secret` exists only in this object, never in storage."""

    client_id: str
    client_secret: str
    merchant_id: str
    permissions: tuple[str, ...]
    ip_whitelist: tuple[str, ...]
    hmac: bool
    expires_at: datetime | None

    def __repr__(self) -> str:
        return (
            f"ApiKey(client_id={self.client_id!r}, client_secret='sk_…',"
            f" merchant_id={self.merchant_id!r})"
        )


def create_merchant(
    engine: Engine,
    conn: sqlite3.Connection,
    name: str,
    *,
    balance_centavos: int = 0,
    document: str | None = None,
    fees: FeeSchedule = DEFAULT_FEES,
    dual_control: bool = False,
    qr_lifetime_seconds: int | None = None,
    ceiling_base: int | None = None,
    now: datetime,
) -> Merchant:
    if not isinstance(name, str) or not name.strip():
        raise AdminError("merchant name must be a non-empty string")
    if not isinstance(balance_centavos, int) or isinstance(balance_centavos, bool):
        raise AdminError("balance_centavos must be an integer")
    if balance_centavos < 0:
        raise AdminError("balance_centavos cannot be negative")
    check_int64(centavos_to_base(balance_centavos))
    lifetime = (
        engine.config.qr_lifetime_seconds if qr_lifetime_seconds is None else qr_lifetime_seconds
    )
    if lifetime < 1:
        raise AdminError("qr_lifetime_seconds must be at least 1")
    merchant_id = new_prefixed_id("mer_", engine.rng)
    conn.execute(
        "INSERT INTO merchants (id, name, document, active, created_at, qr_lifetime_seconds,"
        " dual_control, fees, ceiling_base, dict_lookups_per_minute)"
        " VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, ?)",
        (
            merchant_id,
            name.strip(),
            document,
            to_db(now),
            lifetime,
            int(dual_control),
            fees.to_json(),
            engine.config.ceiling_base if ceiling_base is None else ceiling_base,
            engine.config.dict_lookups_per_minute,
        ),
    )
    ledger.open_account(conn, merchant_id)
    if balance_centavos:
        ledger.post(
            conn,
            merchant_id,
            centavos_to_base(balance_centavos),
            "opening_balance",
            now,
            memo="opening balance",
        )
    return Merchant(merchant_id, name.strip(), document, True)


def require_merchant(conn: sqlite3.Connection, merchant_id: str) -> MerchantRow:
    """The merchant's row (AdminError when there is none)."""
    merchant = rowcache.merchant_row(conn, merchant_id)
    if merchant is None:
        raise AdminError(f"no merchant {merchant_id!r}")
    return merchant


def issue_api_key(
    conn: sqlite3.Connection,
    merchant_id: str,
    *,
    permissions: list[str] | tuple[str, ...],
    ip_whitelist: list[str] | tuple[str, ...],
    hmac: bool,
    expires_at: datetime | None,
    now: datetime,
) -> ApiKey:
    require_merchant(conn, merchant_id)
    if isinstance(permissions, str) or isinstance(ip_whitelist, str):
        raise AdminError("permissions and ip_whitelist are lists of strings")
    unknown = sorted(set(permissions) - PERMISSIONS)
    if unknown:
        raise AdminError(f"unknown permissions {unknown}; known: {sorted(PERMISSIONS)}")
    problems = [p for p in (ipallow.entry_problem(entry) for entry in ip_whitelist) if p]
    if problems:
        raise AdminError(f"ip_whitelist entries never match: {'; '.join(problems)}")
    if expires_at is not None and expires_at.tzinfo is None:
        raise AdminError("expires_at must be timezone-aware")
    client_id = credentials.new_client_id()
    secret = credentials.new_client_secret()
    conn.execute(
        "INSERT INTO api_keys (client_id, merchant_id, secret_sha256, active, expires_at,"
        " permissions, ip_whitelist, hmac_enabled, created_at) VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?)",
        (
            client_id,
            merchant_id,
            credentials.hash_secret(secret),
            None if expires_at is None else to_db(expires_at),
            json.dumps(sorted(set(permissions))),
            json.dumps(list(ip_whitelist)),
            int(hmac),
            to_db(now),
        ),
    )
    return ApiKey(
        client_id=client_id,
        client_secret=secret,
        merchant_id=merchant_id,
        permissions=tuple(sorted(set(permissions))),
        ip_whitelist=tuple(ip_whitelist),
        hmac=hmac,
        expires_at=expires_at,
    )


def revoke_api_key(conn: sqlite3.Connection, client_id: str) -> None:
    if (
        conn.execute("UPDATE api_keys SET active = 0 WHERE client_id = ?", (client_id,)).rowcount
        != 1
    ):
        raise AdminError(f"no API key {client_id!r}")


def set_account_active(conn: sqlite3.Connection, merchant_id: str, active: bool) -> None:
    require_merchant(conn, merchant_id)
    conn.execute("UPDATE merchants SET active = ? WHERE id = ?", (int(active), merchant_id))
