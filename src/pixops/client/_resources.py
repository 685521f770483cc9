"""The resource namespaces of `pixops.Client`: `cpf`, `pix`, `transactions`, `statement`,
`webhooks` and `med`. Each method builds its request in `_operations` and sends it through
the client that owns the namespace."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from pixops.client import _operations as ops
from pixops.client._core import Call
from pixops.client._errors import ArgumentError
from pixops.client._keys import KeyResolution, resolution_of
from pixops.client._pagination import Dedup, count_rows, first_sight, iter_pages, model_shape
from pixops.client._params import page_query, required_text
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
    from pixops.client._sync import Client

__all__ = ["Cpf", "Med", "Pix", "Statement", "Transactions", "Webhooks"]


class _Resource:
    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        check_signatures(cls, namespaced=True)

    def __init__(self, client: Client) -> None:
        self._client = client


class Cpf(_Resource):
    """`client.cpf`: CPF check digits (permission `account:read`)."""

    def validate(self, cpf: str) -> CpfValidation:
        """`POST /cpf/validate`: whether the CPF's check digits are right."""
        return self._client._run(ops.validate_cpf(cpf))


class Pix(_Resource):
    """`client.pix`: charges, payouts, refunds and the account's keys. Money goes in as
    `amount_centavos=` (int) or `amount=` (reais, a Decimal or str), never a float."""

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
        (`per_page` 100 unless given); the caller de-duplicates. Filters are checked
        here, not at the first `next()`."""
        query = ops.list_query_of(filters, iterating=True)
        client = self._client
        return iter_pages(lambda q: client._fetch(Call("GET", self.path, q)), count_rows, query)

    def iter(self, **filters: Any) -> Iterator[StatementItem]:
        """Every row once, newest first (in-flight cash-outs that never settled last).
        Filters are checked here, not at the first `next()`."""
        return self._rows(ops.list_query_of(filters, iterating=True))

    def _rows(self, query: dict[str, str]) -> Iterator[StatementItem]:
        client = self._client
        dedup = Dedup()
        pages = iter_pages(
            lambda q: client._run(ops.Op(Call("GET", self.path, q), ops.whole(StatementPage))),
            model_shape,
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
        """`GET /transactions/e2e/:id`: the record of a central-bank end-to-end id (the
        id a payer or the other bank quotes)."""
        return self._client._run(ops.by_end_to_end(end_to_end_id))

    def _by_reference(self, kind: str, value: str) -> list[Transaction]:
        seen: set[str] = set()
        client = self._client

        def fetch(q: dict[str, str]) -> Any:
            return client._run(ops.by_reference(kind, value, int(q["page"]), int(q["per_page"])))

        query = page_query(1, ops.DEFAULT_ITER_PER_PAGE)
        pages = iter_pages(fetch, model_shape, query)
        return [
            row
            for page in pages
            for row in first_sight(page.data, seen, lambda record: record.transaction_id)
        ]

    def by_tag(self, tag: str) -> list[Transaction]:
        """Every record carrying this tag, newest first."""
        return self._by_reference("tag", tag)

    def by_external_id(self, external_id: str) -> list[Transaction]:
        """Every record carrying this external_id, newest first."""
        return self._by_reference("external_id", external_id)

    def receipt(self, transaction_id: str) -> Receipt:
        """`GET /transactions/:id/receipt`: the proof of a settled payment (any other
        status is an `UnprocessableEntityError`; `wait_until_final` first)."""
        return self._client._run(ops.receipt(transaction_id))


class Webhooks(_Resource):
    """`client.webhooks`: subscriptions to events (at most 16; permission
    `account:write` to change, `account:read` to list)."""

    def create(
        self, *, url: str, event_types: list[str] | None = None, description: str | None = None
    ) -> Webhook:
        """`POST /webhooks`; the answer's `.secret` (shown once) signs the deliveries."""
        return self._client._run(ops.create_webhook(url, event_types, description))

    def list(self) -> list[Webhook]:
        """`GET /webhooks`: the subscriptions (their secrets are never shown again)."""
        return self._client._run(ops.list_webhooks())

    def delete(self, webhook_id: str) -> WebhookDeleted:
        """`DELETE /webhooks/:id`: stop a subscription's deliveries."""
        return self._client._run(ops.delete_webhook(webhook_id))


class Med(_Resource):
    """`client.med`: MED cases (the central bank's disputes of received PIX), read and
    defended (permission `payment:read` / `payment:write`)."""

    def list(
        self,
        *,
        status: str | None = None,
        transaction_id: str | None = None,
        page: int = 1,
        per_page: int = 20,
    ) -> MedCasePage:
        """`GET /med`: one page of cases; `status` is OPEN, ACKNOWLEDGED, CLOSED or
        CANCELLED (any case), `transaction_id` the disputed payment."""
        return self._client._run(ops.list_med(status, transaction_id, page, per_page))

    def iter(
        self, *, status: str | None = None, transaction_id: str | None = None, per_page: int = 100
    ) -> Iterator[MedCase]:
        """Every case matching the filters, each once, page after page to the last.
        Filters are checked here, not at the first `next()`."""
        return self._cases(ops.list_med(status, transaction_id, 1, per_page))

    def _cases(self, first: ops.Op[MedCasePage]) -> Iterator[MedCase]:
        client, seen = self._client, set[str]()

        def fetch(query: dict[str, str]) -> MedCasePage:
            return client._run(ops.Op(Call("GET", first.call.path, query), first.parse))

        for page in iter_pages(fetch, model_shape, first.call.query):
            yield from first_sight(page.data, seen, lambda case: case.id)

    def get(self, case_id: str) -> MedCase:
        """`GET /med/:id`: one case, with its deadline and blocked amount."""
        return self._client._run(ops.get_med(case_id))

    def defend(self, case_id: str, text: str) -> MedCase:
        """`POST /med/:id/defense` with the defense text (at most 2000 characters)."""
        return self._client._run(ops.defend_med(case_id, text))
