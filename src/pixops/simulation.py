"""A seeded month of realistic activity for one merchant, for notebooks and benchmarks.

The merchant acts only through the HTTP API (charges, cash-outs, refunds), exactly as
a real integration would; payers, counterparties and the central bank act through the
sandbox. Same seed, same sandbox seed: the same month, id for id.
"""

from __future__ import annotations

import heapq
import json
import random
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from pixops import wire
from pixops.engine.merchants import ApiKey, Merchant
from pixops.engine.pix.records import SimulationError

if TYPE_CHECKING:
    from pixops.sandbox import Sandbox

DAY_SECONDS = 86_400
#: The merchant's customers live by São Paulo's clock.
CUSTOMER_ZONE = ZoneInfo("America/Sao_Paulo")
API_PREFIX = "/api/external"

#: Cash-out destinations from docs/sandbox-test-keys.md, with their weights.
PAYOUT_KEYS: tuple[tuple[str, str | None, int], ...] = (
    ("maria.silva@sandbox.pixops.dev", None, 30),
    ("11144477735", "cpf", 15),
    ("11222333000181", None, 12),
    ("+5511987654321", None, 12),
    ("123e4567-e89b-42d3-a456-426614174000", None, 10),
    ("instant@sandbox.pixops.dev", None, 4),
    ("12345678909", "cpf", 3),
    ("+5521998765432", None, 2),
    ("reject.ed05@sandbox.pixops.dev", None, 1),
    ("notfound@sandbox.pixops.dev", None, 3),
    ("queue.client@sandbox.pixops.dev", None, 3),
    ("orphan@sandbox.pixops.dev", None, 1),
)
REFUND_REASONS: tuple[tuple[str, int], ...] = (("MD06", 85), ("AM09", 6), ("SL02", 4), ("XX99", 2))
_COMPACT_JSON = json.JSONEncoder(separators=(",", ":"))


@dataclass
class SimulationSummary:
    """What `simulate` did; the API key lets a notebook read the month back."""

    merchant: Merchant
    api_key: ApiKey
    days: int
    counts: Counter[str] = field(default_factory=Counter)

    def __str__(self) -> str:
        lines = [f"{self.days} days simulated for {self.merchant.name} ({self.merchant.id})"]
        lines += [f"  {name:<24} {count:>7}" for name, count in sorted(self.counts.items())]
        return "\n".join(lines)


class _Merchant:
    """The merchant's side: signed JSON requests into the engine's HTTP entry point.

    The bytes are exactly what an HTTP client would send; going straight to
    `Engine.handle` only skips building httpx objects, which would dominate a month.
    """

    def __init__(self, sandbox: Sandbox, key: ApiKey) -> None:
        self.engine = sandbox.engine
        self.secret = key.client_secret
        self.authorization = f"ApiKey {key.client_id}:{key.client_secret}"

    def post(self, path: str, payload: dict[str, Any]) -> tuple[int, bytes]:
        """The response's status and body, left unparsed until the month needs it."""
        body = _COMPACT_JSON.encode(payload).encode()
        headers = [
            ("authorization", self.authorization),
            ("content-type", "application/json"),
            ("hmac", wire.sign(body, self.secret)),
        ]
        response = self.engine.handle("POST", API_PREFIX + path, headers, body, "127.0.0.1")
        return response.status, response.body


def _amount_centavos(rng: random.Random) -> int:
    """Ticket sizes of a small online shop: mostly small, a long tail of large ones."""
    tier = rng.random()
    if tier < 0.70:
        return rng.randint(500, 20_000)
    if tier < 0.95:
        return rng.randint(20_000, 200_000)
    return rng.randint(200_000, 2_000_000)


def _business_second(rng: random.Random) -> int:
    """A second of a São Paulo day (from its midnight), busier from 09:00 to 22:00."""
    if rng.random() < 0.85:
        return rng.randint(9 * 3600, 22 * 3600)
    return rng.randint(0, DAY_SECONDS - 1)


def _since_local_midnight(moment: datetime) -> int:
    """Seconds from the start of `moment`'s São Paulo day to `moment`."""
    local = moment.astimezone(CUSTOMER_ZONE)
    return local.hour * 3600 + local.minute * 60 + local.second


