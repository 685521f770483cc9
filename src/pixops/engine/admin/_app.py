"""The test helpers as a request handler mounted on the engine under `/sandbox/v1`.

Authentication is one admin token (`Authorization: Bearer <token>`), printed by
`pixops serve` at start-up. A server that does not run as a sandbox (`--production`)
mounts the helpers disabled: every request gets a 403 saying so. Errors use the
engine's shapes: `{error: {status, message}}` for the token and the content type,
`{worked: false, errors: {<atom>: …}}` for everything about the request itself.
"""

from __future__ import annotations

import hmac
import logging
import secrets
from typing import TYPE_CHECKING

from pixops.engine.admin._fields import parse_body
from pixops.engine.admin._routes import PREFIX, HelperRoute, resolve
from pixops.engine.admin._world import SandboxWorld
from pixops.engine.http import (
    ApiError,
    JSONObject,
    Reply,
    Request,
    Response,
    bad_request,
    business_error,
    encode_json,
    pipeline_error,
    unprocessable,
)

if TYPE_CHECKING:
    from pixops.engine.core import Engine

log = logging.getLogger("pixops.engine.admin")

TOKEN_PREFIX = "adm_"  # noqa: S105 (a prefix, not a secret)
_JSON = [("content-type", "application/json")]
_MISSING = "Missing admin token. Use Authorization: Bearer <admin token> (printed by pixops serve)"
_DISABLED = (
    "Sandbox test helpers are disabled: this server runs with --production, not as a sandbox"
)


def new_admin_token() -> str:
    """A fresh admin token: `adm_` and 43 URL-safe characters (256 random bits)."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


class TestHelpers:
    """Answers requests under `/sandbox/v1/` for one sandbox; never raises."""

    __test__ = False  # a name pytest would otherwise try to collect

    def __init__(self, sandbox: SandboxWorld, token: str | None) -> None:
        """`token` None means the server is not a sandbox: every helper is refused."""
        if token is not None and (not isinstance(token, str) or len(token) < 32):
            raise ValueError("the admin token must be a string of at least 32 characters")
        self.sandbox = sandbox
        self._token = None if token is None else token.encode("utf-8")

    @property
    def enabled(self) -> bool:
        return self._token is not None

    def mount(self, engine: Engine) -> None:
        """Serve these helpers from `engine.handle` for every path under `/sandbox/v1/`."""
        engine.mounts[PREFIX + "/"] = self

    def __call__(self, request: Request) -> Response:
        try:
            reply = self._answer(request)
        except ApiError as error:
            return Response(error.status, [*_JSON, *error.headers], encode_json(error.body))
        except Exception:
            log.exception("unexpected fault on %s %s", request.method, request.path)
            body = {"error": {"status": 500, "message": "Internal server error"}}
            return Response(500, list(_JSON), encode_json(body))
        return Response(reply.status, list(_JSON), encode_json(reply.body))

    def _answer(self, request: Request) -> Reply:
        if self._token is None:
            raise pipeline_error(403, _DISABLED)
        self._authenticate(request.headers.get("authorization"))
        route, params, allowed = resolve(request.method, request.path[len(PREFIX) :])
        if route is None:
            if allowed:
                raise ApiError(
                    405,
                    {
                        "worked": False,
                        "errors": {
                            "method_not_allowed": f"{request.method} is not allowed on "
                            f"{request.path}"
                        },
                    },
                    [("allow", ", ".join(sorted(set(allowed))))],
                )
            raise business_error(404, "not_found", f"No route for {request.method} {request.path}")
        if request.query:
            raise bad_request("The test helpers take no query parameters")
        body = self._body(request, route)
        try:
            if not route.atomic:
                return route.helper(self.sandbox, params, body)
            with self.sandbox.engine.store.transaction():
                return route.helper(self.sandbox, params, body)
        except ValueError as refusal:
            raise unprocessable(str(refusal)) from None

    def _authenticate(self, authorization: str | None) -> None:
        assert self._token is not None
        if not authorization:
            raise pipeline_error(401, _MISSING)
        scheme, _, token = authorization.strip().partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise pipeline_error(401, _MISSING)
        offered = token.strip().encode("latin-1", errors="replace")
        if not hmac.compare_digest(offered, self._token):
            raise pipeline_error(401, "Invalid admin token")

    @staticmethod
    def _body(request: Request, route: HelperRoute) -> JSONObject:
        if request.method != "POST":
            if request.body:
                raise bad_request(f"{request.method} takes no body")
            return {}
        if request.body.strip():
            declared = request.headers.get("content-type") or ""
            if declared.split(";", 1)[0].strip().lower() != "application/json":
                raise pipeline_error(
                    415,
                    "Unsupported Media Type. Expected Content-Type: application/json",
                    hint=f"Received Content-Type: {declared or 'none'}.",
                )
        return parse_body(request.body, route.fields)
