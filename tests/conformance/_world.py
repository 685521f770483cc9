"""A merchant as the conformance kit expects to find one: some settled history, and a key
holding every permission but `account:write` (so a refusal of permission can be seen)."""

from __future__ import annotations

from datetime import UTC, datetime

from pixops.engine.permissions import PERMISSIONS
from pixops.sandbox import ApiKey, Sandbox

NARROW_PERMISSIONS = sorted(PERMISSIONS - {"account:write"})


def furnish(sandbox: Sandbox, merchant_id: str) -> ApiKey:
    """Two settled PIX received, and the narrow key (loopback whitelisted)."""
    sandbox.receive_pix(merchant_id, amount_centavos=5_000, payer_name="Maria Silva")
    sandbox.receive_pix(merchant_id, amount_centavos=1_250)
    return sandbox.issue_api_key(
        merchant_id, permissions=NARROW_PERMISSIONS, ip_whitelist=["127.0.0.1", "::1"]
    )


def fresh_sandbox() -> tuple[Sandbox, ApiKey]:
    """A sandbox whose clock starts at this machine's (the clock-skew check compares them)."""
    sandbox = Sandbox(start=datetime.now(UTC).replace(microsecond=0))
    merchant = sandbox.create_merchant("Loja Conformidade", balance_centavos=100_000)
    return sandbox, furnish(sandbox, merchant.id)
