"""Every check, in run order, each naming the rule of `docs/api.md` it measures.

The expected answers are the spec's: the messages of the Error shapes table and the
pipeline, as the reference engine (the sandbox) gives them byte for byte. Nothing here
moves money or changes state: a POST that would act is sent only in a form the spec
refuses before anything is written, and each such body also carries a second fault
(a PIX key no directory can hold, a zero amount), so a service that skipped the rule
under test would still refuse it. The checks marked `writes` run only with `--write`.
"""

from __future__ import annotations

import email.utils
from datetime import UTC, datetime
from typing import Any, Final

from pixops import wire
from pixops.conformance._expect import (
    WIRE_TIME,
    MismatchError,
    answer_of_shape,
    compact,
    exact,
    key_paths,
    seen,
    shaped,
    summarise,
)
from pixops.conformance._model import CannotCheckError, Check, Finding, Probe
from pixops.conformance._session import Answer, Session

__all__ = ["CHECKS", "CHECK_NAMES", "WRITE_CHARGE_CENTAVOS"]

VALID_CPF: Final = "52998224725"
INVALID_CPF: Final = "11111111111"
NO_SUCH_KEY: Final = "conformance probe"
"""A PIX key of no type (a space in it): no directory can hold it, so a cash-out that
carries it is refused whatever else a service checks or skips."""
MAX_SKEW_SECONDS: Final = 60.0
WRITE_CHARGE_CENTAVOS: Final = 1
WRITE_CHARGE_EXPIRES_IN: Final = 60

# Rules, as docs/api.md names them (section / row or sentence).
OPENAPI: Final = "API reference / the OpenAPI document is public"
CREDENTIALS: Final = "Conventions / credentials; Error shapes / credentials 401"
SIGNATURE: Final = "Conventions / signature; Error shapes / the HMAC check"
PERMISSION: Final = "Endpoints / permission; Error shapes / forbidden 403"
ORDER: Final = "Conventions / validation order"
CONTENT_TYPE: Final = "Error shapes / content type 415 (plus hint)"
KEYS: Final = "Conventions / keys (X-Key-Case: camelCase)"
IDEMPOTENCY: Final = "Conventions / idempotency"
RATE_LIMIT: Final = "Conventions / rate limit"
TIME: Final = "Conventions / time"
INTEGERS: Final = "Conventions / integers"
SCHEMAS: Final = "What the request schemas promise"
BUSINESS: Final = "Error shapes / business rules"
ENDPOINTS: Final = "Endpoints"

MISSING_CREDENTIALS: Final = {
    "error": {
        "status": 401,
        "message": "Missing API key credentials. Use Authorization: ApiKey "
        "<client_id>:<client_secret>",
    }
}
INVALID_CREDENTIALS: Final = {"error": {"status": 401, "message": "Invalid API key credentials"}}
BAD_KEY_CASE: Final = {
    "error": {"status": 400, "message": "X-Key-Case must be camelCase or snake_case"}
}
UNSUPPORTED: Final = "Unsupported Media Type. Expected Content-Type: application/json"
CPF_BODY: Final = {"cpf": VALID_CPF}
NOWHERE: Final = "/pixops-conformance-nowhere"
MISSING_ID: Final = "pixops-conformance-missing"


def _detail(message: str) -> dict[str, object]:
    return {"worked": False, "detail": message}


def _bad_request(message: object, atom: str = "bad_request") -> dict[str, object]:
    return {"worked": False, "errors": {atom: message}}


def _passes(answer: Answer, status: int, body: object) -> bool:
    return answer.status == status and answer.body == body


# -- the pipeline, step by step -----------------------------------------------------


def _content_type_refused(session: Session) -> Finding:
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


def _order_content_type_first(session: Session) -> Finding:
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


def _permission_refused(session: Session) -> Finding:
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


def _replayed(session: Session) -> Finding:
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


def _reused_with_another_body(session: Session) -> Finding:
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
    return Finding(_passes(other, 422, want), seen(other))


def _cpf_validate(session: Session) -> Finding:
    good = session.send(Probe("POST", "/cpf/validate", CPF_BODY))
    bad = session.send(Probe("POST", "/cpf/validate", {"cpf": INVALID_CPF}))
    ok = _passes(
        good, 200, {"worked": True, "data": {"cpf": VALID_CPF, "valid": True}}
    ) and _passes(bad, 200, {"worked": True, "data": {"cpf": INVALID_CPF, "valid": False}})
    return Finding(ok, f"{seen(good)}; {seen(bad)}")


