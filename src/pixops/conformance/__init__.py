"""`pixops conformance`: measure a PIX service (or the sandbox) against `docs/api.md`.

    from pixops.conformance import Target, run_conformance
    from pixops.sandbox import Sandbox
    sandbox = Sandbox()
    key = sandbox.issue_api_key(sandbox.create_merchant("Loja").id)
    target = Target("http://sandbox/api/external", key.client_id, key.client_secret)
    report = run_conformance(target, transport=sandbox.transport())
    report.passed, report.summary()   # against a service: no transport, its address

Each check names the rule of the spec it measures and says what it expected and what
it got; `transport=` runs the same checks in-process (`Sandbox.transport()`). Read-only
unless `select_checks(write=True)` adds the checks that leave a R$ 0,01 QR charge to
expire. Nothing secret reaches a result: the session redacts the key's secret.
"""

from pixops.conformance._catalogue import CHECK_NAMES, CHECKS
from pixops.conformance._model import (
    CannotCheckError,
    Check,
    Finding,
    Probe,
    Report,
    Result,
    Verdict,
)
from pixops.conformance._runner import (
    UnknownCheckError,
    run_conformance,
    select_checks,
    write_plan,
)
from pixops.conformance._session import Session, Target

__all__ = [
    "CHECKS",
    "CHECK_NAMES",
    "CannotCheckError",
    "Check",
    "Finding",
    "Probe",
    "Report",
    "Result",
    "Session",
    "Target",
    "UnknownCheckError",
    "Verdict",
    "run_conformance",
    "select_checks",
    "write_plan",
]
