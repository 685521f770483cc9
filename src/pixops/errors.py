"""The root of every error pixops raises on purpose.

`except pixops.PixopsError` catches what the package means to raise: API refusals from
the client (`pixops.client.ApiError` and its family), transport failures it gave up
retrying, and bad arguments detected before anything is sent. Primitive errors that
are also `ValueError` keep that second base.
"""

from __future__ import annotations

__all__ = ["PixopsError"]


class PixopsError(Exception):
    """Base class of every error raised on purpose by pixops."""