# -- refusals that write nothing ------------------------------------------------------------


def _cash_out(session: Session, body: dict[str, Any], camel: bool = False) -> Probe:
    body = {**body, "external_id": session.probe_ref}
    headers: tuple[tuple[str, str], ...] = ()
    if camel:
        body = wire.camelize_keys(body)  # type: ignore[assignment]
        headers = (("x-key-case", "camelCase"),)
    return Probe("POST", "/pix/cash-out", body, headers=headers)


def _refusal(
    name: str, rule: str, body: dict[str, Any], want: object, *, camel: bool = False
) -> Check:
    def run(session: Session) -> Finding:
        answer = session.send(_cash_out(session, body, camel))
        return Finding(_passes(answer, 400, want), seen(answer))

    sent = compact({**body, "external_id": "pixops-conformance-…"})
    how = " with X-Key-Case: camelCase" if camel else ""
    return Check(name, rule, f"POST /pix/cash-out {sent}{how}", f"HTTP 400 {compact(want)}", run)


def _float_amount(session: Session) -> Finding:
    raw = (
        b'{"amount":100.0,"external_id":"' + session.probe_ref.encode() + b'",'
        b'"pix_key":"' + NO_SUCH_KEY.encode() + b'"}'
    )
    answer = session.send(Probe("POST", "/pix/cash-out", raw))
    return Finding(_passes(answer, 400, _bad_request("invalid or missing amount")), seen(answer))


_UNKNOWN_FIELD_WANT: Final = _bad_request(
    {"conformance_probe": ["is not a known field"], "amount": ["must be greater than 0"]}
)


def _unknown_field(session: Session) -> Finding:
    body = {"amount": 0, "conformance_probe": True, "external_id": session.probe_ref}
    answer = session.send(Probe("POST", "/pix/cash-in", body))
    return Finding(_passes(answer, 400, _UNKNOWN_FIELD_WANT), seen(answer))


def _nothing_written(session: Session) -> Finding:
    answer = answer_of_shape(session, Probe("GET", f"/transactions/ref/{session.probe_ref}"))
    data = answer.body.get("data")
    if data == []:
        return Finding(True, f"no transaction carries external_id {session.probe_ref}")
    return Finding(False, f"{len(data or [])} transaction(s) carry the probes' external_id")


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


def _lookup(name: str, rule: str, path_of: Any, sends: str, field: str) -> Check:
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


def _page_echo(page: int, per_page: int) -> Any:
    def also(answer: Answer) -> str | None:
        body = answer.body
        got = (body.get("page"), body.get("per_page"))
        if got != (page, per_page):
            return f"page, per_page {got}, not {(page, per_page)}"
        if len(body.get("data", [])) > per_page:
            return f"{len(body['data'])} items on a page of {per_page}"
        return None

    return also


def _pagination(session: Session) -> Finding:
    pages = []
    for page in (1, 2):
        try:
            answer = answer_of_shape(session, Probe("GET", f"/statement?per_page=1&page={page}"))
        except MismatchError as mismatch:
            return Finding(False, f"page {page}: {mismatch.got}")
        problem = _page_echo(page, 1)(answer)
        if problem is not None:
            return Finding(False, f"page {page}: {problem}")
        pages.append(answer.body["data"])
    first, second = pages
    if first and second and first[0].get("id") == second[0].get("id"):
        return Finding(False, "pages 1 and 2 hold the same item")
    return Finding(True, f"page 1: {len(first)} item, page 2: {len(second)} item, no overlap")


def _status_filter(session: Session) -> Finding:
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


def _date_filter(session: Session) -> Finding:
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


def _unknown_404(name: str, path: str, atom_or_detail: str) -> Check:
    def run(session: Session) -> Finding:
        answer = session.send(Probe("GET", path))
        body = answer.body
        if atom_or_detail == "detail":
            ok = answer.status == 404 and body == _detail("Transaction not found")
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
        expected = f"HTTP 404 {compact(_detail('Transaction not found'))}"
        rule = "Error shapes / the 404 of a transaction query"
    else:
        expected = f'HTTP 404 {{"worked":false,"errors":{{"{atom_or_detail}":"<message>"}}}}'
        rule = BUSINESS
    return Check(name, rule, f"GET {path}", expected, run)


