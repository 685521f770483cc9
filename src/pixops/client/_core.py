"""One request, from a `Call` to parsed JSON: headers, signing, casing, errors, logging.

Shared by the sync and async clients; only sending (and sleeping) differs between them.
A POST body is written once as canonical JSON (keys sorted, compact), camelCased when
asked, and signed over exactly those bytes, which are the bytes sent.
"""

from __future__ import annotations

import gc
import json
import logging
import ssl
import uuid
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar
from urllib.parse import urlencode

import httpx
from pydantic import BaseModel, TypeAdapter, ValidationError

from pixops import wire
from pixops._version import __version__
from pixops.client._config import KeyCase, Settings
from pixops.client._errors import (
    ArgumentError,
    ClientClosedError,
    ResponseValidationError,
    TransportError,
)

__all__ = [
    "Call",
    "build_request",
    "log_attempt",
    "parse_model",
    "raw_call",
    "request_target",
    "static_headers",
    "transport_error",
]

logger: Final = logging.getLogger("pixops.client")
USER_AGENT: Final = f"pixops/{__version__}"
MAX_IDEMPOTENCY_KEY: Final = 256
M = TypeVar("M")


@dataclass(frozen=True)
class Call:
    """One API operation: method, path under `/api/external`, query and JSON body."""

    method: str
    path: str
    query: dict[str, str] = field(default_factory=dict)
    body: dict[str, Any] | None = None
    idempotency_key: str | None = None
    key_case: KeyCase | None = None

    def __post_init__(self) -> None:
        if self.method not in ("GET", "POST", "DELETE"):
            raise ArgumentError(f"method must be GET, POST or DELETE, not {self.method!r}")
        if not isinstance(self.path, str) or not self.path.startswith("/"):
            raise ArgumentError(f"path must start with '/', e.g. /balance, not {self.path!r}")
        if not isinstance(self.query, dict):
            raise ArgumentError("the query must be a dict of text to text")
        if not _is_text(self.path):
            raise ArgumentError(f"the path must be valid text, not {self.path!r}")
        for pair in self.query.items():
            for text in pair:
                if not _is_text(text):
                    raise ArgumentError(f"the query must be valid text, not {text!r}")
        if not self.path.isprintable():
            raise ArgumentError(f"the path must hold no control character, not {self.path!r}")
        if self.body is not None and not isinstance(self.body, dict):
            raise ArgumentError("the JSON body must be an object")
        if self.method != "POST" and self.body is not None:
            raise ArgumentError("only POST takes a body")
        problem = None if self.body is None else _unwritable_in(self.body, "body")
        if problem is not None:
            raise ArgumentError(problem)


def _unwritable_in(value: object, where: str) -> str | None:
    """What the first float or non-text key in a JSON value is, where (``body['amount']``),
    else None: the spec never uses floating point, and canonical JSON could not sign one
    the same way in every language; a JSON key is text (an int key would be sorted and
    cased apart from the others). A walk with its own stack: any depth is answered."""
    pending: list[tuple[object, str]] = [(value, where)]
    while pending:
        item, place = pending.pop()
        if isinstance(item, float):
            return (
                f"{place} is a decimal number: the API takes none (amounts are whole"
                " centavos, e.g. 1050 for R$ 10,50)"
            )
        if isinstance(item, dict):
            for key in item:
                if not isinstance(key, str):
                    return f"{place} has the key {key!r}: JSON keys are text"
            pending.extend((v, f"{place}[{k!r}]") for k, v in reversed(item.items()))
        elif isinstance(item, list | tuple):
            pending.extend((v, f"{place}[{i}]") for i, v in reversed(list(enumerate(item))))
    return None


def check_idempotency_key(key: str | None) -> str | None:
    if key is None:
        return None
    if not isinstance(key, str) or not key or len(key) > MAX_IDEMPOTENCY_KEY:
        raise ArgumentError("idempotency_key must be a string of 1 to 256 characters")
    if not key.isprintable() or not key.isascii():
        raise ArgumentError("idempotency_key must be printable ASCII")
    if key != key.strip(" "):
        # An HTTP field value cannot start or end with a space (RFC 9110 §5.5): the key
        # the service saw would not be the one given, or httpx would refuse to send it.
        raise ArgumentError("idempotency_key must not start or end with a space")
    return key


