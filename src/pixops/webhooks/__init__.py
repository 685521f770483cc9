"""Receiving webhooks: signature verification, an inbox of events, a local receiver app.

    from pixops.webhooks import Inbox, receiver_app, verify
    event = verify(request.headers, raw_body, "whsec_...")     # raises WebhookVerificationError
    inbox = Inbox("whsec_...")
    inbox.add(request.headers, raw_body)                     # False for a repeated webhook-id

Deliveries follow Standard Webhooks 1.0 (headers ``webhook-id``, ``webhook-timestamp``,
``webhook-signature``); nothing here depends on the engine.
"""

from pixops.errors import name_errors_by_package
from pixops.webhooks._inbox import FRAME_COLUMNS, Inbox
from pixops.webhooks._receiver import ReceiverApp, receiver_app
from pixops.webhooks._signing import (
    DEFAULT_TOLERANCE_SECONDS,
    SECRET_PREFIX,
    Headers,
    WebhookSetupError,
    WebhookVerificationError,
    generate_secret,
    sign,
    verify,
)

__all__ = [
    "DEFAULT_TOLERANCE_SECONDS",
    "FRAME_COLUMNS",
    "SECRET_PREFIX",
    "Headers",
    "Inbox",
    "ReceiverApp",
    "WebhookSetupError",
    "WebhookVerificationError",
    "generate_secret",
    "receiver_app",
    "sign",
    "verify",
]

name_errors_by_package(__name__, globals(), __all__)
