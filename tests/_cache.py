"""Where the tests keep what is costly to make and safe to reuse (the Spark tests' class
archive, the docs site a strict build made): in the virtualenv, as mypy's cache is, never a
user's folder; each entry is named by a fingerprint of what made it."""

from __future__ import annotations

import sys
from pathlib import Path

TEST_CACHE = Path(sys.prefix) / "pixops-test-cache"
