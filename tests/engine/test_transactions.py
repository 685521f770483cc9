"""Conformance of `GET /transactions...`: every shape, the lookups, receipts and the list."""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal

import httpx
import pytest

from pixops import ids, wire
from pixops.engine import ledger
from pixops.engine.clock import to_db
from pixops.sandbox import Sandbox

BASE = "http://sandbox/api/external"
NOT_FOUND = {"worked": False, "detail": "Transaction not found"}
DEFAULT_KEYS = {
    "id", "transaction_id", "end_to_end_id", "external_id", "tag", "type", "status", "amount",
    "fee_amount", "net_amount", "description", "direction", "counterparty_name",
    "payer_document", "recipient_document", "recipient_key", "payer_ispb", "payer_bank_name",
    "original_transaction_id", "created_at", "completed_at",
}  # fmt: skip
OUTBOUND_KEYS = {
    "id", "transaction_id", "end_to_end_id", "external_id", "tag", "type", "direction", "status",
    "payment_status", "amount", "fee_amount", "net_amount", "description", "counterparty_name",
    "recipient_document", "recipient_key", "recipient_key_type", "recipient_ispb",
    "recipient_bank_name", "original_transaction_id", "outbound_request_id", "reason_code",
    "reason_description", "created_at", "completed_at", "failed_at",
}  # fmt: skip


class Api:
    def __init__(self, sb: Sandbox, key: Any) -> None:
        self.client = httpx.Client(transport=sb.transport(), base_url=BASE)
        self.key = key
        self.headers = {"Authorization": f"ApiKey {key.client_id}:{key.client_secret}"}

    def get(
        self, path: str, headers: dict[str, str] | None = None, **params: str
    ) -> httpx.Response:
        return self.client.get(path, params=params, headers={**self.headers, **(headers or {})})

    def data(self, path: str, **params: str) -> Any:
        response = self.client.get(path, params=params, headers=self.headers)
        assert response.status_code == 200, response.text
        return response.json()["data"]

    def charge(self, **fields: Any) -> dict[str, Any]:
        body = json.dumps({"amount": 2_000, **fields}).encode()
        headers = {
            **self.headers,
            "content-type": "application/json",
            "hmac": wire.sign(body, self.key.client_secret),
        }
        response = self.client.post("/pix/cash-in", content=body, headers=headers)
        assert response.status_code == 201, response.text
        data: dict[str, Any] = response.json()["data"]
        return data


STAGES = {
    "pending_approval": 0,
    "queued": 0,
    "processing": 2,
    "settled": 3,
    "rejected": 3,
    "failed": 3,
}


def insert_outbound(
    sb: Sandbox, merchant_id: str, *, status: str, amount_centavos: int = 10_000,
    fee_centavos: int = 50, kind: str = "cash_out", external_id: str | None = None,
    tag: str | None = None, reason_code: str | None = None,
    reason_description: str | None = None, outbound_request_id: str | None = None,
) -> str:  # fmt: skip
    """An outbound row as docs/engine-internals.md describes it, with its hold or debits."""
    engine, now = sb.engine, sb.now()
    prefix: Literal["E", "D"] = "E" if kind == "cash_out" else "D"
    e2e = ids.new_end_to_end_id(engine.config.service_ispb, now, engine.rng, prefix=prefix)
    transaction_id = ("PIXOUT" if kind == "cash_out" else "PIXRET") + e2e
    amount_base, fee_base = amount_centavos * 100, fee_centavos * 100
    stage = STAGES[status]
    terminal_failure = status in ("rejected", "failed")
    with engine.store.transaction() as conn:
        hold_id = None
        if stage < 3:
            hold_id = ledger.place_hold(
                conn, engine.rng, merchant_id, amount_base + fee_base, kind, transaction_id, now
            )
        conn.execute(
            "INSERT INTO transactions (id, merchant_id, transaction_id, end_to_end_id, external_id,"
            " tag, type, direction, kind, status, stage, amount_base, fee_base, description,"
            " counterparty_name, recipient_document, recipient_key, recipient_key_type,"
            " recipient_ispb, reason_code, reason_description, outbound_request_id, hold_id,"
            " created_at, completed_at, failed_at)"
            " VALUES (?, ?, ?, ?, ?, ?, 'pix', 'outbound', ?, ?, ?, ?, ?, 'Pagamento fornecedor',"
            " 'Maria Silva', '52998224725', 'maria@example.com', 'email', '60746948', ?, ?, ?, ?,"
            " ?, ?, ?)",
            (
                ids.new_hex_id(engine.rng), merchant_id, transaction_id, e2e, external_id, tag,
                kind, status, stage, amount_base, fee_base, reason_code, reason_description,
                outbound_request_id, hold_id, to_db(now),
                to_db(now) if status == "settled" else None,
                to_db(now) if terminal_failure else None,
            ),
        )  # fmt: skip
        if status == "settled":
            ledger.post(conn, merchant_id, -amount_base, kind, now, transaction_id=transaction_id)
            if fee_base:
                ledger.post(
                    conn, merchant_id, -fee_base, "cash_out_fee", now, transaction_id=transaction_id
                )
    return transaction_id


