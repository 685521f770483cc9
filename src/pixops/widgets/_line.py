"""`Line`: a panel's status line as data (text and tone), what every flow hands its view."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["Line", "Tone"]

Tone = Literal["info", "ok", "warn", "error"]


@dataclass(frozen=True)
class Line:
    """The status line: what happened last, and its tone; empty for none."""

    text: str = ""
    tone: Tone = "info"
