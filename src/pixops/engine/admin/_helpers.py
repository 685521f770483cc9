"""The test helpers themselves: one small function per action of the simulated world.

Each takes the sandbox, the path parameters and the checked JSON body, and returns a
`Reply`. Requests carry centavos (as the API's do) and replies show base units. A
missing object is a 404 found here, before acting; a refusal by the sandbox (a charge
already paid, a case already closed) is raised as ValueError and becomes a 422 in
`_app`, with the transaction rolled back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from pixops.engine.admin import _fields as fields
from pixops.engine.admin._keys import list_keys
from pixops.engine.admin._world import SandboxWorld
from pixops.engine.clock import ManualClock, to_wire
from pixops.engine.http import JSONObject, Reply, bad_request, business_error, not_found
from pixops.engine.permissions import PERMISSIONS
from pixops.limits import (
    DEFENSE_MAX_CHARS,
    DESCRIPTION_MAX_CHARS,
    PAYER_NAME_MAX_CHARS,
    PIX_KEY_MAX_CHARS,
)

if TYPE_CHECKING:
    from pixops.engine.med import MedCase

Helper = Callable[[SandboxWorld, dict[str, str], JSONObject], Reply]

MAX_ADVANCE_SECONDS: Final = 366 * 86_400
"""One call moves the manual clock at most a year: every timer due on the way runs."""
MAX_WHITELIST_ENTRIES: Final = 64
MERCHANT_NAME_MAX_CHARS: Final = 140
DOCUMENT_MAX_CHARS: Final = 18
"""A CPF or CNPJ as written with punctuation (``00.000.000/0000-00``)."""
ISPB_MAX_CHARS: Final = 8
REASON_CODE_MAX_CHARS: Final = 4
MED_REASONS: Final = ("FRAUD", "OPERATIONAL_FLAW", "REFUND_REQUEST")
MED_RESULTS: Final = ("AGREED", "DISAGREED")

_LOOKUPS: Final = {
    "merchant": "SELECT 1 FROM merchants WHERE id = ?",
    "API key": "SELECT 1 FROM api_keys WHERE client_id = ?",
    "charge": "SELECT 1 FROM charges WHERE txid = ?",
    "transaction": "SELECT 1 FROM transactions WHERE transaction_id = ?",
    "MED case": "SELECT 1 FROM med_cases WHERE id = ?",
}


def _require(sandbox: SandboxWorld, kind: str, ident: str) -> None:
    with sandbox.engine.store.lock:
        found = sandbox.engine.store.conn.execute(_LOOKUPS[kind], (ident,)).fetchone()
    if found is None:
        raise not_found(f"No {kind} {ident}")


def _data(status: int, data: JSONObject | list[JSONObject]) -> Reply:
    return Reply(status, {"worked": True, "data": data})


def _movement(sandbox: SandboxWorld, transaction_id: str) -> Reply:
    status = sandbox.transaction_status(transaction_id)
    return _data(201, {"transaction_id": transaction_id, "status": status})


def _case(case: MedCase) -> JSONObject:
    return {**case.resource(), "merchant_id": case.merchant_id}


# -- merchants and keys (the portal) -------------------------------------------------


def create_merchant(sandbox: SandboxWorld, params: dict[str, str], body: JSONObject) -> Reply:
    name = fields.text(body, "name", max_chars=MERCHANT_NAME_MAX_CHARS, required=True)
    assert name is not None
    balance_centavos = fields.integer(
        body, "balance_centavos", minimum=0, maximum=fields.MAX_CENTAVOS
    )
    merchant = sandbox.create_merchant(
        name,
        balance_centavos=balance_centavos or 0,
        document=fields.text(body, "document", max_chars=DOCUMENT_MAX_CHARS),
        dual_control=fields.flag(body, "dual_control", default=False),
    )
    balance = sandbox.balance(merchant.id)
    return _data(
        201,
        {
            "id": merchant.id,
            "name": merchant.name,
            "document": merchant.document,
            "active": merchant.active,
            "balance": balance.ledger_base,
        },
    )


def list_merchant_keys(sandbox: SandboxWorld, params: dict[str, str], body: JSONObject) -> Reply:
    _require(sandbox, "merchant", params["merchant_id"])
    with sandbox.engine.store.lock:
        keys = list_keys(sandbox.engine.store.conn, params["merchant_id"])
    return _data(200, [key.resource() for key in keys])


def issue_key(sandbox: SandboxWorld, params: dict[str, str], body: JSONObject) -> Reply:
    merchant_id = params["merchant_id"]
    _require(sandbox, "merchant", merchant_id)
    permissions = fields.texts(body, "permissions", max_items=len(PERMISSIONS), max_chars=32)
    unknown = sorted(set(permissions or ()) - PERMISSIONS)
    if unknown:
        raise bad_request(
            {
                "permissions": [
                    f"unknown {', '.join(unknown)}; known: {', '.join(sorted(PERMISSIONS))}"
                ]
            }
        )
    whitelist = fields.texts(body, "ip_whitelist", max_items=MAX_WHITELIST_ENTRIES, max_chars=64)
    expires_at = fields.timestamp(body, "expires_at")
    key = sandbox.issue_api_key(
        merchant_id,
        permissions=permissions,
        ip_whitelist=("127.0.0.1", "::1") if whitelist is None else whitelist,
        hmac=fields.flag(body, "hmac", default=True),
        expires_at=expires_at,
    )
    return _data(
        201,
        {
            "client_id": key.client_id,
            "client_secret": key.client_secret,
            "merchant_id": key.merchant_id,
            "permissions": list(key.permissions),
            "ip_whitelist": list(key.ip_whitelist),
            "hmac": key.hmac,
            "expires_at": None if expires_at is None else to_wire(expires_at),
            "active": True,
        },
    )


def revoke_key(sandbox: SandboxWorld, params: dict[str, str], body: JSONObject) -> Reply:
    client_id = params["client_id"]
    _require(sandbox, "API key", client_id)
    sandbox.revoke_api_key(client_id)
    with sandbox.engine.store.lock:
        (key,) = [k for k in list_keys(sandbox.engine.store.conn) if k.client_id == client_id]
    return _data(200, key.resource())


# -- money arriving (payers and counterparties) ---------------------------------------


def _payer(body: JSONObject) -> dict[str, Any]:
    return {
        "payer_name": fields.text(body, "payer_name", max_chars=PAYER_NAME_MAX_CHARS),
        "payer_document": fields.text(body, "payer_document", max_chars=DOCUMENT_MAX_CHARS),
        "payer_ispb": fields.text(body, "payer_ispb", max_chars=ISPB_MAX_CHARS),
    }


def pay_charge(sandbox: SandboxWorld, params: dict[str, str], body: JSONObject) -> Reply:
    qr_transaction_id = params["transaction_id"]
    _require(sandbox, "charge", qr_transaction_id)
    credit_id = sandbox.pay_charge(qr_transaction_id, **_payer(body))
    return _movement(sandbox, credit_id)


def cancel_charge(sandbox: SandboxWorld, params: dict[str, str], body: JSONObject) -> Reply:
    qr_transaction_id = params["transaction_id"]
    _require(sandbox, "charge", qr_transaction_id)
    sandbox.cancel_charge(qr_transaction_id)
    return _data(200, {"transaction_id": qr_transaction_id, "status": "cancelled"})


def receive_pix(sandbox: SandboxWorld, params: dict[str, str], body: JSONObject) -> Reply:
    merchant_id = params["merchant_id"]
    _require(sandbox, "merchant", merchant_id)
    amount_centavos = fields.amount_centavos(body, required=True)
    assert amount_centavos is not None
    transaction_id = sandbox.receive_pix(
        merchant_id,
        amount_centavos=amount_centavos,
        description=fields.text(body, "description", max_chars=DESCRIPTION_MAX_CHARS),
        recipient_key=fields.text(body, "recipient_key", max_chars=PIX_KEY_MAX_CHARS),
        fail_reason=fields.text(body, "fail_reason", max_chars=REASON_CODE_MAX_CHARS),
        **_payer(body),
    )
    return _movement(sandbox, transaction_id)


def receive_return(sandbox: SandboxWorld, params: dict[str, str], body: JSONObject) -> Reply:
    transaction_id = params["transaction_id"]
    _require(sandbox, "transaction", transaction_id)
    reason_code = fields.text(body, "reason_code", max_chars=REASON_CODE_MAX_CHARS)
    return_id = sandbox.receive_return(
        transaction_id,
        amount_centavos=fields.amount_centavos(body, required=False),
        reason_code=reason_code or "MD06",
    )
    return _movement(sandbox, return_id)


# -- dual control (the second approver) ------------------------------------------------


def approve_payout(sandbox: SandboxWorld, params: dict[str, str], body: JSONObject) -> Reply:
    transaction_id = params["transaction_id"]
    _require(sandbox, "transaction", transaction_id)
    status = sandbox.approve_payout(transaction_id)
    return _data(200, {"transaction_id": transaction_id, "status": status})


def deny_payout(sandbox: SandboxWorld, params: dict[str, str], body: JSONObject) -> Reply:
    transaction_id = params["transaction_id"]
    _require(sandbox, "transaction", transaction_id)
    status = sandbox.deny_payout(transaction_id)
    return _data(200, {"transaction_id": transaction_id, "status": status})


# -- MED (the central bank) ----------------------------------------------------------


def open_med_case(sandbox: SandboxWorld, params: dict[str, str], body: JSONObject) -> Reply:
    transaction_id = fields.text(body, "transaction_id", max_chars=64, required=True)
    assert transaction_id is not None
    _require(sandbox, "transaction", transaction_id)
    case = sandbox.open_med_case(
        transaction_id,
        reason=fields.choice(body, "reason", MED_REASONS, default="FRAUD"),
        details=fields.text(body, "details", max_chars=DEFENSE_MAX_CHARS),
        amount_centavos=fields.amount_centavos(body, required=False),
    )
    return _data(201, _case(case))


def resolve_med_case(sandbox: SandboxWorld, params: dict[str, str], body: JSONObject) -> Reply:
    case_id = params["case_id"]
    _require(sandbox, "MED case", case_id)
    case = sandbox.resolve_med_case(
        case_id,
        result=fields.choice(body, "result", MED_RESULTS, default="AGREED"),
        details=fields.text(body, "details", max_chars=DEFENSE_MAX_CHARS),
    )
    return _data(200, _case(case))


# -- the clock -------------------------------------------------------------------------


def _clock(sandbox: SandboxWorld, timers_run: int | None = None) -> JSONObject:
    shown: JSONObject = {
        "now": to_wire(sandbox.now()),
        "manual": isinstance(sandbox.engine.clock, ManualClock),
    }
    if timers_run is not None:
        shown["timers_run"] = timers_run
    return shown


def read_clock(sandbox: SandboxWorld, params: dict[str, str], body: JSONObject) -> Reply:
    return _data(200, _clock(sandbox))


def advance_clock(sandbox: SandboxWorld, params: dict[str, str], body: JSONObject) -> Reply:
    seconds = fields.integer(body, "seconds", minimum=0, maximum=MAX_ADVANCE_SECONDS, required=True)
    assert seconds is not None
    if not isinstance(sandbox.engine.clock, ManualClock):
        raise business_error(
            409,
            "conflict",
            "The clock follows real time; start the server with --manual-clock to advance it",
        )
    timers_run = sandbox.advance(seconds)
    return _data(200, _clock(sandbox, timers_run))