@pytest.fixture
def sb() -> Sandbox:
    return Sandbox()


@pytest.fixture
def merchant(sb: Sandbox) -> Any:
    return sb.create_merchant("Loja Exemplo", balance_centavos=1_000_000, document="52998224725")


@pytest.fixture
def api(sb: Sandbox, merchant: Any) -> Api:
    return Api(sb, sb.issue_api_key(merchant.id, permissions=["transfer:read", "pix:write"]))


# -- GET /transactions/:id ----------------------------------------------------------


def test_settled_inbound_default_shape(sb: Sandbox, merchant: Any, api: Api) -> None:
    credit = sb.receive_pix(merchant.id, amount_centavos=1_000, payer_ispb="90400888")
    data = api.data(f"/transactions/{credit}")
    assert set(data) == DEFAULT_KEYS
    assert len(data["id"]) == 32
    assert all(c in "0123456789abcdef" for c in data["id"])
    assert data["transaction_id"] == "PIXIN" + data["end_to_end_id"]
    assert ids.is_end_to_end_id(data["end_to_end_id"])
    assert data["payer_bank_name"] == "BCO SANTANDER (BRASIL) S.A."
    assert data["recipient_document"] is None
    assert sb.audit(merchant.id).consistent


def test_settled_outbound_default_shape(sb: Sandbox, merchant: Any, api: Api) -> None:
    out = insert_outbound(sb, merchant.id, status="settled", external_id="pay-1")
    data = api.data(f"/transactions/{out}")
    assert set(data) == DEFAULT_KEYS
    assert data["status"] == "settled"
    assert data["direction"] == "outbound"
    assert data["amount"] == 1_000_000
    assert data["fee_amount"] == 5_000
    assert data["net_amount"] == 1_005_000  # the total debit
    assert data["counterparty_name"] == "Maria Silva"
    assert data["recipient_document"] == "52998224725"
    assert data["recipient_key"] == "maria@example.com"
    assert data["payer_document"] is None
    assert data["payer_ispb"] is None
    assert data["payer_bank_name"] is None
    assert data["external_id"] == "pay-1"
    assert data["completed_at"] == data["created_at"]
    assert sb.audit(merchant.id).consistent


@pytest.mark.parametrize("status", ["processing", "queued", "pending_approval"])
def test_in_flight_outbound_shape(sb: Sandbox, merchant: Any, api: Api, status: str) -> None:
    queued = status == "queued"
    out = insert_outbound(
        sb, merchant.id, status=status,
        reason_code="DICT_CLIENT_RATE_LIMITED" if queued else None,
        reason_description="DICT lookup limit reached; retrying" if queued else None,
        outbound_request_id="A" * 32 if queued else None,
    )  # fmt: skip
    data = api.data(f"/transactions/{out}")
    assert set(data) == OUTBOUND_KEYS
    assert data["status"] == "processing"
    assert data["payment_status"] == "processing"
    assert data["completed_at"] is None
    assert data["failed_at"] is None
    assert data["id"].count("-") == 4
    assert data["net_amount"] == 1_005_000
    assert data["recipient_bank_name"] == "BCO BRADESCO S.A."
    assert data["reason_code"] == ("DICT_CLIENT_RATE_LIMITED" if queued else None)
    assert data["outbound_request_id"] == ("A" * 32 if queued else None)
    assert sb.audit(merchant.id).consistent


