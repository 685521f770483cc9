"""Panels under test: a private copy of the demo month and a client whose requests are recorded."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pytest
from tests.widgets._scaffold import Recorder, ScaffoldClient

from pixops.demo import DemoMonth, demo_month


@dataclass
class Desk:
    """The demo month, a client on it, and the requests that client sent."""

    month: DemoMonth
    client: Any
    recorder: Recorder

    def now(self) -> datetime:
        return self.month.sandbox.now()

    def posts(self) -> list[tuple[str, Any]]:
        return self.recorder.posts()

    def mark(self) -> int:
        return len(self.recorder.calls)

    def calls_since(self, mark: int) -> list[tuple[str, str, dict[str, str], Any]]:
        return self.recorder.calls[mark:]


@pytest.fixture
def desk() -> Iterator[Desk]:
    month = demo_month()
    client = ScaffoldClient(month.sandbox, month.api_key)
    return Desk(month, client, client.recorder)
