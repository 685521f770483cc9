"""`pixops.AsyncClient` against the sandbox: every method, awaited."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import TypeVar

import httpx
import pytest

import pixops
from pixops.client import ArgumentError, NotFoundError, UnprocessableEntityError
from pixops.sandbox import Sandbox
from pixops.schema import (
    MedCase,
    OutboundInFlight,
    PayoutAccepted,
    QrCharge,
    SettledTransaction,
    Webhook,
)

T = TypeVar("T")
MARIA = "maria.silva@sandbox.pixops.dev"


def run(factory: Callable[[], Awaitable[T]]) -> T:
    return asyncio.run(factory())  # type: ignore[arg-type]


def test_every_method_async() -> None:
    sandbox = Sandbox()
    merchant = sandbox.create_merchant("Loja Async", balance_centavos=1_000_000)
    key = sandbox.issue_api_key(merchant.id)

    async def main() -> None:
        async with sandbox.async_client(key) as client:
            assert isinstance(client, pixops.AsyncClient)
            assert key.client_secret not in repr(client)
            balance = await client.balance()
            assert balance.balance.centavos == 1_000_000
            assert (await client.cpf.validate("529.982.247-25")).valid
            resolution = await client.pix.resolve_key_type("52998224725")
            assert resolution.pix_key_type == "cpf"
            charge = await client.pix.cash_in(amount_centavos=2_500, tag="t", external_id="r-1")
            assert isinstance(await client.transactions.get(charge.transaction_id), QrCharge)
            credit = sandbox.pay_charge(charge.transaction_id)
            keys = await client.pix.keys()
            assert keys
            assert keys[0].key_type == "evp"
            payout = await client.pix.cash_out(pix_key=MARIA, amount_centavos=1_000)
            assert isinstance(payout, PayoutAccepted)
            assert isinstance(
                await client.transactions.get(payout.transaction_id), OutboundInFlight
            )
            final = await client.wait_until_final(payout.transaction_id)
            assert isinstance(final, SettledTransaction)
            assert (await client.transactions.by_e2e(payout.end_to_end_id)).transaction_id == (
                payout.transaction_id
            )
            assert [t.transaction_id for t in await client.transactions.by_tag("t")] == [credit]
            assert [t.transaction_id for t in await client.transactions.by_external_id("r-1")] == [
                credit
            ]
            assert (await client.transactions.receipt(credit)).transaction_id == credit
            refund = await client.pix.refund(credit, 500)
            assert refund.amount.centavos == 500
            rows = [row async for row in client.statement.iter(per_page=2)]
            assert len(rows) == len({row.id for row in rows}) == 3
            assert len((await client.statement.list()).data) == 3
            assert len((await client.transactions.list()).data) == 3
            pages = [body async for body in client.transactions.iter_raw(per_page=2)]
            assert len(pages) == 2
            url = sandbox.add_webhook_receiver(lambda headers, body: 200, name="nb")
            hook = await client.webhooks.create(url=url, event_types=["pix.charge.paid"])
            assert isinstance(hook, Webhook)
            assert hook.secret
            assert hook.secret not in repr(hook)
            assert [w.id for w in await client.webhooks.list()] == [hook.id]
            assert (await client.webhooks.delete(hook.id)).deleted
            case = sandbox.open_med_case(credit, reason="FRAUD")
            assert [c.id for c in (await client.med.list()).data] == [case.id]
            assert [c.id async for c in client.med.iter(status="OPEN")] == [case.id]
            assert isinstance(await client.med.get(case.id), MedCase)
            defended = await client.med.defend(case.id, "Produto entregue.")
            assert defended.defense == "Produto entregue."
            with pytest.raises(UnprocessableEntityError):
                await client.med.defend(case.id, "de novo")
            with pytest.raises(NotFoundError):
                await client.transactions.get("PIXINnope")
            assert (await client.request("GET", "/balance")).status_code == 200
            signed = await client.request("POST", "/cpf/validate", {"cpf": "52998224725"})
            assert signed.json()["data"]["valid"] is True
            camel = client.with_options(key_case="camelCase")
            assert (await camel.balance()).balance == (await client.balance()).balance

    run(main)


def test_bulk_fetch_stays_within_its_concurrency() -> None:
    sandbox = Sandbox()
    merchant = sandbox.create_merchant("Loja Bulk", balance_centavos=0)
    key = sandbox.issue_api_key(merchant.id)
    for _ in range(6):
        for n in range(3):
            sandbox.receive_pix(merchant.id, amount_centavos=100 + n)
        sandbox.advance(days=1)
    inner = sandbox.async_transport()
    active = {"now": 0, "most": 0, "calls": 0}

    class Counting(httpx.AsyncBaseTransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            active["now"] += 1
            active["calls"] += 1
            active["most"] = max(active["most"], active["now"])
            await asyncio.sleep(0.001)
            try:
                return await inner.handle_async_request(request)
            finally:
                active["now"] -= 1

    async def main() -> list[str]:
        async with pixops.AsyncClient(
            "http://sandbox", key.client_id, key.client_secret, transport=Counting()
        ) as client:
            start = sandbox.now().date()
            rows = await client.statement.fetch_range(
                start - timedelta(days=6), start, concurrency=2, rate=1000, per_page=2
            )
            return [row.id for row in rows]

    ids = run(main)
    assert len(ids) == len(set(ids)) == 18
    assert active["most"] <= 2
    assert active["calls"] == 6 * 2 + 1  # two pages a day with rows, one for today


def test_async_arguments_are_checked_before_sending() -> None:
    async def main() -> None:
        client = pixops.AsyncClient("https://pix.example", "cli_x", "sk_x")
        with pytest.raises(ArgumentError):
            await client.pix.cash_out(pix_key=MARIA, amount=1.5)
        with pytest.raises(ArgumentError):
            await client.statement.fetch_range("2026-01-02", "2026-01-01")
        with pytest.raises(ArgumentError):
            await client.wait_until_final("PIX1", interval=1)
        await client.aclose()

    run(main)
