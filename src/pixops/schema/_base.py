"""The base of every wire model: tolerant of new fields, immutable, readable in Jupyter."""

from __future__ import annotations

import html
from datetime import datetime
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict

from pixops.schema._money import Amount

__all__ = ["Closed", "Envelope", "WireModel"]

#: Status words by the colour a card shows them in.
_GOOD = frozenset({"settled", "completed", "paid", "accepted", "active", "agreed", "closed"})
_WAITING = frozenset(
    {"pending", "processing", "queued", "pending_approval", "open", "acknowledged"}
)
_BAD = frozenset({"failed", "rejected", "expired", "cancelled", "disagreed"})
_COLOURS = {"good": "#1a7f37", "waiting": "#9a6700", "bad": "#cf222e"}


def _status_colour(value: str) -> str | None:
    word = value.lower()
    if word in _GOOD:
        return _COLOURS["good"]
    if word in _WAITING:
        return _COLOURS["waiting"]
    if word in _BAD:
        return _COLOURS["bad"]
    return None


def _cell(name: str, value: Any) -> str:
    if isinstance(value, Amount):
        return f"<span title='{int(value)} base units'>{html.escape(value.format())}</span>"
    if isinstance(value, WireModel):
        return value._repr_html_()
    if isinstance(value, datetime):
        return html.escape(value.isoformat().replace("+00:00", "Z"))
    if value is None:
        return "<span style='color:#888'>—</span>"
    text = html.escape(str(value))
    if name in ("status", "payment_status") and isinstance(value, str):
        colour = _status_colour(value)
        if colour:
            return f"<b style='color:{colour}'>{text}</b>"
    if name == "id" or name.endswith("_id"):
        # user-select:all makes one click select the whole id for copying.
        return f"<code style='user-select:all'>{text}</code>"
    return text


class WireModel(BaseModel):
    """A JSON object of the API. Unknown fields are kept (`model_extra`), never refused,
    so a newer service does not break old notebooks."""

    model_config = ConfigDict(extra="allow", frozen=True)

    def _repr_html_(self) -> str:
        rows = [
            f"<tr><th style='text-align:left;padding-right:1em'>{html.escape(name)}</th>"
            f"<td style='text-align:left'>{_cell(name, value)}</td></tr>"
            for name, value in self
        ]
        title = html.escape(type(self).__name__)
        return (
            "<div style='border:1px solid #ccc;border-radius:6px;padding:6px;"
            f"display:inline-block'><b>{title}</b><table>{''.join(rows)}</table></div>"
        )


class Closed(BaseModel):
    """A request body of an endpoint that refuses unknown fields."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Envelope(WireModel):
    """`{worked: true, data: ...}`: the success wrapper of query endpoints."""

    worked: Literal[True]
    paged: ClassVar[bool] = False
