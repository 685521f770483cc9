"""Numbers read from a pandas frame: an exact NumPy integer is an int (a notebook's
`row.amount_centavos` is `numpy.int64`), a NumPy float or bool is refused like a float."""

from __future__ import annotations

from decimal import Decimal

import httpx
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import pixops
from pixops.client import ArgumentError
from pixops.client._params import exact_int, request_centavos

INT_TYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@given(st.sampled_from(INT_TYPES), st.integers(min_value=1, max_value=127))
def test_a_numpy_integer_is_taken_as_centavos(kind: type, value: int) -> None:
    number = kind(value)
    assert request_centavos(number) == value
    assert type(request_centavos(number)) is int


@pytest.mark.parametrize(
    "value",
    [np.float64(100.0), np.float32(1.0), np.bool_(True), True, 100.0, Decimal(100), "100"],
)
def test_what_is_not_an_exact_integer_is_refused(value: object) -> None:
    assert exact_int(value) is None
    with pytest.raises(ArgumentError, match="amount_centavos must be an int"):
        request_centavos(value)


def test_a_frame_row_pays_and_pages() -> None:
    sent: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        request.read()
        sent.append(request)
        return httpx.Response(400, json={"worked": False, "errors": {"bad_request": "stop"}})

    client = pixops.Client("https://x", "cli", "sk", transport=httpx.MockTransport(answer))
    with pytest.raises(pixops.PixopsError):
        client.pix.cash_in(amount_centavos=np.int64(1234), expires_in=np.int32(600))
    with pytest.raises(pixops.PixopsError):
        client.statement.list(per_page=np.int64(50))
    assert b'"amount":1234' in sent[0].content
    assert b'"expires_in":600' in sent[0].content
    assert sent[1].url.params["per_page"] == "50"
