"""The request pipeline: the spec's eight validation steps, in the spec's order.

1 content type, 2 X-Key-Case, 3 credentials, 4 IP whitelist and account, 5 HMAC (POST),
6 rate limiter, 7 idempotency (POST), 8 permission. Steps 5, 6 and 7 run as the route's
`Policy` says: `GET /balance` runs 1, 2, 3, 4, 8; other GET and DELETE run 1, 2, 3, 4,
6, 8; POST runs all eight.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import sqlite3
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from pixops import limits, wire
from pixops.engine import credentials, ipallow, rowcache
from pixops.engine.clock import to_db
from pixops.engine.http import (
    ApiError,
    EncodedJSON,
    JSONObject,
    Reply,
    Request,
    Response,
    bad_request,
    business_error,
    detail_error,
    encode_json,
    encode_json_value,
    forbidden,
    pipeline_error,
)
from pixops.engine.routing import Context, Policy, Route

if TYPE_CHECKING:
    from pixops.engine.core import Engine

BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
ACCEPTED_MEDIA_TYPES = frozenset({"application/json", "multipart/form-data"})
MAX_IDEMPOTENCY_KEY = limits.IDEMPOTENCY_KEY_MAX_CHARS
MAX_BODY_DEPTH = limits.BODY_MAX_DEPTH
JSON_HEADERS = [("content-type", "application/json")]
_PRINTABLE_ASCII = re.compile(r"[\x20-\x7e]*")


@dataclass
class Caller:
    client_id: str
    secret: str
    merchant_id: str
    permissions: frozenset[str]
    hmac_enabled: bool
    ip_whitelist: tuple[str, ...]
    account_active: bool


def check_content_type(request: Request) -> None:
    """Step 1: POST/PUT/PATCH must declare JSON (or multipart) content."""
    if request.method not in BODY_METHODS:
        return
    declared = request.headers.get("content-type")
    media_type = (declared or "").split(";", 1)[0].strip().lower()
    if media_type in ACCEPTED_MEDIA_TYPES:
        return
    received = declared if declared else "none"
    raise pipeline_error(
        415,
        "Unsupported Media Type. Expected Content-Type: application/json",
        hint=f"Received Content-Type: {received}. Send the body as JSON with the "
        "header Content-Type: application/json.",
    )


def read_key_case(request: Request) -> bool:
    """Step 2: True when the caller speaks camelCase keys."""
    value = request.headers.get("x-key-case")
    if value is None or value.strip() in ("", "snake_case"):
        return False
    if value.strip() == "camelCase":
        return True
    raise pipeline_error(400, "X-Key-Case must be camelCase or snake_case")


def authenticate(engine: Engine, request: Request) -> Caller:
    """Step 3: credentials; missing, invalid, inactive or expired gives 401."""
    try:
        client_id, secret = credentials.parse_authorization(request.headers.get("authorization"))
    except credentials.MissingCredentialsError:
        raise pipeline_error(
            401,
            "Missing API key credentials. Use Authorization: ApiKey <client_id>:<client_secret>",
        ) from None
    except credentials.MalformedCredentialsError:
        raise pipeline_error(401, "Invalid API key credentials") from None
    # The account's active flag comes along (step 4 reads it) to save a query per request;
    # the row is remembered until anything could have changed it (`rowcache`).
    row = rowcache.key_row(engine.store.conn, client_id)
    matches = credentials.secret_matches(secret, None if row is None else row["secret_sha256"])
    if not matches or row is None:  # an unknown key never matches (secret_matches says so)
        raise pipeline_error(401, "Invalid API key credentials")
    if not row["active"]:
        raise pipeline_error(401, "API key is inactive")
    if row["expires_at"] is not None and row["expires_at"] <= to_db(engine.clock.now()):
        raise pipeline_error(401, "API key has expired")
    return Caller(
        client_id=client_id,
        secret=secret,
        merchant_id=row["merchant_id"],
        permissions=_permissions(row["permissions"]),
        hmac_enabled=bool(row["hmac_enabled"]),
        ip_whitelist=_whitelist(row["ip_whitelist"]),
        account_active=bool(row["account_active"]),
    )


# Pure functions of stored text or addresses, cached: every request of a key repeats them.
@functools.lru_cache(maxsize=4096)
def _permissions(stored: str) -> frozenset[str]:
    return frozenset(json.loads(stored))


@functools.lru_cache(maxsize=4096)
def _whitelist(stored: str) -> tuple[str, ...]:
    return tuple(json.loads(stored))


@functools.lru_cache(maxsize=4096)
def _client_address(peer: str, forwarded_for: str | None, trusted: frozenset[str]) -> str:
    return ipallow.client_address(peer, forwarded_for, trusted)


@functools.lru_cache(maxsize=4096)
def _whitelisted(whitelist: tuple[str, ...], address: str) -> bool:
    return ipallow.allowed(list(whitelist), address)


def check_ip_and_account(engine: Engine, request: Request, caller: Caller) -> str:
    """Step 4: the whitelist (never empty) and the account's active flag; returns the IP."""
    whitelist = caller.ip_whitelist
    address = _client_address(
        request.peer, request.headers.get("x-forwarded-for"), engine.config.trusted_proxies
    )
    if not whitelist:
        raise pipeline_error(
            403,
            "IP whitelist required. Configure at least one allowed IP to use this API key.",
        )
    if not _whitelisted(whitelist, address):
        raise pipeline_error(403, "Request IP not in API key whitelist")
    if not caller.account_active:
        raise pipeline_error(403, "Account is not active")
    return address


