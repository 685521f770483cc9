"""`--write`: a R$ 0,01 QR charge left to expire, created, replayed and listed (the only
checks that change anything, and only when asked)."""

from __future__ import annotations

from typing import Any

from pixops.conformance._expect import (
    MismatchError,
    answer_of_shape,
    seen,
)
from pixops.conformance._model import CannotCheckError, Finding, Probe
from pixops.conformance._rules import WRITE_CHARGE_CENTAVOS, WRITE_CHARGE_EXPIRES_IN
from pixops.conformance._session import Answer, Session

__all__ = ["charge_created", "charge_listed", "charge_replayed"]


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


def charge_created(session: Session) -> Finding:
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


def charge_replayed(session: Session) -> Finding:
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


def charge_listed(session: Session) -> Finding:
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
