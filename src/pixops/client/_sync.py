"""`pixops.Client`: the synchronous client and its resource namespaces.

client = pixops.Client.from_env()        # or Client(base_url=..., client_id=..., client_secret=...)
with client:
    client.balance().available_balance.format()
    for row in client.statement.iter(date_from="2026-01-01", date_to="2026-01-31"):
        ...
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Final, TypeVar

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
from pixops.client._pagination import Dedup, count_rows, iter_pages
from pixops.client._params import page_query, required_text
from pixops.client._retry import DEFAULT_RETRY, RetryPolicy
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

if TYPE_CHECKING:
    from pixops.client._doctor import DoctorReport

__all__ = ["Client"]

T = TypeVar("T")
MIN_POLL_SECONDS: Final = 5.0
#: Long enough for a queued cash-out (7200 s retry window) to reach its end.
DEFAULT_WAIT_SECONDS: Final = 7300.0


class _Resource:
    def __init__(self, client: Client) -> None:
        self._client = client


class Cpf(_Resource):
    def validate(self, cpf: str) -> CpfValidation:
        """`POST /cpf/validate`: whether the CPF's check digits are right."""
        return self._client._run(ops.validate_cpf(cpf))


class Pix(_Resource):
    def cash_in(
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
        return self._client._run(
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

    def cash_out(
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
        return self._client._run(
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

    def refund(
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
        return self._client._run(
            ops.refund(
                original_transaction_id=original_transaction_id,
                amount_centavos=amount_centavos,
                amount=amount,
                reason=reason,
                description=description,
                idempotency_key=idempotency_key,
            )
        )

    def keys(self) -> list[PixKey]:
        """`GET /pix/keys`: the account's PIX keys."""
        return self._client._run(ops.pix_keys())

    def resolve_key_type(self, pix_key: str) -> KeyResolution:
        """The type of an 11-digit key by the spec's rule (a valid CPF is `cpf`, anything
        else `phone`), asked of `/cpf/validate` and reported, never guessed locally."""
        key = required_text("pix_key", pix_key, max_length=64)
        if not ops.is_ambiguous_key(key):
            raise ArgumentError("only an 11-digit key is ambiguous; pass pix_key_type directly")
        return resolution_of(key, self._client.cpf.validate(key))


class _Listing(_Resource):
    path: str = ""

    def list(self, **filters: Any) -> StatementPage:
        """One page: filters `date_from`/`date_to` (UTC days), `status`, `type`,
        `page`, `per_page` (1 to 100)."""
        return self._client._run(ops.statement_page(self.path, filters))

    def iter_raw(self, **filters: Any) -> Iterator[bytes]:
        """The snake_case JSON body of each page, pages walked by the termination rule
        (`per_page` 100 unless given); the caller de-duplicates."""
        query = ops.list_query_of(filters, iterating=True)
        client = self._client
        yield from iter_pages(lambda q: client._fetch(Call("GET", self.path, q)), count_rows, query)

    def iter(self, **filters: Any) -> Iterator[StatementItem]:
        """Every row once, newest first (in-flight cash-outs that never settled last)."""
        query = ops.list_query_of(filters, iterating=True)
        client = self._client
        dedup = Dedup()
        pages = iter_pages(
            lambda q: client._run(ops.Op(Call("GET", self.path, q), ops._whole(StatementPage))),
            lambda page: len(page.data),
            query,
        )
        for page in pages:
            yield from dedup.feed(page.data)
        yield from dedup.rest()


class Statement(_Listing):
    """`GET /statement` (permission `statement:read`)."""

    path = "/statement"


class Transactions(_Listing):
    """`GET /transactions...` (permission `transfer:read`)."""

    path = "/transactions"

    def get(self, transaction_id: str) -> Transaction:
        """`GET /transactions/:id`: one record in the shape its state calls for."""
        return self._client._run(ops.get_transaction(transaction_id))

    def by_e2e(self, end_to_end_id: str) -> Transaction:
        return self._client._run(ops.by_end_to_end(end_to_end_id))

    def _by_reference(self, kind: str, value: str) -> list[Transaction]:
        found: list[Transaction] = []
        seen: set[str] = set()
        query = page_query(1, ops.DEFAULT_ITER_PER_PAGE)
        client = self._client

        def fetch(q: dict[str, str]) -> Any:
            return client._run(ops.by_reference(kind, value, int(q["page"]), int(q["per_page"])))

        for page in iter_pages(fetch, lambda p: len(p.data), query):
            for record in page.data:
                if record.transaction_id not in seen:
                    seen.add(record.transaction_id)
                    found.append(record)
        return found

    def by_tag(self, tag: str) -> list[Transaction]:
        """Every record carrying this tag, newest first."""
        return self._by_reference("tag", tag)

    def by_external_id(self, external_id: str) -> list[Transaction]:
        """Every record carrying this external_id, newest first."""
        return self._by_reference("external_id", external_id)

    def receipt(self, transaction_id: str) -> Receipt:
        return self._client._run(ops.receipt(transaction_id))


class Webhooks(_Resource):
    def create(
        self, *, url: str, event_types: list[str] | None = None, description: str | None = None
    ) -> Webhook:
        """`POST /webhooks`; the answer's `.secret` (shown once) signs the deliveries."""
        return self._client._run(ops.create_webhook(url, event_types, description))

    def list(self) -> list[Webhook]:
        return self._client._run(ops.list_webhooks())

    def delete(self, webhook_id: str) -> WebhookDeleted:
        return self._client._run(ops.delete_webhook(webhook_id))


class Med(_Resource):
    def list(
        self,
        *,
        status: str | None = None,
        transaction_id: str | None = None,
        page: int = 1,
        per_page: int = 20,
    ) -> MedCasePage:
        return self._client._run(ops.list_med(status, transaction_id, page, per_page))

    def get(self, case_id: str) -> MedCase:
        return self._client._run(ops.get_med(case_id))

    def defend(self, case_id: str, text: str) -> MedCase:
        """`POST /med/:id/defense` with the defense text (at most 2000 characters)."""
        return self._client._run(ops.defend_med(case_id, text))


class Client:
    """A client of the PIX account API, over one pooled `httpx.Client`.

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
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] | None = None,
        advance_clock: Callable[[float], None] | None = None,
        http_client: httpx.Client | None = None,
    ) -> None:
        if base_url is None or client_id is None or client_secret is None:
            raise ConfigurationError(
                "base_url, client_id and client_secret are required"
                " (or use pixops.Client.from_env())"
            )
        if not isinstance(retry, RetryPolicy):
            raise ConfigurationError("retry must be a pixops.client.RetryPolicy")
        self._settings = Settings(
            api_root(base_url), Credentials(client_id, client_secret), key_case
        )
        self._retry = retry
        self._sleep = sleep or time.sleep
        self._advance_clock = advance_clock
        self._owns_http = http_client is None
        self._http = http_client or httpx.Client(
            transport=transport, timeout=timeout, follow_redirects=False
        )
        self.cpf = Cpf(self)
        self.pix = Pix(self)
        self.transactions = Transactions(self)
        self.statement = Statement(self)
        self.webhooks = Webhooks(self)
        self.med = Med(self)

    @classmethod
    def from_env(cls, *, dotenv_path: str | Path | None = None, **options: Any) -> Client:
        """From `PIXOPS_BASE_URL`, `PIXOPS_CLIENT_ID`, `PIXOPS_CLIENT_SECRET` (the
        environment, then a `.env` file for what it lacks)."""
        env = read_env(dotenv_path=dotenv_path)
        return cls(env[ENV_BASE_URL], env[ENV_CLIENT_ID], env[ENV_CLIENT_SECRET], **options)

    def with_options(
        self, *, key_case: KeyCase | None = None, retry: RetryPolicy | None = None
    ) -> Client:
        """A client sharing this one's connection pool with other settings
        (`client.with_options(key_case="camelCase").balance()`)."""
        twin = object.__new__(Client)
        twin.__dict__.update(self.__dict__)
        settings = self._settings
        twin._settings = Settings(
            settings.api_root, settings.credentials, key_case or settings.key_case
        )
        twin._retry = retry or self._retry
        twin._owns_http = False
        for name, kind in (
            ("cpf", Cpf),
            ("pix", Pix),
            ("transactions", Transactions),
            ("statement", Statement),
            ("webhooks", Webhooks),
            ("med", Med),
        ):
            setattr(twin, name, kind(twin))
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
            f"pixops.Client(base_url={self.base_url!r}, client_id={self.client_id!r},"
            f" key_case={self.key_case!r})"
        )

    # -- lifecycle -------------------------------------------------------------

    def close(self) -> None:
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    # -- sending ---------------------------------------------------------------

    def send(self, call: Call) -> httpx.Response:
        """Send one call under the retry policy; the last answer, whatever its status."""
        request, key = build_request(self._http, self._settings, call)
        attempt = 0
        while True:
            attempt += 1
            try:
                response = self._http.send(request)
            except httpx.TransportError as exc:
                wait = self._retry.after_exception(call.method, key, attempt)
                log_attempt(call, attempt, type(exc).__name__, wait)
                if wait is None:
                    raise TransportError(
                        f"{call.method} {call.path}: {type(exc).__name__} after {attempt}"
                        " attempt(s)"
                    ) from None
                self._sleep(wait)
                continue
            retry_after = _retry_after(response)
            wait = self._retry.after_status(
                call.method, key, response.status_code, attempt, retry_after
            )
            log_attempt(call, attempt, f"HTTP {response.status_code}", wait)
            if wait is None:
                return response
            response.close()
            self._sleep(wait)

    def _fetch(self, call: Call) -> bytes:
        response = self.send(call)
        return decode(response, call.key_case or self.key_case)

    def _run(self, op: ops.Op[T]) -> T:
        return op.parse(self._fetch(op.call))

    def request(
        self, method: str, path: str, json_body: Any = None, *, query: dict[str, str] | None = None
    ) -> httpx.Response:
        """One signed request to any path under `/api/external` (what `pixops api` sends);
        the answer is returned as is, errors included."""
        method = method.upper()
        if method not in ("GET", "POST", "DELETE"):
            raise ArgumentError("method must be GET, POST or DELETE")
        if not isinstance(path, str) or not path.startswith("/"):
            raise ArgumentError("path must start with '/', e.g. /balance")
        if json_body is not None and not isinstance(json_body, dict):
            raise ArgumentError("the JSON body must be an object")
        if method != "POST" and json_body is not None:
            raise ArgumentError("only POST takes a body")
        return self.send(Call(method, path, dict(query or {}), json_body))

    # -- endpoints and helpers -------------------------------------------------

    def balance(self) -> Balance:
        """`GET /balance`: every figure an `Amount` in base units."""
        return self._run(ops.balance())

    def wait_until_final(
        self,
        transaction_id: str,
        *,
        timeout: float = DEFAULT_WAIT_SECONDS,
        interval: float = MIN_POLL_SECONDS,
    ) -> Transaction:
        """Poll `GET /transactions/:id` until the record is final (settled, failed,
        rejected, expired, cancelled). Polls at least 5 s apart against a server (the
        spec's advice); on a sandbox, advances its virtual clock instead of sleeping."""
        if isinstance(interval, bool) or not isinstance(interval, int | float):
            raise ArgumentError("interval must be a number of seconds")
        if interval < MIN_POLL_SECONDS or not math.isfinite(interval):
            raise ArgumentError(f"interval must be at least {MIN_POLL_SECONDS} s")
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout < 0:
            raise ArgumentError("timeout must be a non-negative number of seconds")
        waited = 0.0
        while True:
            record = self.transactions.get(transaction_id)
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
                self._sleep(interval)
            waited += interval

    def doctor(self) -> DoctorReport:
        """Check the server, credentials, IP whitelist, signing, read permissions, clock
        skew and rate-limit headroom, in plain words (`print()` it, or `.to_frame()`)."""
        from pixops.client._doctor import run_doctor

        return run_doctor(self)


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None
