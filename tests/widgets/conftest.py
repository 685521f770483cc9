"""Panels under test: a private copy of the demo month and a client whose requests are recorded."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import httpx
import pytest

from pixops.client import Client
from pixops.demo import DemoMonth, demo_month

Call = tuple[str, str, dict[str, str], Any]


class Recorder(httpx.BaseTransport):
    """Wraps a transport and keeps (method, path, query, JSON body) of every request."""

    def __init__(self, inner: httpx.BaseTransport) -> None:
        self.inner = inner
        self.calls: list[Call] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content) if request.content else None
        path = request.url.path.removeprefix("/api/external")
        self.calls.append((request.method, path, dict(request.url.params), body))
        return self.inner.handle_request(request)


@dataclass
class Desk:
    """The demo month, a `pixops.Client` on it, and the requests that client sent."""

    month: DemoMonth
    client: Client
    recorder: Recorder = field(repr=False)

    def now(self) -> datetime:
        return self.month.sandbox.now()

    def posts(self) -> list[tuple[str, Any]]:
        return [(path, body) for method, path, _, body in self.recorder.calls if method == "POST"]

    def mark(self) -> int:
        return len(self.recorder.calls)

    def calls_since(self, mark: int) -> list[Call]:
        return self.recorder.calls[mark:]


def new_desk() -> Desk:
    """A private demo month and a recording client on it."""
    month = demo_month()
    recorder = Recorder(month.sandbox.transport())
    client = month.sandbox.client(month.api_key, http_client=httpx.Client(transport=recorder))
    return Desk(month, client, recorder)


@pytest.fixture
def desk() -> Desk:
    return new_desk()


@pytest.fixture
def fresh_desk() -> Desk:
    """A test's own desk, for the tests that write in a module whose `desk` is shared."""
    return new_desk()


@pytest.fixture(scope="session")
def worker_desk() -> Desk:
    """One desk for every test that only reads the month, in all the widget modules a
    pytest(-xdist) worker runs: its client's cache of finished statement days
    (`pixops.widgets._reads`) is filled once (~0.7 s of CPU for the month), not once a
    module or a test."""
    return new_desk()


@pytest.fixture
def reading_desk(worker_desk: Desk) -> Iterator[Desk]:
    """The worker's shared desk, for a test that only reads: one that sent a write
    (anything but GET), moved the clock or changed a row of the month (through the
    sandbox too) fails, as it would change what the other tests on it see."""
    store = worker_desk.month.sandbox.engine.store.conn
    mark, clock, changes = worker_desk.mark(), worker_desk.now(), store.total_changes
    yield worker_desk
    assert worker_desk.now() == clock, "a test on the shared desk moved its clock"
    assert store.total_changes == changes, "a test on the shared desk changed its month"
    writes = [(method, path) for method, path, _, _ in worker_desk.calls_since(mark)
              if method != "GET"]  # fmt: skip
    assert writes == [], f"a test on the shared desk wrote: {writes}; give it `fresh_desk`"


class Failing(httpx.BaseTransport):
    """Wraps a transport; while `answer` is set, requests whose path contains `where`
    fail: `"down"` as an unreachable service, else with that HTTP status."""

    def __init__(self, inner: httpx.BaseTransport) -> None:
        self.inner = inner
        self.answer: int | str | None = None
        self.where = "/"

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if self.answer is None or self.where not in request.url.path:
            return self.inner.handle_request(request)
        if self.answer == "down":
            raise httpx.ConnectError("connection refused", request=request)
        body = {"error": {"message": f"failed with {self.answer}"}}
        return httpx.Response(int(self.answer), json=body, request=request)


def failing_client(desk: Desk) -> tuple[Client, Failing]:
    """A client on the desk's month whose requests fail when told to (no retries)."""
    from pixops.client import NO_RETRY

    transport = Failing(desk.month.sandbox.transport())
    client = desk.month.sandbox.client(
        desk.month.api_key, http_client=httpx.Client(transport=transport), retry=NO_RETRY
    )
    return client, transport


@pytest.fixture
def failing(desk: Desk) -> tuple[Client, Failing]:
    """A client on the demo month whose requests fail when told to (no retries)."""
    return failing_client(desk)
