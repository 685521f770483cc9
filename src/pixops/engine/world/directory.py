"""The simulated DICT: the central bank's directory of PIX keys.

A cash-out names its recipient by key; the directory answers with the account's
owner and institution, or refuses. Keys come from two places:

* rows of `dict_keys`, registered through `register_key` (the sandbox's
  `register_pix_key`, and the merchants' own keys at this institution);
* built-in documented test keys (`world.sandbox_keys`: `TEST_KEYS`, and any
  `reject.<code>@sandbox.pixops.dev`) that force each outcome of a cash-out.

Every key's `behavior` says what the world does with a payment to it (see `Behavior`).
Lookups are also metered per merchant (`merchants.dict_lookups_per_minute`): above the
quota a cash-out waits in the retry queue instead of reaching the directory.
"""

from __future__ import annotations

import contextlib
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from pixops import documents, limits, participants
from pixops.engine.clock import to_db
from pixops.engine.config import SERVICE_ISPB
from pixops.engine.errors import DictError
from pixops.engine.world.keys import REFUSALS, Behavior, Entry
from pixops.engine.world.sandbox_keys import (
    REJECT_KEY_PATTERN,
    SANDBOX_DOMAIN,
    TEST_KEYS,
    TEST_KEYS_BY_KEY,
    TestKey,
    reject_pattern_entry,
)
from pixops.pixkeys import PixKeyError, PixKeyType, detect_key_type, normalize_key, parse_key_type

__all__ = [
    "QUEUE_REASONS",
    "REJECT_KEY_PATTERN",
    "SANDBOX_DOMAIN",
    "TEST_KEYS",
    "Behavior",
    "DictError",
    "Entry",
    "Queued",
    "Refused",
    "Resolved",
    "TestKey",
    "admit_lookup",
    "find",
    "is_reserved",
    "lookup",
    "merchant_keys",
    "register_key",
]

#: Reasons of the automatic retry queue (UPPERCASE, prefix DICT_) and their descriptions.
QUEUE_REASONS: Final[dict[str, str]] = {
    "DICT_CLIENT_RATE_LIMITED": "DICT lookup quota of this client exhausted",
    "DICT_BUCKET_EXHAUSTED": "DICT lookup capacity temporarily exhausted",
    "DICT_QUEUE_TIMEOUT": "DICT lookup did not succeed within the 7200-second retry window",
}


@dataclass(frozen=True)
class Resolved:
    entry: Entry


@dataclass(frozen=True)
class Queued:
    """The directory cannot answer now; the payment waits in the retry queue."""

    reason_code: str
    reason_description: str


@dataclass(frozen=True)
class Refused:
    """A synchronous refusal: lowercase code and English message."""

    code: str
    message: str


LookupResult = Resolved | Queued | Refused


def _from_row(row: sqlite3.Row) -> Entry:
    return Entry(
        key=row["key"],
        key_type=row["key_type"],
        owner_name=row["owner_name"],
        owner_document=row["owner_document"],
        ispb=row["ispb"],
        behavior=Behavior.parse(row["behavior"]),
        merchant_id=row["merchant_id"],
        created_at=row["created_at"],
    )


def find(conn: sqlite3.Connection, key: str) -> Entry | None:
    """The directory entry of a canonical key (see `pixkeys.normalize_key`), or None."""
    row = conn.execute("SELECT * FROM dict_keys WHERE key = ?", (key,)).fetchone()
    if row is not None:
        return _from_row(row)
    return TEST_KEYS_BY_KEY.get(key) or reject_pattern_entry(key)


def lookup(conn: sqlite3.Connection, key: str, *, attempt: int) -> LookupResult:
    """Ask the directory for `key` on the payment's `attempt`-th try (0 is the first)."""
    entry = find(conn, key)
    if entry is None:
        code, message = REFUSALS["not_found"]
        return Refused(code, message)
    behavior = entry.behavior
    if behavior.kind in REFUSALS:
        code, message = REFUSALS[behavior.kind]
        return Refused(code, message)
    if behavior.kind == "queue_client" and attempt < behavior.retries:
        return _queued("DICT_CLIENT_RATE_LIMITED")
    if behavior.kind == "queue_bucket" and attempt < behavior.retries:
        return _queued("DICT_BUCKET_EXHAUSTED")
    if behavior.kind == "queue_forever":
        return _queued("DICT_BUCKET_EXHAUSTED")
    return Resolved(entry)


def _queued(reason_code: str) -> Queued:
    return Queued(reason_code, QUEUE_REASONS[reason_code])


