"""The demo month through the client, shared by the frames tests (built once per run)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from pixops.demo import demo_month
from pixops.frames import load_statement


@pytest.fixture(scope="session")
def demo_client() -> Any:
    month = demo_month()
    return month.sandbox.client(month.api_key)


@pytest.fixture(scope="module")
def day(demo_client: Any) -> pd.DataFrame:
    """The statement of 15/01/2026, a São Paulo business day (the planted discrepancies')."""
    return load_statement(
        demo_client, "2026-01-15", "2026-01-15", tz="America/Sao_Paulo", progress=False
    )
