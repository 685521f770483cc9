"""The exceptions of the report package: one, and its case of a service not read."""

from __future__ import annotations

from pixops.errors import PixopsError


class ReportError(PixopsError):
    """A report could not be produced: bad arguments, a failing cell, or a page that would
    need the network to render."""


class ServiceUnreachableError(ReportError):
    """The notebook stopped because the service could not be read (not reached, a refusal
    such as a wrong key, or an answer that could not be read): `pixops report` exits 3 for
    it, as `pixops recon` does, so a scheduler tells an outage from a broken report."""
