"""MED dispute cases (`/med`)."""

from __future__ import annotations

from typing import Final, Literal

from pydantic import Field

from pixops import limits
from pixops.schema import _formats
from pixops.schema._base import Closed, Envelope, WireModel
from pixops.schema._money import Amount
from pixops.schema._time import UtcDateTime

__all__ = [
    "MAX_DEFENSE_LENGTH",
    "DefenseRequest",
    "MedCase",
    "MedCasePage",
    "MedCaseResponse",
    "MedStatus",
]

MAX_DEFENSE_LENGTH: Final = limits.DEFENSE_MAX_CHARS
MedStatus = Literal["OPEN", "ACKNOWLEDGED", "CLOSED", "CANCELLED"]


class MedCase(WireModel):
    id: str
    transaction_id: str
    end_to_end_id: str | None = None
    amount: Amount
    blocked_amount: Amount | None = None
    reason: str | None = None
    details: str | None = None
    status: MedStatus
    opened_at: UtcDateTime | None = None
    defense_deadline: UtcDateTime | None = None
    defense: str | None = None
    defended_at: UtcDateTime | None = None
    analysis_result: Literal["AGREED", "DISAGREED"] | None = None
    analysis_details: str | None = None
    closed_at: UtcDateTime | None = None
    refund_transaction_id: str | None = None


class MedCaseResponse(Envelope):
    data: MedCase


class MedCasePage(Envelope):
    data: list[MedCase]
    page: int = Field(ge=1)
    per_page: int = Field(ge=1)


class DefenseRequest(Closed):
    """`POST /med/:id/defense`: the defense text only (no attachments)."""

    defense: str = Field(
        pattern=_formats.trimmed_text(MAX_DEFENSE_LENGTH),
        description=f"1 to {MAX_DEFENSE_LENGTH} characters once trimmed",
    )
