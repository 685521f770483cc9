"""The resource namespaces of `pixops.AsyncClient`: `cpf`, `pix`, `transactions`,
`statement`, `webhooks` and `med`. Each method builds its request in `_operations` and
sends it through the client that owns the namespace."""

# unasync: async only
# One source for both clients: this file is written for asyncio, and `_resources.py`
# (those of `pixops.Client`) is generated from it by `scripts/unasync.py`. What only the
# async client has (`fetch_range`, the bulk fetch of a date range with bounded
# concurrency and a request pace) is marked `unasync: async only` and left out there.
# unasync: end

from __future__ import annotations

import asyncio
import builtins
from collections.abc import AsyncIterator, Callable
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

from pixops.client import _operations as ops
from pixops.client._core import Call
from pixops.client._errors import ArgumentError
from pixops.client._keys import KeyResolution, resolution_of
from pixops.client._pagination import Dedup, aiter_pages, count_rows, first_sight, model_shape
from pixops.client._params import list_query, page_query, required_text
from pixops.client._signatures import check_signatures
from pixops.schema import (
    Charge,
    CpfValidation,
    MedCase,
    MedCasePage,
    Payout,
    PixKey,
    Receipt,
    Refund,
    StatementItem,
    StatementPage,
    Transaction,
    Webhook,
    WebhookDeleted,
)

if TYPE_CHECKING:
    from pixops.client._async import AsyncClient

__all__ = [
    "DEFAULT_BULK_RATE",  # unasync: async only
    "Cpf",
    "Med",
    "Pacer",  # unasync: async only
    "Pix",
    "Statement",
    "Transactions",
    "Webhooks",
]

# unasync: async only
#: Requests per second a bulk fetch allows itself: far under the spec's 1,500/s per IP,
#: so that a notebook's bulk load never starves the same IP's payment traffic.
DEFAULT_BULK_RATE = 50.0


class Pacer:
    """Spaces request starts at least `1 / rate` seconds apart (shared by all tasks)."""

    def __init__(self, rate: float, sleep: Callable[[float], Any] | None = None) -> None:
        if isinstance(rate, bool) or not isinstance(rate, int | float) or not rate > 0:
            raise ArgumentError("rate must be a positive number of requests per second")
        self.interval = 1.0 / rate
        self._lock = asyncio.Lock()
        self._next = 0.0

    async def wait(self) -> None:
        async with self._lock:
            loop = asyncio.get_running_loop()
            now = loop.time()
            delay = self._next - now
            self._next = max(now, self._next) + self.interval
        if delay > 0:
            await asyncio.sleep(delay)


# unasync: end


class _Resource:
    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        check_signatures(cls, namespaced=True)

    def __init__(self, client: AsyncClient) -> None:
        self._client = client


class Cpf(_Resource):
    """`client.cpf`: CPF check digits (permission `account:read`)."""

    async def validate(self, cpf: str) -> CpfValidation:
        """`POST /cpf/validate`: whether the CPF's check digits are right."""
        return await self._client._run(ops.validate_cpf(cpf))


class Pix(_Resource):
    """`client.pix`: charges, payouts, refunds and the account's keys. Money goes in as
    `amount_centavos=` (int) or `amount=` (reais, a Decimal or str), never a float."""

    async def cash_in(
        self,
        *,
        amount_centavos: int | None = None,
        amount: Any = None,
        description: str | None = None,
        external_id: str | None = None,
        tag: str | None = None,
        expires_in: int | None = None,
        payer_name: str | None = None,
        payer_document: str | None = None,
        idempotency_key: str | None = None,
    ) -> Charge:
        """`POST /pix/cash-in`: a dynamic QR charge (`.brcode` is the copy-and-paste code)."""
        return await self._client._run(
            ops.cash_in(
                amount_centavos=amount_centavos,
                amount=amount,
                description=description,
                external_id=external_id,
                tag=tag,
                expires_in=expires_in,
                payer_name=payer_name,
                payer_document=payer_document,
                idempotency_key=idempotency_key,
            )
        )

    async def cash_out(
        self,
        *,
        pix_key: str,
        pix_key_type: str | None = None,
        amount_centavos: int | None = None,
        amount: Any = None,
        description: str | None = None,
        external_id: str | None = None,
        recipient_ispb: str | None = None,
        end_to_end_id: str | None = None,
        purpose: str | None = None,
        idempotency_key: str | None = None,
    ) -> Payout:
        """`POST /pix/cash-out`: send a PIX by key; the answer's `.amount` is base units."""
        return await self._client._run(
            ops.cash_out(
                pix_key=pix_key,
                pix_key_type=pix_key_type,
                amount_centavos=amount_centavos,
                amount=amount,
                description=description,
                external_id=external_id,
                recipient_ispb=recipient_ispb,
                end_to_end_id=end_to_end_id,
                purpose=purpose,
                idempotency_key=idempotency_key,
            )
        )

    async def refund(
        self,
        original_transaction_id: str,
        amount_centavos: int | None = None,
        reason: str | None = "MD06",
        description: str | None = None,
        *,
        amount: Any = None,
        idempotency_key: str | None = None,
    ) -> Refund:
        """`POST /pix/refund`: refund a received PIX, whole (no amount) or in part."""
        return await self._client._run(
            ops.refund(
                original_transaction_id=original_transaction_id,
                amount_centavos=amount_centavos,
                amount=amount,
                reason=reason,
                description=description,
                idempotency_key=idempotency_key,
            )
        )

    async def keys(self) -> list[PixKey]:
        """`GET /pix/keys`: the account's PIX keys."""
        return await self._client._run(ops.pix_keys())

    async def resolve_key_type(self, pix_key: str) -> KeyResolution:
        """The type of an 11-digit key by the spec's rule (a valid CPF is `cpf`, anything
        else `phone`), asked of `/cpf/validate` and reported, never guessed locally."""
        key = required_text("pix_key", pix_key, max_length=64)
        if not ops.is_ambiguous_key(key):
            raise ArgumentError("only an 11-digit key is ambiguous; pass pix_key_type directly")
        return resolution_of(key, await self._client.cpf.validate(key))


