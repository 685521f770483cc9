"""The two errors of `pixops.webhooks`: a bad delivery, and a wrong call (defined with the
signing primitive, `pixops._standard_webhooks`, which raises them too)."""

from __future__ import annotations

from pixops._standard_webhooks import WebhookSetupError, WebhookVerificationError

__all__ = ["WebhookSetupError", "WebhookVerificationError"]
