"""The engine's errors live in one module under one root (issue 9.2)."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import pixops
from pixops.engine import errors

ENGINE = Path(errors.__file__).parent
#: Exceptions that are not errors raised to a caller: the HTTP refusal the pipeline turns
#: into a response, and the engine's private rollback signal.
NOT_DOMAIN_ERRORS = {"ApiError", "_RollbackError"}


def test_every_engine_error_is_a_pixops_error() -> None:
    found = [
        value
        for value in vars(errors).values()
        if inspect.isclass(value) and issubclass(value, Exception)
    ]
    assert {cls.__name__ for cls in found} >= set(errors.__all__)
    for cls in found:
        assert issubclass(cls, pixops.PixopsError), cls


@pytest.mark.parametrize(
    "name", ["AdminError", "SimulationError", "DictError", "MedError", "PayerError",
             "SubscriptionError", "SubscriptionLimitError"],
)  # fmt: skip
def test_bad_value_errors_are_also_value_errors(name: str) -> None:
    assert issubclass(getattr(errors, name), ValueError)


def test_no_other_engine_module_defines_an_exception() -> None:
    defined: list[str] = []
    for path in sorted(ENGINE.rglob("*.py")):
        if path.name == "errors.py" or "admin" in path.relative_to(ENGINE).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef) or node.name in NOT_DOMAIN_ERRORS:
                continue
            bases = {ast.unparse(base) for base in node.bases}
            if any(base.endswith(("Error", "Exception")) for base in bases):
                defined.append(f"{path.relative_to(ENGINE)}:{node.name}")
    assert defined == []


def test_old_import_paths_still_name_the_same_classes() -> None:
    from pixops.engine import credentials, ledger, med, merchants
    from pixops.engine import notifications as webhooks
    from pixops.engine.pix import records
    from pixops.engine.world import payers

    assert merchants.AdminError is errors.AdminError
    assert records.SimulationError is errors.SimulationError
    assert med.MedError is errors.MedError
    assert payers.PayerError is errors.PayerError
    assert ledger.LedgerError is errors.LedgerError
    assert credentials.MissingCredentialsError is errors.MissingCredentialsError
    assert webhooks.SubscriptionError is errors.SubscriptionError


def test_payment_refusal_carries_format_a_fields() -> None:
    refusal = errors.PaymentRefusedError(422, "ceiling_exceeded", "too much", {"ceiling": 1})
    assert (refusal.status, refusal.code, refusal.message, refusal.params) == (
        422, "ceiling_exceeded", "too much", {"ceiling": 1},
    )  # fmt: skip
    assert str(refusal) == "ceiling_exceeded: too much"