class _Listing(_Resource):
    path: str = ""

    async def list(self, **filters: Any) -> StatementPage:
        """One page: filters `date_from`/`date_to` (UTC days), `status`, `type`,
        `page`, `per_page` (1 to 100)."""
        return await self._client._run(ops.statement_page(self.path, filters))

    def iter_raw(self, **filters: Any) -> AsyncIterator[bytes]:
        """The snake_case JSON body of each page, pages walked by the termination rule
        (`per_page` 100 unless given); the caller de-duplicates. Filters are checked
        here, not when the walk begins."""
        query = ops.list_query_of(filters, iterating=True)
        client = self._client
        return aiter_pages(lambda q: client._fetch(Call("GET", self.path, q)), count_rows, query)

    def iter(self, **filters: Any) -> AsyncIterator[StatementItem]:
        """Every row once, newest first (in-flight cash-outs that never settled last).
        Filters are checked here, not when the walk begins."""
        return self._walk(ops.list_query_of(filters, iterating=True), Dedup())

    async def _walk(
        self,
        query: dict[str, str],
        dedup: Dedup,
        pacer: Pacer | None = None,  # unasync: async only
    ) -> AsyncIterator[StatementItem]:
        client = self._client

        async def fetch(q: dict[str, str]) -> StatementPage:
            if pacer is not None:  # unasync: async only
                await pacer.wait()  # unasync: async only
            return await client._run(ops.page_of(self.path, q))

        async for page in aiter_pages(fetch, model_shape, query):
            for row in dedup.feed(page.data):
                yield row
        for row in dedup.rest():
            yield row

    # unasync: async only
    async def fetch_range(
        self,
        date_from: date | str,
        date_to: date | str,
        *,
        concurrency: int = 4,
        rate: float = DEFAULT_BULK_RATE,
        status: str | None = None,
        type: str | None = None,
        per_page: int = ops.DEFAULT_ITER_PER_PAGE,
    ) -> builtins.list[StatementItem]:
        """Every row of a date range (UTC days, inclusive; both required), fetched a day
        at a time by `concurrency` workers at most `rate` requests per second in all;
        de-duplicated by id and sorted newest first. A 429 is still honoured by the retry
        policy, and the first error stops the other workers."""
        if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
            raise ArgumentError("concurrency must be an int of at least 1")
        if date_from is None or date_to is None:
            raise ArgumentError(
                "fetch_range needs date_from and date_to (UTC days, a date or 'YYYY-MM-DD');"
                " for everything, use iter()"
            )
        base = list_query(
            per_page=per_page, status=status, type=type, date_from=date_from, date_to=date_to
        )
        start, end = date.fromisoformat(base["date_from"]), date.fromisoformat(base["date_to"])
        pacer = Pacer(rate)
        # Days are handed out one at a time to `concurrency` workers: a range of years
        # holds a few tasks, not one coroutine per day.
        offsets = iter(range((end - start).days + 1))
        chunks: dict[int, builtins.list[StatementItem]] = {}

        failed = asyncio.Event()

        async def worker() -> None:
            for offset in offsets:
                if failed.is_set():
                    return
                day = (start + timedelta(days=offset)).isoformat()
                query = {**base, "date_from": day, "date_to": day}
                try:
                    chunks[offset] = [row async for row in self._walk(query, Dedup(), pacer)]
                except BaseException:
                    # The others stop too, even when their transport never suspends.
                    failed.set()
                    raise

        workers = [asyncio.ensure_future(worker()) for _ in range(concurrency)]
        try:
            await asyncio.gather(*workers)
        except BaseException:
            for task in workers:
                task.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            raise
        merged: dict[str, StatementItem] = {}
        for offset in sorted(chunks):
            for row in chunks[offset]:
                kept = merged.get(row.id)
                if kept is None or (kept.in_flight and not row.in_flight):
                    merged[row.id] = row
        return sorted(merged.values(), key=lambda row: row.created_at, reverse=True)

    # unasync: end


