"""From a read `httpx.Response` to a result, or to the error a support person can act on.

A non-2xx answer is its `ApiError`; so is a 2xx whose body says ``worked: false`` (the
spec's business errors come "with or without worked: false", and no success carries
it). A 2xx body that cannot be read is a `ResponseValidationError` naming the call and
the status, saying when the answer is not JSON at all (a proxy or login page in the
way), and, for a POST, that the service accepted it and how to get its answer again
without acting twice.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final, TypeVar

import httpx

from pixops.client._config import KeyCase
from pixops.client._core import to_snake_bytes
from pixops.client._errors import ResponseValidationError, error_from_response, with_outcome
from pixops.client._receive import call_label, json_or_none, with_accepted_note

__all__ = ["decode", "read_answer"]

T = TypeVar("T")
_WORKED: Final = b'"worked"'
_WORKED_FALSE: Final = re.compile(rb'"worked"\s*:\s*false')


def _may_say_worked_false(body: bytes) -> bool:
    """True when `"worked"` is followed by `false` somewhere in `body` (what
    `_WORKED_FALSE.search` finds), tried only where `"worked"` stands: `bytes.find`
    skips a page of 100 rows in microseconds, the regular expression's scan took ~70 µs."""
    at = body.find(_WORKED)
    while at != -1:
        if _WORKED_FALSE.match(body, at) is not None:
            return True
        at = body.find(_WORKED, at + 1)
    return False


def decode(response: httpx.Response, case: KeyCase, *, search: bool = True) -> bytes:
    """The snake_case JSON body of a 2xx answer; any other answer raises its `ApiError`,
    and so does a 2xx saying ``"worked": false`` when `search` (see `read_answer`)."""
    body, status = response.content, response.status_code
    if not 200 <= status < 300:
        request = response.request
        error = error_from_response(status, body, response.headers)
        raise with_outcome(error, request.method, request.headers.get("idempotency-key"))
    # Only a body that may say `"worked": false` is parsed for it (a success says
    # `"worked":true`): a page of 100 rows was parsed twice, here and by its model.
    if search:
        _refuse_worked_false(response)
    if case == "camelCase":
        return to_snake_bytes(body, status)
    return body


def _refuse_worked_false(response: httpx.Response) -> None:
    """Raise the business error of a 2xx whose body says ``"worked": false``."""
    body = response.content
    if _may_say_worked_false(body):
        parsed = json_or_none(body)
        if isinstance(parsed, dict) and parsed.get("worked") is False:
            raise error_from_response(response.status_code, body, response.headers)


def read_answer(
    response: httpx.Response,
    case: KeyCase,
    parse: Callable[[bytes], T],
    *,
    refuses_worked_false: bool = False,
) -> T:
    """`parse` of the decoded body; an unreadable one explained (see the module).

    When the model itself `refuses_worked_false` (its ``worked`` is ``Literal[True]``),
    the body is not searched first: one that validates did not say it, and one that
    does not validate is searched then, so a business error is still its `ApiError`."""
    try:
        return parse(decode(response, case, search=not refuses_worked_false))
    except ResponseValidationError as exc:
        if refuses_worked_false:
            _refuse_worked_false(response)
        raise explained(exc, response) from None


def explained(exc: ResponseValidationError, response: httpx.Response) -> ResponseValidationError:
    """`exc` with the call, the status and what to do next."""
    request, status = response.request, response.status_code
    kind = response.headers.get("content-type", "").split(";")[0].strip()
    reason = str(exc)
    if kind and "json" not in kind.lower():
        reason = (
            f"the answer is {kind}, not JSON (a proxy, firewall or login page in the way,"
            " or a wrong base_url?)"
        )
    message = f"{call_label(request)}: HTTP {status}: {reason}"
    return with_accepted_note(
        ResponseValidationError(message, status=status, body=response.content), response
    )
