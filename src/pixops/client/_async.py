"""`pixops.AsyncClient`: the same resources as `pixops.Client`, awaitable.

async with sb.async_client(api_key) as client:
    balance = await client.balance()
    async for row in client.statement.iter(date_from="2026-01-01"):
        ...
    rows = await client.statement.fetch_range("2026-01-01", "2026-01-31", concurrency=4)
"""

from __future__ import annotations

import asyncio
import builtins
import math
from collections.abc import AsyncIterator, Callable
from datetime import date, timedelta
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

import httpx

from pixops.client import _operations as ops
from pixops.client._config import (
    DEFAULT_TIMEOUT,
    ENV_BASE_URL,
    ENV_CLIENT_ID,
    ENV_CLIENT_SECRET,
    Credentials,
    KeyCase,
    Settings,
    api_root,
    read_env,
)
from pixops.client._core import Call, build_request, decode, log_attempt
from pixops.client._errors import (
    ArgumentError,
    ConfigurationError,
    TransportError,
    WaitTimeoutError,
)
from pixops.client._keys import KeyResolution, resolution_of
from pixops.client._pagination import Dedup, aiter_pages, count_rows
from pixops.client._params import list_query, page_query, required_text
from pixops.client._retry import DEFAULT_RETRY, RetryPolicy
from pixops.client._sync import DEFAULT_WAIT_SECONDS, MIN_POLL_SECONDS, _retry_after
from pixops.schema import (
    Balance,
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

__all__ = ["AsyncClient", "Pacer"]

T = TypeVar("T")
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


class _Resource:
    def __init__(self, client: AsyncClient) -> None:
        self._client = client


class Cpf(_Resource):
    async def validate(self, cpf: str) -> CpfValidation:
        return await self._client._run(ops.validate_cpf(cpf))


class Pix(_Resource):
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
        return await self._client._run(ops.pix_keys())

    async def resolve_key_type(self, pix_key: str) -> KeyResolution:
        key = required_text("pix_key", pix_key, max_length=64)
        if not ops.is_ambiguous_key(key):
            raise ArgumentError("only an 11-digit key is ambiguous; pass pix_key_type directly")
        return resolution_of(key, await self._client.cpf.validate(key))


class _Listing(_Resource):
    path: str = ""

    async def list(self, **filters: Any) -> StatementPage:
        return await self._client._run(ops.statement_page(self.path, filters))

    async def iter_raw(self, **filters: Any) -> AsyncIterator[bytes]:
        query = ops.list_query_of(filters, iterating=True)
        client = self._client
        async for body in aiter_pages(
            lambda q: client._fetch(Call("GET", self.path, q)), count_rows, query
        ):
            yield body

    async def iter(self, **filters: Any) -> AsyncIterator[StatementItem]:
        query = ops.list_query_of(filters, iterating=True)
        async for row in self._walk(query, Dedup()):
            yield row

    async def _walk(
        self, query: dict[str, str], dedup: Dedup, pacer: Pacer | None = None
    ) -> AsyncIterator[StatementItem]:
        client = self._client

        async def fetch(q: dict[str, str]) -> StatementPage:
            if pacer is not None:
                await pacer.wait()
            return await client._run(ops.Op(Call("GET", self.path, q), ops._whole(StatementPage)))

        async for page in aiter_pages(fetch, lambda p: len(p.data), query):
            for row in dedup.feed(page.data):
                yield row
        for row in dedup.rest():
            yield row

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
        """Every row of a date range (UTC days, inclusive), one day per task, at most
        `concurrency` days at once and `rate` requests per second; de-duplicated by id
        and sorted newest first. A 429 is still honoured by the retry policy."""
        if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
            raise ArgumentError("concurrency must be an int of at least 1")
        base = list_query(
            per_page=per_page, status=status, type=type, date_from=date_from, date_to=date_to
        )
        start, end = date.fromisoformat(base["date_from"]), date.fromisoformat(base["date_to"])
        days = [start + timedelta(days=n) for n in range((end - start).days + 1)]
        gate = asyncio.Semaphore(concurrency)
        pacer = Pacer(rate)

        async def one_day(day: date) -> builtins.list[StatementItem]:
            query = {**base, "date_from": day.isoformat(), "date_to": day.isoformat()}
            async with gate:
                return [row async for row in self._walk(query, Dedup(), pacer)]

        chunks = await asyncio.gather(*(one_day(day) for day in days))
        merged: dict[str, StatementItem] = {}
        for chunk in chunks:
            for row in chunk:
                kept = merged.get(row.id)
                if kept is None or (kept.in_flight and not row.in_flight):
                    merged[row.id] = row
        return sorted(merged.values(), key=lambda row: row.created_at, reverse=True)


class Statement(_Listing):
    path = "/statement"


class Transactions(_Listing):
    path = "/transactions"

    async def get(self, transaction_id: str) -> Transaction:
        return await self._client._run(ops.get_transaction(transaction_id))

    async def by_e2e(self, end_to_end_id: str) -> Transaction:
        return await self._client._run(ops.by_end_to_end(end_to_end_id))

    async def _by_reference(self, kind: str, value: str) -> list[Transaction]:
        found: list[Transaction] = []
        seen: set[str] = set()
        client = self._client

        async def fetch(q: dict[str, str]) -> Any:
            op = ops.by_reference(kind, value, int(q["page"]), int(q["per_page"]))
            return await client._run(op)

        query = page_query(1, ops.DEFAULT_ITER_PER_PAGE)
        async for page in aiter_pages(fetch, lambda p: len(p.data), query):
            for record in page.data:
                if record.transaction_id not in seen:
                    seen.add(record.transaction_id)
                    found.append(record)
        return found

    async def by_tag(self, tag: str) -> list[Transaction]:
        return await self._by_reference("tag", tag)

    async def by_external_id(self, external_id: str) -> list[Transaction]:
        return await self._by_reference("external_id", external_id)

    async def receipt(self, transaction_id: str) -> Receipt:
        return await self._client._run(ops.receipt(transaction_id))


class Webhooks(_Resource):
    async def create(
        self, *, url: str, event_types: list[str] | None = None, description: str | None = None
    ) -> Webhook:
        return await self._client._run(ops.create_webhook(url, event_types, description))

    async def list(self) -> list[Webhook]:
        return await self._client._run(ops.list_webhooks())

    async def delete(self, webhook_id: str) -> WebhookDeleted:
        return await self._client._run(ops.delete_webhook(webhook_id))


class Med(_Resource):
    async def list(
        self,
        *,
        status: str | None = None,
        transaction_id: str | None = None,
        page: int = 1,
        per_page: int = 20,
    ) -> MedCasePage:
        return await self._client._run(ops.list_med(status, transaction_id, page, per_page))

    async def get(self, case_id: str) -> MedCase:
        return await self._client._run(ops.get_med(case_id))

    async def defend(self, case_id: str, text: str) -> MedCase:
        return await self._client._run(ops.defend_med(case_id, text))


async def _async_sleep(seconds: float) -> None:
    await asyncio.sleep(seconds)


class AsyncClient:
    """`pixops.Client` over one pooled `httpx.AsyncClient`; every method is awaitable."""

    def __init__(
        self,
        base_url: str | None = None,
        client_id: str | None = None,
        client_secret: str | None = None,
        *,
        key_case: KeyCase = "snake_case",
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        retry: RetryPolicy = DEFAULT_RETRY,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Callable[[float], Any] | None = None,
        advance_clock: Callable[[float], None] | None = None,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        if base_url is None or client_id is None or client_secret is None:
            raise ConfigurationError(
                "base_url, client_id and client_secret are required"
                " (or use pixops.AsyncClient.from_env())"
            )
        if not isinstance(retry, RetryPolicy):
            raise ConfigurationError("retry must be a pixops.client.RetryPolicy")
        self._settings = Settings(
            api_root(base_url), Credentials(client_id, client_secret), key_case
        )
        self._retry = retry
        self._sleep = sleep
        self._advance_clock = advance_clock
        self._owns_http = http_client is None
        self._http = http_client or httpx.AsyncClient(
            transport=transport, timeout=timeout, follow_redirects=False
        )
        self._attach()

    def _attach(self) -> None:
        self.cpf = Cpf(self)
        self.pix = Pix(self)
        self.transactions = Transactions(self)
        self.statement = Statement(self)
        self.webhooks = Webhooks(self)
        self.med = Med(self)

    @classmethod
    def from_env(cls, *, dotenv_path: str | Path | None = None, **options: Any) -> AsyncClient:
        env = read_env(dotenv_path=dotenv_path)
        return cls(env[ENV_BASE_URL], env[ENV_CLIENT_ID], env[ENV_CLIENT_SECRET], **options)

    def with_options(
        self, *, key_case: KeyCase | None = None, retry: RetryPolicy | None = None
    ) -> AsyncClient:
        twin = object.__new__(AsyncClient)
        twin.__dict__.update(self.__dict__)
        settings = self._settings
        twin._settings = Settings(
            settings.api_root, settings.credentials, key_case or settings.key_case
        )
        twin._retry = retry or self._retry
        twin._owns_http = False
        twin._attach()
        return twin

    @property
    def base_url(self) -> str:
        return self._settings.api_root

    @property
    def client_id(self) -> str:
        return self._settings.credentials.client_id

    @property
    def key_case(self) -> KeyCase:
        return self._settings.key_case

    def __repr__(self) -> str:
        return (
            f"pixops.AsyncClient(base_url={self.base_url!r}, client_id={self.client_id!r},"
            f" key_case={self.key_case!r})"
        )

    async def aclose(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def _pause(self, seconds: float) -> None:
        if self._sleep is None:
            await asyncio.sleep(seconds)
            return
        result = self._sleep(seconds)
        if asyncio.iscoroutine(result):
            await result

    async def send(self, call: Call) -> httpx.Response:
        """Send one call under the retry policy; the last answer, whatever its status."""
        request, key = build_request(self._http, self._settings, call)
        attempt = 0
        while True:
            attempt += 1
            try:
                response = await self._http.send(request)
            except httpx.TransportError as exc:
                wait = self._retry.after_exception(call.method, key, attempt)
                log_attempt(call, attempt, type(exc).__name__, wait)
                if wait is None:
                    raise TransportError(
                        f"{call.method} {call.path}: {type(exc).__name__} after {attempt}"
                        " attempt(s)"
                    ) from None
                await self._pause(wait)
                continue
            retry_after = _retry_after(response)
            wait = self._retry.after_status(
                call.method, key, response.status_code, attempt, retry_after
            )
            log_attempt(call, attempt, f"HTTP {response.status_code}", wait)
            if wait is None:
                await response.aread()
                return response
            await response.aclose()
            await self._pause(wait)

    async def _fetch(self, call: Call) -> bytes:
        response = await self.send(call)
        return decode(response, call.key_case or self.key_case)

    async def _run(self, op: ops.Op[T]) -> T:
        return op.parse(await self._fetch(op.call))

    async def balance(self) -> Balance:
        return await self._run(ops.balance())

    async def wait_until_final(
        self,
        transaction_id: str,
        *,
        timeout: float = DEFAULT_WAIT_SECONDS,
        interval: float = MIN_POLL_SECONDS,
    ) -> Transaction:
        """As `Client.wait_until_final`, without blocking the event loop."""
        if isinstance(interval, bool) or not isinstance(interval, int | float):
            raise ArgumentError("interval must be a number of seconds")
        if interval < MIN_POLL_SECONDS or not math.isfinite(interval):
            raise ArgumentError(f"interval must be at least {MIN_POLL_SECONDS} s")
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout < 0:
            raise ArgumentError("timeout must be a non-negative number of seconds")
        waited = 0.0
        while True:
            record = await self.transactions.get(transaction_id)
            if record.is_final:
                return record
            if waited + interval > timeout:
                raise WaitTimeoutError(
                    f"{transaction_id} is still {record.status} after {waited:.0f} s",
                    last=record,
                )
            if self._advance_clock is not None:
                self._advance_clock(interval)
            else:
                await self._pause(interval)
            waited += interval
