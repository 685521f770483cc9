"""Reading an answer's body: at most `MAX_RESPONSE_BYTES` once decompressed, and a body
that cannot be decompressed is the service's fault in words, not an httpx exception.

The clients send with ``stream=True`` and read here, so a huge (or endless, or a
compression bomb's) body is refused after the cap, not held in memory whole. Transport
failures while reading stay `httpx.TransportError`: the retry policy handles them as
it does a failure to connect.
"""

from __future__ import annotations

import json
from typing import Any, Final

import httpx

from pixops.client._errors import ResponseValidationError

__all__ = [
    "MAX_RESPONSE_BYTES",
    "aread_capped",
    "call_label",
    "json_or_none",
    "read_capped",
    "with_accepted_note",
]

#: No answer of the API comes near this (a page of 100 statement rows is ~60 KiB).
MAX_RESPONSE_BYTES: Final = 16 * 1024 * 1024


def _too_large(response: httpx.Response) -> ResponseValidationError:
    return with_accepted_note(
        ResponseValidationError(
            f"{_label(response)}: HTTP {response.status_code} with a body over"
            f" {MAX_RESPONSE_BYTES // 1_048_576} MiB, refused unread (no answer of the API is"
            " that large: a proxy or a wrong base_url?)",
            status=response.status_code,
            body=b"",
        ),
        response,
    )


def _undecodable(response: httpx.Response, exc: httpx.DecodingError) -> ResponseValidationError:
    encoding = response.headers.get("content-encoding", "none")
    return with_accepted_note(
        ResponseValidationError(
            f"{_label(response)}: HTTP {response.status_code} with a body that cannot be decoded"
            f" (Content-Encoding: {encoding}): {exc}; a proxy may have altered it",
            status=response.status_code,
            body=b"",
        ),
        response,
    )


def with_accepted_note(
    error: ResponseValidationError, response: httpx.Response
) -> ResponseValidationError:
    """``error`` itself, or for a POST the service accepted (2xx) one whose message adds
    that it must not be sent again as a new one, and how to get its answer: resent with
    its idempotency key, or looked up by the transaction id the body shows."""
    request, status = response.request, response.status_code
    key = request.headers.get("idempotency-key") if request.method == "POST" else None
    if key is None or not 200 <= status < 300:
        return error
    message = (
        f"{error}. The service accepted the request (HTTP {status}): do not send it again as"
        f" a new one; resend it with idempotency_key={key!r} (the same arguments) to get its"
        " answer again"
    )
    ident = _transaction_id(error.body)
    if ident is not None:
        message += f", or look it up with client.transactions.get({ident!r})"
    noted = ResponseValidationError(message, status=status, body=error.body)
    noted.idempotency_key = key
    return noted


def json_or_none(body: bytes) -> Any:
    """The parsed body, or None when it is not JSON (or nested beyond reason)."""
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        return None


def _transaction_id(body: bytes) -> str | None:
    parsed = json_or_none(body)
    for record in (parsed, parsed.get("data") if isinstance(parsed, dict) else None):
        if isinstance(record, dict):
            ident = record.get("transaction_id", record.get("transactionId"))
            if isinstance(ident, str) and ident.isprintable() and len(ident) <= 128:
                return ident
    return None


def call_label(request: httpx.Request) -> str:
    """`GET /balance`: the method and the path under `/api/external`, as the spec names it."""
    path = request.url.path
    marker = "/api/external"
    return f"{request.method} {path[path.find(marker) + len(marker) :] if marker in path else path}"


def _label(response: httpx.Response) -> str:
    return call_label(response.request)


def read_capped(response: httpx.Response) -> None:
    """Read a streamed `response` into `response.content` (closing it, whatever happens)."""
    chunks: list[bytes] = []
    size = 0
    try:
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > MAX_RESPONSE_BYTES:
                raise _too_large(response)
            chunks.append(chunk)
    except httpx.DecodingError as exc:
        raise _undecodable(response, exc) from None
    finally:
        response.close()
    response._content = b"".join(chunks)


async def aread_capped(response: httpx.Response) -> None:
    """`read_capped` for an `httpx.AsyncClient`'s response."""
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > MAX_RESPONSE_BYTES:
                raise _too_large(response)
            chunks.append(chunk)
    except httpx.DecodingError as exc:
        raise _undecodable(response, exc) from None
    finally:
        await response.aclose()
    response._content = b"".join(chunks)