def _method_not_allowed(session: Session) -> Finding:
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


# -- conventions ------------------------------------------------------------------------


def _camel_keys(value: Any) -> list[str]:
    paths = key_paths(value)
    return sorted(p for p in paths if "_" in p.rsplit(".", 1)[-1])


def _camel_case_answers(session: Session) -> Finding:
    for path in ("/balance", "/statement?per_page=1"):
        plain = session.send(Probe("GET", path))
        camel = session.send(Probe("GET", path, headers=(("x-key-case", "camelCase"),)))
        if plain.status != 200 or camel.status != 200:
            return Finding(False, f"GET {path}: {seen(plain)} / camelCase: {seen(camel)}")
        left = _camel_keys(camel.body)
        if left:
            return Finding(False, f"GET {path} with camelCase still has {', '.join(left[:4])}")
        want = {
            ".".join(wire.to_camel(p) for p in path_.split(".")) for path_ in key_paths(plain.body)
        }
        got = key_paths(camel.body)
        if want != got:
            return Finding(
                False, f"GET {path}: keys {sorted(got ^ want)[:4]} differ from snake_case"
            )
    return Finding(True, "GET /balance and /statement: every key camelCase, the same fields")


def _rate_limit(session: Session) -> Finding:
    counts = []
    for _ in range(2):
        answer = session.send(Probe("GET", "/transactions?per_page=1"))
        value = answer.headers.get("x-ratelimit-remaining")
        if answer.status != 200 or value is None or not value.isdigit():
            return Finding(
                False, f"GET /transactions: HTTP {answer.status}, X-RateLimit-Remaining {value!r}"
            )
        counts.append(int(value))
    balance = session.send(Probe("GET", "/balance"))
    if counts[1] >= counts[0]:
        return Finding(False, f"X-RateLimit-Remaining {counts[0]} then {counts[1]}: no count down")
    if "x-ratelimit-remaining" in balance.headers:
        return Finding(False, "GET /balance carries X-RateLimit-Remaining (it is not rate-limited)")
    return Finding(
        True, f"X-RateLimit-Remaining {counts[0]} then {counts[1]}; none on GET /balance"
    )


def _served_time(session: Session) -> datetime:
    """The service's time: `as_of` of the balance, in the wire format."""

    def read() -> datetime:
        answer = session.send(Probe("GET", "/balance"))
        data = answer.body.get("data") if isinstance(answer.body, dict) else None
        as_of = data.get("as_of") if isinstance(data, dict) else None
        if answer.status != 200 or not isinstance(as_of, str):
            raise MismatchError(f"GET /balance gave no as_of: {seen(answer)}")
        if not WIRE_TIME.fullmatch(as_of):
            raise MismatchError(f"as_of {as_of!r} is not 2026-01-05T12:00:00.000Z-style UTC")
        served = datetime.fromisoformat(as_of.replace("Z", "+00:00"))
        date = answer.headers.get("date")
        if date is not None:
            try:
                email.utils.parsedate_to_datetime(date)
            except (TypeError, ValueError):
                raise MismatchError(f"unreadable Date header {date!r}") from None
        return served

    return session.once("served", read)


def _time_format(session: Session) -> Finding:
    try:
        served = _served_time(session)
    except MismatchError as mismatch:
        return Finding(False, mismatch.got)
    shown = served.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return Finding(True, f"as_of {shown}; the Date header, when sent, readable")


def _clock_skew(session: Session) -> Finding:
    try:
        served = _served_time(session)
    except MismatchError as mismatch:
        raise CannotCheckError(f"no served time to compare: {mismatch.got}") from None
    skew = (datetime.now(UTC) - served).total_seconds()
    text = f"this machine is {abs(skew):.0f} s {'ahead of' if skew >= 0 else 'behind'} the service"
    if abs(skew) > MAX_SKEW_SECONDS:
        return Finding(False, text + ": one of the two clocks is wrong (sync with NTP)")
    return Finding(True, text)


