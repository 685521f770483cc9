"""The test helpers' route table: method, path, fields (with their JSON Schema), helper.

One table feeds the router (which fields a body may carry) and the OpenAPI fragment
(what each field is), so the two cannot disagree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import unquote

from pixops.engine.admin import _helpers as helpers
from pixops.engine.admin._fields import MAX_CENTAVOS
from pixops.engine.permissions import PERMISSIONS
from pixops.limits import (
    DEFENSE_MAX_CHARS,
    DESCRIPTION_MAX_CHARS,
    PAYER_NAME_MAX_CHARS,
    PIX_KEY_MAX_CHARS,
)

PREFIX: Final = "/sandbox/v1"

Schema = dict[str, Any]


def _text(max_chars: int, description: str) -> Schema:
    return {"type": "string", "minLength": 1, "maxLength": max_chars, "description": description}


_AMOUNT: Final = {
    "type": "integer",
    "minimum": 1,
    "maximum": MAX_CENTAVOS,
    "description": "centavos, as every request of the API (1.00 BRL = 100)",
}
_PAYER: Final = {
    "payer_name": _text(PAYER_NAME_MAX_CHARS, "default: a simulated payer"),
    "payer_document": _text(helpers.DOCUMENT_MAX_CHARS, "payer's CPF or CNPJ"),
    "payer_ispb": _text(helpers.ISPB_MAX_CHARS, "payer's institution (8 characters)"),
}


@dataclass(frozen=True)
class HelperRoute:
    """One test helper: where it lives, what its body may hold, and what it does."""

    method: str
    pattern: str
    helper: helpers.Helper
    summary: str
    fields: dict[str, Schema] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    created: bool = False
    atomic: bool = True
    regex: re.Pattern[str] = field(init=False)

    def __post_init__(self) -> None:
        parts = [
            f"(?P<{segment[1:]}>[^/]+)" if segment.startswith(":") else re.escape(segment)
            for segment in self.pattern.strip("/").split("/")
        ]
        object.__setattr__(self, "regex", re.compile("^/" + "/".join(parts) + "$"))


ROUTES: Final = (
    HelperRoute(
        "POST",
        "/merchants",
        helpers.create_merchant,
        "Create a merchant (the portal's onboarding)",
        {
            "name": _text(helpers.MERCHANT_NAME_MAX_CHARS, "merchant's name"),
            "balance_centavos": {
                "type": "integer",
                "minimum": 0,
                "maximum": MAX_CENTAVOS,
                "description": "opening balance in centavos (default 0)",
            },
            "document": _text(helpers.DOCUMENT_MAX_CHARS, "merchant's CNPJ or CPF"),
            "dual_control": {"type": "boolean", "description": "cash-outs wait for approval"},
        },
        required=("name",),
        created=True,
    ),
    HelperRoute(
        "GET",
        "/merchants/:merchant_id/keys",
        helpers.list_merchant_keys,
        "List a merchant's API keys (never their secrets)",
    ),
    HelperRoute(
        "POST",
        "/merchants/:merchant_id/keys",
        helpers.issue_key,
        "Issue an API key; the only time its secret is shown",
        {
            "permissions": {
                "type": "array",
                "items": {"type": "string", "enum": sorted(PERMISSIONS)},
                "description": "default: every permission",
            },
            "ip_whitelist": {
                "type": "array",
                "items": {"type": "string", "minLength": 1, "maxLength": 64},
                "maxItems": helpers.MAX_WHITELIST_ENTRIES,
                "description": "default: 127.0.0.1 and ::1",
            },
            "hmac": {"type": "boolean", "description": "signing secret on (default true)"},
            "expires_at": {"type": "string", "format": "date-time"},
        },
        created=True,
    ),
    HelperRoute("POST", "/keys/:client_id/revoke", helpers.revoke_key, "Revoke an API key"),
    HelperRoute(
        "POST",
        "/merchants/:merchant_id/received-pix",
        helpers.receive_pix,
        "A PIX arrives at the merchant's key (settled, or failed with fail_reason)",
        {
            "amount": _AMOUNT,
            **_PAYER,
            "description": _text(DESCRIPTION_MAX_CHARS, "payer's message"),
            "recipient_key": _text(PIX_KEY_MAX_CHARS, "one of the merchant's keys"),
            "fail_reason": _text(
                helpers.REASON_CODE_MAX_CHARS,
                "central-bank code (AM02, AC06, AC03, DUPL): the credit is stored as failed",
            ),
        },
        required=("amount",),
        created=True,
    ),
    HelperRoute(
        "POST",
        "/charges/:transaction_id/pay",
        helpers.pay_charge,
        "A payer pays a pending charge (QR)",
        dict(_PAYER),
        created=True,
    ),
    HelperRoute(
        "POST",
        "/charges/:transaction_id/cancel",
        helpers.cancel_charge,
        "Cancel a pending charge (the portal)",
    ),
    HelperRoute(
        "POST",
        "/payouts/:transaction_id/returns",
        helpers.receive_return,
        "The recipient of a settled cash-out returns (part of) it",
        {
            "amount": {**_AMOUNT, "description": "centavos; default: what is left"},
            "reason_code": _text(helpers.REASON_CODE_MAX_CHARS, "default MD06"),
        },
        created=True,
    ),
    HelperRoute(
        "POST",
        "/payouts/:transaction_id/approve",
        helpers.approve_payout,
        "Dual control: approve a cash-out pending approval",
    ),
    HelperRoute(
        "POST",
        "/payouts/:transaction_id/deny",
        helpers.deny_payout,
        "Dual control: deny a cash-out pending approval",
    ),
    HelperRoute(
        "POST",
        "/med-cases",
        helpers.open_med_case,
        "The central bank opens a MED case on a received PIX",
        {
            "transaction_id": _text(64, "the received PIX"),
            "reason": {"type": "string", "enum": list(helpers.MED_REASONS)},
            "details": _text(DEFENSE_MAX_CHARS, "the notice's details"),
            "amount": {**_AMOUNT, "description": "centavos; default: what is refundable"},
        },
        required=("transaction_id",),
        created=True,
    ),
    HelperRoute(
        "POST",
        "/med-cases/:case_id/resolve",
        helpers.resolve_med_case,
        "The central bank closes a MED case (AGREED refunds the payer)",
        {
            "result": {"type": "string", "enum": list(helpers.MED_RESULTS)},
            "details": _text(DEFENSE_MAX_CHARS, "the analysis's details"),
        },
    ),
    HelperRoute("GET", "/clock", helpers.read_clock, "The server's clock"),
    HelperRoute(
        "POST",
        "/clock/advance",
        helpers.advance_clock,
        "Move the manual clock forward, running every timer that falls due",
        {
            "seconds": {
                "type": "integer",
                "minimum": 0,
                "maximum": helpers.MAX_ADVANCE_SECONDS,
            }
        },
        required=("seconds",),
        atomic=False,
    ),
)


def resolve(method: str, path: str) -> tuple[HelperRoute | None, dict[str, str], list[str]]:
    """The route for (method, path under PREFIX) and its params; else the allowed methods."""
    allowed: list[str] = []
    for route in ROUTES:
        match = route.regex.match(path)
        if match is None:
            continue
        if route.method == method:
            return route, {k: unquote(v) for k, v in match.groupdict().items()}, []
        allowed.append(route.method)
    return None, {}, allowed