def check_hmac(request: Request, caller: Caller) -> Any:
    """Step 5 (POST): the body's signature; returns the parsed JSON body."""
    if not caller.hmac_enabled:
        raise detail_error(403, "HMAC secret not configured for this API key")
    signature = request.headers.get("hmac")
    if signature is None or not signature.strip():
        raise detail_error(401, "Missing HMAC header")
    if not request.body.strip():
        raise detail_error(400, "Request body is required for HMAC validation")
    try:
        # Strict: duplicate keys, NaN and invalid UTF-8 are refused, so the signed
        # document means one thing to every parser.
        parsed = wire.parse_strict(request.body)
        signature = signature.strip()
        if wire.verify(request.body, caller.secret, signature):
            return parsed
        canonical = wire.canonical_json(parsed)
    except (ValueError, RecursionError):
        raise detail_error(400, "Request body must be valid JSON for HMAC validation") from None
    if not wire.verify(canonical, caller.secret, signature):
        raise detail_error(401, "Invalid HMAC signature")
    return parsed


def check_rate(engine: Engine, address: str) -> int:
    """Step 6: fixed windows per IP; the requests left, or 429."""
    remaining = engine.limiter.hit(address, engine.clock.now())
    if remaining is None:
        raise pipeline_error(
            429, "Too many requests. Please try again later.", headers=[("retry-after", "60")]
        )
    return remaining


def read_idempotency_key(request: Request) -> str | None:
    """Step 7, first half: the key's format."""
    key = request.headers.get("idempotency-key")
    if key is None:
        return None
    if not _PRINTABLE_ASCII.fullmatch(key):
        # Header bytes arrive latin-1 decoded: a UTF-8 "é" would count as two characters.
        # Refusing non-ASCII keeps bytes and characters one and the same (RFC 9110 obs-text).
        raise pipeline_error(
            400, "Idempotency-Key must be printable ASCII characters (space to tilde)"
        )
    if len(key) > MAX_IDEMPOTENCY_KEY:
        raise pipeline_error(
            400, f"Idempotency-Key must be at most {MAX_IDEMPOTENCY_KEY} characters"
        )
    if not key.strip():
        raise pipeline_error(400, "Idempotency-Key must not be empty")
    return key


def fingerprint(request: Request) -> str:
    try:
        material = wire.canonicalize(request.body)
    except ValueError:
        material = request.body
    return hashlib.sha256(material).hexdigest()


def find_replay(engine: Engine, caller: Caller, request: Request, key: str) -> sqlite3.Row | None:
    """Step 7, second half: a cached 2xx for (merchant, method, path, key) within 24 h.

    Scoped by merchant, not by API key: the spec's (method, path, key) per account, so
    two keys of one merchant never execute one request twice, and two merchants never
    see each other's responses."""
    oldest = to_db(engine.clock.now() - timedelta(seconds=engine.config.idempotency_ttl_seconds))
    row: sqlite3.Row | None = engine.store.conn.execute(
        "SELECT * FROM idempotency WHERE merchant_id = ? AND method = ? AND path = ? AND key = ?"
        " AND created_at > ?",
        (caller.merchant_id, request.method, request.path, key, oldest),
    ).fetchone()
    if row is not None and row["fingerprint"] != fingerprint(request):
        raise pipeline_error(422, "Idempotency-Key was already used with a different request body")
    return row


def remember(
    engine: Engine, caller: Caller, request: Request, key: str, status: int, body: bytes
) -> None:
    engine.store.conn.execute(
        "INSERT OR REPLACE INTO idempotency (merchant_id, method, path, key, fingerprint,"
        " status, body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            caller.merchant_id,
            request.method,
            request.path,
            key,
            fingerprint(request),
            status,
            body,
            to_db(engine.clock.now()),
        ),
    )


def route_body(parsed: Any, camel: bool) -> Any:
    """The body as the route sees it: bounded nesting, snake_case keys; else a clear 400."""
    if not wire.nests_within(parsed, MAX_BODY_DEPTH):
        raise bad_request(f"Request body nests deeper than {MAX_BODY_DEPTH} levels")
    if not camel:
        return parsed
    try:
        return wire.snakify_keys(parsed)
    except wire.WireError as error:
        raise bad_request(f"Request body {error}") from None


