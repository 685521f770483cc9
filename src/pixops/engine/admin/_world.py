"""What the test helpers need of a sandbox, as a protocol: `pixops serve` passes its
`pixops.sandbox.Sandbox` in (`TestHelpers(sandbox, token)`), and the engine never
imports the sandbox that is built on top of it."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from pixops.engine.core import Engine
    from pixops.engine.ledger import Balance
    from pixops.engine.med import MedCase
    from pixops.engine.merchants import ApiKey, Merchant

__all__ = ["SandboxWorld"]


class SandboxWorld(Protocol):
    """The administrative and simulated-world actions the helpers answer over HTTP (the
    portal, payers, counterparties, the central bank, the clock), and the engine they act
    on. `pixops.sandbox.Sandbox` is one."""

    @property
    def engine(self) -> Engine:
        """The engine the sandbox drives (its store, its clock)."""
        ...

    def now(self) -> datetime:
        """The sandbox's current time."""
        ...

    def advance(self, seconds: int = 0) -> int:
        """Move the clock on; the number of timers that ran."""
        ...

    def create_merchant(
        self,
        name: str,
        *,
        balance_centavos: int = 0,
        document: str | None = None,
        dual_control: bool = False,
    ) -> Merchant:
        """A new merchant (the portal)."""
        ...

    def balance(self, merchant_id: str) -> Balance:
        """A merchant's balance."""
        ...

    def issue_api_key(
        self,
        merchant_id: str,
        *,
        permissions: list[str] | tuple[str, ...] | None = None,
        ip_whitelist: list[str] | tuple[str, ...] = ("127.0.0.1",),
        hmac: bool = True,
        expires_at: datetime | None = None,
    ) -> ApiKey:
        """A new API key for a merchant."""
        ...

    def revoke_api_key(self, client_id: str) -> None:
        """Revoke an API key."""
        ...

    def pay_charge(
        self,
        qr_transaction_id: str,
        *,
        payer_name: str | None = None,
        payer_document: str | None = None,
        payer_ispb: str | None = None,
    ) -> str:
        """A payer pays a charge; the credit's transaction id."""
        ...

    def cancel_charge(self, qr_transaction_id: str) -> None:
        """Cancel a pending charge."""
        ...

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
        """A PIX arrives for a merchant; its transaction id."""
        ...

    def receive_return(
        self,
        original_transaction_id: str,
        *,
        amount_centavos: int | None = None,
        reason_code: str = "MD06",
    ) -> str:
        """A counterparty returns a cash-out; the return's transaction id."""
        ...

    def approve_payout(self, transaction_id: str) -> str:
        """The second approver approves a payout; its status."""
        ...

    def deny_payout(self, transaction_id: str) -> str:
        """The second approver denies a payout; its status."""
        ...

    def open_med_case(
        self,
        transaction_id: str,
        *,
        reason: str = "FRAUD",
        details: str | None = None,
        amount_centavos: int | None = None,
    ) -> MedCase:
        """The central bank opens a MED case."""
        ...

    def resolve_med_case(
        self, case_id: str, result: str = "AGREED", details: str | None = None
    ) -> MedCase:
        """The central bank decides a MED case."""
        ...

    def transaction_status(self, transaction_id: str) -> str | None:
        """A transaction's status, None when there is no such transaction."""
        ...
