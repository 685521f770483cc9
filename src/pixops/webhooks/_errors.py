"""The two errors of `pixops.webhooks`: a bad delivery, and a wrong call."""

from __future__ import annotations

from pixops.errors import PixopsError

__all__ = ["WebhookSetupError", "WebhookVerificationError"]


class WebhookVerificationError(PixopsError, ValueError):
    """A delivery failed verification, or its event cannot be kept; the message says why."""


class WebhookSetupError(PixopsError, TypeError, ValueError):
    """pixops.webhooks was called wrongly (a set-up error, not a bad delivery).

    Also a `TypeError` and a `ValueError`, what such mistakes raised before."""
