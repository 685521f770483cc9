"""The demo month through the client, shared by the frames tests (built once per run)."""

from __future__ import annotations

from typing import Any

import pytest

from pixops.demo import demo_month


@pytest.fixture(scope="session")
def demo_client() -> Any:
    month = demo_month()
    return month.sandbox.client(month.api_key)