def _openapi(session: Session) -> Finding:
    answer = session.send(Probe("GET", "/openapi.json", auth="none"))
    body = answer.body
    if answer.status != 200 or not isinstance(body, dict):
        return Finding(False, seen(answer))
    version = str(body.get("openapi", ""))
    found = body.get("paths")
    paths: dict[str, Any] = found if isinstance(found, dict) else {}
    missing = [
        f"{method} {path}"
        for method, path in ENDPOINT_TABLE
        if method.lower() not in paths.get(_openapi_path(path), {})
    ]
    if not version.startswith("3.1") or missing:
        return Finding(False, f"openapi {version!r}; missing {', '.join(missing[:4]) or 'none'}")
    return Finding(True, f"HTTP 200, OpenAPI {version}, all {len(ENDPOINT_TABLE)} operations")


def _openapi_path(path: str) -> str:
    return "/".join(
        "{" + part[1:] + "}" if part.startswith(":") else part for part in path.split("/")
    )


ENDPOINT_TABLE: Final = (
    ("POST", "/pix/cash-in"),
    ("POST", "/pix/cash-out"),
    ("POST", "/pix/refund"),
    ("POST", "/med/:id/defense"),
    ("POST", "/cpf/validate"),
    ("POST", "/webhooks"),
    ("GET", "/webhooks"),
    ("DELETE", "/webhooks/:id"),
    ("GET", "/balance"),
    ("GET", "/transactions"),
    ("GET", "/transactions/:id"),
    ("GET", "/transactions/e2e/:e2e_id"),
    ("GET", "/transactions/tag/:tag"),
    ("GET", "/transactions/ref/:external_id"),
    ("GET", "/transactions/:id/receipt"),
    ("GET", "/pix/keys"),
    ("GET", "/med"),
    ("GET", "/med/:id"),
    ("GET", "/statement"),
)
"""The spec's Endpoints table (method, path), copied from docs/api.md."""


# -- --write: a R$ 0,01 QR charge left to expire -----------------------------------------


def _charge_body(session: Session) -> dict[str, Any]:
    return {
        "amount": WRITE_CHARGE_CENTAVOS,
        "description": "pixops conformance probe: left to expire unpaid",
        "expires_in": WRITE_CHARGE_EXPIRES_IN,
        "external_id": f"{session.probe_ref}-qr",
    }


def _charge(session: Session) -> tuple[Answer, Probe]:
    def create() -> tuple[Answer, Probe]:
        probe = Probe(
            "POST", "/pix/cash-in", _charge_body(session), idempotency_key=f"{session.probe_ref}-qr"
        )
        return session.send(probe), probe

    return session.once("charge", create)


def _charge_created(session: Session) -> Finding:
    answer, _ = _charge(session)
    if answer.status != 201:
        return Finding(False, seen(answer))
    from pixops.conformance._expect import shape_problem

    problem = shape_problem("POST", "/pix/cash-in", answer)
    if problem is not None:
        return Finding(False, f"HTTP 201, outside the schema: {problem}")
    data = answer.body["data"]
    want_base = WRITE_CHARGE_CENTAVOS * 100
    if data.get("amount") != want_base or data.get("status") != "pending":
        return Finding(
            False,
            f"amount {data.get('amount')!r} (want {want_base}), status {data.get('status')!r}",
        )
    return Finding(
        True,
        f"HTTP 201, pending, amount {want_base} base units, expires_in {data.get('expires_in')}",
    )


def _charge_replayed(session: Session) -> Finding:
    first, probe = _charge(session)
    if first.status != 201:
        raise CannotCheckError(f"the charge was not created: {seen(first)}")
    again = session.send(probe)
    ok = (
        again.status == first.status
        and again.content == first.content
        and again.headers.get("x-idempotent-replay") == "true"
    )
    same = "equal" if again.content == first.content else "differ"
    replay = again.headers.get("x-idempotent-replay")
    return Finding(ok, f"HTTP {again.status}, bytes {same}, replay {replay!r}")


def _charge_listed(session: Session) -> Finding:
    first, _ = _charge(session)
    if first.status != 201:
        raise CannotCheckError(f"the charge was not created: {seen(first)}")
    transaction_id = first.body["data"].get("transaction_id")
    try:
        found = answer_of_shape(session, Probe("GET", f"/transactions/ref/{session.probe_ref}-qr"))
        one = answer_of_shape(session, Probe("GET", f"/transactions/{transaction_id}"))
    except MismatchError as mismatch:
        return Finding(False, mismatch.got)
    ids = [item.get("transaction_id") for item in found.body["data"]]
    status = one.body["data"].get("status")
    ok = ids == [transaction_id] and status == "pending"
    return Finding(ok, f"by external_id: {len(ids)} transaction(s); by id: status {status!r}")


