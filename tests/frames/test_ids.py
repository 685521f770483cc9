"""The ids' distinctness check: never misses a repeat; distinct ids answer False."""

from __future__ import annotations

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from pixops.frames._ids import may_repeat

_ids = st.lists(st.text(max_size=40), max_size=60)


@settings(max_examples=200, deadline=None)
@given(_ids, st.integers(min_value=1, max_value=7), st.integers(min_value=0, max_value=3))
def test_repeats_are_never_missed_and_distinct_ids_pass(
    values: list[str], chunk: int, skip: int
) -> None:
    # Chunks of the table are slices (a non-zero offset into shared buffers).
    whole = pa.array(["padding"] * skip + values, pa.string()).slice(skip)
    chunks = [whole.slice(start, chunk) for start in range(0, len(values), chunk)]
    ids = pa.chunked_array(chunks, type=pa.string())
    repeated = len(set(values)) < len(values)
    assert may_repeat(ids) is repeated


def test_a_repeat_far_apart_in_a_million_rows_is_found() -> None:
    values = [f"{n:08x}-50fb-4c96-809c-87a505e08e43" for n in range(1_000_000)]
    assert may_repeat(pa.chunked_array([pa.array(values)])) is False
    values[999_999] = values[3]
    assert may_repeat(pa.chunked_array([pa.array(values)])) is True


def test_prefixes_and_empty_strings_are_distinct() -> None:
    assert may_repeat(pa.array(["", "a", "aa", "a\x00", "\x00"])) is False


def test_nulls_and_other_types_take_the_exact_path() -> None:
    assert may_repeat(pa.array(["a", None])) is True
    assert may_repeat(pa.array([1, 2])) is True
    assert may_repeat(pa.array(["a"], pa.large_string())) is True


def test_no_ids_repeat_nothing() -> None:
    assert may_repeat(pa.chunked_array([], type=pa.string())) is False


@settings(max_examples=200, deadline=None)
@given(
    st.integers(min_value=0, max_value=20).flatmap(
        lambda width: st.lists(
            st.text(alphabet="ab\x00~", min_size=width, max_size=width), max_size=60
        )
    ),
    st.integers(min_value=1, max_value=7),
    st.integers(min_value=0, max_value=3),
)
def test_ids_of_one_length_are_hashed_by_word_and_still_exact(
    values: list[str], chunk: int, skip: int
) -> None:
    whole = pa.array(["x" * 50] * skip + values, pa.string()).slice(skip)
    chunks = [whole.slice(start, chunk) for start in range(0, len(values), chunk)]
    ids = pa.chunked_array(chunks, type=pa.string())
    assert may_repeat(ids) is (len(set(values)) < len(values))


def test_ids_differing_in_any_one_byte_are_distinct() -> None:
    base = "00000000-50fb-4c96-809c-87a505e08e43"
    values = [base] + [base[:i] + chr(ord(base[i]) ^ 1) + base[i + 1 :] for i in range(36)]
    assert may_repeat(pa.array(values)) is False
    assert may_repeat(pa.array([*values, values[17]])) is True
