"""Conformance of `POST /pix/cash-in` and of the QR's life (pay, link, expire, cancel), raw HTTP."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import httpx
import pytest

from pixops import brcode, ids, wire
from pixops.engine.clock import ManualClock, from_db
from pixops.engine.fees import Fee, FeeSchedule
from pixops.sandbox import AdminError, Sandbox, SimulationError

BASE = "http://sandbox/api/external"
QR_KEYS = {
    "id", "transaction_id", "amount", "status", "description", "recipient_key", "type",
    "direction", "counterparty_name", "created_at", "completed_at",
}  # fmt: skip


class Api:
    """Hand-built requests: ApiKey authorization, HMAC over the exact body bytes."""

    def __init__(self, sb: Sandbox, key: Any) -> None:
        self.client = httpx.Client(transport=sb.transport(), base_url=BASE)
        self.key = key

    def auth(self) -> dict[str, str]:
        return {"Authorization": f"ApiKey {self.key.client_id}:{self.key.client_secret}"}

    def post(
        self, path: str, payload: Any, headers: dict[str, str] | None = None
    ) -> httpx.Response:
        body = json.dumps(payload).encode()
        sent = {
            **self.auth(),
            "content-type": "application/json",
            "hmac": wire.sign(body, self.key.client_secret),
            **(headers or {}),
        }
        return self.client.post(path, content=body, headers=sent)

    def get(self, path: str, headers: dict[str, str] | None = None) -> httpx.Response:
        return self.client.get(path, headers={**self.auth(), **(headers or {})})


@pytest.fixture
def sb() -> Sandbox:
    return Sandbox()


@pytest.fixture
def merchant(sb: Sandbox) -> Any:
    return sb.create_merchant("Loja Exemplo", balance_centavos=10_000, document="11222333000181")


@pytest.fixture
def api(sb: Sandbox, merchant: Any) -> Api:
    return Api(sb, sb.issue_api_key(merchant.id, permissions=["pix:write", "transfer:read"]))


def create(api: Api, **fields: Any) -> dict[str, Any]:
    response = api.post("/pix/cash-in", {"amount": 1_050, **fields})
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def query(api: Api, ident: str) -> dict[str, Any]:
    response = api.get(f"/transactions/{ident}")
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


# -- creation -----------------------------------------------------------------


def test_create_answers_201_with_a_pending_dynamic_charge(
    sb: Sandbox, merchant: Any, api: Api
) -> None:
    response = api.post(
        "/pix/cash-in",
        {
            "amount": 1_050,
            "description": "Pedido 42",
            "external_id": "  order:42  ",
            "tag": "loja-centro",
            "expires_in": 600,
            "payer": {"name": "Maria Silva", "document": "529.982.247-25"},
        },
    )
    assert response.status_code == 201
    body = response.json()
    assert body["worked"] is True
    data = body["data"]
    assert ids.is_charge_txid(data["transaction_id"])
    assert len(data["transaction_id"]) == 32
    assert data["tx_id"] == data["transaction_id"]
    assert data["status"] == "pending"
    assert data["type"] == "pix_qrcode"
    assert data["amount"] == 105_000  # base units
    assert data["external_id"] == "order:42"
    assert data["tag"] == "loja-centro"
    assert data["description"] == "Pedido 42"
    assert data["payer"] == {"name": "Maria Silva", "document": "52998224725"}
    assert data["expires_in"] == 600
    assert data["created_at"] == "2026-01-05T12:00:00.000Z"
    assert data["expires_at"] == "2026-01-05T12:10:00.000Z"
    assert data["location"] == f"pix.sandbox.pixops.dev/qr/v2/{data['tx_id']}"

    code = brcode.decode(data["brcode"])
    assert code.is_dynamic
    assert code.location == data["location"]
    assert code.amount_centavos == 1_050
    assert code.txid == "***"
    assert code.reusable is False
    assert code.merchant_name == "Loja Exemplo"
    assert code.merchant_city == "SAO PAULO"
    assert brcode.encode(code) == data["brcode"]
    assert sb.audit(merchant.id).consistent


def test_defaults_use_the_merchant_lifetime_and_null_optionals(sb: Sandbox) -> None:
    merchant = sb.create_merchant("Sem Pressa", qr_lifetime_seconds=7_200)
    api = Api(sb, sb.issue_api_key(merchant.id, permissions=["pix:write"]))
    data = create(api)
    assert data["expires_in"] == 7_200
    assert data["expires_at"] == "2026-01-05T14:00:00.000Z"
    for field in ("description", "external_id", "tag", "payer"):
        assert data[field] is None


def test_merchant_name_is_folded_to_ascii_and_cut_to_25(sb: Sandbox) -> None:
    merchant = sb.create_merchant("Padaria e Confeitaria São João do Céu")
    api = Api(sb, sb.issue_api_key(merchant.id, permissions=["pix:write"]))
    code = brcode.decode(create(api)["brcode"])
    assert code.merchant_name == "Padaria e Confeitaria Sao"


def test_the_same_key_receives_every_charge(api: Api) -> None:
    first, second = create(api), create(api)
    assert first["recipient_key"] == second["recipient_key"]
    assert first["tx_id"] != second["tx_id"]


@pytest.mark.parametrize(
    ("payload", "field", "message"),
    [
        ({}, "amount", "is required"),
        ({"amount": None}, "amount", "is required"),
        ({"amount": 0}, "amount", "must be greater than 0"),
        ({"amount": -5}, "amount", "must be greater than 0"),
        ({"amount": 10.5}, "amount", "must be an integer number of centavos"),
        ({"amount": 10.0}, "amount", "must be an integer number of centavos"),
        ({"amount": True}, "amount", "must be an integer number of centavos"),
        ({"amount": "1050"}, "amount", "must be an integer number of centavos"),
        ({"amount": 2**63}, "amount", "must be at most 999999999999 centavos"),
        ({"amount": 1, "description": "x" * 141}, "description", "must be at most 140 characters"),
        ({"amount": 1, "description": 5}, "description", "must be a string"),
        ({"amount": 1, "expires_in": 59}, "expires_in", "must be from 60 to 2592000 seconds"),
        (
            {"amount": 1, "expires_in": 2_592_001},
            "expires_in",
            "must be from 60 to 2592000 seconds",
        ),
        ({"amount": 1, "expires_in": "60"}, "expires_in", "must be an integer number of seconds"),
        ({"amount": 1, "expires_in": False}, "expires_in", "must be an integer number of seconds"),
        ({"amount": 1, "external_id": "has space"}, "external_id", None),
        ({"amount": 1, "external_id": "   "}, "external_id", None),
        ({"amount": 1, "external_id": "a" * 129}, "external_id", None),
        ({"amount": 1, "external_id": 7}, "external_id", "must be a string"),
        ({"amount": 1, "tag": "t" * 65}, "tag", None),
        ({"amount": 1, "tag": "a/b"}, "tag", None),
        ({"amount": 1, "payer": "Maria"}, "payer", "must be an object with name and document"),
        ({"amount": 1, "payer": {"name": "Maria"}}, "payer.document", "is required"),
        ({"amount": 1, "payer": {"document": "52998224725"}}, "payer.name", "is required"),
        (
            {"amount": 1, "payer": {"name": "M", "document": "52998224700"}},
            "payer.document",
            "must be a valid CPF or CNPJ",
        ),
        ({"amount": 1, "payer": {"name": " ", "document": "52998224725"}}, "payer.name", None),
        ({"amount": 1, "pix_key": "x"}, "pix_key", "is not a known field"),
    ],
)
def test_bad_fields_give_400_per_field(
    sb: Sandbox, merchant: Any, api: Api, payload: dict[str, Any], field: str, message: str | None
) -> None:
    response = api.post("/pix/cash-in", payload)
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["worked"] is False
    errors = body["errors"]["bad_request"]
    assert field in errors
    if message is not None:
        assert message in errors[field]
    count = sb.engine.store.conn.execute("SELECT COUNT(*) FROM charges").fetchone()[0]
    assert count == 0


def test_every_bad_field_is_reported_at_once(api: Api) -> None:
    response = api.post("/pix/cash-in", {"amount": 0, "tag": "", "expires_in": 1})
    assert set(response.json()["errors"]["bad_request"]) == {"amount", "tag", "expires_in"}


def test_a_body_that_is_not_an_object_is_400(api: Api) -> None:
    response = api.post("/pix/cash-in", [1, 2])
    assert response.status_code == 400
    assert response.json()["errors"]["bad_request"] == "Request body must be a JSON object"


def test_amount_over_the_account_limit_is_422(sb: Sandbox) -> None:
    merchant = sb.create_merchant("Pequena", ceiling_centavos=10_000)
    api = Api(sb, sb.issue_api_key(merchant.id, permissions=["pix:write"]))
    response = api.post("/pix/cash-in", {"amount": 10_001})
    assert response.status_code == 422
    assert "R$ 100,00" in response.json()["errors"]["unprocessable_entity"]
    assert api.post("/pix/cash-in", {"amount": 10_000}).status_code == 201


def test_permission_pix_write_is_required(sb: Sandbox, merchant: Any) -> None:
    api = Api(sb, sb.issue_api_key(merchant.id, permissions=["transfer:read"]))
    response = api.post("/pix/cash-in", {"amount": 100})
    assert response.status_code == 403
    assert response.json() == {
        "error": "forbidden",
        "message": "API key lacks permission: pix:write",
    }


def test_camel_case_in_and_out(api: Api) -> None:
    response = api.post(
        "/pix/cash-in",
        {"amount": 300, "expiresIn": 120, "externalId": "abc"},
        headers={"X-Key-Case": "camelCase"},
    )
    assert response.status_code == 201
    data = response.json()["data"]
    assert data["txId"] == data["transactionId"]
    assert data["externalId"] == "abc"
    assert data["expiresIn"] == 120
    bad = api.post("/pix/cash-in", {"amount": 0, "externalId": "a b"}, {"X-Key-Case": "camelCase"})
    assert set(bad.json()["errors"]["badRequest"]) == {"amount", "externalId"}


def test_idempotent_replay_returns_the_same_charge(sb: Sandbox, api: Api) -> None:
    first = api.post("/pix/cash-in", {"amount": 700}, {"Idempotency-Key": "k-1"})
    again = api.post("/pix/cash-in", {"amount": 700}, {"Idempotency-Key": "k-1"})
    assert first.status_code == again.status_code == 201
    assert again.content == first.content
    assert again.headers["x-idempotent-replay"] == "true"
    assert sb.engine.store.conn.execute("SELECT COUNT(*) FROM charges").fetchone()[0] == 1


# -- the QR's life ------------------------------------------------------------


def test_pending_qr_answers_the_reduced_shape(api: Api) -> None:
    charge = create(api, description="Café")
    data = query(api, charge["tx_id"])
    assert set(data) == QR_KEYS
    assert data["transaction_id"] == charge["tx_id"]
    assert data["status"] == "pending"
    assert data["type"] == "pix_qrcode"
    assert data["direction"] == "credit"
    assert data["amount"] == 105_000
    assert data["description"] == "Café"
    assert data["recipient_key"] == charge["recipient_key"]
    assert data["counterparty_name"] is None
    assert data["completed_at"] is None
    assert data["created_at"] == charge["created_at"]
    assert len(data["id"]) == 36
    assert data["id"].count("-") == 4


def test_qr_expires_by_its_timer(sb: Sandbox, merchant: Any, api: Api) -> None:
    charge = create(api, expires_in=60)
    sb.advance(59)
    assert query(api, charge["tx_id"])["status"] == "pending"
    sb.advance(1)
    assert query(api, charge["tx_id"])["status"] == "expired"
    row = sb.engine.store.conn.execute(
        "SELECT status FROM charges WHERE txid = ?", (charge["tx_id"],)
    ).fetchone()
    assert row[0] == "expired"
    with pytest.raises(SimulationError, match="expired"):
        sb.pay_charge(charge["tx_id"])
    assert sb.audit(merchant.id).consistent


def test_qr_reads_expired_before_the_worker_runs(sb: Sandbox, api: Api) -> None:
    charge = create(api, expires_in=60)
    clock = sb.engine.clock
    assert isinstance(clock, ManualClock)
    clock.set(sb.now() + timedelta(seconds=61))  # time passes, no timer runs
    stored = sb.engine.store.conn.execute(
        "SELECT status FROM charges WHERE txid = ?", (charge["tx_id"],)
    ).fetchone()[0]
    assert stored == "pending"
    assert query(api, charge["tx_id"])["status"] == "expired"
    with pytest.raises(SimulationError, match="expired"):
        sb.pay_charge(charge["tx_id"])


def test_cancel_moves_pending_to_cancelled(sb: Sandbox, api: Api) -> None:
    charge = create(api)
    sb.cancel_charge(charge["tx_id"])
    assert query(api, charge["tx_id"])["status"] == "cancelled"
    with pytest.raises(SimulationError, match="cancelled"):
        sb.pay_charge(charge["tx_id"])
    with pytest.raises(SimulationError, match="cancelled"):
        sb.cancel_charge(charge["tx_id"])
    sb.advance(hours=2)  # the expiry timer was removed with the cancel
    assert query(api, charge["tx_id"])["status"] == "cancelled"


def test_unknown_charge_is_a_simulation_error(sb: Sandbox) -> None:
    with pytest.raises(SimulationError, match="no charge"):
        sb.pay_charge("x" * 32)
    with pytest.raises(AdminError):
        sb.cancel_charge("x" * 32)


def test_pay_links_at_once_by_default(sb: Sandbox, merchant: Any, api: Api) -> None:
    charge = create(api, external_id="ord-1", tag="balcao", description="Pão")
    sb.advance(30)
    credit_id = sb.pay_charge(
        charge["tx_id"], payer_name="Ana Souza", payer_document="52998224725", payer_ispb="60701190"
    )
    assert credit_id.startswith("PIXINE60701190")
    e2e = credit_id[len("PIXIN") :]
    assert ids.is_strict_end_to_end_id(e2e)
    data = query(api, credit_id)
    assert query(api, charge["tx_id"]) == data  # the txid answers as the credit once linked
    assert data["type"] == "pix"
    assert data["status"] == "settled"
    assert len(data["id"]) == 32
    assert data["id"] == data["id"].lower()
    assert data["end_to_end_id"] == e2e
    assert data["amount"] == 105_000
    assert data["fee_amount"] == 1_040  # 0.99% of 105000 base units, half up
    assert data["net_amount"] == 105_000 - 1_040
    assert data["counterparty_name"] == "Ana Souza"
    assert data["payer_document"] == "52998224725"
    assert data["payer_ispb"] == "60701190"
    assert data["payer_bank_name"] == "ITAÚ UNIBANCO S.A."
    assert data["recipient_key"] == charge["recipient_key"]
    assert data["external_id"] == "ord-1"
    assert data["tag"] == "balcao"
    assert data["created_at"] == data["completed_at"] == "2026-01-05T12:00:30.000Z"

    (event,) = sb.events(merchant.id)
    assert event.type == "pix.charge.paid"
    assert event.transaction_id == credit_id
    assert event.data == {
        "transaction_id": credit_id,
        "charge_txid": charge["tx_id"],
        "end_to_end_id": e2e,
        "external_id": "ord-1",
        "tag": "balcao",
        "amount": 105_000,
        "fee_amount": 1_040,
        "net_amount": 103_960,
        "status": "paid",
        "payer_name": "Ana Souza",
        "payer_document": "52998224725",
        "payer_ispb": "60701190",
        "paid_at": "2026-01-05T12:00:30.000Z",
    }
    assert sb.balance(merchant.id).ledger_base == 1_000_000 + 103_960
    assert sb.audit(merchant.id).consistent
    with pytest.raises(SimulationError, match="paid"):
        sb.pay_charge(charge["tx_id"])
    sb.advance(hours=2)  # no expiry for a paid QR
    assert query(api, charge["tx_id"])["status"] == "settled"


def test_delayed_link_answers_the_fallback_shape_until_linked(
    sb: Sandbox, merchant: Any, api: Api
) -> None:
    charge = create(api, tag="delay")
    credit_id = sb.pay_charge(charge["tx_id"], link_after_seconds=45, payer_ispb="00000000")
    fallback = query(api, charge["tx_id"])
    assert fallback["type"] == "pix_qrcode"
    assert fallback["status"] == "settled"
    assert fallback["transaction_id"] == charge["tx_id"]
    assert fallback["end_to_end_id"] == credit_id[len("PIXIN") :]
    assert fallback["completed_at"] == "2026-01-05T12:00:00.000Z"
    assert fallback["payer_bank_name"] == "BCO DO BRASIL S.A."
    assert fallback["net_amount"] == fallback["amount"] - fallback["fee_amount"]
    assert query(api, credit_id) == fallback  # the credit's id is known before the row
    assert sb.events(merchant.id) == []
    assert sb.balance(merchant.id).ledger_base == 1_000_000

    sb.advance(44)
    assert query(api, charge["tx_id"])["type"] == "pix_qrcode"
    sb.advance(1)
    linked = query(api, charge["tx_id"])
    assert linked["type"] == "pix"
    assert linked["transaction_id"] == credit_id
    assert linked["completed_at"] == "2026-01-05T12:00:00.000Z"  # the payment time
    (event,) = sb.events(merchant.id)
    assert event.created_at == "2026-01-05T12:00:45.000000Z"
    assert sb.audit(merchant.id).consistent


def test_configured_link_delay_is_the_default() -> None:
    from pixops.engine.config import EngineConfig

    sb = Sandbox(config=EngineConfig(charge_link_delay_seconds=5))
    m = sb.create_merchant("Atrasada")
    api = Api(sb, sb.issue_api_key(m.id, permissions=["pix:write", "transfer:read"]))
    charge = create(api)
    sb.pay_charge(charge["tx_id"])
    assert query(api, charge["tx_id"])["type"] == "pix_qrcode"
    sb.advance(5)
    assert query(api, charge["tx_id"])["type"] == "pix"


def test_expected_payer_pays_by_default(sb: Sandbox, api: Api) -> None:
    charge = create(api, payer={"name": "Empresa X", "document": "11.222.333/0001-81"})
    credit = query(api, sb.pay_charge(charge["tx_id"]))
    assert credit["counterparty_name"] == "Empresa X"
    assert credit["payer_document"] == "11222333000181"


def test_random_payer_is_realistic_and_deterministic() -> None:
    def run() -> dict[str, Any]:
        sb = Sandbox(seed=3)
        m = sb.create_merchant("Det")
        api = Api(sb, sb.issue_api_key(m.id, permissions=["pix:write", "transfer:read"]))
        return query(api, sb.pay_charge(create(api)["tx_id"]))

    first, second = run(), run()
    assert first == second
    assert first["payer_bank_name"] is not None
    assert len(first["counterparty_name"].split()) >= 2


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"payer_ispb": "99999999"}, "internal PIX"),
        ({"payer_ispb": "1234"}, "8 characters"),
        ({"payer_document": "123"}, "neither a valid CPF nor a valid CNPJ"),
        ({"payer_name": "   "}, "non-empty"),
        ({"link_after_seconds": -1}, "non-negative"),
        ({"link_after_seconds": True}, "non-negative"),
    ],
)
def test_bad_payment_arguments_change_nothing(
    sb: Sandbox, merchant: Any, api: Api, kwargs: dict[str, Any], match: str
) -> None:
    charge = create(api)
    with pytest.raises(SimulationError, match=match):
        sb.pay_charge(charge["tx_id"], **kwargs)
    assert query(api, charge["tx_id"])["status"] == "pending"
    assert sb.audit(merchant.id).consistent


def test_paying_an_inactive_account_fails_the_credit_and_keeps_the_qr(
    sb: Sandbox, merchant: Any, api: Api
) -> None:
    charge = create(api)
    sb.set_account_active(merchant.id, False)
    failed_id = sb.pay_charge(charge["tx_id"])
    sb.set_account_active(merchant.id, True)
    failed = query(api, failed_id)
    assert failed["status"] == "failed"
    assert failed["reason_code"] == "AC06"
    assert failed["failure_reason"] == "account_blocked"
    assert query(api, charge["tx_id"])["status"] == "pending"
    assert sb.balance(merchant.id).ledger_base == 1_000_000
    paid = sb.pay_charge(charge["tx_id"])
    assert query(api, paid)["status"] == "settled"
    assert sb.audit(merchant.id).consistent


def test_fee_never_exceeds_the_amount(sb: Sandbox) -> None:
    fees = FeeSchedule(cash_in=Fee(fixed_centavos=50))
    merchant = sb.create_merchant("Taxada", fees=fees)
    api = Api(sb, sb.issue_api_key(merchant.id, permissions=["pix:write", "transfer:read"]))
    small = create(api, amount=30)
    credit = query(api, sb.pay_charge(small["tx_id"]))
    assert credit["fee_amount"] == credit["amount"] == 3_000
    assert credit["net_amount"] == 0
    assert sb.balance(merchant.id).ledger_base == 0
    assert sb.audit(merchant.id).consistent


def test_expiry_timer_runs_at_expires_at(sb: Sandbox, api: Api) -> None:
    charge = create(api, expires_in=90)
    due = sb.engine.store.conn.execute(
        "SELECT due_at FROM timers WHERE kind = 'charge.expire' AND ref = ?", (charge["tx_id"],)
    ).fetchone()[0]
    assert from_db(due) == sb.now() + timedelta(seconds=90)
