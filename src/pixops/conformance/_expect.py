"""The building blocks of checks: an exact answer, an answer of the schema's shape, and
the small comparisons they share (key casing, wire time, integer money)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any, Final

from pixops.conformance._model import CannotCheckError, Check, Finding, Probe
from pixops.conformance._session import Answer, Session
from pixops.schema import check_answer

__all__ = [
    "compact",
    "exact",
    "key_paths",
    "seen",
    "shaped",
    "wire_problems",
]

GOT_LIMIT: Final = 400
WIRE_TIME: Final = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z")
_MONEY_KEYS: Final = frozenset({"amount", "balance", "total_refunded", "remaining_refundable"})


def compact(value: object) -> str:
    """A JSON value in one line, as a person reads it."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=False)


def seen(answer: Answer) -> str:
    """`HTTP 401 {...}`, cut at `GOT_LIMIT` characters."""
    text = f"HTTP {answer.status} {compact(answer.body)}"
    return text if len(text) <= GOT_LIMIT else text[: GOT_LIMIT - 1] + "…"


def entries(value: Any) -> Iterator[tuple[str, Any]]:
    """Every (key, value) of every object nested anywhere in a JSON value."""
    if isinstance(value, dict):
        for name, item in value.items():
            yield str(name), item
            yield from entries(item)
    elif isinstance(value, list):
        for item in value:
            yield from entries(item)


def key_paths(value: Any, prefix: str = "") -> set[str]:
    """`data.available_balance`-style paths of every key (list items share `[]`)."""
    paths: set[str] = set()
    if isinstance(value, dict):
        for name, item in value.items():
            path = f"{prefix}.{name}" if prefix else str(name)
            paths.add(path)
            paths |= key_paths(item, path)
    elif isinstance(value, list):
        for item in value:
            paths |= key_paths(item, prefix + "[]")
    return paths


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", lambda m: "_" + m.group(1).lower(), name)


def is_money_key(name: str) -> bool:
    name = _snake(name)
    return name in _MONEY_KEYS or name.endswith(("_amount", "_balance"))


def is_time_key(name: str) -> bool:
    name = _snake(name)
    return name.endswith("_at") or name in ("as_of", "defense_deadline")


def wire_problems(body: Any) -> list[str]:
    """Conventions: money a JSON integer (never a float), time ISO 8601 UTC with ms and Z."""
    problems: list[str] = []
    for name, value in entries(body):
        if value is None:
            continue
        if is_money_key(name) and type(value) is not int:
            problems.append(f"{name}={value!r} is not an integer")
        if is_time_key(name) and (not isinstance(value, str) or not WIRE_TIME.fullmatch(value)):
            problems.append(f"{name}={value!r} is not 2026-01-05T12:00:00.000Z-style UTC")
    return problems


def exact(
    name: str,
    rule: str,
    probe: Probe,
    status: int,
    body: object,
    *,
    needs_key: bool = True,
    writes: bool = False,
) -> Check:
    """The answer must be `status` with exactly `body` (as JSON: key order free)."""

    def run(session: Session) -> Finding:
        answer = session.send(probe)
        return Finding(answer.status == status and answer.body == body, seen(answer))

    return Check(
        name,
        rule,
        probe.describe(),
        f"HTTP {status} {compact(body)}",
        run,
        writes=writes,
        needs_key=needs_key,
    )


def shape_problem(probe_method: str, path: str, answer: Answer) -> str | None:
    """Why a 2xx answer does not fit the endpoint's schema and the wire conventions."""
    media = answer.headers.get("content-type", "").split(";", 1)[0].strip()
    if media != "application/json":
        return f"Content-Type {media or 'missing'}, not application/json"
    problem = check_answer(probe_method, path, answer.status, answer.content)
    if problem is not None:
        return problem
    wrong = wire_problems(answer.body)
    return "; ".join(wrong[:3]) if wrong else None


def answer_of_shape(session: Session, probe: Probe, status: int = 200) -> Answer:
    """The answer of `status` in the endpoint's schema, else `MismatchError` naming what came."""
    answer = session.send(probe)
    if answer.status != status:
        raise MismatchError(seen(answer))
    problem = shape_problem(probe.method, probe.path, answer)
    if problem is not None:
        raise MismatchError(f"HTTP {answer.status}, outside the schema: {problem}")
    return answer


class MismatchError(Exception):
    """A check's answer differs from the rule; the text is what was got."""

    def __init__(self, got: str) -> None:
        super().__init__(got)
        self.got = got


def shaped(
    name: str,
    rule: str,
    probe: Probe,
    *,
    expected: str | None = None,
    also: Callable[[Answer], str | None] | None = None,
) -> Check:
    """A 200 whose body fits the endpoint's wire schema (every required field, the right
    types) and the conventions; `also` may add a rule of its own (None when it holds)."""

    def run(session: Session) -> Finding:
        try:
            answer = answer_of_shape(session, probe)
        except MismatchError as mismatch:
            return Finding(False, mismatch.got)
        extra = also(answer) if also is not None else None
        if extra is not None:
            return Finding(False, extra)
        return Finding(True, f"HTTP 200, {summarise(answer.body)}")

    return Check(
        name,
        rule,
        probe.describe(),
        expected or "HTTP 200 in the endpoint's schema; integer money, UTC times with ms and Z",
        run,
    )


def summarise(body: Any) -> str:
    """`data: 3 items, page 1, per_page 20` or `data: 7 fields` for a success answer."""
    if not isinstance(body, dict):
        return "not an object"
    data = body.get("data")
    if isinstance(data, list):
        text = f"data: {len(data)} item(s)"
    elif isinstance(data, dict):
        text = f"data: {len(data)} field(s)"
    else:
        text = f"keys {sorted(body)}"
    for name in ("page", "per_page"):
        if name in body:
            text += f", {name} {body[name]}"
    return text


def require(condition: bool, cause: str) -> None:
    """A precondition of a check the account does not meet: `CannotCheckError(cause)`."""
    if not condition:
        raise CannotCheckError(cause)
