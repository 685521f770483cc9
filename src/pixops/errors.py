"""The root of every error pixops raises on purpose.

`except pixops.PixopsError` catches what the package means to raise: API refusals from
the client (`pixops.client.ApiError` and its family), transport failures it gave up
retrying, and bad arguments detected before anything is sent. Primitive errors that
are also `ValueError` keep that second base.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

__all__ = ["PixopsError", "name_errors_by_package"]


class PixopsError(Exception):
    """Base class of every error raised on purpose by pixops."""


def name_errors_by_package(
    package: str, namespace: Mapping[str, object], names: Iterable[str]
) -> None:
    """Give each exception class among ``names`` the ``__module__`` of ``package``, so a
    traceback names it where users import it from (``pixops.client.NotFoundError``), not
    the private module that defines it. Pickling still finds it there."""
    for name in names:
        exported = namespace[name]
        if isinstance(exported, type) and issubclass(exported, Exception):
            exported.__module__ = package
