"""The client's exceptions, all under `pixops.PixopsError`, and how a body becomes one.

The service answers errors in five body shapes (spec, Errors): the pipeline's
`{error: {status, message}}`, the permission check's `{error: "forbidden", message}`,
the HMAC check's and the transaction 404's `{worked: false, detail}`, business rules'
`{errors: {atom: message | {field: [messages]}}}`, and cash-out's Format A
`{status: "failed", errors: [{code, message, params}]}`. Every `ApiError` keeps the
HTTP status, a lowercase `code`, the server's `message`, `params`, the raw `body`, and
`retryable`: whether sending the same request again later can succeed.
"""

from __future__ import annotations

import contextlib
import html
import json
import re
from typing import Any, Final

from pixops import wire
from pixops.client._retry_after import retry_after_seconds
from pixops.errors import PixopsError

__all__ = [
    "ApiError",
    "ArgumentError",
    "AuthenticationError",
    "BadRequestError",
    "ClientClosedError",
    "ConfigurationError",
    "ConflictError",
    "DictError",
    "InsufficientBalanceError",
    "NotFoundError",
    "PayloadTooLargeError",
    "PaymentRejectedError",
    "PermissionDeniedError",
    "ProviderError",
    "RateLimitError",
    "ResponseValidationError",
    "ServerError",
    "SignatureError",
    "TransportError",
    "UnprocessableEntityError",
    "UnsupportedMediaTypeError",
    "WaitTimeoutError",
    "error_from_response",
    "with_outcome",
]

#: Format A codes that can succeed later (spec: "retry in 5 to 30 s", "back off", "wait").
RETRYABLE_REJECTIONS: Final = frozenset(
    {"dict_lookup_failed", "dict_rate_limited", "dict_bucket_exhausted"}
)
_STATUS_CODES: Final = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "unprocessable_entity",
    429: "rate_limited",
}
_SLUG = re.compile(r"[^a-z0-9]+")
_PERMISSION = re.compile(r"permission:\s*(\S+)")
_HTML = re.compile(r"\s*<(!doctype\s+html|html|head|body|title)\b", re.IGNORECASE)
_TITLE = re.compile(r"<title[^>]*>(.*?)</title", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]*>")


class ArgumentError(PixopsError, ValueError):
    """A bad argument, refused before anything was sent."""


class SignatureError(ArgumentError, TypeError):
    """A method called with a missing, extra or unknown argument (also a `TypeError`,
    which Python itself raises for that, so either `except` catches it)."""


class ConfigurationError(PixopsError, ValueError):
    """Missing or unusable client settings (base URL, credentials)."""


class ClientClosedError(PixopsError, RuntimeError):
    """The client was closed (`close()`, the end of its `with` block, or the closing of
    the client a `with_options` copy shares its connections with)."""


class TransportError(PixopsError):
    """The service could not be reached, or did not answer in time, after the retries the
    policy allows. `idempotency_key` is the POST's key: resending with it (the same
    body) tells its outcome without acting twice."""

    retryable = True
    idempotency_key: str | None = None
    #: What happened without the advice (`GET /balance: ConnectError after 4 attempt(s)`).
    summary: str = ""
    #: What to check, for a report that has its own words for the call (`pixops doctor`).
    hint: str = "check the URL, DNS, proxy and firewall"


class ResponseValidationError(PixopsError):
    """A body that cannot be read: not JSON, outside the wire schema, undecodable or too
    large. For a POST the service accepted, `idempotency_key` is the key to resend with
    (the same arguments) to get its answer again without acting twice."""

    idempotency_key: str | None = None

    def __init__(self, message: str, *, status: int, body: bytes) -> None:
        super().__init__(message)
        self.status = status
        self.body = body


class WaitTimeoutError(PixopsError):
    """`wait_until_final` gave up before the transaction reached a final status."""

    def __init__(self, message: str, *, last: Any) -> None:
        super().__init__(message)
        self.last = last


