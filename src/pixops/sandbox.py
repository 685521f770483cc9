"""The sandbox: the embedded engine's public face for notebooks and acceptance tests.

    import httpx
    from pixops.sandbox import Sandbox
    sb = Sandbox()                                   # in memory, manual clock, seed 0
    m = sb.create_merchant("Loja Exemplo", balance_centavos=1_000_000)
    k = sb.issue_api_key(m.id, permissions=["account:read"], ip_whitelist=["127.0.0.1"])
    client = sb.client(k)                            # the typed pixops.Client, in process
    client.balance().available_balance.format()      # 'R$ 10.000,00'
    raw = httpx.Client(transport=sb.transport(), base_url="http://sandbox/api/external")
    raw.get("/balance", headers={"Authorization": f"ApiKey {k.client_id}:{k.client_secret}"})
    sb.receive_pix(m.id, amount_centavos=5_000)      # a payer sends R$ 50,00
    sb.advance(60)                                   # timers due in the next minute run

Everything here is an administrative or simulated-world action (what the portal, the
payers or the central bank would do); merchants act only through the HTTP API.
"""

from __future__ import annotations

import dataclasses
import math
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pixops.engine import events as event_log
from pixops.engine import ledger, merchants, scheduler
from pixops.engine import med as med_flow
from pixops.engine import notifications as webhook_flow
from pixops.engine.adapters import AsgiApp, AsyncEngineTransport, EngineTransport
from pixops.engine.clock import DEFAULT_START, ManualClock
from pixops.engine.config import EngineConfig
from pixops.engine.core import Engine
from pixops.engine.errors import AdminError, MedError, SimulationError
from pixops.engine.events import Event
from pixops.engine.fees import DEFAULT_FEES, FeeSchedule
from pixops.engine.med import MedCase
from pixops.engine.merchants import ApiKey, Merchant
from pixops.engine.notifications import Receiver, WebhookDelivery
from pixops.engine.permissions import PERMISSIONS
from pixops.engine.pix import charges as charge_flow
from pixops.engine.pix import inbound
from pixops.engine.pix import payouts as payout_flow
from pixops.engine.store import Store
from pixops.engine.world import directory
from pixops.simulation import SimulationSummary, simulate

if TYPE_CHECKING:
    from pixops.client import AsyncClient, Client

__all__ = [
    "AdminError",
    "ApiKey",
    "MedCase",
    "MedError",
    "Merchant",
    "Sandbox",
    "SimulationError",
    "WebhookDelivery",
]


