"""The demo month: deterministic, cached, and a private copy for every caller."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from pixops import demo
from pixops.demo import DEMO_START, demo_month


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A fresh cache folder where these tests build a three-day month: the build, the
    snapshot and the loading are the code the 31 days go through, at a tenth of the CPU
    (the whole month is built by the first `demo_month()` whenever the engine changes).
    The snapshot's fingerprint is computed with the short month, and afresh after."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(demo, "DEMO_DAYS", 3)
        demo._source_fingerprint.cache_clear()
        try:
            yield tmp_path_factory.mktemp("demo-cache")
        finally:
            demo._source_fingerprint.cache_clear()


def _statement_ids(month_cache: Path) -> tuple[list[str], int]:
    month = demo_month(cache_dir=month_cache)
    key = month.api_key
    api = httpx.Client(
        transport=month.sandbox.transport(),
        base_url="http://sandbox/api/external",
        headers={"Authorization": f"ApiKey {key.client_id}:{key.client_secret}"},
    )
    body = api.get("/statement", params={"per_page": 100}).json()
    balance = api.get("/balance").json()["data"]["balance"]
    return [item["id"] for item in body["data"]], balance


def test_the_month_is_built_once_and_then_loaded(cache: Path) -> None:
    first = _statement_ids(cache)
    snapshots = sorted(cache.glob("demo-month-*.sqlite3"))
    assert len(snapshots) == 1
    built_at = snapshots[0].stat().st_mtime_ns
    second = _statement_ids(cache)
    assert second == first
    assert snapshots[0].stat().st_mtime_ns == built_at
    assert len(first[0]) == 100


def test_each_copy_is_private_and_consistent(cache: Path) -> None:
    one = demo_month(cache_dir=cache)
    two = demo_month(cache_dir=cache)
    merchant_id = one.merchant.id
    assert two.merchant.id == merchant_id
    assert one.sandbox.now() > DEMO_START
    one.sandbox.receive_pix(merchant_id, amount_centavos=12_345)
    assert (
        one.sandbox.balance(merchant_id).ledger_base > two.sandbox.balance(merchant_id).ledger_base
    )
    for month in (one, two):
        audit = month.sandbox.audit(merchant_id)
        assert audit.journal_sum_base == audit.balance.ledger_base
