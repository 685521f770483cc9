"""`POST /pix/refund` over raw HTTP: aliases, every refusal with its exact body, the
central bank's later answer (completed or failed), totals under concurrency, and the
`start_refund` entry point the MED module uses."""

from __future__ import annotations

import threading
from datetime import UTC, date, datetime, time, timedelta
from typing import TYPE_CHECKING, Any

import pytest

from pixops.engine.pix import refunds
from pixops.engine.world import central_bank
from pixops.sandbox import Merchant, Sandbox

if TYPE_CHECKING:
    import httpx

    from tests.conftest import Api, Connect

OPENING_BASE = 1_000_000 * 100
DETAIL = (
    "Refund accepted; the outcome arrives by webhook (pix.refund.completed or pix.payout.failed)"
)


def refund(api: Api, body: Any, **options: Any) -> httpx.Response:
    return api("POST", "/pix/refund", body, **options)


def received(sb: Sandbox, merchant_id: str, amount_centavos: int, **payer: Any) -> str:
    """A settled received PIX (cash_in) of `amount_centavos`; returns its transaction_id."""
    return sb.receive_pix(merchant_id, amount_centavos=amount_centavos, **payer)


def row(sb: Sandbox, transaction_id: str) -> dict[str, Any]:
    with sb.engine.store.lock:
        found = sb.engine.store.conn.execute(
            "SELECT * FROM transactions WHERE transaction_id = ?", (transaction_id,)
        ).fetchone()
    assert found is not None
    return dict(found)


def refund_rows(sb: Sandbox, merchant_id: str) -> list[dict[str, Any]]:
    with sb.engine.store.lock:
        rows = sb.engine.store.conn.execute(
            "SELECT * FROM transactions WHERE merchant_id = ? AND kind IN ('refund', 'med_refund')"
            " ORDER BY seq",
            (merchant_id,),
        ).fetchall()
    return [dict(r) for r in rows]


def new_events(sb: Sandbox, merchant_id: str, skip: int) -> list[tuple[str, dict[str, Any]]]:
    return [(e.type, e.data) for e in sb.events(merchant_id)[skip:]]


def bad_request(message: str) -> dict[str, Any]:
    return {"worked": False, "errors": {"bad_request": message}}


def unprocessable(message: str) -> dict[str, Any]:
    return {"worked": False, "errors": {"unprocessable_entity": message}}


NOT_FOUND = {"worked": False, "errors": {"not_found": "original transaction not found"}}


@pytest.fixture
def original(sandbox: Sandbox, merchant: Merchant) -> str:
    return received(sandbox, merchant.id, 10_000, payer_name="Joana Prado", payer_ispb="18236120")


def test_full_refund_accepted_then_completed(
    sandbox: Sandbox, merchant: Merchant, api: Api, original: str
) -> None:
    before = sandbox.balance(merchant.id).ledger_base
    skip = len(sandbox.events(merchant.id))
    response = refund(api, {"original_transaction_id": original})
    assert response.status_code == 202
    body = response.json()
    return_id = body["end_to_end_id"]
    assert return_id.startswith("D99999999202601051200")
    assert len(return_id) == 32
    assert body == {
        "worked": True,
        "transaction_id": "PIXRET" + return_id,
        "end_to_end_id": return_id,
        "amount": 1_000_000,
        "status": "accepted",
        "detail": DETAIL,
    }
    tx = body["transaction_id"]
    stored = row(sandbox, tx)
    assert (stored["kind"], stored["status"], stored["stage"], stored["direction"]) == (
        "refund",
        "processing",
        2,
        "outbound",
    )
    assert (stored["original_transaction_id"], stored["refund_reason"]) == (original, "MD06")
    assert stored["description"] == "Devolução de PIX"
    assert (stored["counterparty_name"], stored["recipient_ispb"]) == ("Joana Prado", "18236120")
    assert stored["recipient_document"] == row(sandbox, original)["payer_document"]
    balance = sandbox.balance(merchant.id)
    assert (balance.ledger_base, balance.held_base) == (before, 1_000_000)
    sandbox.advance(1)
    assert row(sandbox, tx)["status"] == "processing"
    sandbox.advance(1)
    stored = row(sandbox, tx)
    assert (stored["status"], stored["stage"]) == ("settled", 3)
    assert stored["completed_at"] == "2026-01-05T12:00:02.000000Z"
    balance = sandbox.balance(merchant.id)
    assert (balance.ledger_base, balance.held_base) == (before - 1_000_000, 0)
    expected = {
        "transaction_id": tx,
        "end_to_end_id": return_id,
        "original_transaction_id": original,
        "original_end_to_end_id": row(sandbox, original)["end_to_end_id"],
        "amount": 1_000_000,
        "reason": "MD06",
        "status": "completed",
        "total_refunded": 1_000_000,
        "remaining_refundable": 0,
        "is_partial": False,
    }
    assert new_events(sandbox, merchant.id, skip) == [
        ("pix.refund.completed", expected),
        ("pix.payout.returned", expected),
    ]
    with sandbox.engine.store.lock:
        entries = sandbox.engine.store.conn.execute(
            "SELECT kind, amount_base FROM journal WHERE transaction_id = ?", (tx,)
        ).fetchall()
    assert [tuple(e) for e in entries] == [("refund", -1_000_000)]
    assert sandbox.audit(merchant.id).consistent


