"""The engine: one entry point from (method, target, headers, body, peer) to a response."""

from __future__ import annotations

import functools
import logging
import random
import sqlite3
import threading
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from pixops.engine import notifications, openapi, pipeline, scheduler
from pixops.engine.clock import Clock, ManualClock, http_date, last_recorded
from pixops.engine.config import EngineConfig
from pixops.engine.durability import DurabilityError
from pixops.engine.http import Request, Response, encode_json
from pixops.engine.lanes import Lanes
from pixops.engine.ratelimit import RateLimiter
from pixops.engine.routes import ROUTES
from pixops.engine.routing import PREFIX, Route, Router
from pixops.engine.store import Store

if TYPE_CHECKING:
    from pixops.engine.events import Event

log = logging.getLogger("pixops.engine")

EventHook = Callable[["Engine", sqlite3.Connection, "Event"], None]
_JSON = [("content-type", "application/json")]


class _RollbackError(Exception):
    def __init__(self, response: Response) -> None:
        self.response = response


class Engine:
    """The service. Thread-safe: requests and timers serialise on the store's lock."""

    def __init__(
        self,
        *,
        store: Store | None = None,
        clock: Clock | None = None,
        config: EngineConfig | None = None,
        seed: int | None = 0,
    ) -> None:
        self.store = store or Store()
        self.clock: Clock = clock or ManualClock()
        self.config = config or EngineConfig()
        with self.store.transaction(write=False) as conn:
            stopped = last_recorded(conn)
        # A seed makes a fresh database's ids repeatable; replayed over the rows it made
        # before a restart, it would make the same ids again.
        self.rng = random.Random(seed if stopped is None else None)  # noqa: S311 - ids only
        self.limiter = RateLimiter(self.config.rate_limit_per_minute)
        self.router = Router(ROUTES)
        self._static = (self.router, static_routes(self.router))
        self.event_hooks: list[EventHook] = [notifications.fan_out]
        #: Public documents by path, each answering from the request's query.
        self.public_documents: dict[str, Callable[[dict[str, list[str]]], Response]] = {
            openapi.PATH: functools.partial(openapi.served_document, self.config.service_ispb)
        }
        # Handlers for paths outside /api/external, by prefix (server mode's test helpers).
        self.mounts: dict[str, Callable[[Request], Response]] = {}
        self._work_ready = threading.Event()
        #: This engine's timer kinds: the standard ones; tests may register more.
        self.timers = scheduler.Timers.standard()
        #: Concurrent webhook delivery under the wall clock; None (inline, deterministic)
        #: under the manual clock.
        self.delivery_lanes: Lanes | None = (
            None if isinstance(self.clock, ManualClock) else Lanes(self.config.webhook_workers)
        )
        # A manual clock on a database used before goes on from its newest record, never
        # back: what is written after a restart must not predate what was written before.
        clock = self.clock
        if isinstance(clock, ManualClock) and stopped is not None and stopped > clock.now():
            clock.set(stopped)

    def handle(
        self,
        method: str,
        target: str,
        headers: list[tuple[str, str]],
        body: bytes,
        peer: str,
    ) -> Response:
        """Answer one HTTP request, once what it wrote or read is durable. Never raises;
        an unexpected fault is a logged 500."""
        response, point = self.handle_deferred(method, target, headers, body, peer)
        try:
            self.store.wait_durable(point)
        except DurabilityError:
            return outcome_unknown()
        return response

    async def handle_async(
        self,
        method: str,
        target: str,
        headers: list[tuple[str, str]],
        body: bytes,
        peer: str,
    ) -> Response:
        """`handle` for an event loop: the engine runs at once (it is short and holds the
        store's lock), then the answer waits for the group commit's fsync without
        blocking the loop, so other requests run and share that fsync."""
        response, point = self.handle_deferred(method, target, headers, body, peer)
        try:
            await self.store.durable(point)
        except DurabilityError:
            return outcome_unknown()
        return response

    def handle_deferred(
        self,
        method: str,
        target: str,
        headers: list[tuple[str, str]],
        body: bytes,
        peer: str,
    ) -> tuple[Response, int]:
        """The answer and the store's commit point it must not be sent before (see
        `Store.commit_point`): callers wait for it, as `handle` and `handle_async` do.

        Every answer carries a ``Date`` header on the engine's clock (RFC 9110 §6.6.1): a
        client reads the service's time from it, the sandbox's virtual time included."""
        response, point = self._answer(method, target, headers, body, peer)
        return self.dated(response), point

    def dated(self, response: Response) -> Response:
        """The answer with its ``Date`` on the engine's clock (also for an answer given
        before the engine is reached, as the ASGI app's early 413)."""
        dated = [*response.headers, ("date", http_date(self.clock.now()))]
        return Response(response.status, dated, response.body)

    def _answer(
        self,
        method: str,
        target: str,
        headers: list[tuple[str, str]],
        body: bytes,
        peer: str,
    ) -> tuple[Response, int]:
        request = Request.build(method, target, headers, body, peer)
        if len(body) > self.config.max_body_bytes:
            return too_large(self.config.max_body_bytes), 0
        if self.store.failed:
            return outcome_unknown(), 0
        for prefix, mounted in self.mounts.items():
            if request.path.startswith(prefix):
                response = mounted(request)
                with self.store.lock:
                    return response, self.store.commit_point()
        document = self.public_documents.get(request.path)
        if document is not None and request.method == "GET":
            return document(request.query_params()), 0
        route, params, allowed = self._resolve(request.method, request.path)
        seen: int | None = None
        try:
            with self.store.lock:
                try:
                    # A GET only reads: it never takes the write lock (another server
                    # process on the same file keeps writing meanwhile).
                    with self.store.transaction(write=request.method != "GET") as conn:
                        # The snapshot this request reads (reading it begins it): what its
                        # answer must wait for, and what rows kept in memory must match.
                        seen = conn.read_version = self.store.snapshot_version()
                        try:
                            response = pipeline.run(self, request, route, params, allowed)
                        finally:
                            conn.read_version = None
                        if not 200 <= response.status < 300:
                            raise _RollbackError(response)
                except _RollbackError as rollback:
                    response = rollback.response
                point = self.store.commit_point(seen)
        except sqlite3.Error as error:
            if not storage_unavailable(error):
                log.exception("unexpected fault on %s %s", request.method, request.path)
                return internal_error(), 0
            self._abandon_transaction()
            log.warning("storage unavailable on %s %s: %s", request.method, request.path, error)
            return service_unavailable(), 0
        except Exception:
            log.exception("unexpected fault on %s %s", request.method, request.path)
            return internal_error(), 0
        if not self._work_ready.is_set():
            self._work_ready.set()
        return response, point

    def _abandon_transaction(self) -> None:
        """After a failed COMMIT SQLite may keep the transaction open: end it, so the next
        request starts clean and nothing of this one is kept."""
        with self.store.lock:
            if self.store.conn.in_transaction:
                self.store.conn.execute("ROLLBACK")

    def _resolve(self, method: str, path: str) -> tuple[Route | None, dict[str, str], list[str]]:
        """The router's answer; paths without parameters come from a dict built per router."""
        router, static = self._static
        if router is not self.router:
            static = static_routes(self.router)
            self._static = (self.router, static)
        route = static.get((method, path))
        if route is not None:
            return route, {}, []
        return self.router.resolve(method, path)

    def now(self) -> datetime:
        return self.clock.now()

    def advance(self, seconds: int) -> int:
        """Manual clock only: move time forward, running every timer that falls due."""
        if not isinstance(self.clock, ManualClock):
            raise TypeError("advance() needs the manual clock; server mode follows real time")
        if isinstance(seconds, bool) or not isinstance(seconds, int) or seconds < 0:
            raise ValueError("seconds must be a non-negative integer")
        target = self.clock.now() + timedelta(seconds=seconds)
        ran = scheduler.run_due(self, target)
        self.clock.set(target)
        return ran

    def run_due(self) -> int:
        """Run what is due now (the server's worker calls this)."""
        return scheduler.run_due(self, self.clock.now())

    def close(self) -> None:
        """Stop the delivery threads (letting queued attempts finish)."""
        if self.delivery_lanes is not None:
            self.delivery_lanes.shutdown(wait=True)

    def wait_for_work(self, timeout_s: float) -> None:
        self._work_ready.wait(timeout_s)
        self._work_ready.clear()


