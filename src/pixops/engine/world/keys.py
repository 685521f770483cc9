"""A directory entry and what a payment to its key does (`Behavior`).

Shared by the directory (`world.directory`) and its built-in test keys
(`world.sandbox_keys`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from pixops.engine.errors import DictError
from pixops.engine.world.central_bank import REASON_CODES

#: Synchronous directory refusals (lowercase codes) and their English messages.
REFUSALS: Final[dict[str, tuple[str, str]]] = {
    "not_found": ("dict_key_not_found", "PIX key not found in the key directory (DICT)"),
    "blocked": ("dict_key_blocked", "PIX key is blocked in the key directory (DICT)"),
    "lookup_failed": (
        "dict_lookup_failed",
        "Key directory (DICT) lookup failed; retry in 5 to 30 s",
    ),
    "rate_limited": (
        "dict_rate_limited",
        "Key directory (DICT) lookup limit reached temporarily; back off and retry",
    ),
    "bucket_exhausted": (
        "dict_bucket_exhausted",
        "Key directory (DICT) capacity temporarily unavailable; wait and avoid bursts",
    ),
}


_SIMPLE_KINDS: Final = frozenset(
    {
        "settle",
        "settle_instant",
        "orphan",
        "queue_forever",
        "provider_rejected",
        "provider_schema_error",
        "provider_unknown_error",
        *REFUSALS,
    }
)


_COUNTED_KINDS: Final = frozenset({"queue_client", "queue_bucket"})


@dataclass(frozen=True)
class Behavior:
    """What the world does with a payment to a key; stored as text in `dict_keys.behavior`.

    `settle` (confirmed after the settlement latency), `settle_instant` (settled in the
    request), `reject:<CODE>` (pacs.002 RJCT with a central-bank code), `orphan` (no
    pacs.002 ever), `queue_client:<n>` / `queue_bucket:<n>` (queued n retries with
    DICT_CLIENT_RATE_LIMITED / DICT_BUCKET_EXHAUSTED, then settles), `queue_forever`
    (queued until DICT_QUEUE_TIMEOUT), `not_found`, `blocked`, `lookup_failed`,
    `rate_limited`, `bucket_exhausted` (DICT refusals), `provider_rejected`,
    `provider_schema_error`, `provider_unknown_error` (the provider refuses).
    """

    kind: str
    code: str | None = None
    retries: int = 0

    @classmethod
    def parse(cls, text: str) -> Behavior:
        if not isinstance(text, str):
            raise DictError(f"behavior must be a string, got {type(text).__name__}")
        kind, _, argument = text.partition(":")
        if kind in _SIMPLE_KINDS and not argument and ":" not in text:
            return cls(kind)
        if kind == "reject" and argument in REASON_CODES:
            return cls(kind, code=argument)
        if kind in _COUNTED_KINDS and argument.isdigit() and argument.isascii():
            retries = int(argument)
            if retries >= 1:
                return cls(kind, retries=retries)
        raise DictError(
            f"unknown behavior {text!r}; use one of {sorted(_SIMPLE_KINDS)}, 'reject:<CODE>' "
            f"(CODE in {sorted(REASON_CODES)}) or 'queue_client:<n>' / 'queue_bucket:<n>' (n >= 1)"
        )

    def __str__(self) -> str:
        if self.kind == "reject":
            return f"reject:{self.code}"
        if self.kind in _COUNTED_KINDS:
            return f"{self.kind}:{self.retries}"
        return self.kind


@dataclass(frozen=True)
class Entry:
    """A key in the directory and the account it points to."""

    key: str
    key_type: str
    owner_name: str
    owner_document: str | None
    ispb: str
    behavior: Behavior
    merchant_id: str | None = None
    created_at: str | None = None
    """Storage text of the registration time; None for the built-in test keys."""