def test_partial_refunds_track_totals(
    sandbox: Sandbox, merchant: Merchant, api: Api, original: str
) -> None:
    skip = len(sandbox.events(merchant.id))
    first = refund(api, {"original_transaction_id": original, "amount": 2_500})
    assert first.status_code == 202
    assert first.json()["amount"] == 250_000
    sandbox.advance(2)
    second = refund(api, {"original_transaction_id": original, "amount": 7_500, "reason": "SL02"})
    assert second.status_code == 202
    sandbox.advance(2)
    completed = [
        d for t, d in new_events(sandbox, merchant.id, skip) if t == "pix.refund.completed"
    ]
    assert [
        (d["total_refunded"], d["remaining_refundable"], d["is_partial"]) for d in completed
    ] == [
        (250_000, 750_000, True),
        (1_000_000, 0, True),
    ]
    assert completed[1]["reason"] == "SL02"
    third = refund(api, {"original_transaction_id": original, "amount": 1})
    assert third.status_code == 422
    assert third.json() == unprocessable(
        "refund amount R$ 0,01 exceeds the original transaction amount: R$ 0,00 of "
        "R$ 100,00 is still refundable"
    )
    assert sandbox.audit(merchant.id).consistent


def test_omitted_amount_after_a_partial_refund_exceeds(
    sandbox: Sandbox, merchant: Merchant, api: Api, original: str
) -> None:
    assert refund(api, {"original_transaction_id": original, "amount": 1}).status_code == 202
    response = refund(api, {"original_transaction_id": original})
    assert response.status_code == 422
    assert response.json() == unprocessable(
        "refund amount R$ 100,00 exceeds the original transaction amount: R$ 99,99 of "
        "R$ 100,00 is still refundable"
    )
    assert len(refund_rows(sandbox, merchant.id)) == 1


def test_in_flight_refunds_count_towards_the_total(
    sandbox: Sandbox, merchant: Merchant, api: Api, original: str
) -> None:
    assert refund(api, {"original_transaction_id": original, "amount": 6_000}).status_code == 202
    assert refund(api, {"original_transaction_id": original, "amount": 4_001}).status_code == 422
    assert refund(api, {"original_transaction_id": original, "amount": 4_000}).status_code == 202


def test_failed_refunds_free_the_amount_again(
    sandbox: Sandbox, merchant: Merchant, api: Api, original: str
) -> None:
    bad = refund(api, {"original_transaction_id": original, "reason": "XX99"})
    assert bad.status_code == 202
    assert refund(api, {"original_transaction_id": original}).status_code == 422
    sandbox.advance(2)
    assert row(sandbox, bad.json()["transaction_id"])["status"] == "failed"
    assert refund(api, {"original_transaction_id": original}).status_code == 202