def static_headers(settings: Settings) -> dict[str, str]:
    """The headers every call of a client sends, whatever the call."""
    return {
        "authorization": settings.credentials.authorization,
        "accept": "application/json",
        "user-agent": USER_AGENT,
    }


def build_request(
    client: httpx.Client | httpx.AsyncClient,
    settings: Settings,
    call: Call,
    *,
    preset: bool = False,
) -> tuple[httpx.Request, str | None]:
    """The request to send (the same object on every attempt) and its idempotency key.
    With `preset`, `client` already carries `static_headers(settings)` as its own: httpx
    copies them into the request instead of merging them one by one on every call (a
    tenth of `GET /balance`'s time)."""
    if not isinstance(call, Call):
        raise ArgumentError(f"send() takes a pixops Call, not {type(call).__name__}")
    if client.is_closed:
        raise ClientClosedError(
            "this client is closed (close(), the end of its `with` block, or the client it"
            " was copied from by with_options was closed): make a new one, e.g."
            " pixops.Client.from_env() or pixops.connect()"
        )
    case = call.key_case or settings.key_case
    headers = {} if preset else static_headers(settings)
    if case == "camelCase":
        headers["x-key-case"] = "camelCase"
    content: bytes | None = None
    key = check_idempotency_key(call.idempotency_key)
    if call.method == "POST":
        payload: wire.JSON = call.body or {}
        if case == "camelCase":
            payload = wire.camelize_keys(payload)
        content = wire.canonical_json(payload)
        headers["content-type"] = "application/json"
        headers["hmac"] = wire.sign(content, settings.credentials.client_secret)
        key = key or uuid.uuid4().hex
        headers["idempotency-key"] = key
    url, params = request_target(settings.api_root, call, merged=bool(client.params))
    try:
        request = client.build_request(
            call.method, url, params=params, content=content, headers=headers or None
        )
    except httpx.InvalidURL as exc:
        raise ArgumentError(f"the path {call.path!r} cannot be sent: {exc}") from None
    return request, key


def request_target(
    api_root: str, call: Call, *, merged: bool = False
) -> tuple[str, dict[str, str] | None]:
    """The URL to request and any query httpx should still merge into it.

    The query is written into the URL text here, encoded as httpx encodes `params=`
    (`urllib.parse.urlencode`), so httpx parses the URL once: given `params=`, it parses
    the URL and then again to add the query, ~20 µs of the ~60 µs that building a
    request costs (a page of the statement is ~600 µs). A path with a query of its own
    (`client.request("GET", "/statement?page=2", query={"per_page": "100"})`) keeps it
    and gets the rest after it (httpx's `params=` would have replaced it). Left to httpx:
    a path with a ``#``, and every query when the httpx client given has `params` of
    its own (`merged`), which would replace a query in the URL text."""
    url = api_root + call.path
    if not call.query:
        return url, None
    if merged or "#" in call.path:
        return url, call.query
    joiner = "&" if "?" in call.path else "?"
    return f"{url}{joiner}{urlencode(call.query)}", None


def transport_error(
    call: Call, api_root: str, exc: httpx.TransportError, attempts: int, key: str | None
) -> TransportError:
    """The error for a call that got no answer: what happened, and what to do next."""
    kind = type(exc).__name__
    untrusted = untrusted_certificate(exc)
    hint = "check the URL, DNS, proxy and firewall"
    if isinstance(exc, httpx.TimeoutException):
        advice = (
            "no answer in time: try again later, or make the client with a longer"
            " timeout= (seconds, or an httpx.Timeout)"
        )
    elif untrusted is not None:
        kind = f"TLS certificate not trusted ({untrusted})"
        hint = (
            "this machine does not trust the server's certificate: for `pixops serve"
            " --tls-cert`, export SSL_CERT_FILE=<that cert.pem>; otherwise check the URL"
            " and any proxy that intercepts TLS"
        )
        advice = f"could not reach {api_root}: {hint}"
    else:
        advice = f"could not reach {api_root}: check base_url and the network (client.doctor())"
    summary = f"{call.method} {call.path}: {kind} after {attempts} attempt(s)"
    message = f"{summary}; {advice}"
    if key is not None:
        message += (
            f". Its outcome is unknown: resend it with idempotency_key={key!r} (the same"
            " arguments) to get its answer without acting twice"
        )
    error = TransportError(message)
    error.idempotency_key = key
    error.summary = summary
    error.hint = hint
    error.retryable = untrusted is None
    return error


