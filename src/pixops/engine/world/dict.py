"""The simulated DICT: the central bank's directory of PIX keys.

A cash-out names its recipient by key; the directory answers with the account's
owner and institution, or refuses. Keys come from two places:

* rows of `dict_keys`, registered through `register_key` (the sandbox's
  `register_pix_key`, and the merchants' own keys at this institution);
* built-in documented test keys (`TEST_KEYS`, and any `reject.<code>@sandbox.pixops.dev`)
  that force each outcome of a cash-out, like a card network's test numbers.
  docs/sandbox-test-keys.md lists them.

Every key's `behavior` says what the world does with a payment to it (see `Behavior`).
Lookups are also metered per merchant (`merchants.dict_lookups_per_minute`): above the
quota a cash-out waits in the retry queue instead of reaching the directory.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from pixops import documents, participants
from pixops.engine.clock import to_db
from pixops.engine.config import SERVICE_ISPB
from pixops.engine.errors import DictError
from pixops.engine.world.central_bank import REASON_CODES
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

SANDBOX_DOMAIN: Final = "sandbox.pixops.dev"
#: `reject.<code>@sandbox.pixops.dev`: accepted, then rejected by the central bank with <code>.
REJECT_KEY_PATTERN: Final = re.compile(r"reject\.([a-z0-9]{4})@" + re.escape(SANDBOX_DOMAIN))

#: Reasons of the automatic retry queue (UPPERCASE, prefix DICT_) and their descriptions.
QUEUE_REASONS: Final[dict[str, str]] = {
    "DICT_CLIENT_RATE_LIMITED": "DICT lookup quota of this client exhausted",
    "DICT_BUCKET_EXHAUSTED": "DICT lookup capacity temporarily exhausted",
    "DICT_QUEUE_TIMEOUT": "DICT lookup did not succeed within the 7200-second retry window",
}

#: Synchronous directory refusals (lowercase codes) and their English messages.
_REFUSALS: Final[dict[str, tuple[str, str]]] = {
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
        *_REFUSALS,
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


@dataclass(frozen=True)
class TestKey:
    entry: Entry
    outcome: str
    """One line for docs/sandbox-test-keys.md."""


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


def _test_key(
    key: str,
    key_type: str,
    owner_name: str,
    owner_document: str,
    ispb: str,
    behavior: str,
    outcome: str,
) -> TestKey:
    entry = Entry(key, key_type, owner_name, owner_document, ispb, Behavior.parse(behavior))
    return TestKey(entry, outcome)


def _sandbox(local: str) -> str:
    return f"{local}@{SANDBOX_DOMAIN}"


#: The documented test keys. Owners have valid documents; banks are real Pix participants.
TEST_KEYS: Final[tuple[TestKey, ...]] = (
    # Settle normally: 202 accepted, pix.payout.confirmed after the settlement latency.
    _test_key(_sandbox("maria.silva"), "email", "Maria Silva", "52998224725", "60701190",
              "settle", "202 accepted, then settled (pix.payout.confirmed)"),
    _test_key("11144477735", "cpf", "João Pereira", "11144477735", "00000000",
              "settle", "202 accepted, then settled (pix.payout.confirmed)"),
    _test_key("11222333000181", "cnpj", "Padaria Pão Quente Ltda", "11222333000181", "60746948",
              "settle", "202 accepted, then settled (pix.payout.confirmed)"),
    _test_key("12ABC34501DE35", "cnpj", "Nova Era Tecnologia Ltda", "12ABC34501DE35", "00416968",
              "settle", "202 accepted, then settled (alphanumeric CNPJ key)"),
    _test_key("+5511987654321", "phone", "Ana Costa", "10433218100", "18236120",
              "settle", "202 accepted, then settled (pix.payout.confirmed)"),
    _test_key("123e4567-e89b-42d3-a456-426614174000", "evp", "Carlos Souza", "96001338914",
              "00360305", "settle", "202 accepted, then settled (pix.payout.confirmed)"),
    # Settled in the request.
    _test_key(_sandbox("instant"), "email", "Beatriz Lima", "08386379499", "90400888",
              "settle_instant", "200 settled at once (final true; pix.payout.confirmed)"),
    _test_key("03560714000142", "cnpj", "Mercado Instantâneo Ltda", "03560714000142", "31872495",
              "settle_instant", "200 settled at once (final true; pix.payout.confirmed)"),
    # Accepted, then rejected by the central bank (pacs.002 RJCT).
    _test_key("12345678909", "cpf", "Rafael Gomes", "12345678909", "00000000",
              "reject:AC03", "202 accepted, then rejected AC03 (pix.payout.rejected)"),
    _test_key("+5521998765432", "phone", "Juliana Rocha", "02654235114", "22896431",
              "reject:AM02", "202 accepted, then rejected AM02 (pix.payout.rejected)"),
    _test_key("0c6f4ab2-3d5e-4f71-9a8b-2c3d4e5f6a7b", "evp", "Lucas Martins", "16155940789",
              "10573521", "reject:AC06", "202 accepted, then rejected AC06 (pix.payout.rejected)"),
    # Synchronous directory refusals (HTTP 400, Format A).
    _test_key(_sandbox("notfound"), "email", "Chave Inexistente", "81618495950", "60701190",
              "not_found", "400 dict_key_not_found (as is every unregistered key)"),
    _test_key(_sandbox("blocked"), "email", "Fernanda Alves", "31034131656", "60701190",
              "blocked", "400 dict_key_blocked"),
    _test_key("24681357928", "cpf", "Pedro Barbosa", "24681357928", "00360305",
              "blocked", "400 dict_key_blocked"),
    _test_key(_sandbox("lookup.failed"), "email", "Gabriel Nunes", "47525534144", "60746948",
              "lookup_failed", "400 dict_lookup_failed"),
    _test_key(_sandbox("rate.limited"), "email", "Larissa Dias", "92832764851", "18236120",
              "rate_limited", "400 dict_rate_limited"),
    _test_key(_sandbox("bucket.exhausted"), "email", "Thiago Mendes", "35030564160", "90400888",
              "bucket_exhausted", "400 dict_bucket_exhausted"),
    # The automatic retry queue (HTTP 202 queued, pix.payout.queued).
    _test_key(_sandbox("queue.client"), "email", "Camila Freitas", "39537672409", "60701190",
              "queue_client:3",
              "202 queued DICT_CLIENT_RATE_LIMITED; clears on the 3rd retry (~9 s), then settles"),
    _test_key(_sandbox("queue.bucket"), "email", "Rodrigo Teixeira", "23884969692", "00000000",
              "queue_bucket:5",
              "202 queued DICT_BUCKET_EXHAUSTED; clears on the 5th retry (~15 s), then settles"),
    _test_key(_sandbox("queue.timeout"), "email", "Vanessa Cardoso", "53287101269", "00360305",
              "queue_forever",
              "202 queued DICT_BUCKET_EXHAUSTED; never clears: failed DICT_QUEUE_TIMEOUT (7200 s)"),
    # Sent, never answered.
    _test_key(_sandbox("orphan"), "email", "Eduardo Marques", "26916697857", "60746948",
              "orphan", "202 accepted, no pacs.002: failed orphan_force_voided after 30 min"),
    # The provider refuses (HTTP 400, Format A).
    _test_key(_sandbox("provider.rejected"), "email", "Bruna Vieira", "48018451427", "18236120",
              "provider_rejected", "400 provider_rejected"),
    _test_key(_sandbox("provider.schema"), "email", "Felipe Andrade", "62704828105", "60701190",
              "provider_schema_error", "400 provider_schema_error"),
    _test_key(_sandbox("provider.unknown"), "email", "Aline Moreira", "48932528870", "00000000",
              "provider_unknown_error", "400 provider_unknown_error"),
)  # fmt: skip

_TEST_KEYS_BY_KEY: Final[dict[str, Entry]] = {test.entry.key: test.entry for test in TEST_KEYS}


def _reject_pattern_entry(key: str) -> Entry | None:
    match = REJECT_KEY_PATTERN.fullmatch(key)
    if match is None or match.group(1).upper() not in REASON_CODES:
        return None
    code = match.group(1).upper()
    return Entry(
        key,
        "email",
        f"Teste Rejeição {code}",
        "09570154373",
        "60701190",
        Behavior("reject", code=code),
    )


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
    return _TEST_KEYS_BY_KEY.get(key) or _reject_pattern_entry(key)


def lookup(conn: sqlite3.Connection, key: str, *, attempt: int) -> LookupResult:
    """Ask the directory for `key` on the payment's `attempt`-th try (0 is the first)."""
    entry = find(conn, key)
    if entry is None:
        code, message = _REFUSALS["not_found"]
        return Refused(code, message)
    behavior = entry.behavior
    if behavior.kind in _REFUSALS:
        code, message = _REFUSALS[behavior.kind]
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
    return key in _TEST_KEYS_BY_KEY or key.endswith("@" + SANDBOX_DOMAIN)


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
    if not isinstance(owner_name, str) or not owner_name.strip() or len(owner_name) > 140:
        raise DictError("owner_name must be a non-empty string of at most 140 characters")
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
