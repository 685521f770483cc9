"""`POST /pix/cash-out` over raw HTTP: every refusal with its exact body, every outcome of
the documented test keys driven with `sb.advance`, and the ledger after each scenario."""

from __future__ import annotations

import json
import re
import threading
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from pixops.engine.fees import Fee, FeeSchedule
from pixops.engine.world import central_bank
from pixops.sandbox import AdminError, Merchant, Sandbox

if TYPE_CHECKING:
    from tests.conftest import Api, Connect

OPENING_BASE = 1_000_000 * 100
FEE_BASE = 50 * 100
SETTLE_KEY = "maria.silva@sandbox.pixops.dev"
HEX32_UPPER = re.compile(r"[0-9A-F]{32}")


def format_b(message: str) -> dict[str, Any]:
    return {"worked": False, "errors": {"bad_request": message}}


def format_a(code: str, message: str, params: Any) -> dict[str, Any]:
    return {
        "worked": False,
        "status": "failed",
        "errors": [{"code": code, "message": message, "params": params}],
    }


def cash_out(api: Api, body: Any, **options: Any) -> httpx.Response:
    return api("POST", "/pix/cash-out", body, **options)


def row(sb: Sandbox, transaction_id: str) -> dict[str, Any]:
    with sb.engine.store.lock:
        found = sb.engine.store.conn.execute(
            "SELECT * FROM transactions WHERE transaction_id = ?", (transaction_id,)
        ).fetchone()
    assert found is not None
    return dict(found)


def count_rows(sb: Sandbox, merchant_id: str) -> int:
    with sb.engine.store.lock:
        return int(
            sb.engine.store.conn.execute(
                "SELECT COUNT(*) FROM transactions WHERE merchant_id = ?", (merchant_id,)
            ).fetchone()[0]
        )


def journal(sb: Sandbox, transaction_id: str) -> list[tuple[str, int]]:
    with sb.engine.store.lock:
        rows = sb.engine.store.conn.execute(
            "SELECT kind, amount_base FROM journal WHERE transaction_id = ? ORDER BY seq",
            (transaction_id,),
        ).fetchall()
    return [(r["kind"], r["amount_base"]) for r in rows]


def event_types(sb: Sandbox, merchant_id: str) -> list[str]:
    return [event.type for event in sb.events(merchant_id)]


def assert_untouched(sb: Sandbox, merchant: Merchant, opening_base: int = OPENING_BASE) -> None:
    """A synchronous refusal writes nothing and emits nothing."""
    assert count_rows(sb, merchant.id) == 0
    assert sb.events(merchant.id) == []
    balance = sb.balance(merchant.id)
    assert (balance.ledger_base, balance.held_base) == (opening_base, 0)
    assert sb.audit(merchant.id).consistent


# -- validation errors, in order ------------------------------------------------


def test_body_must_be_an_object(sandbox: Sandbox, merchant: Merchant, api: Api) -> None:
    response = cash_out(api, [1, 2])
    assert response.status_code == 400
    assert response.json() == format_b("Request body must be a JSON object")
    assert_untouched(sandbox, merchant)


@pytest.mark.parametrize("amount", [None, 0, -1, 1.5, 100.0, "100", True, False, [100], 2**62])
def test_invalid_or_missing_amount(
    sandbox: Sandbox, merchant: Merchant, api: Api, amount: Any
) -> None:
    body: dict[str, Any] = {"pix_key": SETTLE_KEY}
    if amount is not None:
        body["amount"] = amount
    response = cash_out(api, body)
    assert response.status_code == 400
    assert response.json() == format_b("invalid or missing amount")
    assert_untouched(sandbox, merchant)


def test_amount_is_checked_before_the_key(api: Api) -> None:
    response = cash_out(api, {"amount": 0, "pix_key": 5, "pix_key_type": "iban"})
    assert response.json() == format_b("invalid or missing amount")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"amount": 100}, "pix_key is required"),
        ({"amount": 100, "pix_key": None}, "pix_key is required"),
        ({"amount": 100, "pix_key": 52998224725}, "invalid pix_key"),
        ({"amount": 100, "pix_key": ""}, "invalid pix_key"),
        ({"amount": 100, "pix_key": SETTLE_KEY, "pix_key_type": "EMAIL"}, "invalid pix_key_type"),
        ({"amount": 100, "pix_key": SETTLE_KEY, "pix_key_type": "iban"}, "invalid pix_key_type"),
        ({"amount": 100, "pix_key": SETTLE_KEY, "pix_key_type": 1}, "invalid pix_key_type"),
        ({"amount": 100, "pix_key": "52998224724", "pix_key_type": "cpf"}, "invalid pix_key"),
        ({"amount": 100, "pix_key": "11111111111", "pix_key_type": "cpf"}, "invalid pix_key"),
        ({"amount": 100, "pix_key": "11222333000182", "pix_key_type": "cnpj"}, "invalid pix_key"),
        ({"amount": 100, "pix_key": "maria@", "pix_key_type": "email"}, "invalid pix_key"),
        ({"amount": 100, "pix_key": "maria@@example.com"}, "invalid pix_key"),
        ({"amount": 100, "pix_key": "maria@localhost"}, "invalid pix_key"),
        ({"amount": 100, "pix_key": "00987654321", "pix_key_type": "phone"}, "invalid pix_key"),
        ({"amount": 100, "pix_key": "11887654321", "pix_key_type": "phone"}, "invalid pix_key"),
        ({"amount": 100, "pix_key": "+551198765432"}, "invalid pix_key"),
        (
            {"amount": 100, "pix_key": "123e4567-e89b-12d3-a456-426614174000"},
            "invalid pix_key",
        ),
        ({"amount": 100, "pix_key": "not a key"}, "invalid pix_key"),
        ({"amount": 100, "pix_key": SETTLE_KEY, "pix_key_type": "cpf"}, "invalid pix_key"),
        ({"amount": 100, "pix_key": "a" * 71 + "@ex.com"}, "invalid pix_key"),
    ],
)
def test_key_refusals(
    sandbox: Sandbox, merchant: Merchant, api: Api, body: dict[str, Any], message: str
) -> None:
    response = cash_out(api, body)
    assert response.status_code == 400
    assert response.json() == format_b(message)
    assert_untouched(sandbox, merchant)


AMBIGUOUS = format_a(
    "pix_key_ambiguous",
    "The PIX key has 11 digits and may be a CPF or a phone number. Call POST /cpf/validate "
    'with the digits: if data.valid is true send pix_key_type "cpf", otherwise send "phone".',
    {"candidates": ["cpf", "phone"]},
)


