"""Checks of how a request is taken: the pipeline's order, permissions, idempotency, and
refusals that write nothing (each refused body carries a second fault as well)."""

from __future__ import annotations

from typing import Any, Final

from pixops import wire
from pixops.conformance._expect import (
    answer_of_shape,
    compact,
    seen,
)
from pixops.conformance._model import CannotCheckError, Check, Finding, Probe
from pixops.conformance._rules import (
    CPF_BODY,
    INVALID_CPF,
    NO_SUCH_KEY,
    UNSUPPORTED,
    VALID_CPF,
    bad_request_body,
    passes,
)
from pixops.conformance._session import Session

__all__ = [
    "UNKNOWN_FIELD_WANT",
    "check_refusal",
    "check_replayed",
    "content_type_refused",
    "cpf_validate",
    "float_amount",
    "nothing_written",
    "order_content_type_first",
    "permission_refused",
    "reused_with_another_body",
    "unknown_field",
]


# -- the pipeline, step by step -----------------------------------------------------


def content_type_refused(session: Session) -> Finding:
    answer = session.send(
        Probe(
            "POST",
            "/cpf/validate",
            b"cpf=52998224725",
            headers=(("content-type", "text/plain"),),
        )
    )
    body = answer.body
    error = body.get("error") if isinstance(body, dict) else None
    ok = (
        answer.status == 415
        and isinstance(body, dict)
        and set(body) == {"error"}
        and isinstance(error, dict)
        and set(error) == {"status", "message", "hint"}
        and error.get("status") == 415
        and error.get("message") == UNSUPPORTED
        and isinstance(error.get("hint"), str)
        and "text/plain" in str(error.get("hint"))
    )
    return Finding(ok, seen(answer))


def order_content_type_first(session: Session) -> Finding:
    answer = session.send(
        Probe(
            "POST",
            "/cpf/validate",
            b"cpf=52998224725",
            auth="none",
            sign="none",
            headers=(("content-type", "text/plain"), ("x-key-case", "kebab-case")),
        )
    )
    error = answer.body.get("error") if isinstance(answer.body, dict) else None
    ok = answer.status == 415 and isinstance(error, dict) and error.get("message") == UNSUPPORTED
    return Finding(ok, seen(answer))


# -- permissions: the first refusal among safe probes ------------------------------------

_PERMISSION_PROBES: Final[tuple[tuple[str, Probe], ...]] = (
    ("account:read", Probe("GET", "/balance")),
    ("transfer:read", Probe("GET", "/transactions?per_page=1")),
    ("statement:read", Probe("GET", "/statement?per_page=1")),
    ("pix:read", Probe("GET", "/pix/keys")),
    ("payment:read", Probe("GET", "/med?per_page=1")),
    ("account:write", Probe("POST", "/webhooks", {})),
    ("payment:write", Probe("POST", "/pix/refund", {})),
    ("pix:write", Probe("POST", "/pix/cash-in", {"amount": 0})),
    ("transfer:write", Probe("POST", "/pix/cash-out", {"amount": 0, "pix_key": NO_SUCH_KEY})),
)
"""One request per permission; without it the answer is 403, with it a read or a 400
that writes nothing (every POST body here is refused by validation)."""


def permission_refused(session: Session) -> Finding:
    unanswered: list[str] = []
    for permission, probe in _PERMISSION_PROBES:
        try:
            answer = session.send(probe)
        except CannotCheckError as exc:
            unanswered.append(exc.cause)
            continue
        if answer.status != 403:
            continue
        want = {"error": "forbidden", "message": f"API key lacks permission: {permission}"}
        return Finding(answer.body == want, f"{probe.method} {probe.path}: {seen(answer)}")
    if unanswered:
        causes = list(dict.fromkeys(unanswered))  # in order, once each
        raise CannotCheckError(f"no refusal seen; not answered: {'; '.join(causes)}")
    raise CannotCheckError(
        "this key holds every permission probed, so no refusal could be seen; run with a"
        " key lacking one (e.g. account:write) to check this rule"
    )


# -- idempotency ----------------------------------------------------------------------


