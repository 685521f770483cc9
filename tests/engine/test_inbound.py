"""Plain inbound credits, refused credits, returns of our cash-outs, and the simulated payers."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import httpx
import pytest

from pixops import documents, ids, participants
from pixops.engine import ledger
from pixops.engine.clock import to_db
from pixops.engine.world import payers
from pixops.sandbox import AdminError, Sandbox, SimulationError

BASE = "http://sandbox/api/external"
FAILED_KEYS = {
    "status", "transaction_id", "end_to_end_id", "amount", "fee_amount", "external_id", "type",
    "direction", "payment_status", "failure_reason", "reason_code", "reason_description",
    "started_at", "failed_at", "recipient",
}  # fmt: skip


class Api:
    def __init__(self, sb: Sandbox, key: Any) -> None:
        self.client = httpx.Client(transport=sb.transport(), base_url=BASE)
        self.headers = {"Authorization": f"ApiKey {key.client_id}:{key.client_secret}"}

    def get(self, path: str, **params: str) -> httpx.Response:
        return self.client.get(path, params=params, headers=self.headers)

    def data(self, path: str) -> Any:
        response = self.get(path)
        assert response.status_code == 200, response.text
        return response.json()["data"]


def insert_settled_cash_out(
    sb: Sandbox, merchant_id: str, *, amount_centavos: int, fee_centavos: int = 50,
    status: str = "settled", recipient_ispb: str = "60746948",
) -> str:  # fmt: skip
    """A cash-out row as docs/engine-internals.md describes it, with its journal debits."""
    engine, now = sb.engine, sb.now()
    e2e = ids.new_end_to_end_id(engine.config.service_ispb, now, engine.rng)
    transaction_id = ids.cash_out_transaction_id(e2e)
    amount_base, fee_base = amount_centavos * 100, fee_centavos * 100
    with engine.store.transaction() as conn:
        conn.execute(
            "INSERT INTO transactions (id, merchant_id, transaction_id, end_to_end_id, type,"
            " direction, kind, status, stage, amount_base, fee_base, counterparty_name,"
            " recipient_document, recipient_key, recipient_key_type, recipient_ispb, created_at,"
            " completed_at) VALUES (?, ?, ?, ?, 'pix', 'outbound', 'cash_out', ?, 3, ?, ?,"
            " 'Maria Silva', '52998224725', 'maria@example.com', 'email', ?, ?, ?)",
            (
                ids.new_hex_id(engine.rng), merchant_id, transaction_id, e2e, status,
                amount_base, fee_base, recipient_ispb, to_db(now),
                to_db(now) if status == "settled" else None,
            ),
        )  # fmt: skip
        if status == "settled":
            ledger.post(
                conn, merchant_id, -amount_base, "cash_out", now, transaction_id=transaction_id
            )
            ledger.post(
                conn, merchant_id, -fee_base, "cash_out_fee", now, transaction_id=transaction_id
            )
    return transaction_id


@pytest.fixture
def sb() -> Sandbox:
    return Sandbox()


@pytest.fixture
def merchant(sb: Sandbox) -> Any:
    return sb.create_merchant("Loja Exemplo", balance_centavos=100_000)


@pytest.fixture
def api(sb: Sandbox, merchant: Any) -> Api:
    return Api(sb, sb.issue_api_key(merchant.id, permissions=["transfer:read", "statement:read"]))


# -- plain credits --------------------------------------------------------------


def test_receive_pix_books_the_credit_with_the_cash_in_fee(
    sb: Sandbox, merchant: Any, api: Api
) -> None:
    transaction_id = sb.receive_pix(
        merchant.id, amount_centavos=25_000, payer_name="João Lima",
        payer_document="111.444.777-35", payer_ispb="00360305", description="Aluguel",
    )  # fmt: skip
    assert transaction_id.startswith("PIXINE00360305")
    data = api.data(f"/transactions/{transaction_id}")
    assert data["status"] == "settled"
    assert data["type"] == "pix"
    assert data["direction"] == "inbound"
    assert data["amount"] == 2_500_000
    assert data["fee_amount"] == 24_750
    assert data["net_amount"] == 2_500_000 - 24_750
    assert data["counterparty_name"] == "João Lima"
    assert data["payer_document"] == "11144477735"
    assert data["payer_bank_name"] == "CAIXA ECONOMICA FEDERAL"
    assert data["description"] == "Aluguel"
    assert data["recipient_key"] is not None
    journal = sb.engine.store.conn.execute(
        "SELECT kind, amount_base FROM journal WHERE transaction_id = ? ORDER BY seq",
        (transaction_id,),
    ).fetchall()
    assert [tuple(row) for row in journal] == [("cash_in", 2_500_000), ("cash_in_fee", -24_750)]
    assert sb.balance(merchant.id).ledger_base == 10_000_000 + 2_500_000 - 24_750
    assert sb.audit(merchant.id).consistent
    assert sb.events(merchant.id) == []  # the spec has no event for a plain credit


def test_recipient_key_is_recorded(sb: Sandbox, merchant: Any, api: Api) -> None:
    transaction_id = sb.receive_pix(
        merchant.id, amount_centavos=100, recipient_key="loja@example.com"
    )
    assert api.data(f"/transactions/{transaction_id}")["recipient_key"] == "loja@example.com"


@pytest.mark.parametrize(
    ("code", "failure_reason", "description"),
    [
        ("AM02", "limit_exceeded", "Amount over the account's limit"),
        ("AC06", "account_blocked", "Account blocked"),
        ("AC03", "account_not_found", "Account missing or invalid"),
        ("DUPL", "duplicate", "Duplicate payment"),
        ("AB03", "central_bank_rejection", "Settlement timeout"),
    ],
)
def test_forced_failures_store_a_failed_credit_and_move_nothing(
    sb: Sandbox, merchant: Any, api: Api, code: str, failure_reason: str, description: str
) -> None:
    sb.advance(90)
    transaction_id = sb.receive_pix(
        merchant.id, amount_centavos=5_000, fail_reason=code, recipient_key="loja@example.com"
    )
    data = api.data(f"/transactions/{transaction_id}")
    assert set(data) == FAILED_KEYS
    assert data["status"] == data["payment_status"] == "failed"
    assert data["transaction_id"] == transaction_id
    assert data["end_to_end_id"] == transaction_id[len("PIXIN") :]
    assert data["amount"] == 500_000
    assert data["fee_amount"] == 0
    assert data["external_id"] is None
    assert data["type"] == "pix"
    assert data["direction"] == "inbound"
    assert data["reason_code"] == code
    assert data["reason_description"] == description
    assert data["failure_reason"] == failure_reason
    assert data["started_at"] == data["failed_at"] == "2026-01-05T12:01:30.000Z"
    assert data["recipient"] == {"name": "Loja Exemplo", "key": "loja@example.com"}
    assert sb.balance(merchant.id).ledger_base == 10_000_000
    assert sb.audit(merchant.id).consistent
    receipt = api.get(f"/transactions/{transaction_id}/receipt")
    assert receipt.status_code == 422


def test_inactive_account_refuses_with_ac06(sb: Sandbox, merchant: Any, api: Api) -> None:
    sb.set_account_active(merchant.id, False)
    transaction_id = sb.receive_pix(merchant.id, amount_centavos=1_000)
    sb.set_account_active(merchant.id, True)
    data = api.data(f"/transactions/{transaction_id}")
    assert (data["status"], data["reason_code"]) == ("failed", "AC06")
    assert sb.balance(merchant.id).ledger_base == 10_000_000


def test_amount_over_the_limit_refuses_with_am02(sb: Sandbox, api: Api) -> None:
    merchant = sb.create_merchant("Limitada", ceiling_centavos=50_000)
    api = Api(sb, sb.issue_api_key(merchant.id, permissions=["transfer:read"]))
    over = sb.receive_pix(merchant.id, amount_centavos=50_001)
    at_limit = sb.receive_pix(merchant.id, amount_centavos=50_000)
    assert api.data(f"/transactions/{over}")["reason_code"] == "AM02"
    assert api.data(f"/transactions/{at_limit}")["status"] == "settled"
    assert sb.audit(merchant.id).consistent


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"amount_centavos": 0}, "positive"),
        ({"amount_centavos": -1}, "positive"),
        ({"amount_centavos": 1.5}, "integer"),
        ({"amount_centavos": True}, "integer"),
        ({"amount_centavos": 2**62}, "64-bit"),
        ({"amount_centavos": 1, "fail_reason": "NOPE"}, "central-bank code"),
        ({"amount_centavos": 1, "description": "x" * 141}, "140"),
        ({"amount_centavos": 1, "recipient_key": ""}, "recipient_key"),
        ({"amount_centavos": 1, "payer_document": "00000000000"}, "CPF"),
        ({"amount_centavos": 1, "payer_ispb": "abcdefgh"}, "upper case"),
    ],
)
def test_bad_simulation_arguments_raise_and_write_nothing(
    sb: Sandbox, merchant: Any, kwargs: dict[str, Any], match: str
) -> None:
    with pytest.raises(SimulationError, match=match):
        sb.receive_pix(merchant.id, **kwargs)
    assert sb.engine.store.conn.execute("SELECT COUNT(*) FROM transactions").fetchone()[0] == 0


def test_unknown_merchant_is_an_admin_error(sb: Sandbox) -> None:
    with pytest.raises(AdminError, match="no merchant"):
        sb.receive_pix("mer_nope", amount_centavos=100)


# -- returns received -------------------------------------------------------------


def test_partial_then_final_return(sb: Sandbox, merchant: Any, api: Api) -> None:
    original = insert_settled_cash_out(sb, merchant.id, amount_centavos=10_000)
    sb.advance(60)
    first = sb.receive_return(original, amount_centavos=3_000)
    assert first.startswith("PIXIND60746948")
    assert ids.is_strict_end_to_end_id(first[len("PIXIN") :], prefixes="D")
    data = api.data(f"/transactions/{first}")
    assert data["type"] == "pix_return"
    assert data["status"] == "settled"
    assert data["direction"] == "inbound"
    assert data["amount"] == 300_000
    assert data["fee_amount"] == 0
    assert data["net_amount"] == 300_000
    assert data["original_transaction_id"] == original
    assert data["counterparty_name"] == "Maria Silva"
    assert data["payer_ispb"] == "60746948"
    assert data["description"] == "Devolução de Pix solicitada pelo recebedor"

    second = sb.receive_return(original, reason_code="XY99")
    assert api.data(f"/transactions/{second}")["amount"] == 700_000
    first_event, second_event = sb.events(merchant.id)
    assert first_event.type == second_event.type == "pix.return.received"
    assert first_event.data == {
        "transaction_id": first,
        "end_to_end_id": first[len("PIXIN") :],
        "original_transaction_id": original,
        "amount": 300_000,
        "reason_code": "MD06",
        "description": "Devolução de Pix solicitada pelo recebedor",
        "total_refunded": 300_000,
        "remaining_refundable": 700_000,
        "is_partial": True,
    }
    assert second_event.data["description"] == "Return from counterparty (XY99)"
    assert second_event.data["total_refunded"] == 1_000_000
    assert second_event.data["remaining_refundable"] == 0
    assert second_event.data["is_partial"] is True  # 700_000 of 1_000_000: a partial return
    assert sb.balance(merchant.id).ledger_base == 10_000_000 - 5_000
    assert sb.audit(merchant.id).consistent
    with pytest.raises(SimulationError, match="already fully returned"):
        sb.receive_return(original, amount_centavos=1)


@pytest.mark.parametrize(
    ("code", "text"),
    [
        ("BE08", "Devolução por falha operacional (MED)"),
        ("FR01", "Devolução por suspeita de fraude (MED)"),
        ("SL02", "Devolução de valor de Pix Saque ou Pix Troco"),
        ("AM09", "Return from counterparty (AM09)"),
    ],
)
def test_return_descriptions(sb: Sandbox, merchant: Any, code: str, text: str) -> None:
    original = insert_settled_cash_out(sb, merchant.id, amount_centavos=500)
    sb.receive_return(original, reason_code=code)
    (event,) = sb.events(merchant.id)
    assert event.data["description"] == text
    assert event.data["reason_code"] == code


def test_return_never_exceeds_the_cash_out(sb: Sandbox, merchant: Any) -> None:
    original = insert_settled_cash_out(sb, merchant.id, amount_centavos=1_000)
    sb.receive_return(original, amount_centavos=600)
    with pytest.raises(SimulationError, match="exceed"):
        sb.receive_return(original, amount_centavos=401)
    sb.receive_return(original, amount_centavos=400)
    assert sb.audit(merchant.id).consistent


def test_return_needs_a_settled_cash_out(sb: Sandbox, merchant: Any) -> None:
    rejected = insert_settled_cash_out(sb, merchant.id, amount_centavos=1_000, status="rejected")
    with pytest.raises(SimulationError, match="only a settled cash-out"):
        sb.receive_return(rejected)
    credit = sb.receive_pix(merchant.id, amount_centavos=100)
    with pytest.raises(SimulationError, match="no cash-out"):
        sb.receive_return(credit)
    with pytest.raises(SimulationError, match="no cash-out"):
        sb.receive_return("PIXOUTnope")
    settled = insert_settled_cash_out(sb, merchant.id, amount_centavos=1_000)
    with pytest.raises(SimulationError, match="reason_code"):
        sb.receive_return(settled, reason_code="md06")
    with pytest.raises(SimulationError, match="positive"):
        sb.receive_return(settled, amount_centavos=0)


# -- simulated payers -------------------------------------------------------------


def test_random_documents_are_valid() -> None:
    rng = random.Random(1)
    for _ in range(200):
        assert documents.is_valid_cpf(payers.random_cpf(rng))
        assert documents.is_valid_cnpj(payers.random_cnpj(rng))


def test_payers_come_mostly_from_big_banks() -> None:
    rng = random.Random(7)
    drawn = [payers.random_payer(rng) for _ in range(2_000)]
    banks = Counter(payer.ispb for payer in drawn)
    big = {"18236120", "60701190", "00000000", "00360305", "60746948", "90400888"}
    assert sum(banks[ispb] for ispb in big) > 1_000
    assert banks.most_common(1)[0][0] == "18236120"
    assert len(banks) > 20  # the long tail of smaller participants shows up too
    assert all(participants.lookup(ispb) is not None for ispb in banks)
    assert all(participants.lookup(ispb).pix for ispb in banks)  # type: ignore[union-attr]
    companies = [payer for payer in drawn if len(payer.document) == 14]
    assert 100 < len(companies) < 350
    assert all(documents.is_valid_cpf(p.document) for p in drawn if len(p.document) == 11)


def test_random_ispb_honours_exclude() -> None:
    rng = random.Random(0)
    assert all(payers.random_ispb(rng, exclude="18236120") != "18236120" for _ in range(300))


def test_resolve_payer_keeps_given_fields() -> None:
    payer = payers.resolve_payer(
        random.Random(0), name=" Ana ", document="11.222.333/0001-81", ispb="60701190",
        service_ispb="99999999",
    )  # fmt: skip
    assert payer == payers.Payer("Ana", "11222333000181", "60701190")


def test_json_of_events_is_plain(sb: Sandbox, merchant: Any) -> None:
    original = insert_settled_cash_out(sb, merchant.id, amount_centavos=100)
    sb.receive_return(original)
    (event,) = sb.events(merchant.id)
    assert json.loads(json.dumps(event.envelope()))["data"]["amount"] == 10_000
