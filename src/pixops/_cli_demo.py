"""`pixops demo`: a merchant's day on the in-process sandbox, through plain HTTP requests.

The sandbox and httpx are imported when the demo runs, so registering it costs nothing.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, TextIO

from pixops import wire
from pixops.errors import PixopsError
from pixops.money import format_brl, format_brl_base

if TYPE_CHECKING:
    import httpx

    from pixops.cli import Commands
    from pixops.sandbox import ApiKey, Sandbox


def register(commands: Commands) -> None:
    """`pixops demo`."""
    demo = commands.add(
        "demo",
        help="run a short scenario against the in-process sandbox",
        handler=lambda _args: run_demo(sys.stdout),
    )
    demo.description = (
        "A merchant's day on the in-process sandbox, printed step by step: plain HTTP"
        " requests (signed POSTs) for charges, payouts, refunds and the statement. No"
        " network, no real money."
    )


class DemoError(PixopsError):
    """A step of the demo got an answer it did not expect."""


class _DemoApi:
    """Plain httpx with hand-built headers, as any merchant's code would call the API."""

    def __init__(self, sandbox: Sandbox, key: ApiKey) -> None:
        import httpx

        self.http = httpx.Client(
            transport=sandbox.transport(), base_url="http://sandbox/api/external"
        )
        self.authorization = f"ApiKey {key.client_id}:{key.client_secret}"
        self.secret = key.client_secret

    def get(self, path: str, expect: int = 200, **params: str | int) -> dict[str, Any]:
        response = self.http.get(path, params=params, headers={"authorization": self.authorization})
        return self._checked("GET", path, response, expect)

    def post(self, path: str, payload: dict[str, Any], expect: int) -> dict[str, Any]:
        body = wire.canonical_json(payload)
        headers = {
            "authorization": self.authorization,
            "content-type": "application/json",
            "hmac": wire.sign(body, self.secret),
        }
        return self._checked(
            "POST", path, self.http.post(path, content=body, headers=headers), expect
        )

    @staticmethod
    def _checked(method: str, path: str, response: httpx.Response, expect: int) -> dict[str, Any]:
        if response.status_code != expect:
            raise DemoError(f"{method} {path} answered {response.status_code}: {response.text}")
        body: dict[str, Any] = response.json()
        return body


def run_demo(out: TextIO) -> int:
    """A short merchant day against the in-process sandbox, printed as a report."""
    from pixops.sandbox import Sandbox

    sandbox = Sandbox()
    merchant = sandbox.create_merchant("Loja Exemplo", balance_centavos=1_000_000)
    key = sandbox.issue_api_key(merchant.id)
    api = _DemoApi(sandbox, key)

    def say(text: str = "") -> None:
        print(text, file=out, flush=True)

    say("pixops demo: a merchant's day on the in-process sandbox (no network, manual clock)")
    say(f"merchant {merchant.name} ({merchant.id}), API key {key.client_id}, every permission")
    say(f"clock starts at {sandbox.now():%Y-%m-%d %H:%M} UTC")
    try:
        _demo_steps(sandbox, merchant.id, api, say)
    except DemoError as failure:
        say(f"demo FAILED: {failure}")
        return 1
    finally:
        api.http.close()
    audit = sandbox.audit(merchant.id)
    say(f"ledger audit: {'consistent' if audit.consistent else 'INCONSISTENT'}")
    return 0 if audit.consistent else 1


def _demo_steps(sandbox: Sandbox, merchant_id: str, api: _DemoApi, say: Any) -> None:
    balance = api.get("/balance")["data"]
    say(
        f"\n1. GET /balance: balance {format_brl_base(balance['balance'])},"
        f" available {format_brl_base(balance['available_balance'])}"
    )

    say("\n2. POST /cpf/validate")
    for cpf in ("529.982.247-25", "123.456.789-00"):
        valid = api.post("/cpf/validate", {"cpf": cpf}, 200)["data"]["valid"]
        say(f"   {cpf}: {'valid' if valid else 'invalid'}")

    amount_centavos = 15_000
    charge = api.post(
        "/pix/cash-in",
        {"amount": amount_centavos, "description": "Pedido 1001", "external_id": "pedido-1001"},
        201,
    )["data"]
    say(f"\n3. POST /pix/cash-in {format_brl(amount_centavos)}: QR {charge['transaction_id']}")
    say(f"   copia e cola: {charge['brcode'][:60]}...")
    credit_id = sandbox.pay_charge(
        charge["transaction_id"], payer_name="Maria Silva", payer_document="52998224725"
    )
    credit = api.get(f"/transactions/{credit_id}")["data"]
    say(
        f"   paid by {credit['counterparty_name']}: {credit_id} {credit['status']},"
        f" amount {format_brl_base(credit['amount'])}, fee {format_brl_base(credit['fee_amount'])},"
        f" net {format_brl_base(credit['net_amount'])}"
    )

    payout = api.post(
        "/pix/cash-out",
        {
            "amount": 4_250,
            "pix_key": "maria.silva@sandbox.pixops.dev",
            "description": "Fornecedor",
            "external_id": "pagamento-77",
        },
        202,
    )
    say(
        f"\n4. POST /pix/cash-out {format_brl(4_250)} to maria.silva@sandbox.pixops.dev:"
        f" {payout['status']} (final {str(payout['final']).lower()}),"
        f" fee {format_brl_base(payout['fee_amount'])},"
        f" debit {format_brl_base(payout['net_amount'])}"
    )

    refund = api.post(
        "/pix/refund",
        {"original_transaction_id": credit_id, "amount": 5_000, "reason": "MD06"},
        202,
    )
    say(
        f"\n5. POST /pix/refund {format_brl(5_000)} of {credit_id}: {refund['status']},"
        f" {refund['transaction_id']}"
    )

    ran = sandbox.advance(minutes=1)
    say(f"\n6. one minute later ({ran} timers ran on the simulated clock)")
    for transaction_id in (payout["transaction_id"], refund["transaction_id"]):
        shown = api.get(f"/transactions/{transaction_id}")["data"]
        say(f"   {transaction_id}: {shown['status']}")

    items = api.get("/statement", per_page=20)["data"]
    say(f"\n7. GET /statement: {len(items)} movements, newest first")
    for item in items:
        sign = "+" if item["direction"] == "inbound" else "-"
        say(
            f"   {item['created_at']}  {sign}{format_brl_base(item['net_amount']):>14}"
            f"  {item['status']:<10} {item['counterparty_name'] or ''}"
        )

    balance = api.get("/balance")["data"]
    say(f"\n8. GET /balance: balance {format_brl_base(balance['balance'])}")
    kinds = [event.type for event in sandbox.events(merchant_id)]
    say(f"   events emitted: {', '.join(kinds)}")
