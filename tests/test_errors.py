"""One root: every error pixops raises on purpose is a `pixops.PixopsError`."""

from __future__ import annotations

import importlib
import pickle
import traceback

import pytest

import pixops
from pixops.brcode import BRCodeError
from pixops.documents import DocumentError
from pixops.ids import IdError
from pixops.money import MoneyError, parse_centavos
from pixops.pixkeys import PixKeyError
from pixops.webhooks import WebhookVerificationError
from pixops.wire import WireError

PRIMITIVE_ERRORS = [
    BRCodeError,
    DocumentError,
    IdError,
    MoneyError,
    PixKeyError,
    WebhookVerificationError,
    WireError,
]


@pytest.mark.parametrize("error", PRIMITIVE_ERRORS, ids=lambda error: error.__name__)
def test_primitive_errors_share_the_root_and_stay_value_errors(error: type[Exception]) -> None:
    assert issubclass(error, pixops.PixopsError)
    assert issubclass(error, ValueError)


def test_one_except_clause_catches_a_primitive_refusal() -> None:
    with pytest.raises(pixops.PixopsError, match="ambiguous"):
        parse_centavos("1.234")


@pytest.mark.parametrize(
    "package", ["pixops.client", "pixops.frames", "pixops.recon", "pixops.webhooks"]
)
def test_a_traceback_names_an_error_where_it_is_imported_from(package: str) -> None:
    from pixops.client import error_from_response

    module = importlib.import_module(package)
    errors = [
        getattr(module, name)
        for name in module.__all__
        if isinstance(getattr(module, name), type) and issubclass(getattr(module, name), Exception)
    ]
    assert errors
    for error in errors:
        assert error.__module__ == package, error
        assert pickle.loads(pickle.dumps(error)) is error  # still found by its new name
    found = error_from_response(404, b'{"error":"not_found","message":"Transaction not found"}')
    last_line = traceback.format_exception_only(found)[-1]
    assert last_line.startswith("pixops.client.NotFoundError: HTTP 404")


@pytest.mark.parametrize(
    "package",
    [
        "pixops.client",
        "pixops.frames",
        "pixops.recon",
        "pixops.webhooks",
        "pixops.report",
        "pixops.desk",
        "pixops.widgets",
        "pixops.sandbox",
    ],
)
def test_every_error_a_package_exports_is_a_pixops_error(package: str) -> None:
    """`except pixops.PixopsError` catches a bad ledger, a drifted frame or a report that
    could not be made as it catches an API refusal."""
    module = importlib.import_module(package)
    exported = [getattr(module, name) for name in module.__all__]
    errors = [e for e in exported if isinstance(e, type) and issubclass(e, BaseException)]
    assert errors
    assert [e for e in errors if not issubclass(e, pixops.PixopsError)] == []
