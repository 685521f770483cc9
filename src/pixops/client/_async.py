"""`pixops.AsyncClient`: the client of the PIX account API and its resource namespaces.

async with pixops.AsyncClient.from_env() as client:  # or AsyncClient(base_url=..., ...)
    balance = await client.balance()
    async for row in client.statement.iter(date_from="2026-01-01", date_to="2026-01-31"):
        ...
"""

# unasync: async only
# One source for both clients: this file is written for asyncio, and `_sync.py`
# (`pixops.Client`) is generated from it by `scripts/unasync.py` (run it after an edit;
# tests/client/test_unasync.py fails while the two differ).
# unasync: end

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

import httpx

from pixops.client import _operations as ops
from pixops.client._answers import read_answer
from pixops.client._async_resources import Cpf, Med, Pix, Statement, Transactions, Webhooks
from pixops.client._config import (
    DEFAULT_TIMEOUT,
    ENV_BASE_URL,
    ENV_CLIENT_ID,
    ENV_CLIENT_SECRET,
    Credentials,
    KeyCase,
    Settings,
    api_root,
    check_hooks,
    check_timeout,
    read_env,
)
from pixops.client._core import (
    Call,
    build_request,
    log_attempt,
    raw_call,
    static_headers,
    transport_error,
    untrusted_certificate,
)
from pixops.client._errors import (
    ConfigurationError,
    WaitTimeoutError,
)
from pixops.client._params import DEFAULT_WAIT_SECONDS, MIN_POLL_SECONDS, check_wait
from pixops.client._pause import apause
from pixops.client._reasons import PaymentFailedError
from pixops.client._receive import aread_capped
from pixops.client._retry import DEFAULT_RETRY, RetryPolicy, check_policy
from pixops.client._retry_after import retry_after_seconds
from pixops.client._served import ServedClock
from pixops.client._signatures import check_signatures
from pixops.schema import (
    Balance,
    Transaction,
)

if TYPE_CHECKING:
    from pixops.client._doctor import DoctorReport

__all__ = ["AsyncClient"]

T = TypeVar("T")


