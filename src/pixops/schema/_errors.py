"""The spec's four error body shapes, plus cash-out's Format A."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from pixops.schema._base import WireModel

__all__ = [
    "BusinessError",
    "DetailError",
    "PaymentRejection",
    "PermissionError",
    "PipelineError",
    "PipelineErrorDetail",
    "RejectionItem",
]


class PipelineErrorDetail(WireModel):
    status: int = Field(description="the HTTP status repeated")
    message: str
    hint: str | None = Field(None, description="only on 415")


class PipelineError(WireModel):
    """Content type (415), credentials (401), IP whitelist and account (403), X-Key-Case
    and idempotency (400/422), rate limit (429), body size (413), unexpected fault (500)."""

    error: PipelineErrorDetail


class PermissionError(WireModel):
    """The key lacks the route's permission (403)."""

    error: Literal["forbidden"]
    message: str = Field(description="API key lacks permission: <permission>")


class DetailError(WireModel):
    """The HMAC check (400/401/403) and the 404 of a transaction query."""

    worked: Literal[False]
    detail: str


class BusinessError(WireModel):
    """Business rules: one atom (bad_request, not_found, unprocessable_entity, ...) with a
    message, or for bad_request an object of field name to a list of messages."""

    worked: Literal[False] | None = None
    errors: dict[str, str | dict[str, list[str]]] = Field(min_length=1)


class RejectionItem(WireModel):
    code: str
    message: str
    params: dict[str, Any] | list[Any] = Field(
        description="details; `ceiling` in subcentavos for ceiling_exceeded; an empty list"
        " for same_institution_transfer"
    )


class PaymentRejection(WireModel):
    """Cash-out synchronous rejection, Format A (400 or 422)."""

    worked: Literal[False] | None = None
    status: Literal["failed"]
    errors: list[RejectionItem] = Field(min_length=1)
