"""The review file is opened in spreadsheets too: no cell of it runs as a formula, every
text comes back exactly as given, and it gets the permissions of the files beside it."""

from __future__ import annotations

import csv
import os
import stat
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pixops.recon import ReviewFile

_AT = datetime(2026, 1, 16, 14, 3, tzinfo=UTC)
HOSTILE = ["=1+1", "+cmd|' /C calc'!A0", "@SUM(1+1)", "-2+3", '=HYPERLINK("http://x","y")']
_FORMULA_STARTS = tuple("=+-@\t\r\n")


@pytest.fixture
def umask_022() -> Iterator[None]:
    before = os.umask(0o022)
    yield
    os.umask(before)


def test_no_cell_runs_as_a_formula_and_every_text_comes_back(
    tmp_path: Path, umask_022: None
) -> None:
    review = ReviewFile(tmp_path / "books.review.csv")
    for n, text in enumerate(HOSTILE):
        review.record(text, f"stmt-{n}", "rejected", by=text, at=_AT, note=text)
    review.record("'quoted", "'=x", "confirmed", by="ana", at=_AT, note="'")
    with review.path.open(encoding="utf-8", newline="") as handle:
        cells = [cell for row in csv.reader(handle) for cell in row]
    assert not [cell for cell in cells if cell.lstrip().startswith(_FORMULA_STARTS)]
    got = [(d.entry_id, d.decided_by, d.note) for d in review.decisions()]
    assert got == [(text, text, text) for text in HOSTILE] + [("'quoted", "ana", "'")]
    assert review.decisions()[-1].statement_id == "'=x"
    assert stat.S_IMODE(review.path.stat().st_mode) == 0o644
    assert not list(tmp_path.glob(".*partial"))


_cell_text = st.text(
    st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters=",\"'"), max_size=8
)


@settings(max_examples=60, deadline=None)
@given(
    entry=st.tuples(st.sampled_from(["", "'", "''", "=", "+", "-", "@"]), _cell_text),
    note=st.tuples(st.sampled_from(["", "'", "=", "@"]), _cell_text),
)
def test_any_text_is_read_back_as_written(
    tmp_path_factory: pytest.TempPathFactory, entry: tuple[str, str], note: tuple[str, str]
) -> None:
    entry_id = "".join(entry).strip() or "e"
    review = ReviewFile(tmp_path_factory.mktemp("r") / "books.review.csv")
    review.record(entry_id, "s1", "confirmed", by="ana", at=_AT, note="".join(note).strip())
    (decision,) = review.decisions()
    assert (decision.entry_id, decision.note) == (entry_id, "".join(note).strip())
