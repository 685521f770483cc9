"""The simulated DICT: the documented test keys, registration, lookups, the per-merchant
lookup quota, and `GET /pix/keys`."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from pixops import documents, participants
from pixops.engine.world import central_bank, directory
from pixops.pixkeys import PixKeyType, normalize_key
from pixops.sandbox import AdminError, Merchant, Sandbox

if TYPE_CHECKING:
    from tests.conftest import Api, Connect

DOC = Path(__file__).resolve().parents[2] / "docs" / "sandbox-test-keys.md"


def is_valid_document(value: str) -> bool:
    return documents.is_valid_cpf(value) or documents.is_valid_cnpj(value)


# -- the documented test keys ---------------------------------------------------------


def test_test_keys_are_canonical_unique_and_real() -> None:
    keys = [test.entry.key for test in directory.TEST_KEYS]
    assert len(keys) == len(set(keys))
    people: dict[str, str] = {}
    for test in directory.TEST_KEYS:
        entry = test.entry
        assert normalize_key(entry.key, PixKeyType(entry.key_type)) == entry.key
        assert entry.owner_document is not None
        assert is_valid_document(entry.owner_document)
        participant = participants.lookup(entry.ispb)
        assert participant is not None, entry.ispb
        assert participant.pix, entry.ispb
        if entry.key_type in ("cpf", "cnpj"):
            assert entry.owner_document == entry.key
        # One document, one person.
        assert people.setdefault(entry.owner_document, entry.owner_name) == entry.owner_name


def test_every_key_type_and_every_outcome_has_a_test_key() -> None:
    types = {test.entry.key_type for test in directory.TEST_KEYS}
    assert types == {"cpf", "cnpj", "email", "phone", "evp"}
    kinds = {test.entry.behavior.kind for test in directory.TEST_KEYS}
    assert kinds == {
        "settle", "settle_instant", "reject", "not_found", "blocked", "lookup_failed",
        "rate_limited", "bucket_exhausted", "queue_client", "queue_bucket", "queue_forever",
        "orphan", "provider_rejected", "provider_schema_error", "provider_unknown_error",
    }  # fmt: skip


def doc_rows() -> dict[str, tuple[str, str]]:
    rows = {}
    for line in DOC.read_text("utf-8").splitlines():
        match = re.fullmatch(r"\| `([^`]+)` \| (\w+) \| ([^|]+) \|.*", line)
        if match:
            rows[match.group(1)] = (match.group(2), match.group(3).strip())
    return rows


def test_the_document_lists_every_test_key_with_its_outcome() -> None:
    rows = doc_rows()
    for test in directory.TEST_KEYS:
        assert rows[test.entry.key] == (test.entry.key_type, test.outcome)
    assert "reject.<code>@sandbox.pixops.dev" in rows
    assert set(rows) == {t.entry.key for t in directory.TEST_KEYS} | {
        "reject.<code>@sandbox.pixops.dev"
    }
    text = DOC.read_text("utf-8")
    codes = re.search(r"accepted by `reject.<code>@sandbox.pixops.dev`: ([^.]+)\.", text)
    assert codes is not None
    listed = re.findall(r"[A-Z0-9]{4}", codes.group(1))
    assert listed == sorted(central_bank.REASON_CODES)


def test_reject_pattern_covers_every_central_bank_code(sandbox: Sandbox) -> None:
    conn = sandbox.engine.store.conn
    for code in central_bank.REASON_CODES:
        entry = directory.find(conn, f"reject.{code.lower()}@sandbox.pixops.dev")
        assert entry is not None
        assert entry.behavior == directory.Behavior("reject", code=code)
        assert documents.is_valid_cpf(entry.owner_document or "")
    assert directory.find(conn, "reject.zz99@sandbox.pixops.dev") is None
    assert directory.find(conn, "reject.ac03@example.com") is None


# -- behaviors ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["settle", "settle_instant", "reject:AC03", "reject:DUPL", "orphan", "queue_client:1",
     "queue_bucket:12", "queue_forever", "not_found", "blocked", "lookup_failed",
     "rate_limited", "bucket_exhausted", "provider_rejected", "provider_schema_error",
     "provider_unknown_error"],
)  # fmt: skip
def test_behavior_round_trip(text: str) -> None:
    assert str(directory.Behavior.parse(text)) == text


@pytest.mark.parametrize(
    "text",
    ["", "settle:", "settle:1", "reject", "reject:", "reject:ZZ99", "reject:ac03",
     "queue_client", "queue_client:0", "queue_client:-1", "queue_client:x",
     "queue_client:١", "queue_forever:3", "SETTLE", "teleport"],
)  # fmt: skip
def test_behavior_refusals(text: str) -> None:
    with pytest.raises(directory.DictError, match="behavior"):
        directory.Behavior.parse(text)


# -- lookups --------------------------------------------------------------------------


def test_lookup_outcomes(sandbox: Sandbox) -> None:
    conn = sandbox.engine.store.conn
    resolved = directory.lookup(conn, "maria.silva@sandbox.pixops.dev", attempt=0)
    assert isinstance(resolved, directory.Resolved)
    assert resolved.entry.owner_name == "Maria Silva"
    missing = directory.lookup(conn, "nobody@example.com", attempt=0)
    assert missing == directory.Refused(
        "dict_key_not_found", "PIX key not found in the key directory (DICT)"
    )
    blocked = directory.lookup(conn, "24681357928", attempt=0)
    assert isinstance(blocked, directory.Refused)
    assert blocked.code == "dict_key_blocked"
    for attempt in range(3):
        queued = directory.lookup(conn, "queue.client@sandbox.pixops.dev", attempt=attempt)
        assert queued == directory.Queued(
            "DICT_CLIENT_RATE_LIMITED", "DICT lookup quota of this client exhausted"
        )
    cleared = directory.lookup(conn, "queue.client@sandbox.pixops.dev", attempt=3)
    assert isinstance(cleared, directory.Resolved)
    forever = directory.lookup(conn, "queue.timeout@sandbox.pixops.dev", attempt=10_000)
    assert isinstance(forever, directory.Queued)
    assert forever.reason_code == "DICT_BUCKET_EXHAUSTED"


def test_lookup_quota_per_merchant_and_minute(sandbox: Sandbox, merchant: Merchant) -> None:
    conn = sandbox.engine.store.conn
    other = sandbox.create_merchant("Outra")
    now = sandbox.now()
    assert [directory.admit_lookup(conn, merchant.id, 3, now) for _ in range(4)] == [
        True, True, True, False,
    ]  # fmt: skip
    assert directory.admit_lookup(conn, other.id, 3, now)
    assert not directory.admit_lookup(conn, merchant.id, 3, now + timedelta(seconds=59))
    assert directory.admit_lookup(conn, merchant.id, 3, now + timedelta(seconds=60))
    rows = conn.execute(
        "SELECT minute, count FROM dict_lookups WHERE merchant_id = ?", (merchant.id,)
    ).fetchall()
    assert [tuple(r) for r in rows] == [("2026-01-05T12:01", 1)]  # old minutes are dropped
    assert not directory.admit_lookup(conn, merchant.id, 0, now + timedelta(seconds=60))


# -- registration ---------------------------------------------------------------------


def test_register_recipient_key_and_pay_it(sandbox: Sandbox, merchant: Merchant, api: Api) -> None:
    entry = sandbox.register_pix_key(
        "Joao.Silva@Example.com",
        owner_name="João Silva",
        owner_document="529.982.247-25",
        ispb="60746948",
    )
    assert (entry.key, entry.key_type, entry.owner_document, entry.ispb) == (
        "joao.silva@example.com",
        "email",
        "52998224725",
        "60746948",
    )
    assert entry.behavior == directory.Behavior("settle")
    response = api("POST", "/pix/cash-out", {"amount": 100, "pix_key": "joao.silva@example.com"})
    assert response.status_code == 202
    sandbox.advance(2)
    assert [e.type for e in sandbox.events(merchant.id)] == ["pix.payout.confirmed"]


def test_registered_behaviors_drive_outcomes(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    sandbox.register_pix_key(
        "11987650000", key_type="phone", owner_name="Rita", behavior="reject:AC07"
    )
    sandbox.register_pix_key("52998224725", key_type="cpf", owner_name="X", behavior="blocked")
    rejected = api("POST", "/pix/cash-out", {"amount": 100, "pix_key": "+5511987650000"}).json()[
        "transaction_id"
    ]
    blocked = api(
        "POST", "/pix/cash-out", {"amount": 100, "pix_key": "52998224725", "pix_key_type": "cpf"}
    )
    assert blocked.json()["errors"][0]["code"] == "dict_key_blocked"
    sandbox.advance(2)
    [event] = sandbox.events(merchant.id)
    assert (event.transaction_id, event.data["reason_code"]) == (rejected, "AC07")


def test_default_ispb_of_a_recipient_key(sandbox: Sandbox) -> None:
    entry = sandbox.register_pix_key("a@example.com", owner_name="A")
    assert entry.ispb == "60701190"
    assert entry.merchant_id is None


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"key": "maria.silva@sandbox.pixops.dev"}, "reserved"),
        ({"key": "anything@sandbox.pixops.dev"}, "reserved"),
        ({"key": "11144477735", "key_type": "cpf"}, "reserved"),
        ({"key": "11144477735"}, "11 digits"),
        ({"key": "not a key"}, "cannot detect"),
        ({"key": "a@example.com", "key_type": "iban"}, "unknown PIX key type"),
        ({"key": "a@example.com", "key_type": "cpf"}, "CPF"),
        ({"key": "a@example.com", "ispb": "99999999"}, "not a Pix participant"),
        ({"key": "a@example.com", "ispb": "00038166"}, "not a Pix participant"),
        ({"key": "a@example.com", "ispb": "1234"}, "not a Pix participant"),
        ({"key": "a@example.com", "owner_name": " "}, "owner_name"),
        ({"key": "a@example.com", "owner_name": "x" * 141}, "owner_name"),
        ({"key": "a@example.com", "owner_document": "52998224724"}, "neither a valid CPF"),
        ({"key": "a@example.com", "behavior": "explode"}, "unknown behavior"),
        ({"key": "a@example.com", "merchant_id": "mer_nobody"}, "no merchant"),
    ],
)
def test_registration_refusals(sandbox: Sandbox, arguments: dict[str, str], message: str) -> None:
    with pytest.raises(AdminError, match=message):
        sandbox.register_pix_key(**{"owner_name": "Alguém", **arguments})
    assert sandbox.engine.store.conn.execute("SELECT COUNT(*) FROM dict_keys").fetchone()[0] == 0


def test_a_key_is_registered_once(sandbox: Sandbox) -> None:
    sandbox.register_pix_key("a@example.com", owner_name="A")
    with pytest.raises(directory.DictError, match="already registered"):
        sandbox.register_pix_key("A@EXAMPLE.COM", owner_name="B", ispb="00000000")


def test_merchant_keys_live_at_this_institution(sandbox: Sandbox, merchant: Merchant) -> None:
    entry = sandbox.register_pix_key("loja@example.com", owner_name="Loja", merchant_id=merchant.id)
    assert entry.ispb == sandbox.engine.config.service_ispb
    with pytest.raises(AdminError, match="this institution"):
        sandbox.register_pix_key(
            "outra@example.com", owner_name="Loja", merchant_id=merchant.id, ispb="60701190"
        )


# -- GET /pix/keys --------------------------------------------------------------------


def test_list_keys_shows_only_the_merchants_own_keys(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    empty = api("GET", "/pix/keys")
    assert empty.status_code == 200
    assert empty.json() == {"worked": True, "data": []}
    other = sandbox.create_merchant("Outra")
    sandbox.register_pix_key(
        "contato@loja.com.br", owner_name="Loja Exemplo", merchant_id=merchant.id
    )
    sandbox.advance(5)
    sandbox.register_pix_key("45321987000184", owner_name="Loja Exemplo", merchant_id=merchant.id)
    sandbox.register_pix_key("outra@loja.com.br", owner_name="Outra", merchant_id=other.id)
    sandbox.register_pix_key("pessoa@example.com", owner_name="Pessoa")
    response = api("GET", "/pix/keys")
    assert response.status_code == 200
    assert response.json() == {
        "worked": True,
        "data": [
            {
                "key": "contato@loja.com.br",
                "key_type": "email",
                "status": "active",
                "created_at": "2026-01-05T12:00:00.000Z",
                "owner_name": "Loja Exemplo",
                "ispb": "99999999",
            },
            {
                "key": "45321987000184",
                "key_type": "cnpj",
                "status": "active",
                "created_at": "2026-01-05T12:00:05.000Z",
                "owner_name": "Loja Exemplo",
                "ispb": "99999999",
            },
        ],
    }


def test_list_keys_in_camel_case(sandbox: Sandbox, merchant: Merchant, api: Api) -> None:
    sandbox.register_pix_key("contato@loja.com.br", owner_name="Loja", merchant_id=merchant.id)
    body = api("GET", "/pix/keys", headers={"X-Key-Case": "camelCase"}).json()
    assert set(body["data"][0]) == {"key", "keyType", "status", "createdAt", "ownerName", "ispb"}


def test_list_keys_needs_pix_read(sandbox: Sandbox, merchant: Merchant, connect: Connect) -> None:
    writer = sandbox.issue_api_key(merchant.id, permissions=["pix:write"])
    response = connect(sandbox, writer)("GET", "/pix/keys")
    assert response.status_code == 403
    assert response.json() == {
        "error": "forbidden",
        "message": "API key lacks permission: pix:read",
    }
    reader = sandbox.issue_api_key(merchant.id, permissions=["pix:read"])
    assert connect(sandbox, reader)("GET", "/pix/keys").status_code == 200
