"""`/med`: list and read the merchant's MED dispute cases, and submit a defense."""

from __future__ import annotations

import re
from typing import Final

from pixops import limits, wire
from pixops.engine import med
from pixops.engine.http import Reply, bad_request, not_found, unprocessable
from pixops.engine.queries import DEFAULT_PER_PAGE, MAX_PAGE, MAX_PER_PAGE
from pixops.engine.routing import Context

LIST_PARAMETERS: Final = frozenset({"page", "per_page", "status", "transaction_id"})
_INTEGER = re.compile(r"[0-9]{1,10}")


def list_cases(ctx: Context) -> Reply:
    """GET /med: newest first; filters `status` and `transaction_id`; pages like the statement."""
    errors: dict[str, list[str]] = {}
    values: dict[str, str] = {}
    for name, given in ctx.query.items():
        snake = wire.to_snake(name)
        if snake not in LIST_PARAMETERS:
            known = ", ".join(sorted(LIST_PARAMETERS))
            errors.setdefault(snake, []).append(
                f"is not a known parameter; known parameters: {known}"
            )
        elif len(given) > 1 or snake in values:
            errors.setdefault(snake, []).append("is given more than once")
        else:
            values[snake] = given[0]

    def integer(name: str, default: int, upper: int) -> int:
        text = values.get(name)
        if text is None:
            return default
        if _INTEGER.fullmatch(text) is None or not 1 <= int(text) <= upper:
            errors.setdefault(name, []).append(f"must be an integer from 1 to {upper}")
            return default
        return int(text)

    page = integer("page", 1, MAX_PAGE)
    per_page = integer("per_page", DEFAULT_PER_PAGE, MAX_PER_PAGE)
    status = values.get("status")
    if status is not None:
        status = status.upper()
        if status not in med.STATUSES:
            errors.setdefault("status", []).append(f"must be one of {', '.join(med.STATUSES)}")
    transaction_id = values.get("transaction_id") or None
    if transaction_id is not None and len(transaction_id) > limits.TRANSACTION_ID_MAX_CHARS:
        errors.setdefault("transaction_id", []).append(
            f"must be at most {limits.TRANSACTION_ID_MAX_CHARS} characters"
        )
    if errors:
        raise bad_request(errors)
    cases = med.list_cases(
        ctx.conn,
        ctx.merchant_id,
        status=status,
        transaction_id=transaction_id,
        limit=per_page,
        offset=(page - 1) * per_page,
    )
    data = [case.resource() for case in cases]
    return Reply(200, {"worked": True, "data": data, "page": page, "per_page": per_page})


def get_case(ctx: Context) -> Reply:
    """GET /med/:id: one case; another merchant's case is not found."""
    case = med.find_case(ctx.conn, ctx.params["id"], ctx.merchant_id)
    if case is None:
        raise not_found(f"MED case {ctx.params['id']} not found")
    return Reply(200, {"worked": True, "data": case.resource()})


def submit_defense(ctx: Context) -> Reply:
    """POST /med/:id/defense: `{"defense": text}` while the case is OPEN and in time."""
    body = ctx.body()
    errors: dict[str, list[str]] = {}
    for name in sorted(set(body) - {"defense"}):
        errors[name] = ["unknown field; accepted: defense (attachments are not uploaded here)"]
    defense = body.get("defense")
    if defense is None:
        errors["defense"] = ["is required"]
    elif not isinstance(defense, str):
        errors["defense"] = ["must be a string"]
    elif not defense.strip():
        errors["defense"] = ["must not be empty"]
    elif len(defense.strip()) > med.MAX_TEXT_LENGTH:
        errors["defense"] = [f"must be at most {med.MAX_TEXT_LENGTH} characters"]
    if errors:
        raise bad_request(errors)
    assert isinstance(defense, str)
    try:
        case = med.submit_defense(
            ctx.conn, ctx.merchant_id, ctx.params["id"], defense.strip(), now=ctx.now
        )
    except med.DefenseRefusedError as refusal:
        raise unprocessable(str(refusal)) from None
    if case is None:
        raise not_found(f"MED case {ctx.params['id']} not found")
    return Reply(200, {"worked": True, "data": case.resource()})
