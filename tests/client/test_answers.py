"""Whether a 2xx body may say `"worked": false` (then it is parsed for its error): the
cheap scan finds exactly what the regular expression's search finds."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pixops.client._answers import _WORKED_FALSE, _may_say_worked_false

#: Pieces that make near misses: the key in and out of quotes, spaces, escapes, both
#: booleans, and text between.
_PIECES = st.sampled_from(
    [b'"worked"', b"worked", b'"', b":", b" ", b"\n", b"\\", b"false", b"true", b"{", b"x"]
)


@given(pieces=st.lists(_PIECES | st.binary(max_size=4), max_size=24))
def test_the_scan_agrees_with_the_pattern(pieces: list[bytes]) -> None:
    body = b"".join(pieces)
    assert _may_say_worked_false(body) is (_WORKED_FALSE.search(body) is not None)


def test_a_page_saying_worked_true_is_not_parsed_for_an_error() -> None:
    row = b'{"description":"worked: false","status":"completed"}'
    page = b'{"worked":true,"data":[' + b",".join([row] * 100) + b'],"page":1}'
    assert not _may_say_worked_false(page)
    assert _may_say_worked_false(b'{"data":[],"worked" :\n false}')