def simulate(
    sandbox: Sandbox,
    merchant_id: str | None = None,
    *,
    days: int = 30,
    seed: int = 0,
    charges_per_day: int = 300,
) -> SimulationSummary:
    """Run `days` of activity from the sandbox's current time; returns a summary.

    Per São Paulo day, most of it between 09:00 and 22:00 there: `charges_per_day` QR
    charges (about 85% paid, the rest expire), plain
    inbound PIX (10% of that volume, a few failing), about a dozen cash-outs across
    the documented test keys (settled, rejected, queued, orphaned, refused), refunds of
    about 3% of the payments (partial and full, a few rejected later by the central
    bank), returns of cash-outs, and the occasional MED case, defended or not.
    """
    for name, value in (("days", days), ("charges_per_day", charges_per_day), ("seed", seed)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be a non-negative integer")
    rng = random.Random(seed)  # noqa: S311 - simulated behaviour, not secrets
    if merchant_id is None:
        merchant = sandbox.create_merchant("Loja Simulada", balance_centavos=5_000_000_00)
    else:
        merchant = sandbox.merchant(merchant_id)
    key = sandbox.issue_api_key(merchant.id)
    summary = SimulationSummary(merchant, key, days)
    api = _Merchant(sandbox, key)
    counts = summary.counts
    agenda: list[tuple[int, int, str, tuple[Any, ...]]] = []
    sequence = 0

    def plan(at: int, action: str, *args: Any) -> None:
        nonlocal sequence
        sequence += 1
        heapq.heappush(agenda, (at, sequence, action, args))

    # Seconds from the sandbox's time: day 0 starts at the São Paulo midnight before it,
    # and a moment already past on day 0 moves to the next day.
    midnight = -_since_local_midnight(sandbox.now())

    def busy(day: int) -> int:
        at = midnight + day * DAY_SECONDS + _business_second(rng)
        return at if at >= 0 else at + DAY_SECONDS

    for day in range(days):
        for _ in range(charges_per_day):
            plan(busy(day), "charge")
        for _ in range(charges_per_day // 10):
            plan(busy(day), "receive")
        for _ in range(rng.randint(8, 16)):
            plan(busy(day), "payout")
    if days:
        # One payout that never leaves the DICT queue: it retries every 3 s for 2 h.
        plan(busy(0), "payout", "queue.timeout@sandbox.pixops.dev")

    elapsed = 0
    while agenda:
        at, _, action, args = heapq.heappop(agenda)
        if at > elapsed:
            sandbox.advance(at - elapsed)
            elapsed = at
        if action == "charge":
            _, body = api.post("/pix/cash-in", {"amount": _amount_centavos(rng)})
            txid = json.loads(body)["data"]["transaction_id"]
            counts["charges_created"] += 1
            if rng.random() < 0.85:
                plan(at + rng.randint(5, 1800), "pay", txid)
        elif action == "pay":
            credit = sandbox.pay_charge(args[0])
            counts["charges_paid"] += 1
            _after_credit(rng, plan, at, credit)
        elif action == "receive":
            fail = rng.choice(("AM02", "AC06", "DUPL")) if rng.random() < 0.03 else None
            credit = sandbox.receive_pix(
                merchant.id, amount_centavos=_amount_centavos(rng), fail_reason=fail
            )
            counts["pix_failed" if fail else "pix_received"] += 1
            if fail is None:
                _after_credit(rng, plan, at, credit)
        elif action == "payout":
            key_value, key_type, _ = rng.choices(PAYOUT_KEYS, [w for *_, w in PAYOUT_KEYS])[0]
            if args:
                key_value, key_type = args[0], None
            payload: dict[str, Any] = {
                "amount": rng.randint(5_000, 500_000),
                "pix_key": key_value,
                "external_id": f"payout-{at}-{sequence}",
                "description": "Pagamento a fornecedor",
            }
            if key_type is not None:
                payload["pix_key_type"] = key_type
            status, body = api.post("/pix/cash-out", payload)
            counts[f"payouts_http_{status}"] += 1
            if status in (200, 202) and rng.random() < 0.02:
                plan(at + 2 * 3600, "return", json.loads(body)["transaction_id"])
        elif action == "refund":
            original, amount_centavos = args
            reason = rng.choices(REFUND_REASONS, [w for _, w in REFUND_REASONS])[0][0]
            payload = {"original_transaction_id": original, "reason": reason}
            if amount_centavos is not None:
                payload["amount"] = amount_centavos
            status, _ = api.post("/pix/refund", payload)
            counts[f"refunds_http_{status}"] += 1
        elif action == "return":
            if sandbox.transaction_status(args[0]) == "settled":
                sandbox.receive_return(args[0])
                counts["returns_received"] += 1
        elif action == "med_open":
            try:
                case = sandbox.open_med_case(
                    args[0], reason=rng.choice(("FRAUD", "REFUND_REQUEST"))
                )
            except SimulationError:
                counts["med_not_disputable"] += 1  # fully refunded meanwhile
                continue
            counts["med_cases"] += 1
            plan(at + rng.randint(2, 9) * DAY_SECONDS, "med_resolve", case.id)
        elif action == "med_resolve":
            sandbox.resolve_med_case(args[0], rng.choice(("AGREED", "DISAGREED")))
    sandbox.advance(3 * 3600)
    return summary


def _after_credit(rng: random.Random, plan: Any, at: int, credit: str) -> None:
    """Some payments are refunded later, and a few are disputed through MED."""
    roll = rng.random()
    if roll < 0.02:
        plan(at + rng.randint(600, 5 * DAY_SECONDS), "refund", credit, None)
    elif roll < 0.03:
        plan(at + rng.randint(600, 5 * DAY_SECONDS), "refund", credit, rng.randint(100, 500))
    elif roll < 0.032:
        plan(at + rng.randint(DAY_SECONDS, 10 * DAY_SECONDS), "med_open", credit)
