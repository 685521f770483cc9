"""Webhook subscriptions (`/webhooks`)."""

from __future__ import annotations

from typing import Annotated, Final, Literal, get_args

from pydantic import Field

from pixops import limits
from pixops.schema import _formats
from pixops.schema._base import Closed, Envelope, WireModel
from pixops.schema._time import UtcDateTime

__all__ = [
    "EVENT_TYPES",
    "EventType",
    "NamedEventType",
    "Webhook",
    "WebhookDeleted",
    "WebhookDeletedResponse",
    "WebhookListResponse",
    "WebhookRequest",
    "WebhookResponse",
]

NamedEventType = Literal[
    "pix.charge.paid",
    "pix.payout.queued",
    "pix.payout.confirmed",
    "pix.payout.rejected",
    "pix.payout.failed",
    "pix.payout.returned",
    "pix.refund.completed",
    "pix.return.received",
    "pix.refund.requested",
]
"""One event type by name (`EventType` adds `*`, every event)."""
EventType = Literal[NamedEventType, "*"]
EVENT_TYPES: Final[tuple[str, ...]] = get_args(NamedEventType)


class WebhookRequest(Closed):
    """`POST /webhooks`: unknown fields are refused."""

    url: str = Field(
        min_length=1,
        max_length=limits.WEBHOOK_URL_MAX_CHARS,
        pattern=_formats.WEBHOOK_URL_PATTERN,
        description="http(s) endpoint: a host, an optional port, no credentials or #fragment",
        json_schema_extra={"format": "uri"},
    )
    event_types: (
        Annotated[list[NamedEventType], Field(min_length=1)]
        | Annotated[list[Literal["*"]], Field(min_length=1)]
        | None
    ) = Field(None, description='event types by name; omit it or send ["*"] for every event')
    description: str | None = Field(None, max_length=limits.WEBHOOK_DESCRIPTION_MAX_CHARS)


class Webhook(WireModel):
    id: str
    url: str
    event_types: list[str]
    active: bool
    description: str | None = None
    created_at: UtcDateTime
    disabled_at: UtcDateTime | None = None
    secret: str | None = Field(None, description="only in the creation response: whsec_...")

    def __repr_args__(self):  # type: ignore[no-untyped-def]
        # The signing secret is shown once by the API and never echoed in a repr.
        for name, value in super().__repr_args__():
            yield name, ("***" if name == "secret" and value else value)


class WebhookResponse(Envelope):
    data: Webhook


class WebhookListResponse(Envelope):
    data: list[Webhook]


class WebhookDeleted(WireModel):
    id: str
    deleted: Literal[True]


class WebhookDeletedResponse(Envelope):
    data: WebhookDeleted
