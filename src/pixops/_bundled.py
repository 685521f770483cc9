"""The notebooks and sample data pixops ships, wherever this pixops was installed from.

A wheel carries them as package data in ``pixops/_bundle/`` (copied there at build time
by ``setup.py`` from the checkout's ``notebooks/`` and ``data/``, which stay the one
canonical copy); an editable install of the checkout reads them where they are. Either
way the layout is the same, ``notebooks/`` beside ``data/``, so the notebooks' relative
paths (``../data/sample_ledger.csv``) work from the bundle and from a user's copy.

Standard library only: ``setup.py`` loads this file to know what to copy.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Final

__all__ = [
    "BUNDLED",
    "BUNDLE_FOLDER",
    "BundleMissingError",
    "bundle_root",
    "bundled_files",
    "is_checkout",
]

#: What is shipped, as glob patterns relative to the bundle's root (and the checkout's).
BUNDLED: Final = (
    "notebooks/*.ipynb",
    "notebooks/README.md",
    "data/README.md",
    "data/sample_ledger.csv",
    "data/sample_ledger.mapping.toml",
    "data/balances.csv",
)
#: The bundle's folder inside the installed package.
BUNDLE_FOLDER: Final = "_bundle"

_PACKAGE: Final = Path(__file__).resolve().parent
_CHECKOUT: Final = _PACKAGE.parents[1]


class BundleMissingError(Exception):
    """This pixops carries no notebooks: neither a wheel's bundle nor a checkout."""


def bundle_root() -> Path:
    """The folder holding the shipped ``notebooks/`` and ``data/``: the wheel's bundle,
    else the source checkout this pixops is installed from (editable)."""
    for root in (_PACKAGE / BUNDLE_FOLDER, _CHECKOUT):
        if (root / "notebooks").is_dir() and (root / "data").is_dir():
            if root == _CHECKOUT and not (root / "pyproject.toml").is_file():
                continue
            return root
    raise BundleMissingError(
        f"this pixops ({_PACKAGE}) carries no notebooks: reinstall it from its wheel"
    )


def is_checkout() -> bool:
    """Whether this pixops runs from its source checkout (an editable install)."""
    try:
        return bundle_root() == _CHECKOUT
    except BundleMissingError:
        return False


def bundled_files(root: Path | None = None) -> Iterator[str]:
    """The shipped files, as POSIX paths relative to `root` (default `bundle_root()`),
    sorted and each once."""
    base = bundle_root() if root is None else root
    found = {
        path.relative_to(base).as_posix()
        for pattern in BUNDLED
        for path in base.glob(pattern)
        if path.is_file()
    }
    yield from sorted(found)