ALIASES = ["original_transaction_id", "original_e2e_id", "originalTransactionId",
           "transaction_id", "end_to_end_id"]  # fmt: skip


@pytest.mark.parametrize("alias", ALIASES)
@pytest.mark.parametrize("by", ["transaction_id", "end_to_end_id"])
def test_every_alias_finds_the_original(
    sandbox: Sandbox, merchant: Merchant, api: Api, original: str, alias: str, by: str
) -> None:
    identifier = row(sandbox, original)[by]
    response = refund(api, {alias: identifier, "amount": 100})
    assert response.status_code == 202
    assert refund_rows(sandbox, merchant.id)[0]["original_transaction_id"] == original


def test_first_alias_wins(sandbox: Sandbox, merchant: Merchant, api: Api, original: str) -> None:
    wrong_first = {
        "original_e2e_id": "E00000000202601051200nothing0000",
        "transaction_id": original,
    }
    response = refund(api, wrong_first)
    assert response.status_code == 404
    assert response.json() == NOT_FOUND
    null_first = {"original_transaction_id": None, "transaction_id": original, "amount": 1}
    assert refund(api, null_first).status_code == 202


def test_reason_aliases(sandbox: Sandbox, merchant: Merchant, api: Api, original: str) -> None:
    refund(api, {"transaction_id": original, "amount": 1, "return_code": "BE08"})
    refund(api, {"transaction_id": original, "amount": 1, "reason": "AM09", "return_code": "BE08"})
    refund(api, {"transaction_id": original, "amount": 1})
    reasons = [r["refund_reason"] for r in refund_rows(sandbox, merchant.id)]
    assert reasons == ["BE08", "AM09", "MD06"]


def test_camel_case_aliases(sandbox: Sandbox, merchant: Merchant, api: Api, original: str) -> None:
    response = refund(
        api,
        {"originalTransactionId": original, "amount": 100, "returnCode": "FR01"},
        headers={"X-Key-Case": "camelCase"},
    )
    assert response.status_code == 202
    assert set(response.json()) == {
        "worked", "transactionId", "endToEndId", "amount", "status", "detail",
    }  # fmt: skip
    assert refund_rows(sandbox, merchant.id)[0]["refund_reason"] == "FR01"


@pytest.mark.parametrize(
    "body",
    [{}, {"amount": 100}, {"original_transaction_id": None}, {"original_transaction_id": ""},
     {"original_transaction_id": "   "}, {"originalTransactionID": "x"}],
)  # fmt: skip
def test_original_id_is_required(
    sandbox: Sandbox, merchant: Merchant, api: Api, body: dict[str, Any]
) -> None:
    response = refund(api, body)
    assert response.status_code == 400
    assert response.json() == bad_request("original_transaction_id is required")
    assert refund_rows(sandbox, merchant.id) == []


@pytest.mark.parametrize("value", [123, ["PIXIN"], {"id": "x"}, True])
def test_original_id_must_be_a_string(api: Api, value: Any) -> None:
    response = refund(api, {"original_transaction_id": value})
    assert response.status_code == 400
    assert response.json() == bad_request("original_transaction_id must be a string")


def test_body_must_be_an_object(api: Api) -> None:
    response = refund(api, "PIXIN123")
    assert response.status_code == 400
    assert response.json() == bad_request("Request body must be a JSON object")


@pytest.mark.parametrize("amount", [0, -5, 1.5, 100.0, "100", True, [1], 2**62])
def test_invalid_amount(
    sandbox: Sandbox, merchant: Merchant, api: Api, original: str, amount: Any
) -> None:
    response = refund(api, {"original_transaction_id": original, "amount": amount})
    assert response.status_code == 400
    assert response.json() == bad_request("amount must be a positive integer number of centavos")
    assert refund_rows(sandbox, merchant.id) == []