@pytest.mark.parametrize(
    ("status", "code", "description"),
    [
        ("rejected", "AC03", "Account missing or invalid"),
        ("failed", "orphan_force_voided", "No pacs.002 within 30 minutes"),
    ],
)
def test_failed_outbound_shape(
    sb: Sandbox, merchant: Any, api: Api, status: str, code: str, description: str
) -> None:
    out = insert_outbound(
        sb, merchant.id, status=status, reason_code=code, reason_description=description
    )
    data = api.data(f"/transactions/{out}")
    assert set(data) == OUTBOUND_KEYS
    assert data["status"] == "failed"
    assert data["payment_status"] == status
    assert data["reason_code"] == code
    assert data["reason_description"] == description
    assert data["failed_at"] == "2026-01-05T12:00:00.000Z"
    assert data["completed_at"] is None


def test_outbound_refund_rows_render_too(sb: Sandbox, merchant: Any, api: Api) -> None:
    refund = insert_outbound(sb, merchant.id, status="settled", kind="refund", fee_centavos=0)
    data = api.data(f"/transactions/{refund}")
    assert refund.startswith("PIXRETD")
    assert data["end_to_end_id"].startswith("D")
    assert data["net_amount"] == data["amount"]


def test_not_found_shapes(sb: Sandbox, merchant: Any, api: Api) -> None:
    other = sb.create_merchant("Outra Loja")
    other_api = Api(sb, sb.issue_api_key(other.id, permissions=["transfer:read", "pix:write"]))
    theirs_credit = sb.receive_pix(other.id, amount_centavos=100)
    theirs_qr = other_api.charge()["tx_id"]
    theirs_out = insert_outbound(sb, other.id, status="processing")
    for ident in ("PIXINnothing", theirs_credit, theirs_qr, theirs_out, "x" * 32):
        response = api.get(f"/transactions/{ident}")
        assert response.status_code == 404
        assert response.json() == NOT_FOUND
        receipt = api.get(f"/transactions/{ident}/receipt")
        assert receipt.status_code == 404
        assert receipt.json() == NOT_FOUND
    assert other_api.get(f"/transactions/{theirs_credit}").status_code == 200


def test_authentication_and_permission(sb: Sandbox, merchant: Any) -> None:
    client = httpx.Client(transport=sb.transport(), base_url=BASE)
    missing = client.get("/transactions/abc")
    assert missing.status_code == 401
    assert missing.json()["error"]["status"] == 401
    api = Api(sb, sb.issue_api_key(merchant.id, permissions=["statement:read"]))
    paths = [
        "/transactions/abc",
        "/transactions",
        "/transactions/abc/receipt",
        "/transactions/tag/x",
        "/transactions/ref/x",
        f"/transactions/e2e/{'E' + '1' * 31}",
    ]
    for path in paths:
        response = api.get(path)
        assert response.status_code == 403
        assert response.json()["message"] == "API key lacks permission: transfer:read"


def test_query_parameters_on_a_single_record_are_refused(
    sb: Sandbox, merchant: Any, api: Api
) -> None:
    credit = sb.receive_pix(merchant.id, amount_centavos=100)
    response = api.get(f"/transactions/{credit}", expand="payer")
    assert response.status_code == 400
    assert response.json()["errors"]["bad_request"] == {"expand": ["is not a known parameter"]}


def test_camel_case_keys_on_queries(sb: Sandbox, merchant: Any, api: Api) -> None:
    credit = sb.receive_pix(merchant.id, amount_centavos=100)
    response = api.get(f"/transactions/{credit}", headers={"X-Key-Case": "camelCase"})
    data = response.json()["data"]
    assert data["transactionId"] == credit
    assert "payerBankName" in data
    assert "end_to_end_id" not in data


# -- by end-to-end id -----------------------------------------------------------------


def test_by_end_to_end_id(sb: Sandbox, merchant: Any, api: Api) -> None:
    credit = sb.receive_pix(merchant.id, amount_centavos=100)
    e2e = credit[len("PIXIN") :]
    assert api.data(f"/transactions/e2e/{e2e}") == api.data(f"/transactions/{credit}")
    out = insert_outbound(sb, merchant.id, status="rejected", reason_code="AC03")
    assert api.data(f"/transactions/e2e/{out[len('PIXOUT') :]}")["payment_status"] == "rejected"
    charge = api.charge()
    paid = sb.pay_charge(charge["tx_id"], link_after_seconds=30)
    fallback = api.data(f"/transactions/e2e/{paid[len('PIXIN') :]}")
    assert (fallback["type"], fallback["status"]) == ("pix_qrcode", "settled")
    sb.advance(30)
    assert api.data(f"/transactions/e2e/{paid[len('PIXIN') :]}")["transaction_id"] == paid