def untrusted_certificate(exc: BaseException) -> str | None:
    """The verifier's reason (``self-signed certificate``) when ``exc`` comes from a TLS
    certificate this machine does not trust; None for any other failure."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if isinstance(cause, ssl.SSLCertVerificationError):
            return str(cause.verify_message or cause.reason or "verification failed")
        cause = cause.__cause__ or cause.__context__
    return None


def raw_call(
    method: str, path: str, json_body: Any = None, query: dict[str, str] | None = None
) -> Call:
    """A `Call` for any path, its method in any case (what `client.request` and `pixops
    api` send); the `Call` checks itself."""
    method = method.upper() if isinstance(method, str) else method
    if query is not None and not isinstance(query, dict):
        raise ArgumentError("the query must be a dict of text to text")
    return Call(method, path, dict(query or {}), json_body)


def _is_text(value: object) -> bool:
    """A string that UTF-8 can hold (no lone surrogate, as from undecodable argv bytes)."""
    if not isinstance(value, str):
        return False
    if value.isascii():
        return True
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def log_attempt(call: Call, attempt: int, outcome: str, wait: float | None) -> None:
    """One line per attempt: never headers, bodies or credentials. A retry is INFO, not a
    warning: it is routine, and a call that fails for good raises its own error."""
    if wait is None:
        logger.debug("%s %s attempt %d: %s", call.method, call.path, attempt, outcome)
    else:
        logger.info(
            "%s %s attempt %d: %s; retrying in %.1f s",
            call.method,
            call.path,
            attempt,
            outcome,
            wait,
        )


def to_snake_bytes(body: bytes, status: int = 200) -> bytes:
    """A camelCase JSON body rewritten with snake_case keys (compact UTF-8)."""
    try:
        parsed = json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise ResponseValidationError(
            f"the answer is not JSON: {exc}", status=status, body=body
        ) from None
    try:
        converted = wire.snakify_keys(parsed)
    except (wire.WireError, RecursionError) as exc:
        raise ResponseValidationError(
            f"the answer's keys cannot be read in snake_case: {exc}", status=status, body=body
        ) from None
    return json.dumps(converted, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


_ADAPTERS: dict[Any, TypeAdapter[Any]] = {}


def parse_model(model: Any, body: bytes, status: int = 200) -> Any:
    """Validate a snake_case body against a wire model (a class or a union type).

    The cyclic garbage collector is paused while the models are built, as Mercurial's
    `nogc` does for its bulk parsing: a page of 100 statement rows makes ~600 container
    objects (rows, their dicts and field sets, the `Amount`s), which set off a collection
    or two that can find nothing (none of them refers back to another), and pausing it
    took ~3.5 points off the page's cost over raw httpx (benchmarks/bench_client.py,
    three interleaved pairs: +31.3 -> +27.7 %).
    Reference counting still frees everything; a collector paused by the caller is left
    paused."""
    collecting = gc.isenabled()
    if collecting:
        gc.disable()
    try:
        if isinstance(model, type) and issubclass(model, BaseModel):
            return model.model_validate_json(body)
        adapter = _ADAPTERS.get(model)
        if adapter is None:
            adapter = _ADAPTERS[model] = TypeAdapter(model)
        return adapter.validate_json(body)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, error['loc']))}: {error['msg']}" for error in exc.errors()[:5]
        )
        raise ResponseValidationError(
            f"the answer does not match the wire schema: {problems}", status=status, body=body
        ) from None
    finally:
        if collecting:
            gc.enable()
