"""The sandbox: the embedded engine's public face for notebooks and acceptance tests.

    sb = Sandbox()                                   # in memory, manual clock, seed 0
    m = sb.create_merchant("Loja Exemplo", balance_centavos=1_000_000)
    k = sb.issue_api_key(m.id, permissions=["account:read"], ip_whitelist=["127.0.0.1"])
    httpx.Client(transport=sb.transport(), base_url="http://sandbox")

Everything here is an administrative or simulated-world action (what the portal, the
payers or the central bank would do); merchants act only through the HTTP API.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from pixops.engine import events as event_log
from pixops.engine import ledger, merchants
from pixops.engine.adapters import AsgiApp, AsyncEngineTransport, EngineTransport
from pixops.engine.clock import DEFAULT_START, ManualClock
from pixops.engine.config import EngineConfig
from pixops.engine.core import Engine
from pixops.engine.events import Event
from pixops.engine.fees import DEFAULT_FEES, FeeSchedule
from pixops.engine.merchants import AdminError, ApiKey, Merchant
from pixops.engine.permissions import PERMISSIONS
from pixops.engine.store import Store

__all__ = ["AdminError", "ApiKey", "Merchant", "Sandbox"]


class Sandbox:
    """An in-process PIX service with a manual clock and a simulated world."""

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        seed: int = 0,
        rate_limit_per_minute: int = 90_000,
        start: datetime | None = None,
        config: EngineConfig | None = None,
    ) -> None:
        base = config or EngineConfig()
        if rate_limit_per_minute != base.rate_limit_per_minute:
            base = EngineConfig(**{**base.__dict__, "rate_limit_per_minute": rate_limit_per_minute})
        self.engine = Engine(
            store=Store(path),
            clock=ManualClock(start or DEFAULT_START),
            config=base,
            seed=seed,
        )
        self._asgi = AsgiApp(self.engine)

    # -- administration (the merchant portal) ---------------------------------

    def create_merchant(
        self,
        name: str,
        *,
        balance_centavos: int = 0,
        document: str | None = None,
        fees: FeeSchedule = DEFAULT_FEES,
        dual_control: bool = False,
        qr_lifetime_seconds: int | None = None,
        ceiling_centavos: int | None = None,
    ) -> Merchant:
        with self.engine.store.transaction() as conn:
            return merchants.create_merchant(
                self.engine,
                conn,
                name,
                balance_centavos=balance_centavos,
                document=document,
                fees=fees,
                dual_control=dual_control,
                qr_lifetime_seconds=qr_lifetime_seconds,
                ceiling_base=None if ceiling_centavos is None else ceiling_centavos * 100,
                now=self.now(),
            )

    def issue_api_key(
        self,
        merchant_id: str,
        *,
        permissions: list[str] | tuple[str, ...] | None = None,
        ip_whitelist: list[str] | tuple[str, ...] = ("127.0.0.1",),
        hmac: bool = True,
        expires_at: datetime | None = None,
    ) -> ApiKey:
        """A new credential; every permission unless `permissions` says otherwise."""
        with self.engine.store.transaction() as conn:
            return merchants.issue_api_key(
                conn,
                merchant_id,
                permissions=sorted(PERMISSIONS) if permissions is None else permissions,
                ip_whitelist=ip_whitelist,
                hmac=hmac,
                expires_at=expires_at,
                now=self.now(),
            )

    def revoke_api_key(self, client_id: str) -> None:
        with self.engine.store.transaction() as conn:
            merchants.revoke_api_key(conn, client_id)

    def set_account_active(self, merchant_id: str, active: bool) -> None:
        with self.engine.store.transaction() as conn:
            merchants.set_account_active(conn, merchant_id, active)

    # -- ways in --------------------------------------------------------------

    def transport(self, client_ip: str = "127.0.0.1") -> EngineTransport:
        return EngineTransport(self.engine, client_ip)

    def async_transport(self, client_ip: str = "127.0.0.1") -> AsyncEngineTransport:
        return AsyncEngineTransport(self.engine, client_ip)

    @property
    def asgi_app(self) -> AsgiApp:
        return self._asgi

    # -- time -----------------------------------------------------------------

    def now(self) -> datetime:
        return self.engine.now()

    def advance(self, seconds: int = 0, *, minutes: int = 0, hours: int = 0, days: int = 0) -> int:
        """Move the clock forward, running every due timer in time order; returns how many."""
        for value in (seconds, minutes, hours, days):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError("advance() takes non-negative integers")
        return self.engine.advance(seconds + 60 * minutes + 3600 * hours + 86400 * days)

    # -- observation ----------------------------------------------------------

    def events(self, merchant_id: str) -> list[Event]:
        """Every event emitted for the merchant, oldest first."""
        with self.engine.store.lock:
            return event_log.list_events(self.engine.store.conn, merchant_id)

    def balance(self, merchant_id: str) -> ledger.Balance:
        with self.engine.store.lock:
            return ledger.balance(self.engine.store.conn, merchant_id)

    def audit(self, merchant_id: str) -> ledger.Audit:
        """Recompute the merchant's balance from the journal and holds."""
        with self.engine.store.lock:
            return ledger.audit(self.engine.store.conn, merchant_id)