def test_by_end_to_end_id_refusals(sb: Sandbox, merchant: Any, api: Api) -> None:
    bad = api.get("/transactions/e2e/not-an-e2e")
    assert bad.status_code == 400
    assert "e2e_id" in bad.json()["errors"]["bad_request"]
    unknown = api.get("/transactions/e2e/E12345678202601051200abcdefghijk")
    assert unknown.status_code == 404
    assert unknown.json() == NOT_FOUND


def test_return_is_found_by_its_d_id(sb: Sandbox, merchant: Any, api: Api) -> None:
    out = insert_outbound(sb, merchant.id, status="settled")
    returned = sb.receive_return(out, amount_centavos=100)
    data = api.data(f"/transactions/e2e/{returned[len('PIXIN') :]}")
    assert data["type"] == "pix_return"
    assert data["original_transaction_id"] == out


# -- by tag and by external id ---------------------------------------------------------


def test_by_tag_lists_qrs_until_their_credit_exists(sb: Sandbox, merchant: Any, api: Api) -> None:
    pending = api.charge(tag="feira")
    sb.advance(1)
    paid = api.charge(tag="feira")
    sb.advance(1)
    delayed = api.charge(tag="feira")
    sb.advance(1)
    api.charge(tag="outra")
    out = insert_outbound(sb, merchant.id, status="processing", tag="feira")
    credit = sb.pay_charge(paid["tx_id"])
    sb.pay_charge(delayed["tx_id"], link_after_seconds=60)

    listed = api.get("/transactions/tag/feira").json()
    assert listed["page"] == 1
    assert listed["per_page"] == 20
    ids_listed = [item["transaction_id"] for item in listed["data"]]
    # newest first; the credit (created at payment) and the outbound row share a second,
    # and the later-stored one comes first
    assert ids_listed == [credit, out, delayed["tx_id"], pending["tx_id"]]
    shapes = {item["transaction_id"]: item for item in listed["data"]}
    assert shapes[delayed["tx_id"]]["type"] == "pix_qrcode"
    assert shapes[delayed["tx_id"]]["status"] == "settled"
    assert shapes[pending["tx_id"]]["status"] == "pending"
    assert shapes[credit]["type"] == "pix"

    sb.advance(60)
    after = [item["transaction_id"] for item in api.data("/transactions/tag/feira")]
    assert len(after) == 4
    assert delayed["tx_id"] not in after
    page_2 = api.get("/transactions/tag/feira", page="2", per_page="3").json()
    assert [item["transaction_id"] for item in page_2["data"]] == [pending["tx_id"]]
    assert (page_2["page"], page_2["per_page"]) == (2, 3)
    assert api.data("/transactions/tag/nada") == []


def test_by_external_id(sb: Sandbox, merchant: Any, api: Api) -> None:
    charge = api.charge(external_id="pedido:9")
    out = insert_outbound(sb, merchant.id, status="settled", external_id="pedido:9")
    listed = api.data("/transactions/ref/pedido:9")
    assert [item["transaction_id"] for item in listed] == [out, charge["tx_id"]]
    assert api.data("/transactions/ref/pedido:10") == []


@pytest.mark.parametrize(
    ("path", "field"),
    [
        ("/transactions/tag/" + "t" * 65, "tag"),
        ("/transactions/tag/a%20b", "tag"),
        ("/transactions/ref/" + "r" * 129, "external_id"),
        ("/transactions/ref/a%24b", "external_id"),
    ],
)
def test_lookup_values_that_can_never_match_are_400(api: Api, path: str, field: str) -> None:
    response = api.get(path)
    assert response.status_code == 400
    assert field in response.json()["errors"]["bad_request"]


def test_lookup_pagination_is_validated(api: Api) -> None:
    response = api.get("/transactions/tag/x", page="0", per_page="500", status="settled")
    assert response.status_code == 400
    assert set(response.json()["errors"]["bad_request"]) == {"page", "per_page", "status"}


