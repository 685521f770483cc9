"""The demo month: one seeded sandbox holding a realistic month, identical on every machine.

    from pixops.demo import demo_month
    month = demo_month()              # built once (~7 s), then loaded from a cache in ~0.1 s
    month.sandbox, month.merchant, month.api_key

The notebooks, the sample ledger in `data/` and the documentation all describe this
month: January 2026 in São Paulo, simulated with `Sandbox.simulate` from a fixed seed.
The snapshot is cached under ``$PIXOPS_CACHE_DIR`` (default ``~/.cache/pixops``), keyed
by a hash of the engine's source, so a changed engine never serves a stale month. Every
call returns a fresh in-memory copy: what one notebook does never leaks into another.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import sqlite3
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from pixops.sandbox import ApiKey, Merchant, Sandbox

#: The seed of the simulated month; the same seed always gives the same transactions.
DEMO_SEED = 7
#: 2026-01-01 00:00 in America/Sao_Paulo (UTC-3): the month starts on a business-day boundary.
DEMO_START = datetime(2026, 1, 1, 3, 0, tzinfo=UTC)
DEMO_DAYS = 31
#: Ids drawn after loading come from another seed, so they never repeat the month's ids.
_AFTER_LOAD_SEED = DEMO_SEED + 1_000_003

_PACKAGE = Path(__file__).resolve().parent
#: Layers above the engine: changing them cannot change the month.
_NOT_IN_FINGERPRINT = frozenset({"client", "schema", "frames", "recon", "widgets", "webhooks"})


@dataclass(frozen=True)
class DemoMonth:
    """The seeded sandbox, its merchant, and a fresh API key with every permission."""

    sandbox: Sandbox
    merchant: Merchant
    api_key: ApiKey


def demo_month(*, cache_dir: str | Path | None = None) -> DemoMonth:
    """A fresh in-memory sandbox holding the demo month (built and cached on first use)."""
    snapshot, meta = _snapshot(_cache_dir(cache_dir))
    sandbox = Sandbox(seed=_AFTER_LOAD_SEED, start=datetime.fromisoformat(meta["now"]))
    with contextlib.closing(sqlite3.connect(snapshot)) as source:
        sandbox.engine.store.restore_from(source)
    merchant = sandbox.merchant(meta["merchant_id"])
    return DemoMonth(sandbox, merchant, sandbox.issue_api_key(merchant.id))


def _cache_dir(given: str | Path | None) -> Path:
    if given is not None:
        return Path(given)
    configured = os.environ.get("PIXOPS_CACHE_DIR")
    return Path(configured) if configured else Path.home() / ".cache" / "pixops"


@functools.cache
def _source_fingerprint() -> str:
    """A hash of every module that shapes the month: any change to them rebuilds it.

    Read once per process: the installed sources do not change under a running kernel."""
    digest = hashlib.sha256(f"{DEMO_SEED}/{DEMO_START.isoformat()}/{DEMO_DAYS}".encode())
    for path in sorted(_PACKAGE.rglob("*.py")):
        if path.relative_to(_PACKAGE).parts[0] in _NOT_IN_FINGERPRINT:
            continue
        digest.update(path.relative_to(_PACKAGE).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _snapshot(directory: Path) -> tuple[Path, dict[str, str]]:
    """The cached database and its metadata, building both when missing."""
    fingerprint = _source_fingerprint()
    database = directory / f"demo-month-{fingerprint}.sqlite3"
    meta_path = directory / f"demo-month-{fingerprint}.json"
    if database.exists() and meta_path.exists():
        meta: dict[str, str] = json.loads(meta_path.read_text())
        return database, meta
    directory.mkdir(parents=True, exist_ok=True)
    sandbox = Sandbox(seed=DEMO_SEED, start=DEMO_START)
    summary = sandbox.simulate(days=DEMO_DAYS, seed=DEMO_SEED)
    meta = {"merchant_id": summary.merchant.id, "now": sandbox.now().isoformat()}
    # Written to temporary names, then renamed: a concurrent builder (two notebooks
    # started at once) or an interrupted one never leaves a half-written snapshot.
    handle, temporary = tempfile.mkstemp(dir=directory, suffix=".sqlite3.tmp")
    os.close(handle)
    store = sandbox.engine.store
    with store.lock, sqlite3.connect(temporary) as target:
        store.conn.backup(target)
    os.replace(temporary, database)
    handle, temporary = tempfile.mkstemp(dir=directory, suffix=".json.tmp")
    with os.fdopen(handle, "w") as out:
        json.dump(meta, out)
    os.replace(temporary, meta_path)
    return database, meta
