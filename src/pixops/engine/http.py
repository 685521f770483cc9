"""Framework-free request and response values, and the spec's four error shapes.

Every layer reports a refusal by raising `ApiError` with the body of the shape that
layer owns; the engine turns it into bytes in one place.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import parse_qsl

from pixops.wire import compact_json

JSONObject = dict[str, Any]
LIST_HEADERS = frozenset({"x-forwarded-for"})


@dataclass(slots=True)
class Request:
    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: bytes
    peer: str

    @classmethod
    def build(
        cls,
        method: str,
        target: str,
        headers: list[tuple[str, str]],
        body: bytes,
        peer: str,
    ) -> Request:
        """Split `target` into path and query; lower-case header names, first one wins.

        List headers are the exception: their repeated lines join in order (RFC 9110
        5.3), so a proxy appending its own X-Forwarded-For line is read after the
        client's, never shadowed by it.
        """
        path, _, query = target.partition("?")
        folded: dict[str, str] = {}
        for name, value in headers:
            lowered = name.lower()
            if lowered in LIST_HEADERS and lowered in folded:
                folded[lowered] = f"{folded[lowered]}, {value}"
            else:
                folded.setdefault(lowered, value)
        return cls(method.upper(), path, query, folded, body, peer)

    def query_params(self) -> dict[str, list[str]]:
        params: dict[str, list[str]] = {}
        for name, value in parse_qsl(self.query, keep_blank_values=True):
            params.setdefault(name, []).append(value)
        return params


@dataclass(slots=True)
class Response:
    status: int
    headers: list[tuple[str, str]]
    body: bytes


@dataclass(slots=True)
class Reply:
    """What a route returns: a status and a JSON object, before key casing."""

    status: int
    body: JSONObject
    headers: list[tuple[str, str]] = field(default_factory=list)


class EncodedJSON:
    """A JSON value already encoded, as `render(camel)` gives it for either key casing.

    A route may put one at the top level of a reply body when it has the bytes cheaper
    than the encoder would (the statement's rendered items, `queries._pages`); the
    pipeline splices them in verbatim (`pipeline.encode_body`), so the body is byte for
    byte what encoding the plain value would have produced. `pieces(camel)`, when given,
    are the same bytes in parts (their join is `render(camel)`), which the pipeline
    splices without joining them first: a busy page is hundreds of kilobytes."""

    __slots__ = ("_pieces", "_render")

    def __init__(
        self,
        render: Callable[[bool], bytes],
        pieces: Callable[[bool], list[bytes]] | None = None,
    ) -> None:
        if not callable(render):
            raise TypeError("render is a callable (camel: bool) -> bytes")
        if pieces is not None and not callable(pieces):
            raise TypeError("pieces is a callable (camel: bool) -> list[bytes]")
        self._render = render
        self._pieces = pieces

    def encode(self, camel: bool) -> bytes:
        return self._render(camel)

    def encode_pieces(self, camel: bool) -> list[bytes]:
        """The encoded value in parts (one part when there is no `pieces`)."""
        if self._pieces is None:
            return [self._render(camel)]
        return self._pieces(camel)


class ApiError(Exception):
    """A refusal with its exact status, body and extra headers."""

    def __init__(
        self, status: int, body: JSONObject, headers: list[tuple[str, str]] | None = None
    ) -> None:
        super().__init__(f"{status} {body}")
        self.status = status
        self.body = body
        self.headers = headers or []


def pipeline_error(
    status: int,
    message: str,
    *,
    hint: str | None = None,
    headers: list[tuple[str, str]] | None = None,
) -> ApiError:
    """`{error: {status, message}}`: content type, credentials, IP, idempotency, rate limit."""
    error: JSONObject = {"status": status, "message": message}
    if hint is not None:
        error["hint"] = hint
    return ApiError(status, {"error": error}, headers)


def forbidden(permission: str) -> ApiError:
    """`{error: forbidden, message}`: the key lacks the route's permission."""
    return ApiError(
        403, {"error": "forbidden", "message": f"API key lacks permission: {permission}"}
    )


def detail_error(status: int, detail: str) -> ApiError:
    """`{worked: false, detail}`: the HMAC layer and the transaction query's 404."""
    return ApiError(status, {"worked": False, "detail": detail})


def business_error(status: int, atom: str, message: str | dict[str, list[str]]) -> ApiError:
    """`{worked: false, errors: {<atom>: message}}`: business rules."""
    return ApiError(status, {"worked": False, "errors": {atom: message}})


def bad_request(message: str | dict[str, list[str]]) -> ApiError:
    return business_error(400, "bad_request", message)


def not_found(message: str) -> ApiError:
    return business_error(404, "not_found", message)


def unprocessable(message: str) -> ApiError:
    return business_error(422, "unprocessable_entity", message)


def payment_rejection(
    status: int, code: str, message: str, params: JSONObject | list[Any] | None = None
) -> ApiError:
    """Cash-out Format A: `{status: failed, errors: [{code, message, params}]}`."""
    error = {"code": code, "message": message, "params": {} if params is None else params}
    return ApiError(status, {"worked": False, "status": "failed", "errors": [error]})


def encode_json(body: JSONObject) -> bytes:
    """Compact UTF-8 JSON, the one encoding of every response body (`wire.compact_json`)."""
    return compact_json(body)


#: `encode_json` for any JSON value (a member of a body, a key).
encode_json_value: Final[Callable[[Any], bytes]] = compact_json