@check_signatures
class AsyncClient:
    """A client of the PIX account API, over one pooled `httpx.AsyncClient`.

    Timeouts (`DEFAULT_TIMEOUT`): 5 s to connect, 30 s to read. Retries follow
    `RetryPolicy` (see `pixops.client.RetryPolicy`). `key_case="camelCase"` sends and
    receives camelCase; results are the same models either way.
    """

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
        check_timeout(timeout)
        check_hooks(
            transport=transport,
            http_client=http_client,
            sleep=sleep,
            advance_clock=advance_clock,
            asynchronous=True,
        )
        self._settings = Settings(
            api_root(base_url), Credentials(client_id, client_secret), key_case
        )
        self._retry = check_policy(retry)
        self._sleep = sleep
        self._advance_clock = advance_clock
        self._owns_http = http_client is None
        self._served = ServedClock()
        # A pool this client makes carries the headers every call sends (a `with_options`
        # twin shares it, and its credentials); a pool passed in is left as it was given.
        self._preset_headers = http_client is None
        self._http = http_client or httpx.AsyncClient(
            transport=transport,
            timeout=timeout,
            follow_redirects=False,
            headers=static_headers(self._settings),
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
        """From `PIXOPS_BASE_URL`, `PIXOPS_CLIENT_ID`, `PIXOPS_CLIENT_SECRET` (the
        environment, then a `.env` file for what it lacks)."""
        env = read_env(dotenv_path=dotenv_path)
        return cls(env[ENV_BASE_URL], env[ENV_CLIENT_ID], env[ENV_CLIENT_SECRET], **options)

    def with_options(
        self, *, key_case: KeyCase | None = None, retry: RetryPolicy | None = None
    ) -> AsyncClient:
        """A client sharing this one's connection pool with other settings
        (`client.with_options(key_case="camelCase").balance()`)."""
        twin = object.__new__(AsyncClient)
        twin.__dict__.update(self.__dict__)
        settings = self._settings
        twin._settings = Settings(
            settings.api_root, settings.credentials, key_case or settings.key_case
        )
        twin._retry = self._retry if retry is None else check_policy(retry)
        twin._owns_http = False
        twin._attach()
        return twin

    @property
    def base_url(self) -> str:
        """The API root every path is sent under (`https://host/api/external`)."""
        return self._settings.api_root

    @property
    def client_id(self) -> str:
        """The API key's public half (the secret is never shown)."""
        return self._settings.credentials.client_id

    @property
    def key_case(self) -> KeyCase:
        """The wire casing, `snake_case` or `camelCase`; results read the same either way."""
        return self._settings.key_case

    def __repr__(self) -> str:
        return (
            f"pixops.AsyncClient(base_url={self.base_url!r}, client_id={self.client_id!r},"
            f" key_case={self.key_case!r})"
        )

    # -- lifecycle -------------------------------------------------------------

    async def aclose(self) -> None:
        """Close the connections (a `with_options` copy closes nothing: it shares them);
        a later call is a `ClientClosedError`."""
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

    # -- sending ---------------------------------------------------------------

    async def send(self, call: Call) -> httpx.Response:
        """Send one call under the retry policy; the last answer, whatever its status."""
        request, key = build_request(self._http, self._settings, call, preset=self._preset_headers)
        attempt = 0
        while True:
            attempt += 1
            try:
                response = await self._http.send(request, stream=True)
                self._served.note(response.headers)
                retry_after = retry_after_seconds(response.headers)
                wait = self._retry.after_status(
                    call.method, key, response.status_code, attempt, retry_after
                )
                if wait is None:
                    await aread_capped(response)
                else:
                    await response.aclose()
            except httpx.TransportError as exc:
                wait = (
                    None  # a certificate is not trusted on the next attempt either
                    if untrusted_certificate(exc)
                    else self._retry.after_exception(call.method, key, attempt)
                )
                log_attempt(call, attempt, type(exc).__name__, wait)
                if wait is None:
                    root = self._settings.api_root
                    raise transport_error(call, root, exc, attempt, key) from None
                await apause(self._sleep, wait)
                continue
            log_attempt(call, attempt, f"HTTP {response.status_code}", wait)
            if wait is None:
                return response
            await apause(self._sleep, wait)

    async def _fetch(self, call: Call) -> bytes:
        response = await self.send(call)
        return read_answer(response, call.key_case or self.key_case, bytes)

    async def _run(self, op: ops.Op[T]) -> T:
        response = await self.send(op.call)
        case = op.call.key_case or self.key_case
        return read_answer(response, case, op.parse, refuses_worked_false=op.refuses_worked_false)

    async def request(
        self, method: str, path: str, json_body: Any = None, *, query: dict[str, str] | None = None
    ) -> httpx.Response:
        """One signed request to any path under `/api/external` (what `pixops api` sends);
        the answer is returned as is, errors included. `query` is sent after any query the
        path holds (`"/statement?page=2"`, `query={"per_page": "100"}`: both)."""
        return await self.send(raw_call(method, path, json_body, query))

    # -- endpoints and helpers -------------------------------------------------

    async def balance(self) -> Balance:
        """`GET /balance`: every figure an `Amount` in base units."""
        return await self._run(ops.balance())

    async def service_time(self) -> datetime:
        """The service's current time (aware, UTC): the ``Date`` of its latest answer plus
        the seconds since; before any answer, one `GET /balance` is asked (any answer
        carries a ``Date``, a refusal too). The sandbox's virtual time on a sandbox. A
        service that sends no ``Date`` leaves this machine's clock as the best guess."""
        if not self._served.known:
            answer = await self.request("GET", "/balance")
            await answer.aclose()
        return self._served.now() or datetime.now(UTC)

    async def wait_until_final(
        self,
        transaction_id: str,
        *,
        timeout: float = DEFAULT_WAIT_SECONDS,
        interval: float = MIN_POLL_SECONDS,
        raise_on_failure: bool = False,
    ) -> Transaction:
        """Poll `GET /transactions/:id` until the record is final (settled, failed,
        rejected, expired, cancelled). Polls at least 5 s apart against a server (the
        spec's advice); on a sandbox, advances its virtual clock instead of sleeping.
        With `raise_on_failure`, a final status other than settled raises
        `PaymentFailedError` (its reason code explained, and whether a new try can help)."""
        check_wait(timeout, interval)
        waited = 0.0
        while True:
            record = await self.transactions.get(transaction_id)
            if record.is_final:
                if raise_on_failure and record.status != "settled":
                    raise PaymentFailedError(record)
                return record
            if waited + interval > timeout:
                raise WaitTimeoutError(
                    f"{transaction_id} is still {record.status} after {waited:.0f} s",
                    last=record,
                )
            if self._advance_clock is not None:
                self._advance_clock(interval)
            else:
                await apause(self._sleep, interval)
            waited += interval

    async def doctor(self) -> DoctorReport:
        """Check the server, credentials, IP whitelist, signing, read permissions, clock
        skew and rate-limit headroom, in plain words (`print()` it, or `.to_frame()`)."""
        from pixops.client._doctor import run_doctor_async

        return await run_doctor_async(self)