def check_permission(route: Route, caller: Caller) -> None:
    """Step 8."""
    if route.permission not in caller.permissions:
        raise forbidden(route.permission)


def check_query_names(route: Route, query: dict[str, list[str]]) -> None:
    """After step 8: a route that takes no query parameters refuses any, naming each.

    Routes that take some (`route.query`) read them with a parser that reports unknown
    names together with bad values, every problem at once."""
    if query and not route.query:
        raise bad_request({name: ["is not a known parameter"] for name in sorted(query)})


def encode_body(body: JSONObject, camel: bool) -> bytes:
    """A reply's bytes, keys in camelCase when asked; an `EncodedJSON` member (top level
    only) is spliced in as rendered, which gives the bytes the plain value would."""
    if not any(isinstance(value, EncodedJSON) for value in body.values()):
        if camel:
            converted = wire.camelize_keys(body)
            assert isinstance(converted, dict)
            body = converted
        return encode_json(body)
    # One join for the whole body: a page's spliced items can be hundreds of kilobytes,
    # copied once here rather than once per concatenation.
    pieces: list[bytes] = []
    for key, value in body.items():
        name = wire.to_camel(key) if camel else key
        pieces += (b",", encode_json_value(name), b":")
        if isinstance(value, EncodedJSON):
            pieces += value.encode_pieces(camel)
        else:
            pieces.append(encode_json_value(wire.camelize_keys(value) if camel else value))
    pieces[0] = b"{"
    pieces.append(b"}")
    return b"".join(pieces)


def run(
    engine: Engine,
    request: Request,
    route: Route | None,
    params: dict[str, str],
    allowed_methods: list[str],
) -> Response:
    """All steps for one request, then the route; refusals become their error shape."""
    camel = False
    headers: list[tuple[str, str]] = []
    try:
        check_content_type(request)
        camel = read_key_case(request)
        return _authorized(engine, request, route, params, allowed_methods, camel, headers)
    except ApiError as error:
        body_object = error.body
        if camel:
            converted = wire.camelize_keys(body_object)
            assert isinstance(converted, dict)
            body_object = converted
        return Response(
            error.status, [*JSON_HEADERS, *error.headers, *headers], encode_json(body_object)
        )


def _authorized(
    engine: Engine,
    request: Request,
    route: Route | None,
    params: dict[str, str],
    allowed_methods: list[str],
    camel: bool,
    error_headers: list[tuple[str, str]],
) -> Response:
    # The route's policy; a request no route answers is treated by its method.
    policy = (route.policy if route is not None else None) or Policy.for_method(request.method)
    caller = authenticate(engine, request)
    address = check_ip_and_account(engine, request, caller)
    parsed: Any = None
    if policy.signed:
        parsed = check_hmac(request, caller)
    remaining = check_rate(engine, address) if policy.rate_limited else None
    key = read_idempotency_key(request) if policy.idempotent else None
    success_headers: list[tuple[str, str]] = []
    if remaining is not None:
        success_headers.append(("x-ratelimit-remaining", str(remaining)))
    if key is not None:
        success_headers.append(("idempotency-key", key))
        error_headers.append(("idempotency-key", key))
        replay = find_replay(engine, caller, request, key)
        if replay is not None:
            headers = [*JSON_HEADERS, *success_headers, ("x-idempotent-replay", "true")]
            return Response(int(replay["status"]), headers, bytes(replay["body"]))
    if route is None:
        if allowed_methods:
            raise ApiError(
                405,
                {
                    "worked": False,
                    "errors": {
                        "method_not_allowed": f"{request.method} is not allowed on {request.path}"
                    },
                },
                [("allow", ", ".join(sorted(set(allowed_methods))))],
            )
        raise business_error(404, "not_found", f"No route for {request.method} {request.path}")
    check_permission(route, caller)
    query = request.query_params() if request.query else {}
    check_query_names(route, query)
    if parsed is not None:
        parsed = route_body(parsed, camel)
    context = Context(
        engine=engine,
        conn=engine.store.conn,
        now=engine.clock.now(),
        merchant_id=caller.merchant_id,
        client_id=caller.client_id,
        params=params,
        query=query,
        raw_body=parsed,
    )
    reply: Reply = route.handler(context)
    body = encode_body(reply.body, camel)
    if not 200 <= reply.status < 300:
        return Response(reply.status, [*JSON_HEADERS, *reply.headers, *error_headers], body)
    if key is not None:
        remember(engine, caller, request, key, reply.status, body)
    return Response(reply.status, [*JSON_HEADERS, *reply.headers, *success_headers], body)
