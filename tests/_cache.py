"""Where the tests keep what is costly to make and safe to reuse (the Spark tests' class
archive, the docs site a strict build made): in the virtualenv, as mypy's cache is, never a
user's folder; each entry is named by a fingerprint of what made it."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

TEST_CACHE = Path(sys.prefix) / "pixops-test-cache"


def kept_build(kind: str, fingerprint: str, build: Callable[[Path], None]) -> Path:
    """The folder `build` filled for `fingerprint`, kept in `TEST_CACHE` as
    ``{kind}-{fingerprint}`` and built only when missing. Built beside its place and renamed
    into it: a failed, interrupted or concurrent build never leaves half a result under the
    fingerprint. Entries of the same kind unused for a day go (another checkout may be using
    a newer one)."""
    kept = TEST_CACHE / f"{kind}-{fingerprint}"
    if kept.is_dir():
        os.utime(kept)  # in use: kept while it is
        return kept
    TEST_CACHE.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(dir=TEST_CACHE, prefix=f".{kind}-"))
    try:
        build(building)
        building.rename(kept)
    except OSError:
        if not kept.is_dir():
            raise
    finally:
        shutil.rmtree(building, ignore_errors=True)
    for older in TEST_CACHE.glob(f"{kind}-*"):
        if older != kept and time.time() - older.stat().st_mtime > 86_400:
            shutil.rmtree(older, ignore_errors=True)
    return kept
