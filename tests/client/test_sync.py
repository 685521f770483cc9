"""`pixops.Client` against the sandbox: every method, every answer a typed model."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from decimal import Decimal

import pytest

import pixops
from pixops.client import (
    ArgumentError,
    Call,
    InsufficientBalanceError,
    NotFoundError,
    PermissionDeniedError,
    UnprocessableEntityError,
)
from pixops.sandbox import ApiKey, Merchant, Sandbox
from pixops.schema import (
    Amount,
    FailedInbound,
    OutboundInFlight,
    PayoutAccepted,
    PayoutPendingApproval,
    PayoutQueued,
    QrCharge,
    SettledTransaction,
    StatementItem,
)

MARIA = "maria.silva@sandbox.pixops.dev"


@pytest.fixture
def sandbox() -> Sandbox:
    return Sandbox()


@pytest.fixture
def merchant(sandbox: Sandbox) -> Merchant:
    return sandbox.create_merchant("Loja Cliente", balance_centavos=1_000_000)


@pytest.fixture
def key(sandbox: Sandbox, merchant: Merchant) -> ApiKey:
    return sandbox.issue_api_key(merchant.id)


@pytest.fixture
def client(sandbox: Sandbox, key: ApiKey) -> pixops.Client:
    return sandbox.client(key)


def test_sandbox_client_is_a_pixops_client_and_hides_the_secret(
    client: pixops.Client, key: ApiKey
) -> None:
    assert isinstance(client, pixops.Client)
    assert key.client_secret not in repr(client)
    assert key.client_id in repr(client)


def test_balance_is_in_base_units(client: pixops.Client) -> None:
    balance = client.balance()
    assert isinstance(balance.balance, Amount)
    assert int(balance.balance) == balance.balance.base == 100_000_000
    assert balance.balance.centavos == 1_000_000
    assert balance.safe_balance.reais == Decimal("10000")
    assert balance.available_balance.format() == "R$ 10.000,00"


def test_cash_out_returns_base_units_and_the_trap_cannot_happen(
    client: pixops.Client, sandbox: Sandbox, merchant: Merchant
) -> None:
    payout = client.pix.cash_out(pix_key=MARIA, amount_centavos=1_000)
    assert isinstance(payout, PayoutAccepted)
    assert int(payout.amount) == 100_000
    assert payout.amount.centavos == 1_000
    # Feeding the answer back as a request amount would be the 100x trap: refused.
    with pytest.raises(ArgumentError):
        client.pix.cash_out(pix_key=MARIA, amount=payout.amount)
    with pytest.raises(ArgumentError):
        client.pix.cash_out(pix_key=MARIA, amount=10.0)
    with pytest.raises(ArgumentError):
        client.pix.cash_out(pix_key=MARIA, amount_centavos=10.0)  # type: ignore[arg-type]
    with pytest.raises(ArgumentError):
        client.pix.cash_out(pix_key=MARIA, amount_centavos=True)
    decimal = client.pix.cash_out(pix_key=MARIA, amount=Decimal("12.34"))
    assert decimal.amount.centavos == 1_234
    assert sandbox.balance(merchant.id).ledger_base == 100_000_000  # holds only


def test_transactions_get_answers_each_shape(
    client: pixops.Client, sandbox: Sandbox, merchant: Merchant
) -> None:
    charge = client.pix.cash_in(amount_centavos=2_500, tag="order", external_id="o-1")
    assert isinstance(client.transactions.get(charge.transaction_id), QrCharge)
    credit = sandbox.pay_charge(charge.transaction_id)
    assert isinstance(client.transactions.get(credit), SettledTransaction)
    failed = sandbox.receive_pix(merchant.id, amount_centavos=500, fail_reason="AM02")
    record = client.transactions.get(failed)
    assert isinstance(record, FailedInbound)
    assert record.reason_code == "AM02"
    payout = client.pix.cash_out(pix_key=MARIA, amount_centavos=1_000)
    in_flight = client.transactions.get(payout.transaction_id)
    assert isinstance(in_flight, OutboundInFlight)
    assert not in_flight.is_final
    final = client.wait_until_final(payout.transaction_id)
    assert isinstance(final, SettledTransaction)
    assert final.is_final
    assert client.transactions.by_e2e(final.end_to_end_id or "").transaction_id == (
        payout.transaction_id
    )
    assert [t.transaction_id for t in client.transactions.by_tag("order")] == [credit]
    assert [t.transaction_id for t in client.transactions.by_external_id("o-1")] == [credit]
    receipt = client.transactions.receipt(credit)
    assert receipt.transaction_id == credit
    with pytest.raises(NotFoundError) as caught:
        client.transactions.get("PIXINnope")
    assert caught.value.status == 404
    assert "not found" in str(caught.value).lower()


def test_statement_iter_list_and_raw_agree(
    client: pixops.Client, sandbox: Sandbox, merchant: Merchant
) -> None:
    for n in range(7):
        sandbox.receive_pix(merchant.id, amount_centavos=100 + n)
    client.pix.cash_out(pix_key=MARIA, amount_centavos=1_000)  # in flight on page 1
    page = client.statement.list(per_page=3)
    assert len(page.data) == 3 + 1
    rows = list(client.statement.iter(per_page=3))
    assert all(isinstance(row, StatementItem) for row in rows)
    assert len(rows) == len({row.id for row in rows}) == 8
    raw = list(client.statement.iter_raw(per_page=3))
    assert len(raw) == 3  # 3+1, 3, 1: the short page ends the walk
    ids = {item["id"] for body in raw for item in json.loads(body)["data"]}
    assert ids == {row.id for row in rows}
    assert [r.id for r in client.transactions.iter(per_page=3)] == [r.id for r in rows]
    assert len(list(client.transactions.iter_raw(per_page=100))) == 1
    assert client.transactions.list(per_page=2).per_page == 2
    with pytest.raises(ArgumentError):
        list(client.statement.iter(status="done"))
    with pytest.raises(ArgumentError):
        list(client.statement.iter(perPage=3))


def test_statement_filters_by_utc_day(client: pixops.Client, sandbox: Sandbox) -> None:
    today = sandbox.now().date()
    client.pix.cash_out(pix_key=MARIA, amount_centavos=1_000)
    sandbox.advance(60)
    assert len(list(client.statement.iter(date_from=today, date_to=today))) == 1
    assert list(client.statement.iter(date_from="2025-01-01", date_to="2025-01-02")) == []
    with pytest.raises(ArgumentError):
        client.statement.list(date_from="2026-13-01")


def test_camel_case_per_client_and_per_call(client: pixops.Client, key: ApiKey) -> None:
    camel = client.with_options(key_case="camelCase")
    assert camel.balance() == client.balance()
    payout = camel.pix.cash_out(pix_key=MARIA, amount_centavos=1_000)
    assert payout.transaction_id.startswith("PIXOUT")
    body = next(camel.statement.iter_raw())
    assert b'"transaction_id"' in body
    assert b"transactionId" not in body


def test_queued_pending_and_rejected_payouts(sandbox: Sandbox, client: pixops.Client) -> None:
    queued = client.pix.cash_out(pix_key="queue.client@sandbox.pixops.dev", amount_centavos=100)
    assert isinstance(queued, PayoutQueued)
    assert queued.queue_ttl_seconds == 7200
    dual = sandbox.create_merchant("Dual", balance_centavos=10_000, dual_control=True)
    pending = sandbox.client(sandbox.issue_api_key(dual.id)).pix.cash_out(
        pix_key=MARIA, amount_centavos=100
    )
    assert isinstance(pending, PayoutPendingApproval)
    with pytest.raises(InsufficientBalanceError) as caught:
        client.pix.cash_out(pix_key=MARIA, amount_centavos=5_000_000)
    assert caught.value.code == "insufficient_balance"
    assert caught.value.retryable is False


def test_a_missing_permission_is_reported(sandbox: Sandbox, merchant: Merchant) -> None:
    limited = sandbox.client(sandbox.issue_api_key(merchant.id, permissions=["account:read"]))
    with pytest.raises(PermissionDeniedError) as caught:
        limited.statement.list()
    assert caught.value.params == {"permission": "statement:read"}
    assert caught.value.code == "missing_permission"


def test_account_keys_cpf_and_key_resolution(client: pixops.Client) -> None:
    assert client.cpf.validate("529.982.247-25").valid
    assert not client.cpf.validate("52998224700").valid
    assert client.pix.keys() == []
    charge = client.pix.cash_in(
        amount=Decimal("25.00"),
        description="Pedido 7",
        payer_name="Maria Silva",
        payer_document="52998224725",
        expires_in=600,
    )
    assert charge.amount.centavos == 2_500
    assert charge.brcode.startswith("000201")
    keys = client.pix.keys()
    assert [entry.key_type for entry in keys] == ["evp"]
    cpf = client.pix.resolve_key_type("52998224725")
    assert (cpf.pix_key_type, cpf.cpf_valid) == ("cpf", True)
    phone = client.pix.resolve_key_type("11987654321")
    assert phone.pix_key_type == "phone"
    assert "not a valid CPF" in str(phone)
    with pytest.raises(ArgumentError, match="ambiguous"):
        client.pix.cash_out(pix_key="11987654321", amount_centavos=100)
    with pytest.raises(ArgumentError):
        client.pix.resolve_key_type("maria@example.com")


def test_refunds_webhooks_and_med(client: pixops.Client, sandbox: Sandbox) -> None:
    charge = client.pix.cash_in(amount_centavos=10_000)
    credit = sandbox.pay_charge(charge.transaction_id)
    partial = client.pix.refund(credit, 1_000, reason="MD06", description="troca")
    assert partial.amount.centavos == 1_000
    assert partial.end_to_end_id.startswith("D")
    with pytest.raises(UnprocessableEntityError):
        client.pix.refund(credit, amount_centavos=10**6)
    with pytest.raises(NotFoundError):
        client.pix.refund("PIXINnope")
    url = sandbox.add_webhook_receiver(lambda headers, body: 200, name="nb")
    hook = client.webhooks.create(url=url, event_types=["pix.charge.paid"], description="nb")
    assert hook.secret
    assert hook.secret not in repr(hook)
    assert [w.id for w in client.webhooks.list()] == [hook.id]
    assert client.webhooks.delete(hook.id).deleted
    assert client.webhooks.list() == []
    with pytest.raises(ArgumentError):
        client.webhooks.create(url=url, event_types="pix.charge.paid")  # type: ignore[arg-type]
    case = sandbox.open_med_case(credit, reason="FRAUD")
    listed = client.med.list(status="OPEN")
    assert [c.id for c in listed.data] == [case.id]
    assert client.med.get(case.id).status == "OPEN"
    defended = client.med.defend(case.id, "Mercadoria entregue; nota fiscal 123.")
    assert defended.status == "ACKNOWLEDGED"
    with pytest.raises(ArgumentError):
        client.med.defend(case.id, "x" * 2_001)
    with pytest.raises(ArgumentError):
        client.med.list(status="opened")


def test_raw_request_and_cards(client: pixops.Client) -> None:
    answer = client.request("GET", "/balance")
    assert answer.status_code == 200
    signed = client.request("POST", "/cpf/validate", {"cpf": "52998224725"})
    assert signed.json()["data"]["valid"] is True
    assert client.request("GET", "/nope").status_code == 404
    with pytest.raises(ArgumentError):
        client.request("PATCH", "/balance")
    before = client.balance()
    with pytest.raises(ArgumentError, match="whole centavos"):
        client.request("POST", "/pix/cash-out", {"amount": 10.0, "pix_key": MARIA})
    assert client.balance() == before  # refused before sending: nothing moved
    deep: object = 1.5
    for _ in range(5_000):
        deep = [deep]
    with pytest.raises(ArgumentError, match=r"body\['a'\](\[0\]){5000} is a decimal"):
        client.request("POST", "/cpf/validate", {"a": deep})
    payout = client.pix.cash_out(pix_key=MARIA, amount_centavos=1_000)
    card = payout._repr_html_()
    assert "R$ 10,00" in card
    assert "user-select:all" in card  # ids copyable with one click
    record = client.transactions.get(payout.transaction_id)
    assert "#9a6700" in record._repr_html_()  # processing: the waiting colour


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: Call("PATCH", "/balance"), "method must be GET, POST or DELETE, not 'PATCH'"),
        (lambda: Call("GET", 5), "path must start with '/'"),  # type: ignore[arg-type]
        (lambda: Call("GET", "balance"), "path must start with '/'"),
        (lambda: Call("GET", "/med", {"page": 2}), "query must be valid text"),  # type: ignore[dict-item]
        (lambda: Call("GET", "/med", "page=2"), "query must be a dict"),  # type: ignore[arg-type]
        (lambda: Call("POST", "/cpf/validate", body=[1]), "body must be an object"),  # type: ignore[arg-type]
        (lambda: Call("GET", "/balance", body={}), "only POST takes a body"),
        (
            lambda: Call("POST", "/pix/cash-out", body={"amount": 10.5}),
            "body['amount'] is a decimal number: the API takes none",
        ),
        (
            lambda: Call("POST", "/x", body={"a": [1, {"b": 1e3}]}),
            "body['a'][1]['b'] is a decimal number",
        ),
    ],
)
def test_a_call_checks_itself(build: Callable[[], Call], message: str) -> None:
    with pytest.raises(ArgumentError, match=re.escape(message)):
        build()


def test_send_takes_only_a_call(client: pixops.Client) -> None:
    with pytest.raises(ArgumentError, match="send\\(\\) takes a pixops Call, not NoneType"):
        client.send(None)  # type: ignore[arg-type]
    with pytest.raises(ArgumentError, match="query must be a dict"):
        client.request("GET", "/balance", query=[("a", "b")])  # type: ignore[arg-type]
