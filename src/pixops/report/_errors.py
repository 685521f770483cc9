"""The one exception of the report package."""

from __future__ import annotations

from pixops.errors import PixopsError


class ReportError(PixopsError):
    """A report could not be produced: bad arguments, a failing cell, or a page that would
    need the network to render."""
