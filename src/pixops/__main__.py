"""`python -m pixops`: the same command line as `pixops`."""

from __future__ import annotations

from pixops.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