def admit_lookup(
    conn: sqlite3.Connection, merchant_id: str, per_minute: int, now: datetime
) -> bool:
    """Count one lookup against the merchant's quota for this UTC minute; False when full."""
    minute = to_db(now)[:16]
    row = conn.execute(
        "SELECT count FROM dict_lookups WHERE merchant_id = ? AND minute = ?",
        (merchant_id, minute),
    ).fetchone()
    if row is None:
        if per_minute < 1:
            return False
        # The first lookup of a new minute: earlier minutes no longer matter.
        conn.execute(
            "DELETE FROM dict_lookups WHERE merchant_id = ? AND minute < ?", (merchant_id, minute)
        )
        conn.execute(
            "INSERT INTO dict_lookups (merchant_id, minute, count) VALUES (?, ?, 1)",
            (merchant_id, minute),
        )
        return True
    if int(row[0]) >= per_minute:
        return False
    conn.execute(
        "UPDATE dict_lookups SET count = count + 1 WHERE merchant_id = ? AND minute = ?",
        (merchant_id, minute),
    )
    return True


def is_reserved(key: str) -> bool:
    """Keys of the sandbox's own domain and the test keys cannot be registered."""
    return key in TEST_KEYS_BY_KEY or key.endswith("@" + SANDBOX_DOMAIN)


def register_key(
    conn: sqlite3.Connection,
    key: str,
    key_type: str | None,
    owner_name: str,
    owner_document: str | None,
    ispb: str,
    behavior: str = "settle",
    merchant_id: str | None = None,
    *,
    now: datetime,
    service_ispb: str = SERVICE_ISPB,
) -> Entry:
    """Add a key to the directory; returns the stored entry (with the canonical key).

    A merchant's own key (`merchant_id` given) lives at this institution
    (`service_ispb`); any other key at a real Pix participant.
    """
    canonical, resolved_type = _canonical_key(key, key_type)
    if is_reserved(canonical):
        raise DictError(f"key {canonical!r} is reserved for the documented sandbox test keys")
    longest = limits.PAYER_NAME_MAX_CHARS
    if not isinstance(owner_name, str) or not owner_name.strip() or len(owner_name) > longest:
        raise DictError(f"owner_name must be a non-empty string of at most {longest} characters")
    document = _document(owner_document)
    behavior_value = Behavior.parse(behavior)
    if merchant_id is not None:
        if conn.execute("SELECT 1 FROM merchants WHERE id = ?", (merchant_id,)).fetchone() is None:
            raise DictError(f"no merchant {merchant_id!r}")
        if ispb != service_ispb:
            raise DictError(
                f"a merchant's own key lives at this institution ({service_ispb}), not {ispb!r}"
            )
    else:
        participant = participants.lookup(ispb) if isinstance(ispb, str) else None
        if participant is None or not participant.pix:
            raise DictError(f"ispb {ispb!r} is not a Pix participant")
    if conn.execute("SELECT 1 FROM dict_keys WHERE key = ?", (canonical,)).fetchone() is not None:
        raise DictError(f"key {canonical!r} is already registered")
    created_at = to_db(now)
    conn.execute(
        "INSERT INTO dict_keys (key, key_type, owner_name, owner_document, ispb, behavior,"
        " merchant_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            canonical,
            resolved_type,
            owner_name.strip(),
            document,
            ispb,
            str(behavior_value),
            merchant_id,
            created_at,
        ),
    )
    return Entry(
        canonical,
        resolved_type,
        owner_name.strip(),
        document,
        ispb,
        behavior_value,
        merchant_id,
        created_at,
    )


def merchant_keys(conn: sqlite3.Connection, merchant_id: str) -> list[Entry]:
    """The merchant's own keys, oldest first."""
    rows = conn.execute(
        "SELECT * FROM dict_keys WHERE merchant_id = ? ORDER BY created_at, key", (merchant_id,)
    ).fetchall()
    return [_from_row(row) for row in rows]


def _canonical_key(key: str, key_type: str | None) -> tuple[str, str]:
    if not isinstance(key, str):
        raise DictError(f"key must be a string, got {type(key).__name__}")
    try:
        kind = detect_key_type(key) if key_type is None else parse_key_type(key_type)
        return normalize_key(key, kind), PixKeyType(kind).value
    except PixKeyError as error:
        raise DictError(str(error)) from None


def _document(value: str | None) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise DictError("owner_document must be a string")
    with contextlib.suppress(documents.DocumentError):
        return documents.normalize_cpf(value)
    try:
        return documents.normalize_cnpj(value)
    except documents.DocumentError:
        raise DictError(f"owner_document {value!r} is neither a valid CPF nor CNPJ") from None
