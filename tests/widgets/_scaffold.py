"""Scaffolding until `pixops.Client` lands: the client contract over plain httpx.

Only the methods the panels call, returning plain dicts; errors are `PixopsError`s
carrying ``.status``. Requests go through a recording transport so tests can assert
on the API calls a panel made.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from typing import Any

import httpx

from pixops import wire
from pixops.errors import PixopsError
from pixops.sandbox import ApiKey, Sandbox

BASE_URL = "http://sandbox/api/external"


class ScaffoldError(PixopsError):
    def __init__(self, status: int, body: Any) -> None:
        super().__init__(f"HTTP {status}: {body}")
        self.status = status
        self.body = body


class Recorder(httpx.BaseTransport):
    """Wraps a transport and keeps (method, path, query, json body) of every request."""

    def __init__(self, inner: httpx.BaseTransport) -> None:
        self.inner = inner
        self.calls: list[tuple[str, str, dict[str, str], Any]] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content) if request.content else None
        path = request.url.path.removeprefix("/api/external")
        self.calls.append((request.method, path, dict(request.url.params), body))
        return self.inner.handle_request(request)

    def posts(self) -> list[tuple[str, Any]]:
        return [(path, body) for method, path, _, body in self.calls if method == "POST"]


def _params(filters: dict[str, Any]) -> dict[str, str]:
    return {k: v.isoformat() if isinstance(v, date) else str(v) for k, v in filters.items()}


class _Ns:
    def __init__(self, api: ScaffoldClient) -> None:
        self.api = api


class _Pix(_Ns):
    def refund(
        self,
        original_transaction_id: str,
        amount_centavos: int | None = None,
        reason: str = "MD06",
        description: str | None = None,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {
            "original_transaction_id": original_transaction_id,
            "reason": reason,
        }
        if amount_centavos is not None:
            body["amount"] = amount_centavos
        if description is not None:
            body["description"] = description
        return self.api.post("/pix/refund", body)

    def cash_in(self, **fields: Any) -> dict[str, Any]:
        fields["amount"] = fields.pop("amount_centavos")
        return self.api.post("/pix/cash-in", fields)["data"]


class _Transactions(_Ns):
    def get(self, ident: str) -> dict[str, Any]:
        return self.api.get(f"/transactions/{ident}")["data"]

    def by_e2e(self, e2e: str) -> dict[str, Any]:
        return self.api.get(f"/transactions/e2e/{e2e}")["data"]

    def by_tag(self, tag: str) -> list[dict[str, Any]]:
        return self.api.get(f"/transactions/tag/{tag}")["data"]

    def by_external_id(self, ref: str) -> list[dict[str, Any]]:
        return self.api.get(f"/transactions/ref/{ref}")["data"]

    def receipt(self, ident: str) -> dict[str, Any]:
        return self.api.get(f"/transactions/{ident}/receipt")["data"]


class _Statement(_Ns):
    def iter(self, **filters: Any) -> Iterator[dict[str, Any]]:
        seen: set[str] = set()
        page = 1
        while True:
            data = self.api.get("/statement", page=page, per_page=100, **filters)["data"]
            for item in data:
                if item["id"] not in seen:
                    seen.add(item["id"])
                    yield item
            if len(data) < 100:
                return
            page += 1

    def list(self, **filters: Any) -> list[dict[str, Any]]:
        return self.api.get("/statement", **filters)["data"]


class _Med(_Ns):
    def list(self, **filters: Any) -> list[dict[str, Any]]:
        return self.api.get("/med", **filters)["data"]

    def get(self, case_id: str) -> dict[str, Any]:
        return self.api.get(f"/med/{case_id}")["data"]

    def defend(self, case_id: str, text: str) -> dict[str, Any]:
        return self.api.post(f"/med/{case_id}/defense", {"defense": text})["data"]


class _Webhooks(_Ns):
    def create(self, url: str, event_types: list[str]) -> dict[str, Any]:
        return self.api.post("/webhooks", {"url": url, "event_types": event_types})["data"]


class ScaffoldClient:
    def __init__(self, sandbox: Sandbox, key: ApiKey) -> None:
        self.sandbox = sandbox
        self.key = key
        self.recorder = Recorder(sandbox.transport())
        self.http = httpx.Client(
            transport=self.recorder,
            base_url=BASE_URL,
            headers={"Authorization": f"ApiKey {key.client_id}:{key.client_secret}"},
        )
        self.pix = _Pix(self)
        self.transactions = _Transactions(self)
        self.statement = _Statement(self)
        self.med = _Med(self)
        self.webhooks = _Webhooks(self)

    def _answer(self, response: httpx.Response) -> dict[str, Any]:
        body = response.json()
        if response.status_code >= 400:
            raise ScaffoldError(response.status_code, body)
        return body  # type: ignore[no-any-return]

    def get(self, path: str, **params: Any) -> dict[str, Any]:
        return self._answer(self.http.get(path, params=_params(params)))

    def post(self, path: str, payload: dict[str, Any]) -> dict[str, Any]:
        body = json.dumps(payload).encode()
        headers = {
            "content-type": "application/json",
            "hmac": wire.sign(body, self.key.client_secret),
        }
        return self._answer(self.http.post(path, content=body, headers=headers))

    def balance(self) -> dict[str, Any]:
        return self.get("/balance")["data"]

    def wait_until_final(self, transaction_id: str) -> dict[str, Any]:
        for _ in range(100):
            record = self.transactions.get(transaction_id)
            if record["status"] not in ("processing", "pending", "queued", "accepted"):
                return record
            self.sandbox.advance(5)
        raise AssertionError("never final")