class Statement(_Listing):
    """`GET /statement` (permission `statement:read`)."""

    path = "/statement"


class Transactions(_Listing):
    """`GET /transactions...` (permission `transfer:read`)."""

    path = "/transactions"

    async def get(self, transaction_id: str) -> Transaction:
        """`GET /transactions/:id`: one record in the shape its state calls for."""
        return await self._client._run(ops.get_transaction(transaction_id))

    async def by_e2e(self, end_to_end_id: str) -> Transaction:
        """`GET /transactions/e2e/:id`: the record of a central-bank end-to-end id (the
        id a payer or the other bank quotes)."""
        return await self._client._run(ops.by_end_to_end(end_to_end_id))

    async def _by_reference(self, kind: str, value: str) -> list[Transaction]:
        seen: set[str] = set()
        client = self._client

        async def fetch(q: dict[str, str]) -> Any:
            op = ops.by_reference(kind, value, int(q["page"]), int(q["per_page"]))
            return await client._run(op)

        query = page_query(1, ops.DEFAULT_ITER_PER_PAGE)
        pages = aiter_pages(fetch, model_shape, query)
        return [
            row
            async for page in pages
            for row in first_sight(page.data, seen, lambda record: record.transaction_id)
        ]

    async def by_tag(self, tag: str) -> list[Transaction]:
        """Every record carrying this tag, newest first."""
        return await self._by_reference("tag", tag)

    async def by_external_id(self, external_id: str) -> list[Transaction]:
        """Every record carrying this external_id, newest first."""
        return await self._by_reference("external_id", external_id)

    async def receipt(self, transaction_id: str) -> Receipt:
        """`GET /transactions/:id/receipt`: the proof of a settled payment (any other
        status is an `UnprocessableEntityError`; `wait_until_final` first)."""
        return await self._client._run(ops.receipt(transaction_id))


class Webhooks(_Resource):
    """`client.webhooks`: subscriptions to events (at most 16; permission
    `account:write` to change, `account:read` to list)."""

    async def create(
        self, *, url: str, event_types: list[str] | None = None, description: str | None = None
    ) -> Webhook:
        """`POST /webhooks`; the answer's `.secret` (shown once) signs the deliveries."""
        return await self._client._run(ops.create_webhook(url, event_types, description))

    async def list(self) -> list[Webhook]:
        """`GET /webhooks`: the subscriptions (their secrets are never shown again)."""
        return await self._client._run(ops.list_webhooks())

    async def delete(self, webhook_id: str) -> WebhookDeleted:
        """`DELETE /webhooks/:id`: stop a subscription's deliveries."""
        return await self._client._run(ops.delete_webhook(webhook_id))


class Med(_Resource):
    """`client.med`: MED cases (the central bank's disputes of received PIX), read and
    defended (permission `payment:read` / `payment:write`)."""

    async def list(
        self,
        *,
        status: str | None = None,
        transaction_id: str | None = None,
        page: int = 1,
        per_page: int = 20,
    ) -> MedCasePage:
        """`GET /med`: one page of cases; `status` is OPEN, ACKNOWLEDGED, CLOSED or
        CANCELLED (any case), `transaction_id` the disputed payment."""
        return await self._client._run(ops.list_med(status, transaction_id, page, per_page))

    def iter(
        self, *, status: str | None = None, transaction_id: str | None = None, per_page: int = 100
    ) -> AsyncIterator[MedCase]:
        """Every case matching the filters, each once, page after page to the last.
        Filters are checked here, not when the walk begins."""
        return self._cases(ops.list_med(status, transaction_id, 1, per_page))

    async def _cases(self, first: ops.Op[MedCasePage]) -> AsyncIterator[MedCase]:
        client, seen = self._client, set[str]()

        async def fetch(query: dict[str, str]) -> MedCasePage:
            return await client._run(ops.Op(Call("GET", first.call.path, query), first.parse))

        async for page in aiter_pages(fetch, model_shape, first.call.query):
            for case in first_sight(page.data, seen, lambda case: case.id):
                yield case

    async def get(self, case_id: str) -> MedCase:
        """`GET /med/:id`: one case, with its deadline and blocked amount."""
        return await self._client._run(ops.get_med(case_id))

    async def defend(self, case_id: str, text: str) -> MedCase:
        """`POST /med/:id/defense` with the defense text (at most 2000 characters)."""
        return await self._client._run(ops.defend_med(case_id, text))