# -- receipts ----------------------------------------------------------------------------


def _check_code(receipt: dict[str, Any]) -> None:
    unsigned = {key: value for key, value in receipt.items() if key != "authentication_code"}
    digest = hashlib.sha256(wire.canonical_json(unsigned)).hexdigest()
    assert receipt["authentication_code"] == digest


def test_inbound_receipt(sb: Sandbox, merchant: Any, api: Api) -> None:
    credit = sb.receive_pix(
        merchant.id, amount_centavos=5_000, payer_name="Ana Souza",
        payer_document="52998224725", payer_ispb="18236120", description="Pedido",
    )  # fmt: skip
    receipt = api.data(f"/transactions/{credit}/receipt")
    _check_code(receipt)
    assert receipt == api.data(f"/transactions/{credit}/receipt")  # stable
    assert receipt["transaction_id"] == credit
    assert receipt["status"] == "settled"
    assert receipt["direction"] == "inbound"
    assert receipt["amount"] == 500_000
    assert receipt["net_amount"] == 500_000 - receipt["fee_amount"]
    assert receipt["payer"] == {
        "name": "Ana Souza",
        "document": "***.982.247-**",
        "ispb": "18236120",
        "bank_name": "NU PAGAMENTOS - IP",
    }
    assert receipt["recipient"]["name"] == "Loja Exemplo"
    assert receipt["recipient"]["document"] == "***.982.247-**"
    assert receipt["recipient"]["ispb"] == "99999999"
    assert receipt["recipient"]["bank_name"] == "PIXOPS SANDBOX IP"
    assert receipt["receipt_id"].startswith("rcpt_")


def test_outbound_receipt_and_qr_receipt(sb: Sandbox, merchant: Any, api: Api) -> None:
    out = insert_outbound(sb, merchant.id, status="settled")
    receipt = api.data(f"/transactions/{out}/receipt")
    _check_code(receipt)
    assert receipt["payer"]["name"] == "Loja Exemplo"
    assert receipt["recipient"] == {
        "name": "Maria Silva",
        "document": "***.982.247-**",
        "key": "maria@example.com",
        "ispb": "60746948",
        "bank_name": "BCO BRADESCO S.A.",
    }
    assert receipt["net_amount"] == 1_005_000

    charge = api.charge()
    pending = api.get(f"/transactions/{charge['tx_id']}/receipt")
    assert pending.status_code == 422
    assert "pending" in pending.json()["errors"]["unprocessable_entity"]
    credit = sb.pay_charge(charge["tx_id"])
    by_txid = api.data(f"/transactions/{charge['tx_id']}/receipt")
    assert by_txid == api.data(f"/transactions/{credit}/receipt")


def test_no_receipt_before_settlement(sb: Sandbox, merchant: Any, api: Api) -> None:
    for status in ("processing", "rejected"):
        out = insert_outbound(sb, merchant.id, status=status)
        response = api.get(f"/transactions/{out}/receipt")
        assert response.status_code == 422
    charge = api.charge()
    sb.pay_charge(charge["tx_id"], link_after_seconds=10)
    assert api.get(f"/transactions/{charge['tx_id']}/receipt").status_code == 422
    sb.advance(10)
    assert api.get(f"/transactions/{charge['tx_id']}/receipt").status_code == 200


# -- GET /transactions -----------------------------------------------------------------


def test_list_is_the_statement_with_tags(sb: Sandbox, merchant: Any) -> None:
    key = sb.issue_api_key(
        merchant.id, permissions=["transfer:read", "statement:read", "pix:write"]
    )
    api = Api(sb, key)
    charge = api.charge(tag="loja")
    sb.pay_charge(charge["tx_id"])
    sb.advance(5)
    insert_outbound(sb, merchant.id, status="processing")
    listed = api.get("/transactions").json()
    statement = api.get("/statement").json()
    assert listed["page"] == statement["page"] == 1
    assert len(listed["data"]) == len(statement["data"]) == 2
    for item, line in zip(listed["data"], statement["data"], strict=True):
        assert {key: value for key, value in item.items() if key != "tag"} == line
    assert [item["tag"] for item in listed["data"]] == [None, "loja"]
    bad = api.get("/transactions", per_page="101")
    assert bad.status_code == 400
