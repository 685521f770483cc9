"""One root: every error pixops raises on purpose is a `pixops.PixopsError`."""

from __future__ import annotations

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
