"""The endpoint table: method, path pattern, permission and handler of every route."""

from __future__ import annotations

import random
import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from pixops.engine.http import JSONObject, Reply, bad_request

if TYPE_CHECKING:
    from pixops.engine.core import Engine

PREFIX = "/api/external"


@dataclass
class Context:
    """Everything a route handler may use; the handler runs inside one transaction."""

    engine: Engine
    conn: sqlite3.Connection
    now: datetime
    merchant_id: str
    client_id: str
    params: dict[str, str]
    query: dict[str, list[str]]
    raw_body: JSONObject | list[Any] | str | int | float | bool | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def rng(self) -> random.Random:
        return self.engine.rng

    def body(self) -> JSONObject:
        """The JSON body, which must be an object."""
        if not isinstance(self.raw_body, dict):
            raise bad_request("Request body must be a JSON object")
        return self.raw_body

    def query_value(self, name: str) -> str | None:
        values = self.query.get(name)
        if not values:
            return None
        if len(values) > 1:
            raise bad_request(f"query parameter {name} given more than once")
        return values[0]


Handler = Callable[[Context], Reply]


@dataclass(frozen=True)
class Policy:
    """Which of the pipeline's optional steps a request runs (spec, Order of validation).

    By method unless a route says otherwise: POST is signed (step 5) and idempotent
    (step 7); every route is rate-limited (step 6) except `GET /balance`.
    """

    signed: bool
    rate_limited: bool
    idempotent: bool

    @classmethod
    def for_method(cls, method: str) -> Policy:
        is_post = method == "POST"
        return cls(signed=is_post, rate_limited=True, idempotent=is_post)


@dataclass(frozen=True)
class Route:
    """One endpoint and its policy: the pipeline reads the permission, which optional
    steps run (`policy`) and the query parameters the route takes (any other is
    refused before the handler runs)."""

    method: str
    pattern: str
    permission: str
    handler: Handler
    regex: re.Pattern[str]
    query: frozenset[str] = frozenset()
    #: None means the method's default (`Policy.for_method`), filled in at construction.
    policy: Policy | None = None

    def __post_init__(self) -> None:
        if self.policy is None:
            object.__setattr__(self, "policy", Policy.for_method(self.method))

    @classmethod
    def make(
        cls,
        method: str,
        pattern: str,
        permission: str,
        handler: Handler,
        *,
        query: frozenset[str] = frozenset(),
        rate_limited: bool = True,
    ) -> Route:
        parts = []
        for segment in pattern.strip("/").split("/"):
            if segment.startswith(":"):
                parts.append(f"(?P<{segment[1:]}>[^/]+)")
            else:
                parts.append(re.escape(segment))
        regex = re.compile("^/" + "/".join(parts) + "$")
        policy = Policy(
            signed=method == "POST", rate_limited=rate_limited, idempotent=method == "POST"
        )
        return cls(method, pattern, permission, handler, regex, frozenset(query), policy)


class Router:
    def __init__(self, routes: list[Route]) -> None:
        self.routes = routes

    def resolve(self, method: str, path: str) -> tuple[Route | None, dict[str, str], list[str]]:
        """The route for (method, path) and its decoded params; else the allowed methods."""
        if not path.startswith(PREFIX + "/"):
            return None, {}, []
        local = path[len(PREFIX) :]
        allowed: list[str] = []
        for route in self.routes:
            match = route.regex.match(local)
            if match is None:
                continue
            if route.method == method:
                return route, {k: unquote(v) for k, v in match.groupdict().items()}, []
            allowed.append(route.method)
        return None, {}, allowed