def test_reason_and_description_checks(
    sandbox: Sandbox, merchant: Merchant, api: Api, original: str
) -> None:
    body = {"original_transaction_id": original, "amount": 1}
    assert refund(api, {**body, "reason": 6}).json() == bad_request("reason must be a string")
    assert refund(api, {**body, "return_code": ["MD06"]}).json() == bad_request(
        "reason must be a string"
    )
    assert refund(api, {**body, "description": 1}).json() == bad_request(
        "description must be a string"
    )
    too_long = refund(api, {**body, "description": "d" * 141})
    assert too_long.status_code == 400
    assert too_long.json() == bad_request("description must be at most 140 characters")
    assert refund_rows(sandbox, merchant.id) == []
    assert refund(api, {**body, "description": "d" * 140}).status_code == 202
    assert refund_rows(sandbox, merchant.id)[0]["description"] == "d" * 140


def test_not_owned_is_identical_to_nonexistent(
    sandbox: Sandbox, merchant: Merchant, api: Api, connect: Connect
) -> None:
    other = sandbox.create_merchant("Outra Loja", balance_centavos=100_000)
    theirs = received(sandbox, other.id, 5_000)
    not_owned = refund(api, {"original_transaction_id": theirs})
    by_e2e = refund(api, {"original_e2e_id": row(sandbox, theirs)["end_to_end_id"]})
    missing = refund(api, {"original_transaction_id": "PIXINE00000000202601051200nothing0000"})
    for response in (not_owned, by_e2e, missing):
        assert response.status_code == 404
        assert response.content == missing.content
    assert missing.json() == NOT_FOUND
    assert refund_rows(sandbox, other.id) == [] == refund_rows(sandbox, merchant.id)
    owner_api = connect(sandbox, sandbox.issue_api_key(other.id))
    assert refund(owner_api, {"original_transaction_id": theirs}).status_code == 202


def test_only_received_pix_can_be_refunded(sandbox: Sandbox, merchant: Merchant, api: Api) -> None:
    payout = api("POST", "/pix/cash-out", {"amount": 100, "pix_key": "instant@sandbox.pixops.dev"})
    assert payout.status_code == 200
    response = refund(api, {"original_transaction_id": payout.json()["transaction_id"]})
    assert response.json() == NOT_FOUND
    original = received(sandbox, merchant.id, 100)
    refund_tx = refund(api, {"original_transaction_id": original}).json()["transaction_id"]
    assert refund(api, {"original_transaction_id": refund_tx}).json() == NOT_FOUND