class ApiError(PixopsError):
    """The service refused a request; `str(error)` carries the server's message."""

    default_retryable: bool = False

    def __init__(
        self,
        message: str,
        *,
        status: int,
        code: str,
        params: dict[str, Any] | list[Any] | None = None,
        body: bytes = b"",
        shape: str = "unknown",
        retryable: bool | None = None,
        errors: list[dict[str, Any]] | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.params: dict[str, Any] | list[Any] = {} if params is None else params
        self.body = body
        self.shape = shape
        self.retryable = self.default_retryable if retryable is None else retryable
        self.errors = errors or []
        self.retry_after = retry_after
        #: The POST's `Idempotency-Key`, when the answer leaves its resend to the caller.
        self.idempotency_key: str | None = None
        #: What to do next, beyond the server's message (empty when it says enough).
        self.advice = ""

    def __str__(self) -> str:
        text = f"HTTP {self.status} {self.code}: {self.message}"
        return f"{text}. {self.advice}" if self.advice else text

    def __repr__(self) -> str:
        name = type(self).__name__
        return f"{name}(status={self.status}, code={self.code!r}, message={self.message!r})"

    def _repr_html_(self) -> str:
        colour = "#9a6700" if self.retryable else "#cf222e"
        hint = "retrying later can help" if self.retryable else "retrying will not help"
        params = html.escape(json.dumps(self.params, ensure_ascii=False)) if self.params else ""
        return (
            f"<div style='border-left:4px solid {colour};padding:4px 8px'>"
            f"<b>{html.escape(type(self).__name__)}</b> HTTP {self.status} "
            f"<code style='user-select:all'>{html.escape(self.code)}</code><br>"
            f"{html.escape(self.message)}<br>"
            f"{html.escape(self.advice) + '<br>' if self.advice else ''}<small>{hint}"
            f"{'; params ' + params if params else ''}</small></div>"
        )


class BadRequestError(ApiError):
    """400: the request is malformed or a field is invalid (Format B, HMAC body...)."""


class AuthenticationError(ApiError):
    """401: missing, invalid, inactive or expired credentials, or a bad HMAC."""


class PermissionDeniedError(ApiError):
    """403: IP not whitelisted, inactive account, missing permission or no HMAC secret."""


class NotFoundError(ApiError):
    """404: no such record (or another merchant's)."""


class PayloadTooLargeError(ApiError):
    """413: the body is over the service's limit."""


class UnsupportedMediaTypeError(ApiError):
    """415: the body is not sent as application/json."""


class UnprocessableEntityError(ApiError):
    """422: a business rule refused the request."""


class RateLimitError(ApiError):
    """429: over the rate limit; wait `retry_after` seconds."""

    default_retryable = True


class ConflictError(ApiError):
    """409: a request with the same `Idempotency-Key` is still in flight; resending it
    (the same key, the same arguments) later gets its answer."""

    default_retryable = True


class ServerError(ApiError):
    """5xx: a fault on the service's side (or a gateway's). A GET can be sent again; for a
    POST, `advice` says whether it may have acted (a 500) or how to resend it safely."""

    default_retryable = True


class PaymentRejectedError(ApiError):
    """Cash-out Format A: the payment was refused synchronously (no webhook follows)."""


class InsufficientBalanceError(PaymentRejectedError):
    """Format A `insufficient_balance`: safe balance below amount + fee."""


class DictError(PaymentRejectedError):
    """Format A `dict_*`: the key directory refused or could not answer."""


class ProviderError(PaymentRejectedError):
    """Format A `provider_*`: the payment provider refused."""


_BY_STATUS: Final[dict[int, type[ApiError]]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLargeError,
    415: UnsupportedMediaTypeError,
    422: UnprocessableEntityError,
    429: RateLimitError,
}


def _status_class(status: int) -> type[ApiError]:
    if status >= 500:
        return ServerError
    return _BY_STATUS.get(status, ApiError)


def _rejection_class(code: str) -> type[ApiError]:
    if code == "insufficient_balance":
        return InsufficientBalanceError
    if code.startswith("dict_"):
        return DictError
    if code.startswith("provider_"):
        return ProviderError
    return PaymentRejectedError


def normalize_code(code: str) -> str:
    """Codes compared case-insensitively: `DICT_RATE_LIMITED` -> `dict_rate_limited`."""
    return code.strip().lower()


def _slug(text: str) -> str:
    return _SLUG.sub("_", text.lower()).strip("_")[:64] or "error"


def error_from_response(status: int, body: bytes, headers: Any = None) -> ApiError:
    """The `ApiError` subclass for one error answer, whatever its body shape."""
    if isinstance(status, bool) or not isinstance(status, int) or not 100 <= status <= 599:
        raise TypeError(f"status must be an HTTP status code, got {status!r}")
    if not isinstance(body, bytes):
        raise TypeError(f"body must be bytes, got {type(body).__name__}")
    retry_after = retry_after_seconds(headers)
    try:
        parsed: Any = json.loads(body)
    except (ValueError, RecursionError):
        parsed = None  # not JSON, or nested beyond reason: read as text below
    if isinstance(parsed, dict):
        # Keys that collide in snake_case (or nest beyond reason) are read as sent.
        with contextlib.suppress(wire.WireError, RecursionError):
            parsed = wire.snakify_keys(parsed)
    fallback = _STATUS_CODES.get(status, "server_error" if status >= 500 else "http_error")
    kwargs: dict[str, Any] = {"status": status, "body": body, "retry_after": retry_after}
    if 300 <= status < 400:
        return _redirect_error(status, headers, kwargs)
    if not isinstance(parsed, dict):
        text = _page_title(body) or body[:200].decode("utf-8", "replace").strip()
        return _status_class(status)(
            text or f"HTTP {status}", code=fallback, shape="unknown", **kwargs
        )
    error = parsed.get("error")
    errors = parsed.get("errors")
    if parsed.get("status") == "failed" and isinstance(errors, list) and errors:
        items = [item for item in errors if isinstance(item, dict)]
        first = items[0] if items else {}
        code = normalize_code(str(first.get("code", fallback)))
        params = first.get("params")
        return _rejection_class(code)(
            str(first.get("message", code)),
            code=code,
            params=params if isinstance(params, dict | list) else {},
            shape="format_a",
            retryable=code in RETRYABLE_REJECTIONS,
            errors=items,
            **kwargs,
        )
    if isinstance(error, dict):
        message = str(error.get("message", fallback))
        params = {"hint": error["hint"]} if "hint" in error else {}
        return _status_class(status)(
            message, code=fallback, params=params, shape="pipeline", **kwargs
        )
    if error == "forbidden":
        message = str(parsed.get("message", "forbidden"))
        match = _PERMISSION.search(message)
        params = {"permission": match.group(1)} if match else {}
        return _status_class(status)(
            message, code="missing_permission", params=params, shape="permission", **kwargs
        )
    if "detail" in parsed and not isinstance(errors, dict):
        message = str(parsed["detail"])
        code = "not_found" if status == 404 else _slug(message)
        return _status_class(status)(message, code=code, shape="detail", **kwargs)
    if isinstance(errors, dict) and errors:
        atom, value = next(iter(errors.items()))
        code = normalize_code(str(atom))
        if isinstance(value, dict):
            fields = {
                str(name): [str(m) for m in messages]
                if isinstance(messages, list)
                else [str(messages)]
                for name, messages in value.items()
            }
            summary = "; ".join(
                f"{name} {' and '.join(map(str, messages))}" for name, messages in fields.items()
            )
            return _status_class(status)(
                summary or code, code=code, params=fields, shape="errors", **kwargs
            )
        text = "; ".join(map(str, value)) if isinstance(value, list) else str(value)
        return _status_class(status)(text, code=code, shape="errors", **kwargs)
    text = body[:200].decode("utf-8", "replace")
    return _status_class(status)(text, code=fallback, shape="unknown", **kwargs)


def _page_title(body: bytes) -> str | None:
    """What an HTML error page (a proxy's or a gateway's) says, in one line, else None."""
    text = body[:65_536].decode("utf-8", "replace")
    if not _HTML.match(text):
        return None
    found = _TITLE.search(text)
    words = found.group(1) if found else _TAG.sub(" ", text)
    words = " ".join(html.unescape(_TAG.sub(" ", words)).split())[:200]
    return "the service (or a proxy in front of it) answered an HTML page, not JSON" + (
        f": {words}" if words else ""
    )


def _redirect_error(status: int, headers: Any, kwargs: dict[str, Any]) -> ApiError:
    """A 3xx: the client follows no redirect (the credentials would go along), so the
    usual cause, a base_url with http:// for an https:// service or an old host, is said."""
    location = headers.get("location") if headers is not None else None
    where = f" to {location}" if location else ""
    message = (
        f"the service answered HTTP {status}, a redirect{where}; the client does not follow"
        " redirects (your credentials would go along): set base_url to the address the"
        " service answers at (https:// rather than http://?)"
    )
    return ApiError(message, code="redirect", shape="unknown", **kwargs)


def with_outcome(error: ApiError, method: str, idempotency_key: str | None) -> ApiError:
    """`error` for a POST, saying what its status means for the payment: after a 500 the
    service may have acted and cached nothing (a resend, key or not, could act twice);
    after a 409, 502, 503 or 504 the same key gets the one answer."""
    if method != "POST" or idempotency_key is None:
        return error
    error.idempotency_key = idempotency_key
    if error.status == 500:
        error.retryable = False
        error.advice = (
            "Its outcome is unknown: the service may have acted and keeps no answer to replay"
            " after a 500, so look for it (client.transactions.by_external_id, the"
            " statement) before sending it again"
        )
    elif error.status in (409, 502, 503, 504):
        error.advice = (
            f"Resend it later with idempotency_key={idempotency_key!r} (the same arguments):"
            " the service acts on it once"
        )
    return error