def static_routes(router: Router) -> dict[tuple[str, str], Route]:
    """(method, full path) of every route without parameters whose path the router itself
    resolves to that route (so the shortcut can never disagree with the router)."""
    found: dict[tuple[str, str], Route] = {}
    for route in router.routes:
        path = PREFIX + route.pattern
        if ":" not in route.pattern and router.resolve(route.method, path)[0] is route:
            found[(route.method, path)] = route
    return found


def too_large(limit: int) -> Response:
    body = {
        "error": {"status": 413, "message": f"Request body too large; the limit is {limit} bytes"}
    }
    return Response(413, list(_JSON), encode_json(body))


#: SQLite result codes (and their extended forms) that mean the storage failed, not the
#: request: the disk is full, the database read-only, locked by another process past the
#: busy timeout, or unreadable. The request rolled back; retrying later can succeed.
_STORAGE_FAULTS = (
    "SQLITE_FULL",
    "SQLITE_READONLY",
    "SQLITE_BUSY",
    "SQLITE_LOCKED",
    "SQLITE_IOERR",
    "SQLITE_CANTOPEN",
)
#: Seconds a caller should wait before retrying after a storage fault.
STORAGE_RETRY_AFTER_S = 30


def storage_unavailable(error: sqlite3.Error) -> bool:
    name = getattr(error, "sqlite_errorname", None) or ""
    return any(name == code or name.startswith(code + "_") for code in _STORAGE_FAULTS)


def service_unavailable() -> Response:
    body = {
        "error": {
            "status": 503,
            "message": "Storage temporarily unavailable; nothing was written. Retry later.",
        }
    }
    headers = [*_JSON, ("retry-after", str(STORAGE_RETRY_AFTER_S))]
    return Response(503, headers, encode_json(body))


def outcome_unknown() -> Response:
    """The log's fsync failed: what was committed may not be on disk. Said plainly, so a
    client resends with its Idempotency-Key once the server is back (a replay if the
    first attempt survived, a first execution if it did not)."""
    body = {
        "error": {
            "status": 503,
            "message": "Storage failed; the outcome of this request is unknown. Retry later"
            " with the same Idempotency-Key.",
        }
    }
    headers = [*_JSON, ("retry-after", str(STORAGE_RETRY_AFTER_S))]
    return Response(503, headers, encode_json(body))


def internal_error() -> Response:
    body = {"error": {"status": 500, "message": "Internal server error"}}
    return Response(500, list(_JSON), encode_json(body))