def check_replayed(session: Session) -> Finding:
    key = f"{session.probe_ref}-replay"
    probe = Probe("POST", "/cpf/validate", CPF_BODY, idempotency_key=key)
    first = session.send(probe)
    if first.status != 200:
        return Finding(False, f"first request: {seen(first)}")
    again = session.send(probe)
    problems = []
    if again.status != first.status:
        problems.append(f"status {again.status} then {first.status}")
    if again.content != first.content:
        problems.append(f"bytes differ: {again.content[:120]!r}")
    if again.headers.get("x-idempotent-replay") != "true":
        problems.append(f"X-Idempotent-Replay {again.headers.get('x-idempotent-replay')!r}")
    if again.headers.get("idempotency-key") != key:
        problems.append("Idempotency-Key not echoed")
    if problems:
        return Finding(False, "; ".join(problems))
    return Finding(True, f"HTTP 200 twice, the same {len(first.content)} bytes, replay: true")


def reused_with_another_body(session: Session) -> Finding:
    key = f"{session.probe_ref}-reuse"
    first = session.send(Probe("POST", "/cpf/validate", CPF_BODY, idempotency_key=key))
    if first.status != 200:
        return Finding(False, f"first request: {seen(first)}")
    other = session.send(Probe("POST", "/cpf/validate", {"cpf": INVALID_CPF}, idempotency_key=key))
    want = {
        "error": {
            "status": 422,
            "message": "Idempotency-Key was already used with a different request body",
        }
    }
    return Finding(passes(other, 422, want), seen(other))


def cpf_validate(session: Session) -> Finding:
    good = session.send(Probe("POST", "/cpf/validate", CPF_BODY))
    bad = session.send(Probe("POST", "/cpf/validate", {"cpf": INVALID_CPF}))
    ok = passes(good, 200, {"worked": True, "data": {"cpf": VALID_CPF, "valid": True}}) and passes(
        bad, 200, {"worked": True, "data": {"cpf": INVALID_CPF, "valid": False}}
    )
    return Finding(ok, f"{seen(good)}; {seen(bad)}")


# -- refusals that write nothing ------------------------------------------------------------


def _cash_out(session: Session, body: dict[str, Any], camel: bool = False) -> Probe:
    body = {**body, "external_id": session.probe_ref}
    headers: tuple[tuple[str, str], ...] = ()
    if camel:
        body = wire.camelize_keys(body)  # type: ignore[assignment]
        headers = (("x-key-case", "camelCase"),)
    return Probe("POST", "/pix/cash-out", body, headers=headers)


def check_refusal(
    name: str, rule: str, body: dict[str, Any], want: object, *, camel: bool = False
) -> Check:
    def run(session: Session) -> Finding:
        answer = session.send(_cash_out(session, body, camel))
        return Finding(passes(answer, 400, want), seen(answer))

    sent = compact({**body, "external_id": "pixops-conformance-…"})
    how = " with X-Key-Case: camelCase" if camel else ""
    return Check(name, rule, f"POST /pix/cash-out {sent}{how}", f"HTTP 400 {compact(want)}", run)


def float_amount(session: Session) -> Finding:
    raw = (
        b'{"amount":100.0,"external_id":"' + session.probe_ref.encode() + b'",'
        b'"pix_key":"' + NO_SUCH_KEY.encode() + b'"}'
    )
    answer = session.send(Probe("POST", "/pix/cash-out", raw))
    return Finding(passes(answer, 400, bad_request_body("invalid or missing amount")), seen(answer))


UNKNOWN_FIELD_WANT: Final = bad_request_body(
    {"conformance_probe": ["is not a known field"], "amount": ["must be greater than 0"]}
)


def unknown_field(session: Session) -> Finding:
    body = {"amount": 0, "conformance_probe": True, "external_id": session.probe_ref}
    answer = session.send(Probe("POST", "/pix/cash-in", body))
    return Finding(passes(answer, 400, UNKNOWN_FIELD_WANT), seen(answer))


def nothing_written(session: Session) -> Finding:
    answer = answer_of_shape(session, Probe("GET", f"/transactions/ref/{session.probe_ref}"))
    data = answer.body.get("data")
    if data == []:
        return Finding(True, f"no transaction carries external_id {session.probe_ref}")
    return Finding(False, f"{len(data or [])} transaction(s) carry the probes' external_id")
