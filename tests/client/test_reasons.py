"""Asynchronous failures explained: reason codes, and `wait_until_final` raising on them."""

from __future__ import annotations

import pytest

from pixops.client import (
    REASON_CODES,
    PaymentFailedError,
    WaitTimeoutError,
    describe_reason,
)
from pixops.engine.world import central_bank
from pixops.sandbox import Sandbox


def test_every_central_bank_code_of_the_sandbox_is_explained() -> None:
    codes = {code.upper() for code in central_bank.REASON_CODES}
    assert codes <= set(REASON_CODES)
    assert describe_reason("ed05") == describe_reason("ED05")
    assert describe_reason("Orphan_Force_Voided") is not None
    assert describe_reason("ZZ99") is None
    assert describe_reason(None) is None


@pytest.mark.parametrize(
    ("pix_key", "code", "retryable"),
    [
        ("reject.ed05@sandbox.pixops.dev", "ED05", True),
        ("reject.ac03@sandbox.pixops.dev", "AC03", False),
        ("orphan@sandbox.pixops.dev", "orphan_force_voided", True),
        ("queue.timeout@sandbox.pixops.dev", "DICT_QUEUE_TIMEOUT", True),
    ],
)
def test_wait_until_final_raises_with_the_reason(pix_key: str, code: str, retryable: bool) -> None:
    sandbox = Sandbox()
    merchant = sandbox.create_merchant("Loja", balance_centavos=100_000)
    client = sandbox.client(sandbox.issue_api_key(merchant.id))
    payout = client.pix.cash_out(pix_key=pix_key, amount_centavos=1_000)
    with pytest.raises(PaymentFailedError) as caught:
        client.wait_until_final(payout.transaction_id, interval=60, raise_on_failure=True)
    assert caught.value.reason_code is not None
    assert caught.value.reason_code.upper() == code.upper()
    assert caught.value.retryable is retryable
    assert code.upper() in str(caught.value).upper()
    record = client.wait_until_final(payout.transaction_id)
    assert record.status == "failed"


def test_wait_until_final_gives_up_at_its_timeout() -> None:
    sandbox = Sandbox()
    merchant = sandbox.create_merchant("Loja", balance_centavos=100_000)
    client = sandbox.client(sandbox.issue_api_key(merchant.id))
    payout = client.pix.cash_out(pix_key="orphan@sandbox.pixops.dev", amount_centavos=1_000)
    started = sandbox.now()
    with pytest.raises(WaitTimeoutError) as caught:
        client.wait_until_final(payout.transaction_id, timeout=60)
    assert caught.value.last.status == "processing"
    assert (sandbox.now() - started).total_seconds() == 60  # virtual time, not real