def _catalogue() -> tuple[Check, ...]:
    key_case = (("x-key-case", "kebab-case"),)
    return (
        Check(
            "openapi-public",
            OPENAPI,
            "GET /openapi.json, no Authorization",
            "HTTP 200, an OpenAPI 3.1 document with every operation of the Endpoints table",
            _openapi,
            needs_key=False,
        ),
        exact(
            "credentials-missing",
            CREDENTIALS,
            Probe("GET", "/balance", auth="none"),
            401,
            MISSING_CREDENTIALS,
            needs_key=False,
        ),
        exact(
            "credentials-wrong-secret",
            CREDENTIALS,
            Probe("GET", "/balance", auth="wrong-secret"),
            401,
            INVALID_CREDENTIALS,
        ),
        Check(
            "credentials-basic",
            "Conventions / credentials (or Basic base64(id:secret))",
            "GET /balance, Basic credentials",
            "HTTP 200",
            lambda s: (lambda a: Finding(a.status == 200, seen(a)))(
                s.send(Probe("GET", "/balance", auth="basic"))
            ),
        ),
        exact(
            "hmac-missing",
            SIGNATURE,
            Probe("POST", "/cpf/validate", CPF_BODY, sign="none"),
            401,
            _detail("Missing HMAC header"),
        ),
        exact(
            "hmac-invalid",
            SIGNATURE,
            Probe("POST", "/cpf/validate", CPF_BODY, sign="wrong"),
            401,
            _detail("Invalid HMAC signature"),
        ),
        Check(
            "permission-refused",
            PERMISSION,
            "one read, or one POST that validation refuses, per permission, until one is 403",
            'HTTP 403 {"error":"forbidden","message":"API key lacks permission: <the route\'s>"}',
            _permission_refused,
        ),
        Check(
            "order-content-type-first",
            ORDER + " (content type first)",
            "POST /cpf/validate, text/plain, X-Key-Case: kebab-case, no Authorization",
            f"HTTP 415 {UNSUPPORTED}",
            _order_content_type_first,
            needs_key=False,
        ),
        exact(
            "order-key-case-before-credentials",
            ORDER + " (X-Key-Case, then credentials)",
            Probe("GET", "/balance", auth="none", headers=key_case),
            400,
            BAD_KEY_CASE,
            needs_key=False,
        ),
        exact(
            "order-credentials-before-hmac",
            ORDER + " (credentials, then HMAC)",
            Probe("POST", "/cpf/validate", CPF_BODY, auth="wrong-secret", sign="wrong"),
            401,
            INVALID_CREDENTIALS,
        ),
        exact(
            "order-hmac-before-idempotency",
            ORDER + " (HMAC, then idempotency)",
            Probe("POST", "/cpf/validate", CPF_BODY, sign="wrong", idempotency_key="k" * 257),
            401,
            _detail("Invalid HMAC signature"),
        ),
        exact(
            "order-credentials-before-routing",
            ORDER + " (credentials before any route)",
            Probe("GET", NOWHERE, auth="none"),
            401,
            MISSING_CREDENTIALS,
            needs_key=False,
        ),
        Check(
            "content-type-refused",
            CONTENT_TYPE,
            "POST /cpf/validate, Content-Type: text/plain",
            f'HTTP 415 {{"error":{{"status":415,"message":"{UNSUPPORTED}",'
            '"hint":"…text/plain…"}}',
            _content_type_refused,
        ),
        exact(
            "key-case-invalid",
            KEYS,
            Probe("GET", "/balance", headers=key_case),
            400,
            BAD_KEY_CASE,
        ),
        exact(
            "idempotency-key-too-long",
            IDEMPOTENCY + " (at most 256 characters)",
            Probe("POST", "/cpf/validate", CPF_BODY, idempotency_key="k" * 257),
            400,
            {"error": {"status": 400, "message": "Idempotency-Key must be at most 256 characters"}},
        ),
        Check(
            "cpf-validate",
            ENDPOINTS + " / POST /cpf/validate",
            "POST /cpf/validate, signed, a valid and an invalid CPF",
            'HTTP 200 {"worked":true,"data":{"cpf":…,"valid":true}} and valid false',
            _cpf_validate,
        ),
        Check(
            "idempotent-replay",
            IDEMPOTENCY + " (a replay returns the first 2xx byte for byte)",
            "POST /cpf/validate twice with one Idempotency-Key",
            "the same status and bytes, X-Idempotent-Replay: true, the key echoed",
            _replayed,
        ),
        Check(
            "idempotency-key-reused",
            SCHEMAS + " (an Idempotency-Key reused with another body)",
            "POST /cpf/validate, then another CPF with the same Idempotency-Key",
            "HTTP 422 Idempotency-Key was already used with a different request body",
            _reused_with_another_body,
        ),
        _refusal(
            "cashout-invalid-key-type",
            SCHEMAS + " (pix_key_type)",
            {"amount": 1, "pix_key": NO_SUCH_KEY, "pix_key_type": "carrier_pigeon"},
            _bad_request("invalid pix_key_type"),
        ),
        _refusal(
            "cashout-negative-amount",
            "Conventions / money (centavos)",
            {"amount": -100, "pix_key": NO_SUCH_KEY},
            _bad_request("invalid or missing amount"),
        ),
        Check(
            "cashout-float-amount",
            INTEGERS + " (356.0 is a 400)",
            'POST /pix/cash-out {"amount":100.0,…} (an invalid key too)',
            f"HTTP 400 {compact(_bad_request('invalid or missing amount'))}",
            _float_amount,
        ),
        Check(
            "cashin-unknown-field",
            ENDPOINTS + " / POST /pix/cash-in (its request schema is closed)",
            'POST /pix/cash-in {"amount":0,"conformance_probe":true,…}',
            f"HTTP 400 {compact(_UNKNOWN_FIELD_WANT)}",
            _unknown_field,
        ),
        _refusal(
            "camel-case-requests",
            KEYS + " (request keys)",
            {"amount": 1, "pix_key": NO_SUCH_KEY, "pix_key_type": "carrier_pigeon"},
            _bad_request("invalid pix_key_type", "badRequest"),
            camel=True,
        ),
        Check(
            "refusals-write-nothing",
            SCHEMAS + " (a refusal writes nothing)",
            "GET /transactions/ref/<the probes' external_id>",
            "HTTP 200 with no transaction",
            _nothing_written,
        ),
        exact(
            "camel-case-errors",
            KEYS + " (error bodies too)",
            Probe("POST", "/cpf/validate", {}, headers=(("x-key-case", "camelCase"),)),
            400,
            _bad_request({"cpf": ["is required"]}, "badRequest"),
        ),
        Check(
            "camel-case-answers",
            KEYS + " (response keys)",
            "GET /balance and /statement?per_page=1, without and with X-Key-Case: camelCase",
            "the same fields, every key camelCase",
            _camel_case_answers,
        ),
        shaped("balance", ENDPOINTS + " / GET /balance", Probe("GET", "/balance")),
        shaped(
            "transactions-list",
            ENDPOINTS + " / GET /transactions",
            Probe("GET", "/transactions?per_page=2"),
            also=_page_echo(1, 2),
        ),
        shaped(
            "statement",
            ENDPOINTS + " / GET /statement",
            Probe("GET", "/statement?per_page=2"),
            also=_page_echo(1, 2),
        ),
        Check(
            "statement-pagination",
            ENDPOINTS + " / GET /statement (page, per_page)",
            "GET /statement?per_page=1&page=1, then page=2",
            "pages echoed, at most one item each, not the same item",
            _pagination,
        ),
        Check(
            "statement-status-filter",
            ENDPOINTS + " / GET /statement (status filter)",
            "GET /statement?status=settled&per_page=20",
            "HTTP 200, only settled items",
            _status_filter,
        ),
        Check(
            "statement-date-filter",
            ENDPOINTS + " / GET /statement (date_from, date_to)",
            "GET /statement?date_from=D&date_to=D for a day D with a transaction",
            "HTTP 200, only items created on D, that transaction among them",
            _date_filter,
        ),
        exact(
            "statement-dates-reversed",
            SCHEMAS + " (date_from after date_to is a 400)",
            Probe("GET", "/statement?date_from=2026-01-02&date_to=2026-01-01"),
            400,
            _bad_request({"date_from": ["must not be after date_to"]}),
        ),
        _lookup(
            "transaction-by-id",
            ENDPOINTS + " / GET /transactions/:id",
            lambda t: f"/transactions/{t.get('transaction_id')}",
            "GET /transactions/<a settled transaction from the statement>",
            "transaction_id",
        ),
        _lookup(
            "transaction-by-e2e",
            ENDPOINTS + " / GET /transactions/e2e/:e2e_id",
            lambda t: f"/transactions/e2e/{t.get('end_to_end_id')}",
            "GET /transactions/e2e/<its end_to_end_id>",
            "end_to_end_id",
        ),
        _lookup(
            "receipt",
            ENDPOINTS + " / GET /transactions/:id/receipt",
            lambda t: f"/transactions/{t.get('transaction_id')}/receipt",
            "GET /transactions/<a settled transaction>/receipt",
            "transaction_id",
        ),
        shaped(
            "transactions-by-tag",
            ENDPOINTS + " / GET /transactions/tag/:tag",
            Probe("GET", "/transactions/tag/pixops-conformance-tag"),
        ),
        shaped(
            "transactions-by-ref",
            ENDPOINTS + " / GET /transactions/ref/:external_id",
            Probe("GET", "/transactions/ref/pixops-conformance-ref"),
        ),
        _unknown_404("transaction-unknown", f"/transactions/{MISSING_ID}", "detail"),
        shaped("webhooks-list", ENDPOINTS + " / GET /webhooks", Probe("GET", "/webhooks")),
        shaped(
            "med-list",
            ENDPOINTS + " / GET /med",
            Probe("GET", "/med?per_page=5"),
            also=_page_echo(1, 5),
        ),
        _unknown_404("med-unknown", f"/med/{MISSING_ID}", "not_found"),
        shaped("pix-keys", ENDPOINTS + " / GET /pix/keys", Probe("GET", "/pix/keys")),
        _unknown_404("unknown-route", NOWHERE, "not_found"),
        Check(
            "method-not-allowed",
            BUSINESS + " (method_not_allowed 405)",
            "DELETE /balance",
            'HTTP 405 {"worked":false,"errors":{"method_not_allowed":"…"}}, Allow: GET',
            _method_not_allowed,
        ),
        Check(
            "rate-limit-headers",
            RATE_LIMIT,
            "GET /transactions?per_page=1 twice, GET /balance",
            "X-RateLimit-Remaining counts down; none on GET /balance (not rate-limited)",
            _rate_limit,
        ),
        Check(
            "served-time",
            TIME,
            "GET /balance",
            "as_of in ISO 8601 UTC with ms and Z; the Date header, when sent, an HTTP date",
            _time_format,
        ),
        Check(
            "clock-skew",
            TIME + " (the served time against this machine's clock)",
            "GET /balance (read once with served-time)",
            f"within {MAX_SKEW_SECONDS:.0f} s of this machine's clock",
            _clock_skew,
        ),
        Check(
            "qr-charge-created",
            ENDPOINTS + " / POST /pix/cash-in",
            f"POST /pix/cash-in: a R$ 0,01 QR charge expiring in {WRITE_CHARGE_EXPIRES_IN} s,"
            " left unpaid",
            "HTTP 201 in the schema, status pending, amount 100 base units",
            _charge_created,
            writes=True,
        ),
        Check(
            "qr-charge-replayed",
            IDEMPOTENCY + " (on a POST that creates)",
            "the same POST /pix/cash-in again, with its Idempotency-Key",
            "the first 201 byte for byte, X-Idempotent-Replay: true, no second charge",
            _charge_replayed,
            writes=True,
        ),
        Check(
            "qr-charge-listed",
            ENDPOINTS + " / GET /transactions/ref/:external_id and /transactions/:id",
            "GET /transactions/ref/<its external_id>, GET /transactions/<its id>",
            "exactly the one charge, pending",
            _charge_listed,
            writes=True,
        ),
    )


CHECKS: Final[tuple[Check, ...]] = _catalogue()
CHECK_NAMES: Final = tuple(check.name for check in CHECKS)
assert len(set(CHECK_NAMES)) == len(CHECK_NAMES), "a check name is used twice"