@pytest.mark.parametrize("digits", ["11144477735", "11987654321", "00000000000"])
def test_eleven_digits_without_type_is_ambiguous(
    sandbox: Sandbox, merchant: Merchant, api: Api, digits: str
) -> None:
    response = cash_out(api, {"amount": 100, "pix_key": digits, "description": "x" * 141})
    assert response.status_code == 422
    assert response.json() == AMBIGUOUS
    assert_untouched(sandbox, merchant)


def test_description_limits(sandbox: Sandbox, merchant: Merchant, api: Api) -> None:
    too_long = cash_out(api, {"amount": 100, "pix_key": SETTLE_KEY, "description": "é" * 141})
    assert too_long.status_code == 400
    assert too_long.json() == format_b("description must be at most 140 characters")
    wrong_type = cash_out(api, {"amount": 100, "pix_key": SETTLE_KEY, "description": 7})
    assert wrong_type.json() == format_b("invalid description")
    assert_untouched(sandbox, merchant)
    accepted = cash_out(api, {"amount": 100, "pix_key": SETTLE_KEY, "description": "é" * 140})
    assert accepted.status_code == 202
    assert row(sandbox, accepted.json()["transaction_id"])["description"] == "é" * 140


def test_a_description_keeps_control_characters_as_sent(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    """The spec limits a description by length only: any text is kept exactly, NUL too."""
    text = "nota\x00fiscal\t12\u2028"
    accepted = cash_out(api, {"amount": 100, "pix_key": SETTLE_KEY, "description": text})
    assert accepted.status_code == 202
    transaction_id = accepted.json()["transaction_id"]
    assert row(sandbox, transaction_id)["description"] == text
    assert api("GET", f"/transactions/{transaction_id}", None).json()["data"]["description"] == text


@pytest.mark.parametrize(
    ("external_id", "kept"),
    [
        ("pedido-123", "pedido-123"),
        ("  order_1.a:b-c  ", "order_1.a:b-c"),
        ("x" * 128, "x" * 128),
        ("x" * 129, None),
        ("bad id", None),
        ("pedido#1", None),
        ("ação", None),
        ("   ", None),
        ("", None),
        (123, None),
        (["a"], None),
    ],
)
def test_invalid_external_id_is_silently_dropped(
    sandbox: Sandbox, api: Api, external_id: Any, kept: str | None
) -> None:
    response = cash_out(api, {"amount": 100, "pix_key": SETTLE_KEY, "external_id": external_id})
    assert response.status_code == 202
    assert response.json()["external_id"] == kept
    assert row(sandbox, response.json()["transaction_id"])["external_id"] == kept


@pytest.mark.parametrize("ispb", ["6070119", "607011900", "6070119A", 60701190, "", " 60701190"])
def test_recipient_ispb_format(sandbox: Sandbox, merchant: Merchant, api: Api, ispb: Any) -> None:
    response = cash_out(api, {"amount": 100, "pix_key": SETTLE_KEY, "recipient_ispb": ispb})
    assert response.status_code == 400
    assert response.json() == format_b("invalid recipient_ispb")
    assert_untouched(sandbox, merchant)


SAME_INSTITUTION = format_a(
    "same_institution_transfer",
    "recipient_ispb is this institution's own code; internal PIX is not supported",
    [],
)


def test_same_institution_transfer(sandbox: Sandbox, merchant: Merchant, api: Api) -> None:
    own = sandbox.engine.config.service_ispb
    response = cash_out(api, {"amount": 100, "pix_key": SETTLE_KEY, "recipient_ispb": own})
    assert response.status_code == 422
    assert response.json() == SAME_INSTITUTION
    assert_untouched(sandbox, merchant)


def test_key_held_at_this_institution_is_a_same_institution_transfer(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    other = sandbox.create_merchant("Vizinho")
    sandbox.register_pix_key("vizinho@example.com", owner_name="Vizinho", merchant_id=other.id)
    response = cash_out(api, {"amount": 100, "pix_key": "vizinho@example.com"})
    assert response.status_code == 422
    assert response.json() == format_a(
        "same_institution_transfer",
        "Transfers to a key at this institution are not supported (internal PIX is unavailable)",
        [],
    )
    assert_untouched(sandbox, merchant)


@pytest.mark.parametrize(
    "e2e",
    [
        "X99999999202601051200abcdefghijk",
        "E9999999A202601051200abcdefghij",
        "E99999999202601051200abc",
        "E99999999202601051200abcdefghijk-",
        "e99999999202601051200abcdefghijk",
        12345,
    ],
)
def test_malformed_end_to_end_id(sandbox: Sandbox, merchant: Merchant, api: Api, e2e: Any) -> None:
    response = cash_out(api, {"amount": 100, "pix_key": SETTLE_KEY, "end_to_end_id": e2e})
    assert response.status_code == 400
    assert response.json() == format_b("invalid end_to_end_id")
    assert_untouched(sandbox, merchant)


def test_purpose_is_stored_and_checked(sandbox: Sandbox, merchant: Merchant, api: Api) -> None:
    bad = cash_out(api, {"amount": 100, "pix_key": SETTLE_KEY, "purpose": 3})
    assert bad.json() == format_b("purpose must be a string of at most 140 characters")
    assert_untouched(sandbox, merchant)
    good = cash_out(api, {"amount": 100, "pix_key": SETTLE_KEY, "purpose": "fornecedor"})
    assert row(sandbox, good.json()["transaction_id"])["purpose"] == "fornecedor"


def test_ceiling_exceeded(sandbox: Sandbox, connect: Connect) -> None:
    merchant = sandbox.create_merchant("Teto", balance_centavos=1_000_000, ceiling_centavos=100_000)
    api = connect(sandbox, sandbox.issue_api_key(merchant.id))
    response = cash_out(api, {"amount": 100_001, "pix_key": SETTLE_KEY})
    assert response.status_code == 422
    assert response.json() == format_a(
        "ceiling_exceeded",
        "Amount R$ 1.000,01 exceeds the per-transaction limit of R$ 1.000,00",
        {"ceiling": 10_000_000, "amount": 10_000_100},
    )
    assert_untouched(sandbox, merchant)
    assert cash_out(api, {"amount": 100_000, "pix_key": SETTLE_KEY}).status_code == 202


def test_ceiling_is_checked_before_balance(sandbox: Sandbox, connect: Connect) -> None:
    merchant = sandbox.create_merchant("Pobre", balance_centavos=0, ceiling_centavos=100)
    api = connect(sandbox, sandbox.issue_api_key(merchant.id))
    response = cash_out(api, {"amount": 101, "pix_key": SETTLE_KEY})
    assert response.json()["errors"][0]["code"] == "ceiling_exceeded"


def test_insufficient_balance_counts_the_fee(sandbox: Sandbox, connect: Connect) -> None:
    merchant = sandbox.create_merchant("Pequena", balance_centavos=1_000)
    api = connect(sandbox, sandbox.issue_api_key(merchant.id))
    response = cash_out(api, {"amount": 951, "pix_key": SETTLE_KEY})
    assert response.status_code == 422
    assert response.json() == format_a(
        "insufficient_balance",
        "Insufficient balance: available R$ 10,00, required R$ 10,01 (amount plus fee)",
        {"available": 100_000, "required": 100_100},
    )
    assert_untouched(sandbox, merchant, opening_base=100_000)
    exact = cash_out(api, {"amount": 950, "pix_key": SETTLE_KEY})
    assert exact.status_code == 202
    assert sandbox.balance(merchant.id).available_base == 0


def test_huge_amount_under_a_huge_ceiling_is_a_clean_refusal(
    sandbox: Sandbox, connect: Connect
) -> None:
    largest = (2**63 - 1) // 100
    fees = FeeSchedule(cash_out=Fee(percent_bps=10_000))
    merchant = sandbox.create_merchant("Sem teto", ceiling_centavos=largest, fees=fees)
    api = connect(sandbox, sandbox.issue_api_key(merchant.id))
    response = cash_out(api, {"amount": largest, "pix_key": SETTLE_KEY})
    assert response.status_code == 422
    error = response.json()["errors"][0]
    assert error["code"] == "insufficient_balance"
    assert error["params"] == {"available": 0, "required": 2 * largest * 100}
    assert error["message"] == (
        f"Insufficient balance: available R$ 0,00, required {2 * largest * 100} base units "
        "(amount plus fee)"
    )


def test_holds_of_in_flight_payouts_reduce_the_safe_balance(
    sandbox: Sandbox, connect: Connect
) -> None:
    merchant = sandbox.create_merchant("Meio", balance_centavos=2_000)
    api = connect(sandbox, sandbox.issue_api_key(merchant.id))
    assert cash_out(api, {"amount": 1_000, "pix_key": SETTLE_KEY}).status_code == 202
    second = cash_out(api, {"amount": 951, "pix_key": "11144477735", "pix_key_type": "cpf"})
    assert second.status_code == 422
    assert second.json()["errors"][0]["params"] == {"available": 95_000, "required": 100_100}
    sandbox.advance(2)
    assert sandbox.balance(merchant.id).ledger_base == 95_000
    assert sandbox.audit(merchant.id).consistent


SYNC_REFUSALS = [
    ("notfound@sandbox.pixops.dev", None, "dict_key_not_found",
     "PIX key not found in the key directory (DICT)"),
    ("nobody@example.com", None, "dict_key_not_found",
     "PIX key not found in the key directory (DICT)"),
    ("52998224725", "cpf", "dict_key_not_found", "PIX key not found in the key directory (DICT)"),
    ("blocked@sandbox.pixops.dev", None, "dict_key_blocked",
     "PIX key is blocked in the key directory (DICT)"),
    ("24681357928", "cpf", "dict_key_blocked", "PIX key is blocked in the key directory (DICT)"),
    ("lookup.failed@sandbox.pixops.dev", None, "dict_lookup_failed",
     "Key directory (DICT) lookup failed; retry in 5 to 30 s"),
    ("rate.limited@sandbox.pixops.dev", None, "dict_rate_limited",
     "Key directory (DICT) lookup limit reached temporarily; back off and retry"),
    ("bucket.exhausted@sandbox.pixops.dev", None, "dict_bucket_exhausted",
     "Key directory (DICT) capacity temporarily unavailable; wait and avoid bursts"),
]  # fmt: skip


@pytest.mark.parametrize(("pix_key", "key_type", "code", "message"), SYNC_REFUSALS)
def test_directory_refusals_are_format_a_400(
    sandbox: Sandbox,
    merchant: Merchant,
    api: Api,
    pix_key: str,
    key_type: str | None,
    code: str,
    message: str,
) -> None:
    body: dict[str, Any] = {"amount": 100, "pix_key": pix_key}
    if key_type is not None:
        body["pix_key_type"] = key_type
    response = cash_out(api, body)
    assert response.status_code == 400
    detected = key_type or "email"
    params = {"pix_key": pix_key, "pix_key_type": detected}
    assert response.json() == format_a(code, message, params)
    assert_untouched(sandbox, merchant)


@pytest.mark.parametrize(
    ("pix_key", "code", "provider_status"),
    [
        ("provider.rejected@sandbox.pixops.dev", "provider_rejected", 422),
        ("provider.schema@sandbox.pixops.dev", "provider_schema_error", 400),
        ("provider.unknown@sandbox.pixops.dev", "provider_unknown_error", 502),
    ],
)
def test_provider_refusals_are_format_a_400(
    sandbox: Sandbox, merchant: Merchant, api: Api, pix_key: str, code: str, provider_status: int
) -> None:
    response = cash_out(api, {"amount": 100, "pix_key": pix_key})
    assert response.status_code == 400
    body = response.json()
    assert body["status"] == "failed"
    assert body["errors"][0]["code"] == code
    assert body["errors"][0]["params"] == {"provider_status": provider_status}
    assert body["errors"][0]["message"]
    assert_untouched(sandbox, merchant)
    sandbox.advance(3600)
    assert sandbox.events(merchant.id) == []


def test_permission_transfer_write(sandbox: Sandbox, merchant: Merchant, connect: Connect) -> None:
    reader = sandbox.issue_api_key(merchant.id, permissions=["transfer:read"])
    response = cash_out(connect(sandbox, reader), {"amount": 100, "pix_key": SETTLE_KEY})
    assert response.status_code == 403
    assert response.json() == {
        "error": "forbidden",
        "message": "API key lacks permission: transfer:write",
    }
    assert_untouched(sandbox, merchant)


# -- accepted and settled -------------------------------------------------------


def test_accepted_then_confirmed(sandbox: Sandbox, merchant: Merchant, api: Api) -> None:
    response = cash_out(api, {"amount": 12_345, "pix_key": SETTLE_KEY, "external_id": "pedido-1"})
    assert response.status_code == 202
    body = response.json()
    e2e = body["end_to_end_id"]
    assert re.fullmatch(r"E99999999202601051200[a-zA-Z0-9]{11}", e2e)
    assert body == {
        "worked": True,
        "final": False,
        "transaction_id": "PIXOUT" + e2e,
        "end_to_end_id": e2e,
        "external_id": "pedido-1",
        "amount": 1_234_500,
        "fee_amount": FEE_BASE,
        "net_amount": 1_234_500 + FEE_BASE,
        "status": "accepted",
        "detail": "PIX transfer accepted; the outcome arrives by webhook "
        "(pix.payout.confirmed, pix.payout.rejected or pix.payout.failed)",
    }
    tx = body["transaction_id"]
    stored = row(sandbox, tx)
    assert (stored["status"], stored["stage"], stored["kind"]) == ("processing", 2, "cash_out")
    assert (stored["counterparty_name"], stored["recipient_document"]) == (
        "Maria Silva",
        "52998224725",
    )
    assert (stored["recipient_key"], stored["recipient_key_type"]) == (SETTLE_KEY, "email")
    assert stored["recipient_ispb"] == "60701190"
    assert HEX32_UPPER.fullmatch(stored["outbound_request_id"])
    balance = sandbox.balance(merchant.id)
    assert (balance.ledger_base, balance.held_base) == (OPENING_BASE, 1_234_500 + FEE_BASE)
    assert sandbox.events(merchant.id) == []

    sandbox.advance(1)
    assert row(sandbox, tx)["status"] == "processing"
    sandbox.advance(1)
    stored = row(sandbox, tx)
    assert (stored["status"], stored["stage"]) == ("settled", 3)
    assert stored["completed_at"] == "2026-01-05T12:00:02.000000Z"
    assert journal(sandbox, tx) == [("cash_out", -1_234_500), ("cash_out_fee", -FEE_BASE)]
    balance = sandbox.balance(merchant.id)
    assert (balance.ledger_base, balance.held_base) == (OPENING_BASE - 1_234_500 - FEE_BASE, 0)
    [event] = sandbox.events(merchant.id)
    assert event.type == "pix.payout.confirmed"
    assert event.transaction_id == tx
    assert event.data == {
        "transaction_id": tx,
        "end_to_end_id": e2e,
        "external_id": "pedido-1",
        "amount": 1_234_500,
        "fee_amount": FEE_BASE,
        "net_amount": 1_234_500 + FEE_BASE,
        "status": "settled",
        "completed_at": "2026-01-05T12:00:02.000Z",
    }
    assert sandbox.audit(merchant.id).consistent
    sandbox.advance(3600)
    assert event_types(sandbox, merchant.id) == ["pix.payout.confirmed"]


SETTLING_KEYS = [
    ("maria.silva@sandbox.pixops.dev", None, "maria.silva@sandbox.pixops.dev", "60701190"),
    ("MARIA.Silva@Sandbox.PixOps.dev", "email", "maria.silva@sandbox.pixops.dev", "60701190"),
    ("11144477735", "cpf", "11144477735", "00000000"),
    ("11222333000181", None, "11222333000181", "60746948"),
    ("12abc34501de35", "cnpj", "12ABC34501DE35", "00416968"),
    ("+5511987654321", None, "+5511987654321", "18236120"),
    ("11987654321", "phone", "+5511987654321", "18236120"),
    ("123E4567-E89B-42D3-A456-426614174000", None, "123e4567-e89b-42d3-a456-426614174000",
     "00360305"),
]  # fmt: skip


@pytest.mark.parametrize(("pix_key", "key_type", "canonical", "ispb"), SETTLING_KEYS)
def test_settling_test_keys(
    sandbox: Sandbox,
    merchant: Merchant,
    api: Api,
    pix_key: str,
    key_type: str | None,
    canonical: str,
    ispb: str,
) -> None:
    body: dict[str, Any] = {"amount": 500, "pix_key": pix_key}
    if key_type is not None:
        body["pix_key_type"] = key_type
    response = cash_out(api, body)
    assert response.status_code == 202, response.text
    tx = response.json()["transaction_id"]
    assert (row(sandbox, tx)["recipient_key"], row(sandbox, tx)["recipient_ispb"]) == (
        canonical,
        ispb,
    )
    sandbox.advance(2)
    assert row(sandbox, tx)["status"] == "settled"
    assert event_types(sandbox, merchant.id) == ["pix.payout.confirmed"]
    assert sandbox.balance(merchant.id).ledger_base == OPENING_BASE - 50_000 - FEE_BASE
    assert sandbox.audit(merchant.id).consistent


@pytest.mark.parametrize(
    ("pix_key", "key_type"), [("instant@sandbox.pixops.dev", None), ("03560714000142", "cnpj")]
)
def test_settled_at_once(
    sandbox: Sandbox, merchant: Merchant, api: Api, pix_key: str, key_type: str | None
) -> None:
    body: dict[str, Any] = {"amount": 700, "pix_key": pix_key}
    if key_type:
        body["pix_key_type"] = key_type
    response = cash_out(api, body)
    assert response.status_code == 200
    payload = response.json()
    assert (payload["final"], payload["status"], payload["detail"]) == (
        True,
        "settled",
        "PIX transfer settled",
    )
    assert (payload["amount"], payload["fee_amount"], payload["net_amount"]) == (
        70_000,
        FEE_BASE,
        75_000,
    )
    stored = row(sandbox, payload["transaction_id"])
    assert (stored["status"], stored["stage"]) == ("settled", 3)
    assert stored["completed_at"] == "2026-01-05T12:00:00.000000Z"
    assert event_types(sandbox, merchant.id) == ["pix.payout.confirmed"]
    balance = sandbox.balance(merchant.id)
    assert (balance.ledger_base, balance.held_base) == (OPENING_BASE - 75_000, 0)
    sandbox.advance(3600)
    assert event_types(sandbox, merchant.id) == ["pix.payout.confirmed"]
    assert sandbox.audit(merchant.id).consistent


REJECTING_KEYS = [
    ("12345678909", "cpf", "AC03"),
    ("+5521998765432", None, "AM02"),
    ("21998765432", "phone", "AM02"),
    ("0c6f4ab2-3d5e-4f71-9a8b-2c3d4e5f6a7b", "evp", "AC06"),
    *[(f"reject.{code.lower()}@sandbox.pixops.dev", None, code) for code in ("AB03", "ED05")],
    ("REJECT.BE01@sandbox.pixops.dev", None, "BE01"),
    ("reject.frad@sandbox.pixops.dev", "email", "FRAD"),
]


@pytest.mark.parametrize(("pix_key", "key_type", "code"), REJECTING_KEYS)
def test_rejected_by_the_central_bank(
    sandbox: Sandbox, merchant: Merchant, api: Api, pix_key: str, key_type: str | None, code: str
) -> None:
    body: dict[str, Any] = {"amount": 1_000, "pix_key": pix_key, "external_id": "x-1"}
    if key_type:
        body["pix_key_type"] = key_type
    response = cash_out(api, body)
    assert response.status_code == 202
    assert response.json()["status"] == "accepted"
    tx = response.json()["transaction_id"]
    assert sandbox.balance(merchant.id).held_base == 100_000 + FEE_BASE
    sandbox.advance(1)
    assert row(sandbox, tx)["status"] == "processing"
    sandbox.advance(1)
    stored = row(sandbox, tx)
    description = central_bank.REASON_CODES[code]
    assert (stored["status"], stored["stage"], stored["reason_code"]) == ("rejected", 3, code)
    assert stored["reason_description"] == description
    assert stored["failed_at"] == "2026-01-05T12:00:02.000000Z"
    assert stored["completed_at"] is None
    [event] = sandbox.events(merchant.id)
    assert event.type == "pix.payout.rejected"
    assert event.data == {
        "transaction_id": tx,
        "end_to_end_id": response.json()["end_to_end_id"],
        "external_id": "x-1",
        "amount": 100_000,
        "status": "rejected",
        "reason_code": code,
        "reason_description": description,
    }
    balance = sandbox.balance(merchant.id)
    assert (balance.ledger_base, balance.held_base) == (OPENING_BASE, 0)
    assert journal(sandbox, tx) == []
    sandbox.advance(3600)
    assert event_types(sandbox, merchant.id) == ["pix.payout.rejected"]
    assert sandbox.audit(merchant.id).consistent


def test_unknown_reject_code_is_an_unregistered_key(api: Api) -> None:
    response = cash_out(api, {"amount": 100, "pix_key": "reject.zz99@sandbox.pixops.dev"})
    assert response.json()["errors"][0]["code"] == "dict_key_not_found"


# -- the retry queue --------------------------------------------------------------


def test_queued_then_cleared_then_confirmed(sandbox: Sandbox, merchant: Merchant, api: Api) -> None:
    response = cash_out(
        api, {"amount": 2_000, "pix_key": "queue.client@sandbox.pixops.dev", "external_id": "q1"}
    )
    assert response.status_code == 202
    body = response.json()
    tx, e2e = body["transaction_id"], body["end_to_end_id"]
    assert HEX32_UPPER.fullmatch(body["outbound_request_id"])
    assert body == {
        "worked": True,
        "final": False,
        "transaction_id": tx,
        "end_to_end_id": e2e,
        "external_id": "q1",
        "amount": 200_000,
        "fee_amount": FEE_BASE,
        "net_amount": 200_000 + FEE_BASE,
        "status": "queued",
        "detail": "DICT lookup limit reached; the transfer is queued and retried automatically",
        "type": "pix",
        "outbound_request_id": body["outbound_request_id"],
        "message": "DICT lookup quota of this client exhausted; retried automatically every "
        "3 s for up to 7200 s",
        "reason_code": "DICT_CLIENT_RATE_LIMITED",
        "estimated_retry_seconds": 3,
        "queue_ttl_seconds": 7200,
    }
    stored = row(sandbox, tx)
    assert (stored["status"], stored["stage"]) == ("queued", 0)
    assert sandbox.balance(merchant.id).held_base == 200_000 + FEE_BASE
    [queued] = sandbox.events(merchant.id)
    assert queued.type == "pix.payout.queued"
    assert queued.data == {
        "transaction_id": tx,
        "end_to_end_id": e2e,
        "external_id": "q1",
        "outbound_request_id": body["outbound_request_id"],
        "amount": 200_000,
        "status": "queued",
        "reason_code": "DICT_CLIENT_RATE_LIMITED",
        "reason_description": "DICT lookup quota of this client exhausted",
        "estimated_retry_seconds": 3,
        "queue_ttl_seconds": 7200,
    }
    sandbox.advance(8)
    assert row(sandbox, tx)["status"] == "queued"
    assert row(sandbox, tx)["attempts"] == 2
    sandbox.advance(1)
    stored = row(sandbox, tx)
    assert (stored["status"], stored["stage"], stored["reason_code"]) == ("processing", 2, None)
    sandbox.advance(2)
    assert row(sandbox, tx)["status"] == "settled"
    assert row(sandbox, tx)["completed_at"] == "2026-01-05T12:00:11.000000Z"
    assert event_types(sandbox, merchant.id) == ["pix.payout.queued", "pix.payout.confirmed"]
    assert sandbox.balance(merchant.id).ledger_base == OPENING_BASE - 200_000 - FEE_BASE
    sandbox.advance(7200)
    assert event_types(sandbox, merchant.id) == ["pix.payout.queued", "pix.payout.confirmed"]
    assert sandbox.audit(merchant.id).consistent


def test_bucket_queue_clears_on_the_fifth_retry(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    response = cash_out(api, {"amount": 100, "pix_key": "queue.bucket@sandbox.pixops.dev"})
    assert response.json()["reason_code"] == "DICT_BUCKET_EXHAUSTED"
    assert response.json()["message"].startswith("DICT lookup capacity temporarily exhausted")
    tx = response.json()["transaction_id"]
    sandbox.advance(14)
    assert row(sandbox, tx)["status"] == "queued"
    sandbox.advance(3)
    assert row(sandbox, tx)["status"] == "settled"
    events = sandbox.events(merchant.id)
    assert [e.type for e in events] == ["pix.payout.queued", "pix.payout.confirmed"]
    assert events[0].data["reason_code"] == "DICT_BUCKET_EXHAUSTED"
    assert sandbox.audit(merchant.id).consistent


def test_queue_timeout_after_7200_seconds(sandbox: Sandbox, merchant: Merchant, api: Api) -> None:
    response = cash_out(api, {"amount": 3_000, "pix_key": "queue.timeout@sandbox.pixops.dev"})
    assert response.status_code == 202
    tx = response.json()["transaction_id"]
    sandbox.advance(7199)
    assert row(sandbox, tx)["status"] == "queued"
    assert sandbox.balance(merchant.id).held_base == 300_000 + FEE_BASE
    sandbox.advance(1)
    stored = row(sandbox, tx)
    assert (stored["status"], stored["stage"], stored["reason_code"]) == (
        "failed",
        3,
        "DICT_QUEUE_TIMEOUT",
    )
    assert stored["failed_at"] == "2026-01-05T14:00:00.000000Z"
    queued, failed = sandbox.events(merchant.id)
    assert (queued.type, failed.type) == ("pix.payout.queued", "pix.payout.failed")
    assert failed.data == {
        "transaction_id": tx,
        "end_to_end_id": response.json()["end_to_end_id"],
        "external_id": None,
        "amount": 300_000,
        "status": "failed",
        "reason_code": "DICT_QUEUE_TIMEOUT",
        "reason_description": "DICT lookup did not succeed within the 7200-second retry window",
    }
    balance = sandbox.balance(merchant.id)
    assert (balance.ledger_base, balance.held_base) == (OPENING_BASE, 0)
    with sandbox.engine.store.lock:
        left = sandbox.engine.store.conn.execute(
            "SELECT COUNT(*) FROM timers WHERE ref = ?", (tx,)
        ).fetchone()[0]
    assert left == 0
    assert sandbox.audit(merchant.id).consistent


def test_orphan_is_voided_after_30_minutes(sandbox: Sandbox, merchant: Merchant, api: Api) -> None:
    response = cash_out(api, {"amount": 4_000, "pix_key": "orphan@sandbox.pixops.dev"})
    assert response.status_code == 202
    assert response.json()["status"] == "accepted"
    tx = response.json()["transaction_id"]
    sandbox.advance(1799)
    assert row(sandbox, tx)["status"] == "processing"
    assert sandbox.events(merchant.id) == []
    sandbox.advance(1)
    stored = row(sandbox, tx)
    assert (stored["status"], stored["reason_code"]) == ("failed", "orphan_force_voided")
    [failed] = sandbox.events(merchant.id)
    assert failed.type == "pix.payout.failed"
    assert failed.data["reason_code"] == "orphan_force_voided"
    assert failed.data["reason_description"].startswith("No pacs.002")
    balance = sandbox.balance(merchant.id)
    assert (balance.ledger_base, balance.held_base) == (OPENING_BASE, 0)
    assert sandbox.audit(merchant.id).consistent


def test_orphan_watchdog_is_cancelled_by_the_answer(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    tx = cash_out(api, {"amount": 100, "pix_key": SETTLE_KEY}).json()["transaction_id"]
    with sandbox.engine.store.lock:
        kinds = {
            r[0]
            for r in sandbox.engine.store.conn.execute(
                "SELECT kind FROM timers WHERE ref = ?", (tx,)
            )
        }
    assert kinds == {"payout.pacs002", "payout.orphan"}
    sandbox.advance(2)
    with sandbox.engine.store.lock:
        left = sandbox.engine.store.conn.execute(
            "SELECT COUNT(*) FROM timers WHERE ref = ?", (tx,)
        ).fetchone()[0]
    assert left == 0


def set_quota(sb: Sandbox, merchant_id: str, per_minute: int) -> None:
    with sb.engine.store.transaction() as conn:
        conn.execute(
            "UPDATE merchants SET dict_lookups_per_minute = ? WHERE id = ?",
            (per_minute, merchant_id),
        )


def test_merchant_lookup_quota_queues_any_key(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    set_quota(sandbox, merchant.id, 2)
    sandbox.advance(30)
    first = cash_out(api, {"amount": 100, "pix_key": SETTLE_KEY})
    second = cash_out(api, {"amount": 200, "pix_key": SETTLE_KEY})
    assert [first.json()["status"], second.json()["status"]] == ["accepted", "accepted"]
    third = cash_out(api, {"amount": 300, "pix_key": SETTLE_KEY})
    fourth = cash_out(api, {"amount": 400, "pix_key": "nobody@example.com"})
    for queued in (third, fourth):
        assert queued.status_code == 202
        assert queued.json()["status"] == "queued"
        assert queued.json()["reason_code"] == "DICT_CLIENT_RATE_LIMITED"
    # A refused lookup is not counted: the unregistered key is refused synchronously only
    # when the quota lets the lookup happen.
    sandbox.advance(27)
    assert row(sandbox, third.json()["transaction_id"])["status"] == "queued"
    sandbox.advance(3)  # 12:01:00: a new minute, a fresh quota
    assert row(sandbox, third.json()["transaction_id"])["status"] == "processing"
    failed = row(sandbox, fourth.json()["transaction_id"])
    assert (failed["status"], failed["reason_code"]) == ("failed", "dict_key_not_found")
    sandbox.advance(2)
    assert row(sandbox, third.json()["transaction_id"])["status"] == "settled"
    by_tx = {(e.transaction_id, e.type): e.data for e in sandbox.events(merchant.id)}
    fourth_failed = by_tx[(fourth.json()["transaction_id"], "pix.payout.failed")]
    assert fourth_failed["reason_description"] == "PIX key not found in the key directory (DICT)"
    assert sandbox.balance(merchant.id).held_base == 0
    assert sandbox.audit(merchant.id).consistent


def test_quota_is_per_merchant(
    sandbox: Sandbox, merchant: Merchant, api: Api, connect: Connect
) -> None:
    set_quota(sandbox, merchant.id, 1)
    other = sandbox.create_merchant("Outra", balance_centavos=10_000)
    other_api = connect(sandbox, sandbox.issue_api_key(other.id))
    assert cash_out(api, {"amount": 100, "pix_key": SETTLE_KEY}).json()["status"] == "accepted"
    assert cash_out(api, {"amount": 101, "pix_key": SETTLE_KEY}).json()["status"] == "queued"
    response = cash_out(other_api, {"amount": 100, "pix_key": SETTLE_KEY})
    assert response.json()["status"] == "accepted"


# -- duplicates and routing ---------------------------------------------------------


def test_repeat_in_the_same_minute_is_rejected_as_duplicate(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    body = {"amount": 1_500, "pix_key": SETTLE_KEY}
    first = cash_out(api, body).json()
    second = cash_out(api, body).json()
    assert second["end_to_end_id"] == first["end_to_end_id"]
    assert first["transaction_id"] == "PIXOUT" + first["end_to_end_id"]
    assert second["transaction_id"] == first["transaction_id"] + "-2"
    assert second["status"] == "accepted"
    sandbox.advance(5)
    third = cash_out(api, body).json()  # after the first settled, same minute
    assert third["transaction_id"] == first["transaction_id"] + "-3"
    sandbox.advance(2)
    assert row(sandbox, first["transaction_id"])["status"] == "settled"
    for repeat in (second, third):
        stored = row(sandbox, repeat["transaction_id"])
        assert (stored["status"], stored["reason_code"]) == ("rejected", "DUPL")
    rejected = [e for e in sandbox.events(merchant.id) if e.type == "pix.payout.rejected"]
    assert [e.data["reason_code"] for e in rejected] == ["DUPL", "DUPL"]
    assert sandbox.balance(merchant.id).ledger_base == OPENING_BASE - 150_000 - FEE_BASE
    assert sandbox.audit(merchant.id).consistent


def test_a_new_minute_derives_a_new_end_to_end_id(sandbox: Sandbox, api: Api) -> None:
    body = {"amount": 1_500, "pix_key": SETTLE_KEY}
    first = cash_out(api, body).json()
    sandbox.advance(60)
    second = cash_out(api, body).json()
    assert second["end_to_end_id"] != first["end_to_end_id"]
    assert second["end_to_end_id"].startswith("E99999999202601051201")
    sandbox.advance(2)
    assert row(sandbox, second["transaction_id"])["status"] == "settled"


def test_derived_end_to_end_id_depends_on_amount_key_and_merchant(
    sandbox: Sandbox, api: Api, connect: Connect
) -> None:
    other = sandbox.create_merchant("Outra", balance_centavos=100_000)
    other_api = connect(sandbox, sandbox.issue_api_key(other.id))
    ids = {
        cash_out(api, {"amount": 100, "pix_key": SETTLE_KEY}).json()["end_to_end_id"],
        cash_out(api, {"amount": 101, "pix_key": SETTLE_KEY}).json()["end_to_end_id"],
        cash_out(api, {"amount": 100, "pix_key": "11144477735", "pix_key_type": "cpf"}).json()[
            "end_to_end_id"
        ],
        cash_out(other_api, {"amount": 100, "pix_key": SETTLE_KEY}).json()["end_to_end_id"],
    }
    assert len(ids) == 4


def test_repeat_of_a_rejected_payment_is_a_fresh_attempt(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    body = {"amount": 100, "pix_key": "reject.ac07@sandbox.pixops.dev"}
    first = cash_out(api, body).json()
    sandbox.advance(2)
    second = cash_out(api, body).json()
    assert second["transaction_id"] == first["transaction_id"] + "-2"
    sandbox.advance(2)
    assert row(sandbox, second["transaction_id"])["reason_code"] == "AC07"


def test_explicit_end_to_end_id(sandbox: Sandbox, merchant: Merchant, api: Api) -> None:
    e2e = "E99999999202601051200ABCdef12345"
    first = cash_out(api, {"amount": 100, "pix_key": SETTLE_KEY, "end_to_end_id": e2e}).json()
    assert (first["end_to_end_id"], first["transaction_id"]) == (e2e, "PIXOUT" + e2e)
    other_key = {"amount": 999, "pix_key": "11144477735", "pix_key_type": "cpf"}
    second = cash_out(api, {**other_key, "end_to_end_id": e2e}).json()
    assert second["transaction_id"] == "PIXOUT" + e2e + "-2"
    sandbox.advance(2)
    assert row(sandbox, first["transaction_id"])["status"] == "settled"
    assert row(sandbox, second["transaction_id"])["reason_code"] == "DUPL"
    assert sandbox.audit(merchant.id).consistent


def test_idempotency_key_replays_without_a_second_payment(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    body = {"amount": 100, "pix_key": SETTLE_KEY}
    first = cash_out(api, body, headers={"Idempotency-Key": "abc"})
    replay = cash_out(api, body, headers={"Idempotency-Key": "abc"})
    assert replay.headers["x-idempotent-replay"] == "true"
    assert replay.content == first.content
    assert count_rows(sandbox, merchant.id) == 1


@pytest.mark.parametrize(
    ("ispb", "status", "code"),
    [
        ("60701190", "settled", None),  # the key's own bank
        ("00000000", "rejected", "AC03"),  # a participant without the account
        ("12345678", "rejected", "DS27"),  # not a Pix participant
    ],
)
def test_manual_routing(
    sandbox: Sandbox, merchant: Merchant, api: Api, ispb: str, status: str, code: str | None
) -> None:
    response = cash_out(api, {"amount": 100, "pix_key": SETTLE_KEY, "recipient_ispb": ispb})
    assert response.status_code == 202
    tx = response.json()["transaction_id"]
    sandbox.advance(2)
    stored = row(sandbox, tx)
    assert (stored["status"], stored["reason_code"], stored["recipient_ispb"]) == (
        status,
        code,
        ispb,
    )
    assert sandbox.audit(merchant.id).consistent


# -- dual control --------------------------------------------------------------------


@pytest.fixture
def dual(sandbox: Sandbox, connect: Connect) -> tuple[Merchant, Api]:
    merchant = sandbox.create_merchant("Dupla", balance_centavos=100_000, dual_control=True)
    return merchant, connect(sandbox, sandbox.issue_api_key(merchant.id))


def test_pending_approval_then_approved(sandbox: Sandbox, dual: tuple[Merchant, Api]) -> None:
    merchant, api = dual
    response = cash_out(api, {"amount": 1_000, "pix_key": SETTLE_KEY})
    assert response.status_code == 202
    body = response.json()
    assert (body["status"], body["final"]) == ("pending_approval", False)
    assert body["detail"] == "PIX transfer awaiting dual-control approval in the merchant portal"
    tx = body["transaction_id"]
    assert (row(sandbox, tx)["status"], row(sandbox, tx)["stage"]) == ("pending_approval", 0)
    assert sandbox.balance(merchant.id).held_base == 100_000 + FEE_BASE
    sandbox.advance(3600)
    assert row(sandbox, tx)["status"] == "pending_approval"
    assert sandbox.events(merchant.id) == []
    assert sandbox.approve_payout(tx) == "processing"
    sandbox.advance(2)
    assert row(sandbox, tx)["status"] == "settled"
    assert event_types(sandbox, merchant.id) == ["pix.payout.confirmed"]
    assert sandbox.balance(merchant.id).ledger_base == 10_000_000 - 100_000 - FEE_BASE
    assert sandbox.audit(merchant.id).consistent
    with pytest.raises(AdminError, match="only a payout pending approval"):
        sandbox.approve_payout(tx)


def test_pending_approval_then_denied(sandbox: Sandbox, dual: tuple[Merchant, Api]) -> None:
    merchant, api = dual
    tx = cash_out(api, {"amount": 1_000, "pix_key": SETTLE_KEY}).json()["transaction_id"]
    assert sandbox.deny_payout(tx) == "failed"
    stored = row(sandbox, tx)
    assert (stored["status"], stored["reason_code"]) == ("failed", "approval_denied")
    [event] = sandbox.events(merchant.id)
    assert (event.type, event.data["reason_code"]) == ("pix.payout.failed", "approval_denied")
    balance = sandbox.balance(merchant.id)
    assert (balance.ledger_base, balance.held_base) == (10_000_000, 0)
    assert sandbox.audit(merchant.id).consistent
    with pytest.raises(AdminError):
        sandbox.deny_payout(tx)
    with pytest.raises(AdminError, match="no cash-out"):
        sandbox.approve_payout("PIXOUTnothing")


def test_approval_meets_the_directory(sandbox: Sandbox, dual: tuple[Merchant, Api]) -> None:
    merchant, api = dual
    missing = cash_out(api, {"amount": 100, "pix_key": "nobody@example.com"}).json()
    queued = cash_out(api, {"amount": 100, "pix_key": "queue.client@sandbox.pixops.dev"}).json()
    assert missing["status"] == queued["status"] == "pending_approval"
    assert sandbox.approve_payout(missing["transaction_id"]) == "failed"
    assert row(sandbox, missing["transaction_id"])["reason_code"] == "dict_key_not_found"
    assert sandbox.approve_payout(queued["transaction_id"]) == "queued"
    sandbox.advance(11)
    assert row(sandbox, queued["transaction_id"])["status"] == "settled"
    assert event_types(sandbox, merchant.id) == [
        "pix.payout.failed",
        "pix.payout.queued",
        "pix.payout.confirmed",
    ]
    assert sandbox.balance(merchant.id).held_base == 0
    assert sandbox.audit(merchant.id).consistent


# -- fees, casing, concurrency ---------------------------------------------------------


def test_fee_schedule_of_the_merchant(sandbox: Sandbox, connect: Connect) -> None:
    fees = FeeSchedule(cash_out=Fee(percent_bps=150, fixed_centavos=10))
    merchant = sandbox.create_merchant("Taxada", balance_centavos=100_000, fees=fees)
    api = connect(sandbox, sandbox.issue_api_key(merchant.id))
    body = cash_out(api, {"amount": 10_001, "pix_key": SETTLE_KEY}).json()
    fee_base = 1_000 + (1_000_100 * 150 + 5_000) // 10_000
    assert (body["fee_amount"], body["net_amount"]) == (fee_base, 1_000_100 + fee_base)
    sandbox.advance(2)
    assert journal(sandbox, body["transaction_id"]) == [
        ("cash_out", -1_000_100),
        ("cash_out_fee", -fee_base),
    ]
    assert sandbox.audit(merchant.id).consistent


def test_free_cash_out_posts_no_fee_entry(sandbox: Sandbox, connect: Connect) -> None:
    merchant = sandbox.create_merchant(
        "Isenta", balance_centavos=100_000, fees=FeeSchedule(cash_out=Fee())
    )
    api = connect(sandbox, sandbox.issue_api_key(merchant.id))
    body = cash_out(api, {"amount": 100_000, "pix_key": SETTLE_KEY}).json()
    assert (body["fee_amount"], body["net_amount"]) == (0, 10_000_000)
    sandbox.advance(2)
    assert journal(sandbox, body["transaction_id"]) == [("cash_out", -10_000_000)]
    assert sandbox.balance(merchant.id).ledger_base == 0


def test_camel_case_request_and_response(sandbox: Sandbox, api: Api) -> None:
    response = cash_out(
        api,
        {"amount": 100, "pixKey": "11144477735", "pixKeyType": "cpf", "externalId": "c-1"},
        headers={"X-Key-Case": "camelCase"},
    )
    assert response.status_code == 202
    body = response.json()
    assert (body["externalId"], body["feeAmount"], body["netAmount"]) == ("c-1", 5_000, 15_000)
    assert body["transactionId"] == "PIXOUT" + body["endToEndId"]


def test_concurrent_cash_outs_never_overdraw(sandbox: Sandbox, connect: Connect) -> None:
    merchant = sandbox.create_merchant("Concorrida", balance_centavos=10_000)
    shared_key = sandbox.issue_api_key(merchant.id)
    clients = [connect(sandbox, shared_key) for _ in range(24)]
    statuses: list[int] = []
    lock = threading.Lock()

    def worker(index: int) -> None:
        body = {"amount": 950 + index, "pix_key": SETTLE_KEY}
        response = cash_out(clients[index], body)
        with lock:
            statuses.append(response.status_code)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(24)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    accepted = statuses.count(202)
    assert accepted + statuses.count(422) == 24
    assert 1 <= accepted <= 10
    balance = sandbox.balance(merchant.id)
    assert balance.safe_base >= 0
    assert balance.held_base <= 1_000_000
    sandbox.advance(2)
    balance = sandbox.balance(merchant.id)
    assert balance.ledger_base >= 0
    assert balance.held_base == 0
    assert count_rows(sandbox, merchant.id) == accepted
    assert sandbox.audit(merchant.id).consistent


def test_response_is_json_with_integer_money(api: Api) -> None:
    response = cash_out(api, {"amount": 1, "pix_key": SETTLE_KEY})
    raw = json.loads(response.content)
    for field in ("amount", "fee_amount", "net_amount"):
        assert type(raw[field]) is int


def test_a_queued_payout_rejected_after_its_retry_emits_rejected(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    """Recorded in docs/decisions.md (issue 8.6): queued -> rejected, although the spec's
    transitions name only confirmed/failed after a queue."""
    set_quota(sandbox, merchant.id, 1)
    sandbox.advance(30)
    assert cash_out(api, {"amount": 100, "pix_key": SETTLE_KEY}).json()["status"] == "accepted"
    queued = cash_out(api, {"amount": 200, "pix_key": "reject.ed05@sandbox.pixops.dev"})
    assert (queued.status_code, queued.json()["status"]) == (202, "queued")
    tx = queued.json()["transaction_id"]
    sandbox.advance(60)
    stored = row(sandbox, tx)
    assert (stored["status"], stored["reason_code"]) == ("rejected", "ED05")
    types = [e.type for e in sandbox.events(merchant.id) if e.transaction_id == tx]
    assert types == ["pix.payout.queued", "pix.payout.rejected"]
    assert sandbox.balance(merchant.id).held_base == 0
    assert sandbox.audit(merchant.id).consistent