def test_failed_inbound_credit_cannot_be_refunded(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    failed = received(sandbox, merchant.id, 5_000, fail_reason="AM02")
    response = refund(api, {"original_transaction_id": failed})
    assert response.status_code == 422
    assert response.json() == unprocessable(
        f"transaction {failed} is failed; only a settled received PIX can be refunded"
    )


def test_insufficient_safe_balance(sandbox: Sandbox, connect: Connect) -> None:
    merchant = sandbox.create_merchant("Vazia")
    api = connect(sandbox, sandbox.issue_api_key(merchant.id))
    original = received(sandbox, merchant.id, 10_000)  # the 0.99% cash-in fee stays behind
    assert sandbox.balance(merchant.id).ledger_base == 990_100
    response = refund(api, {"original_transaction_id": original})
    assert response.status_code == 422
    assert response.json() == unprocessable(
        "insufficient balance: available R$ 99,01, refund amount R$ 100,00"
    )
    assert refund_rows(sandbox, merchant.id) == []
    assert refund(api, {"original_transaction_id": original, "amount": 9_901}).status_code == 202
    assert sandbox.balance(merchant.id).safe_base == 0


def test_holds_reduce_the_safe_balance_for_refunds(sandbox: Sandbox, connect: Connect) -> None:
    merchant = sandbox.create_merchant("Segurando")
    api = connect(sandbox, sandbox.issue_api_key(merchant.id))
    original = received(sandbox, merchant.id, 10_000)
    payout = api("POST", "/pix/cash-out", {"amount": 5_000, "pix_key": "orphan@sandbox.pixops.dev"})
    assert payout.status_code == 202
    response = refund(api, {"original_transaction_id": original, "amount": 5_000})
    assert response.json() == unprocessable(
        "insufficient balance: available R$ 48,51, refund amount R$ 50,00"
    )
    sandbox.advance(1800)  # the orphan is voided and its hold released
    assert refund(api, {"original_transaction_id": original, "amount": 5_000}).status_code == 202
    assert sandbox.audit(merchant.id).consistent


def test_permission_payment_write(sandbox: Sandbox, merchant: Merchant, connect: Connect) -> None:
    reader = sandbox.issue_api_key(merchant.id, permissions=["payment:read", "transfer:write"])
    response = refund(connect(sandbox, reader), {"original_transaction_id": "x"})
    assert response.status_code == 403
    assert response.json() == {
        "error": "forbidden",
        "message": "API key lacks permission: payment:write",
    }


def test_idempotent_replay_refunds_once(
    sandbox: Sandbox, merchant: Merchant, api: Api, original: str
) -> None:
    body = {"original_transaction_id": original, "amount": 100}
    first = refund(api, body, headers={"Idempotency-Key": "r-1"})
    again = refund(api, body, headers={"Idempotency-Key": "r-1"})
    assert again.content == first.content
    assert again.headers["x-idempotent-replay"] == "true"
    assert len(refund_rows(sandbox, merchant.id)) == 1


# -- the central bank's answer ---------------------------------------------------


@pytest.mark.parametrize("reason", ["XX99", "md06", "", "FRAUD"])
def test_reason_outside_the_accepted_set_fails_later(
    sandbox: Sandbox, merchant: Merchant, api: Api, original: str, reason: str
) -> None:
    before = sandbox.balance(merchant.id).ledger_base
    skip = len(sandbox.events(merchant.id))
    response = refund(api, {"original_transaction_id": original, "amount": 3_000, "reason": reason})
    assert response.status_code == 202
    tx = response.json()["transaction_id"]
    assert sandbox.balance(merchant.id).held_base == 300_000
    sandbox.advance(2)
    stored = row(sandbox, tx)
    message = (
        f"Refund reason {reason!r} is not an accepted return code "
        "(MD06, BE08, FR01, AM09, SL02, RR04)"
    )
    assert (stored["status"], stored["stage"], stored["reason_code"]) == ("failed", 3, "AG03")
    assert stored["reason_description"] == message
    assert stored["failed_at"] == "2026-01-05T12:00:02.000000Z"
    assert new_events(sandbox, merchant.id, skip) == [
        (
            "pix.payout.failed",
            {
                "transaction_id": tx,
                "end_to_end_id": response.json()["end_to_end_id"],
                "external_id": None,
                "original_transaction_id": original,
                "amount": 300_000,
                "status": "failed",
                "reason_code": "AG03",
                "reason_description": message,
            },
        )
    ]
    balance = sandbox.balance(merchant.id)
    assert (balance.ledger_base, balance.held_base) == (before, 0)
    assert sandbox.audit(merchant.id).consistent


def advance_to(sb: Sandbox, moment: datetime) -> None:
    sb.advance(int((moment - sb.now()).total_seconds()))
    assert sb.now() == moment


def test_refund_timely_when_requested_is_settled_however_late_the_answer(
    sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    """Issue 8.1: a credit of 2026-01-05T12:00Z refunded with MD06 at 2026-04-05T11:59:59Z
    is in time; the central bank answers seconds later and must not judge that moment."""
    assert sandbox.now() == datetime(2026, 1, 5, 12, tzinfo=UTC)
    original = received(sandbox, merchant.id, 1_000)
    advance_to(sandbox, datetime(2026, 4, 5, 11, 59, 59, tzinfo=UTC))
    response = refund(api, {"original_transaction_id": original, "reason": "MD06"})
    assert response.status_code == 202
    sandbox.advance(2)
    assert row(sandbox, response.json()["transaction_id"])["status"] == "settled"
    assert "pix.refund.completed" in [e.type for e in sandbox.events(merchant.id)]


@pytest.mark.parametrize(
    ("reason", "days"),
    [("MD06", 90), ("BE08", 80), ("FR01", 80), ("AM09", 30), ("SL02", 30), ("RR04", 30)],
)
def test_refund_deadlines_are_calendar_days_in_sao_paulo(
    sandbox: Sandbox, merchant: Merchant, api: Api, reason: str, days: int
) -> None:
    """Received 2026-01-05 09:00 in São Paulo: the last allowed day is that date + `days`,
    to 23:59:59 local (02:59:59Z the next UTC day); local midnight after it is late."""
    on_time_original = received(sandbox, merchant.id, 1_000)
    late_original = received(sandbox, merchant.id, 1_000)
    last_day = date(2026, 1, 5) + timedelta(days=days)
    local_midnight_after = datetime.combine(last_day + timedelta(days=1), time(3), tzinfo=UTC)
    advance_to(sandbox, local_midnight_after - timedelta(seconds=1))
    on_time = refund(api, {"original_transaction_id": on_time_original, "reason": reason})
    sandbox.advance(1)
    too_late = refund(api, {"original_transaction_id": late_original, "reason": reason})
    assert on_time.status_code == too_late.status_code == 202
    sandbox.advance(2)
    assert row(sandbox, on_time.json()["transaction_id"])["status"] == "settled"
    failed = row(sandbox, too_late.json()["transaction_id"])
    assert (failed["status"], failed["reason_code"]) == ("failed", "DT05")
    assert failed["reason_description"] == (
        f"Refund outside the allowed window: {reason} refunds are accepted up to {days} "
        "calendar days after the original payment"
    )
    failed_events = [e for e in sandbox.events(merchant.id) if e.type == "pix.payout.failed"]
    assert [e.data["reason_code"] for e in failed_events] == ["DT05"]
    assert sandbox.audit(merchant.id).consistent


def test_judge_refund_unit() -> None:
    settled = datetime(2026, 1, 5, 12, tzinfo=UTC)
    last_local_second = datetime(2026, 4, 6, 2, 59, 59, tzinfo=UTC)  # 2026-04-05 23:59:59 -03
    assert central_bank.judge_refund("MD06", settled, last_local_second) is None
    late = central_bank.judge_refund("MD06", settled, last_local_second + timedelta(seconds=1))
    assert late is not None
    assert late.code == "DT05"
    # A credit at 01:00Z is still the previous day in São Paulo: its window starts then.
    evening = datetime(2026, 1, 6, 1, tzinfo=UTC)  # 2026-01-05 22:00 -03
    assert central_bank.judge_refund("AM09", evening, datetime(2026, 2, 5, 2, tzinfo=UTC)) is None
    assert central_bank.judge_refund("AM09", evening, datetime(2026, 2, 5, 3, 30, tzinfo=UTC))
    invalid = central_bank.judge_refund("ZZZZ", settled, settled)
    assert invalid is not None
    assert invalid.code == "AG03"


# -- the MED module's entry point ------------------------------------------------


def test_start_refund_for_med_skips_the_reason_check(
    sandbox: Sandbox, merchant: Merchant, original: str
) -> None:
    skip = len(sandbox.events(merchant.id))
    with sandbox.engine.store.transaction() as conn:
        created = refunds.start_refund(
            sandbox.engine,
            conn,
            merchant_id=merchant.id,
            original_transaction_id=original,
            amount_base=400_000,
            reason="FRAUD",
            description=None,
            now=sandbox.now(),
            kind="med_refund",
        )
    assert (created.kind, created.status, created.amount_base) == (
        "med_refund",
        "processing",
        400_000,
    )
    assert created.transaction_id.startswith("PIXRETD99999999")
    assert created.description == "Devolução de PIX"
    sandbox.advance(100 * 86_400)
    stored = row(sandbox, created.transaction_id)
    assert stored["status"] == "settled"
    types = [t for t, _ in new_events(sandbox, merchant.id, skip)]
    assert types == ["pix.refund.completed", "pix.payout.returned"]
    with sandbox.engine.store.lock:
        kinds = sandbox.engine.store.conn.execute(
            "SELECT kind FROM journal WHERE transaction_id = ?", (created.transaction_id,)
        ).fetchall()
    assert [k[0] for k in kinds] == ["med_refund"]
    assert refunds.committed_total_base(sandbox.engine.store.conn, original) == 400_000
    assert sandbox.audit(merchant.id).consistent


def test_start_refund_needs_an_original_of_the_merchant(
    sandbox: Sandbox, merchant: Merchant, original: str
) -> None:
    other = sandbox.create_merchant("Outra")
    with sandbox.engine.store.transaction() as conn:
        with pytest.raises(LookupError):
            refunds.start_refund(
                sandbox.engine, conn, merchant_id=other.id, original_transaction_id=original,
                amount_base=1, reason="MD06", description=None, now=sandbox.now(),
            )  # fmt: skip
        with pytest.raises(ValueError, match="kind"):
            refunds.start_refund(
                sandbox.engine, conn, merchant_id=merchant.id, original_transaction_id=original,
                amount_base=1, reason="MD06", description=None, now=sandbox.now(),
                kind="cash_out",  # type: ignore[arg-type]
            )  # fmt: skip


# -- concurrency -------------------------------------------------------------------


def test_concurrent_refunds_never_exceed_the_original(
    sandbox: Sandbox, merchant: Merchant, connect: Connect, original: str
) -> None:
    clients = [connect(sandbox, sandbox.issue_api_key(merchant.id)) for _ in range(20)]
    statuses: list[int] = []
    lock = threading.Lock()

    def worker(index: int) -> None:
        response = refund(clients[index], {"original_transaction_id": original, "amount": 1_500})
        with lock:
            statuses.append(response.status_code)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [202] * 6 + [422] * 14
    assert refunds.committed_total_base(sandbox.engine.store.conn, original) == 900_000
    sandbox.advance(2)
    assert refunds.refunded_total_base(sandbox.engine.store.conn, original) == 900_000
    assert sandbox.balance(merchant.id).held_base == 0
    assert sandbox.audit(merchant.id).consistent


# -- refund by the charge's own reference (issue 8.5) ----------------------------------


def charge(api: Api, amount_centavos: int) -> str:
    response = api("POST", "/pix/cash-in", {"amount": amount_centavos})
    assert response.status_code == 201
    tx_id: str = response.json()["data"]["transaction_id"]
    return tx_id


def test_a_paid_qr_tx_id_refunds_its_credit(sandbox: Sandbox, merchant: Merchant, api: Api) -> None:
    tx_id = charge(api, 5_000)
    credit = sandbox.pay_charge(tx_id, payer_name="Joana Prado")
    sandbox.advance(0)
    response = refund(api, {"original_transaction_id": tx_id, "amount": 2_000})
    assert response.status_code == 202, response.text
    refund_row = row(sandbox, response.json()["transaction_id"])
    assert refund_row["original_transaction_id"] == credit
    sandbox.advance(2)
    completed = [e.data for e in sandbox.events(merchant.id) if e.type == "pix.refund.completed"]
    assert completed[0]["original_transaction_id"] == credit
    assert completed[0]["remaining_refundable"] == 300_000
    # The credit's own id and the QR's tx_id draw on one refundable total.
    over = refund(api, {"original_transaction_id": credit, "amount": 3_001})
    assert over.status_code == 422


@pytest.mark.parametrize("state", ["pending", "expired", "cancelled"])
def test_an_unpaid_qr_tx_id_is_the_ordinary_404(
    sandbox: Sandbox, merchant: Merchant, api: Api, state: str
) -> None:
    tx_id = charge(api, 5_000)
    if state == "expired":
        sandbox.advance(hours=2)
    elif state == "cancelled":
        sandbox.cancel_charge(tx_id)
    response = refund(api, {"original_transaction_id": tx_id})
    assert (response.status_code, response.json()) == (404, NOT_FOUND)


def test_another_merchants_paid_qr_is_the_ordinary_404(
    connect: Connect, sandbox: Sandbox, merchant: Merchant, api: Api
) -> None:
    other = sandbox.create_merchant("Outra Loja", balance_centavos=100_000)
    theirs = connect(sandbox, sandbox.issue_api_key(other.id))
    tx_id = charge(theirs, 5_000)
    sandbox.pay_charge(tx_id)
    sandbox.advance(0)
    response = refund(api, {"original_transaction_id": tx_id})
    assert (response.status_code, response.json()) == (404, NOT_FOUND)