class Sandbox:
    """An in-process PIX service with a manual clock and a simulated world."""

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        seed: int = 0,
        rate_limit_per_minute: int | None = None,
        start: datetime | None = None,
        config: EngineConfig | None = None,
    ) -> None:
        base = config or EngineConfig()
        # The keyword, when given, wins over `config`; left out, `config` (or 90,000) holds.
        if rate_limit_per_minute is not None:
            base = dataclasses.replace(base, rate_limit_per_minute=rate_limit_per_minute)
        self.engine = Engine(
            store=Store(path),
            clock=ManualClock(start or DEFAULT_START),
            config=base,
            seed=seed,
        )
        self._asgi = AsgiApp(self.engine)

    @classmethod
    def over(cls, engine: Engine) -> Sandbox:
        """The sandbox's actions on an engine built elsewhere (server mode, any clock);
        `advance()` then works only if that engine runs on a manual clock."""
        if not isinstance(engine, Engine):
            raise TypeError(f"Sandbox.over() takes an Engine, not {type(engine).__name__}")
        sandbox = cls.__new__(cls)
        sandbox.engine = engine
        sandbox._asgi = AsgiApp(engine)
        return sandbox

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
        """Open a merchant account (the portal's sign-up), funded with `balance_centavos`.

        `fees` defaults to 0.99 % on cash-in and R$ 0,50 per cash-out; `dual_control`
        makes every cash-out wait for `approve_payout`; `qr_lifetime_seconds` (default
        1 h) and `ceiling_centavos` (default R$ 100.000,00 per transaction) are the
        account's QR lifetime and per-transaction limit. AdminError on bad arguments.
        """
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
        """A new credential; every permission unless `permissions` says otherwise.

        The secret is returned only here (only its hash is stored). Whitelist entries
        are single IPv4 or IPv6 addresses or canonical IPv4 CIDR networks; an entry that
        could never match (spaces, leading zeros, host bits set) is an AdminError.
        `hmac=False` issues a key without an HMAC secret (its POSTs get 403).
        """
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
        """Deactivate a key: its next request gets 401 `API key is inactive`."""
        with self.engine.store.transaction() as conn:
            merchants.revoke_api_key(conn, client_id)

    def set_account_active(self, merchant_id: str, active: bool) -> None:
        """Block or unblock an account: while inactive every request gets 403 `Account is
        not active` and credits to it fail (AC06)."""
        with self.engine.store.transaction() as conn:
            merchants.set_account_active(conn, merchant_id, active)

    # -- ways in --------------------------------------------------------------

    def transport(self, client_ip: str = "127.0.0.1") -> EngineTransport:
        """An httpx transport into this sandbox, no socket: requests arrive from `client_ip`
        (what the IP whitelist sees). Use as `httpx.Client(transport=sb.transport(), ...)`."""
        return EngineTransport(self.engine, client_ip)

    def async_transport(self, client_ip: str = "127.0.0.1") -> AsyncEngineTransport:
        """The same as `transport`, for `httpx.AsyncClient`."""
        return AsyncEngineTransport(self.engine, client_ip)

    @property
    def asgi_app(self) -> AsgiApp:
        """The sandbox as an ASGI application, to serve it over real HTTP (uvicorn)."""
        return self._asgi

    def client(self, api_key: ApiKey, *, client_ip: str = "127.0.0.1", **options: Any) -> Client:
        """A `pixops.Client` for this key on the in-process transport. Waits (retries,
        `wait_until_final`) advance the virtual clock instead of sleeping."""
        from pixops.client import Client

        return Client(
            **self._client_arguments(api_key), transport=self.transport(client_ip), **options
        )

    def async_client(
        self, api_key: ApiKey, *, client_ip: str = "127.0.0.1", **options: Any
    ) -> AsyncClient:
        """A `pixops.AsyncClient` for this key on the in-process async transport."""
        from pixops.client import AsyncClient

        transport = self.async_transport(client_ip)
        return AsyncClient(**self._client_arguments(api_key), transport=transport, **options)

    def _client_arguments(self, api_key: ApiKey) -> dict[str, Any]:
        """What either client needs on the sandbox: the key, and waits on the virtual clock."""
        if not isinstance(api_key, ApiKey):
            kind = type(api_key).__name__
            raise TypeError(f"client() takes the ApiKey that issue_api_key() returned, not {kind}")
        return {
            "base_url": "http://sandbox",
            "client_id": api_key.client_id,
            "client_secret": api_key.client_secret,
            "sleep": self._virtual_sleep,
            "advance_clock": self._virtual_sleep,
        }

    def _virtual_sleep(self, seconds: float) -> None:
        """A client's wait on the sandbox: the virtual clock moves, no real time passes."""
        self.advance(math.ceil(seconds))

    # -- time -----------------------------------------------------------------

    def now(self) -> datetime:
        """The sandbox's clock (UTC, aware); it moves only with `advance`."""
        return self.engine.now()

    def advance(self, seconds: int = 0, *, minutes: int = 0, hours: int = 0, days: int = 0) -> int:
        """Move the clock forward, running every due timer in time order; returns how many."""
        for value in (seconds, minutes, hours, days):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError("advance() takes non-negative integers")
        return self.engine.advance(seconds + 60 * minutes + 3600 * hours + 86400 * days)

    # -- the world: payers and counterparties ---------------------------------

    def pay_charge(
        self,
        qr_transaction_id: str,
        *,
        payer_name: str | None = None,
        payer_document: str | None = None,
        payer_ispb: str | None = None,
        link_after_seconds: int | None = None,
    ) -> str:
        """A payer pays a pending QR; returns the credit's transaction_id (``PIXIN…``).

        Unset payer fields come from the charge's expected payer, else from a random
        simulated payer. The credit is linked (stored, posted, `pix.charge.paid`) at
        once or after `link_after_seconds` (default `config.charge_link_delay_seconds`).
        An expired, cancelled or paid QR raises SimulationError. If the account refuses
        the credit (inactive: AC06, over its limit: AM02) the returned id is a failed
        inbound transaction and the QR stays pending.
        """
        with self.engine.store.transaction() as conn:
            return charge_flow.pay_charge(
                self.engine,
                conn,
                qr_transaction_id,
                payer_name=payer_name,
                payer_document=payer_document,
                payer_ispb=payer_ispb,
                link_after_seconds=link_after_seconds,
            )

    def cancel_charge(self, qr_transaction_id: str) -> None:
        """Cancel a pending QR (the merchant portal or an administrator)."""
        with self.engine.store.transaction() as conn:
            charge_flow.cancel_charge(self.engine, conn, qr_transaction_id)

    def receive_pix(
        self,
        merchant_id: str,
        *,
        amount_centavos: int,
        payer_name: str | None = None,
        payer_document: str | None = None,
        payer_ispb: str | None = None,
        description: str | None = None,
        recipient_key: str | None = None,
        fail_reason: str | None = None,
    ) -> str:
        """A PIX sent to one of the merchant's keys (no charge); returns its transaction_id.

        With `fail_reason` (a central-bank code such as AM02, AC06, AC03, DUPL), or
        when the account is inactive (AC06) or the amount is over its per-transaction
        limit (AM02), the credit is stored as failed and no money moves.
        """
        with self.engine.store.transaction() as conn:
            return inbound.receive_pix(
                self.engine,
                conn,
                merchant_id,
                amount_centavos=amount_centavos,
                payer_name=payer_name,
                payer_document=payer_document,
                payer_ispb=payer_ispb,
                description=description,
                recipient_key=recipient_key,
                fail_reason=fail_reason,
            )

    def receive_return(
        self,
        original_transaction_id: str,
        *,
        amount_centavos: int | None = None,
        reason_code: str = "MD06",
    ) -> str:
        """The recipient of a settled cash-out returns (part of) it; returns ``PIXIN<D-id>``.

        Omitting the amount returns what is left; returns never exceed the cash-out's
        amount in total (SimulationError).
        """
        with self.engine.store.transaction() as conn:
            return inbound.receive_return(
                self.engine,
                conn,
                original_transaction_id,
                amount_centavos=amount_centavos,
                reason_code=reason_code,
            )

    # -- webhooks -------------------------------------------------------------

    def add_webhook_receiver(self, receiver: Receiver, *, name: str | None = None) -> str:
        """Register a callable `(headers, body) -> status code` as a webhook endpoint.

        Returns its URL, ``inproc://<name>``, which `POST /webhooks` of this sandbox
        accepts; deliveries to it call `receiver` directly, with no socket, when timers
        run (`advance()`). Real http(s) URLs are delivered over the network as usual.
        """
        return webhook_flow.add_receiver(self.engine, receiver, name)

    def webhook_deliveries(self, merchant_id: str) -> list[WebhookDelivery]:
        """Every delivery to the merchant's subscriptions with its attempts, oldest first."""
        with self.engine.store.lock:
            return webhook_flow.list_deliveries(self.engine.store.conn, merchant_id)

    # -- MED (the central bank) -----------------------------------------------

    def open_med_case(
        self,
        transaction_id: str,
        *,
        reason: str = "FRAUD",
        details: str | None = None,
        amount_centavos: int | None = None,
    ) -> MedCase:
        """The central bank notifies an infraction on a settled received PIX.

        Emits `pix.refund.requested` and blocks the disputed amount (default: what is
        still refundable), capped by the available balance. Reasons: FRAUD,
        OPERATIONAL_FLAW, REFUND_REQUEST. MedError when the transaction cannot be disputed.
        """
        with self.engine.store.transaction() as conn:
            return med_flow.open_case(
                self.engine,
                conn,
                transaction_id,
                reason=reason,
                details=details,
                amount_centavos=amount_centavos,
                now=self.now(),
            )

    def resolve_med_case(
        self, case_id: str, result: str = "AGREED", details: str | None = None
    ) -> MedCase:
        """The central bank's analysis closes the case and releases the block.

        AGREED also refunds the payer automatically (a ``med_refund``, completed by
        timers like any refund); DISAGREED refunds nothing.
        """
        with self.engine.store.transaction() as conn:
            return med_flow.resolve_case(
                self.engine, conn, case_id, result=result, details=details, now=self.now()
            )

    def cancel_med_case(self, case_id: str) -> MedCase:
        """The notifier withdraws the notice: CANCELLED, block released, nothing refunded."""
        with self.engine.store.transaction() as conn:
            return med_flow.cancel_case(conn, case_id, now=self.now())

    def med_case(self, case_id: str) -> MedCase:
        """A MED case as it is now (MedError when there is none)."""
        with self.engine.store.lock:
            return med_flow.require_case(self.engine.store.conn, case_id)

    # -- the key directory (DICT) and the portal's dual control ---------------

    def register_pix_key(
        self,
        key: str,
        *,
        owner_name: str,
        owner_document: str | None = None,
        ispb: str | None = None,
        key_type: str | None = None,
        behavior: str = "settle",
        merchant_id: str | None = None,
    ) -> directory.Entry:
        """Add a key to the simulated DICT; returns the entry with the canonical key.

        Without `merchant_id` it is a recipient's key at `ispb` (a real Pix participant,
        default "60701190"); with it, one of the merchant's own keys at this institution
        (listed by `GET /pix/keys`). `key_type` is detected when omitted (an 11-digit
        key needs it). `behavior` forces what happens to payments to the key, as the
        documented test keys do (docs/sandbox-test-keys.md): "settle", "settle_instant",
        "reject:<CODE>", "orphan", "queue_client:<n>", "queue_bucket:<n>",
        "queue_forever", "not_found", "blocked", "lookup_failed", "rate_limited",
        "bucket_exhausted", "provider_rejected", "provider_schema_error",
        "provider_unknown_error".
        """
        service_ispb = self.engine.config.service_ispb
        if ispb is None:
            ispb = "60701190" if merchant_id is None else service_ispb
        with self.engine.store.transaction() as conn:
            return directory.register_key(
                conn,
                key,
                key_type,
                owner_name,
                owner_document,
                ispb,
                behavior,
                merchant_id,
                now=self.now(),
                service_ispb=service_ispb,
            )

    def approve_payout(self, transaction_id: str) -> str:
        """Dual control: approve a cash-out pending approval; returns its new status.

        The payout is then dispatched like a fresh one (DICT lookup, queue, central
        bank); a directory refusal at that point fails it with pix.payout.failed.
        """
        with self.engine.store.transaction() as conn:
            row = payout_flow.approve_payout(self.engine, conn, transaction_id, self.now())
            return row.status

    def deny_payout(self, transaction_id: str) -> str:
        """Dual control: deny a cash-out pending approval (failed, approval_denied)."""
        with self.engine.store.transaction() as conn:
            row = payout_flow.deny_payout(self.engine, conn, transaction_id, self.now())
            return row.status

    # -- observation ----------------------------------------------------------

    def merchant(self, merchant_id: str) -> Merchant:
        """The merchant with this id (AdminError when there is none)."""
        with self.engine.store.lock:
            row = merchants.require_merchant(self.engine.store.conn, merchant_id)
        return Merchant(row.id, row.name, row.document, row.active)

    def transaction_status(self, transaction_id: str) -> str | None:
        """The stored status of a transaction row (None when there is no such row)."""
        with self.engine.store.lock:
            row = self.engine.store.conn.execute(
                "SELECT status FROM transactions WHERE transaction_id = ?", (transaction_id,)
            ).fetchone()
        return None if row is None else str(row[0])

    def simulate(
        self,
        merchant_id: str | None = None,
        *,
        days: int = 30,
        seed: int = 0,
        charges_per_day: int = 300,
    ) -> SimulationSummary:
        """A seeded, realistic month of activity (see `pixops.simulation.simulate`)."""
        return simulate(self, merchant_id, days=days, seed=seed, charges_per_day=charges_per_day)

    def events(self, merchant_id: str) -> list[Event]:
        """Every event emitted for the merchant, oldest first."""
        with self.engine.store.lock:
            return event_log.list_events(self.engine.store.conn, merchant_id)

    def event_bodies(self, merchant_id: str) -> list[tuple[str, bytes]]:
        """Every event emitted for the merchant, oldest first, as its id and the JSON of
        its envelope (the body a delivery carries, unsigned): for an inbox to read."""
        with self.engine.store.lock:
            return event_log.list_event_bodies(self.engine.store.conn, merchant_id)

    def balance(self, merchant_id: str) -> ledger.Balance:
        """The merchant's balance figures in base units (what `GET /balance` answers)."""
        with self.engine.store.lock:
            return ledger.balance(self.engine.store.conn, merchant_id)

    def audit(self, merchant_id: str) -> ledger.Audit:
        """Recompute the merchant's balance from the journal and holds."""
        with self.engine.store.lock:
            return ledger.audit(self.engine.store.conn, merchant_id)

    def failed_timers(self) -> list[scheduler.FailedTimer]:
        """Timers that raised on every retry and were set aside (empty when all is well);
        a non-empty list means some movement is stuck until `retry_failed_timer`."""
        with self.engine.store.lock:
            return scheduler.failed_timers(self.engine.store.conn)

    def retry_failed_timer(self, seq: int) -> None:
        """Put a set-aside timer back, due now (LookupError for an unknown `seq`)."""
        with self.engine.store.transaction() as conn:
            scheduler.retry_failed(conn, seq, self.now())
