"""Checks of the read endpoints: lookups by each identifier, pagination, filters, and the
answers for what does not exist or a method not allowed."""

from __future__ import annotations

from typing import Any

from pixops.conformance._expect import (
    MismatchError,
    answer_of_shape,
    compact,
    seen,
    summarise,
)
from pixops.conformance._model import CannotCheckError, Check, Finding, Probe
from pixops.conformance._rules import BUSINESS, detail_body
from pixops.conformance._session import Answer, Session

__all__ = [
    "check_method_not_allowed",
    "check_pagination",
    "date_filter",
    "lookup",
    "page_echo",
    "status_filter",
    "unknown_404",
]


# -- queries ------------------------------------------------------------------------


def _sample(session: Session) -> dict[str, Any]:
    """A settled transaction from the first statement page (the lookups need one)."""

    def find() -> dict[str, Any]:
        answer = session.send(Probe("GET", "/statement?per_page=20"))
        data = answer.body.get("data") if isinstance(answer.body, dict) else None
        if answer.status != 200 or not isinstance(data, list):
            raise CannotCheckError(
                f"could not read the statement to find a transaction: {seen(answer)}"
            )
        for item in data:
            if isinstance(item, dict) and item.get("payment_status") == "settled":
                return item
        raise CannotCheckError(
            "the account has no settled transaction on its first statement page to look up"
        )

    return session.once("sample", find)


def lookup(name: str, rule: str, path_of: Any, sends: str, field: str) -> Check:
    def run(session: Session) -> Finding:
        sample = _sample(session)
        path = path_of(sample)
        try:
            answer = answer_of_shape(session, Probe("GET", path))
        except MismatchError as mismatch:
            return Finding(False, mismatch.got)
        data = answer.body.get("data", {})
        if data.get(field) != sample.get(field):
            return Finding(False, f"{field} {data.get(field)!r}, not {sample.get(field)!r}")
        return Finding(True, f"HTTP 200, {summarise(answer.body)}, {field} matches")

    return Check(name, rule, sends, f"HTTP 200 in the endpoint's schema, the same {field}", run)


def page_echo(page: int, per_page: int) -> Any:
    def also(answer: Answer) -> str | None:
        body = answer.body
        got = (body.get("page"), body.get("per_page"))
        if got != (page, per_page):
            return f"page, per_page {got}, not {(page, per_page)}"
        if len(body.get("data", [])) > per_page:
            return f"{len(body['data'])} items on a page of {per_page}"
        return None

    return also


def check_pagination(session: Session) -> Finding:
    pages = []
    for page in (1, 2):
        try:
            answer = answer_of_shape(session, Probe("GET", f"/statement?per_page=1&page={page}"))
        except MismatchError as mismatch:
            return Finding(False, f"page {page}: {mismatch.got}")
        problem = page_echo(page, 1)(answer)
        if problem is not None:
            return Finding(False, f"page {page}: {problem}")
        pages.append(answer.body["data"])
    first, second = pages
    if first and second and first[0].get("id") == second[0].get("id"):
        return Finding(False, "pages 1 and 2 hold the same item")
    return Finding(True, f"page 1: {len(first)} item, page 2: {len(second)} item, no overlap")


def status_filter(session: Session) -> Finding:
    try:
        answer = answer_of_shape(session, Probe("GET", "/statement?status=settled&per_page=20"))
    except MismatchError as mismatch:
        return Finding(False, mismatch.got)
    others = [
        i.get("payment_status") for i in answer.body["data"] if i.get("payment_status") != "settled"
    ]
    if others:
        return Finding(
            False, f"status=settled listed payment_status {sorted(set(map(str, others)))}"
        )
    return Finding(True, f"HTTP 200, {len(answer.body['data'])} item(s), all settled")


def date_filter(session: Session) -> Finding:
    sample = _sample(session)
    day = str(sample.get("created_at", ""))[:10]
    if len(day) != 10:
        raise CannotCheckError("the sample transaction has no created_at to filter on")
    try:
        answer = answer_of_shape(
            session, Probe("GET", f"/statement?date_from={day}&date_to={day}&per_page=50")
        )
    except MismatchError as mismatch:
        return Finding(False, mismatch.got)
    data = answer.body["data"]
    outside = [
        i.get("created_at") for i in data if not str(i.get("created_at", "")).startswith(day)
    ]
    if outside:
        return Finding(False, f"{len(outside)} item(s) outside {day}: {outside[:2]}")
    if (
        not any(i.get("transaction_id") == sample.get("transaction_id") for i in data)
        and len(data) < 50
    ):
        return Finding(False, f"the {day} page misses a transaction created that day")
    return Finding(True, f"HTTP 200, {len(data)} item(s), all created on {day}")


def unknown_404(name: str, path: str, atom_or_detail: str) -> Check:
    def run(session: Session) -> Finding:
        answer = session.send(Probe("GET", path))
        body = answer.body
        if atom_or_detail == "detail":
            ok = answer.status == 404 and body == detail_body("Transaction not found")
        else:
            errors = body.get("errors") if isinstance(body, dict) else None
            ok = (
                answer.status == 404
                and isinstance(body, dict)
                and set(body) == {"worked", "errors"}
                and body.get("worked") is False
                and isinstance(errors, dict)
                and list(errors) == [atom_or_detail]
                and isinstance(errors[atom_or_detail], str)
                and bool(errors[atom_or_detail])
            )
        return Finding(ok, seen(answer))

    if atom_or_detail == "detail":
        expected = f"HTTP 404 {compact(detail_body('Transaction not found'))}"
        rule = "Error shapes / the 404 of a transaction query"
    else:
        expected = f'HTTP 404 {{"worked":false,"errors":{{"{atom_or_detail}":"<message>"}}}}'
        rule = BUSINESS
    return Check(name, rule, f"GET {path}", expected, run)


def check_method_not_allowed(session: Session) -> Finding:
    answer = session.send(Probe("DELETE", "/balance"))
    body = answer.body
    errors = body.get("errors") if isinstance(body, dict) else None
    allow = {m.strip() for m in answer.headers.get("allow", "").split(",")}
    ok = (
        answer.status == 405
        and isinstance(body, dict)
        and body.get("worked") is False
        and isinstance(errors, dict)
        and list(errors) == ["method_not_allowed"]
        and isinstance(errors["method_not_allowed"], str)
        and "GET" in allow
    )
    return Finding(ok, f"{seen(answer)}; Allow: {answer.headers.get('allow')}")
