"""ReviewQueue (the review panel's logic, no widgets) on the sample month's planted tie
(data/README.md: one sale booked twice without a reference), and the panel as its view."""

from __future__ import annotations

from pathlib import Path

import pytest

from pixops.demo import demo_month
from pixops.frames import load_statement_table
from pixops.recon import ReconResult, ReviewError, ReviewFile, reconcile
from pixops.widgets._review import ReviewPanel
from pixops.widgets._review_model import ReviewQueue

LEDGER = Path(__file__).resolve().parents[2] / "data" / "sample_ledger.csv"


@pytest.fixture(scope="module")
def statement() -> object:
    month = demo_month()
    client = month.sandbox.client(month.api_key)
    return load_statement_table(client, "2026-01-14", "2026-01-16", progress=False)


def run(statement: object, review: Path) -> ReconResult:
    return reconcile(statement, LEDGER, start="2026-01-15", end="2026-01-15", review_file=review)


def test_a_confirmed_pair_is_saved_with_who_and_when_and_never_asked_again(
    statement: object, tmp_path: Path
) -> None:
    review = tmp_path / "sample_ledger.review.csv"
    queue = ReviewQueue(run(statement, review), review, reviewer="ana")
    pending = queue.pending
    assert [c.entry_id for c in pending] == ["LED-004245", "LED-004246"]
    assert len({c.statement_id for c in pending}) == 1
    first = pending[0]
    assert [r["field"] for r in first.sides()] == [
        "Id",
        "Reference",
        "Amount",
        "Fee",
        "Status",
        "Day",
    ]
    assert first.sides()[2] == {"field": "Amount", "ledger": "R$ 159,75", "statement": "R$ 159,75"}
    assert [o.entry_id for o in queue.rivals(first)] == ["LED-004246"]
    assert queue.headline().startswith("2 suggested pairs to review (1 statement row")

    made = queue.confirm(first.entry_id, first.statement_id, note="nota 1234")
    assert (made.decided_by, made.decision) == ("ana", "confirmed")
    assert queue.pending == []  # its rival is no longer a tie
    assert "by ana" in queue.said(made)
    lines = review.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "entry_id,statement_id,decision,decided_by,decided_at,note"
    assert lines[1].startswith(f"LED-004245,{first.statement_id},confirmed,ana,")

    again = run(statement, review)  # the next run applies it and asks nothing
    assert again.counts["needs_review"] == 0
    matched = again.matched.set_index("entry_id")
    assert str(matched.loc["LED-004245", "rule"]).startswith("confirmed by ana on ")
    assert ReviewQueue(again, review).pending == []


def test_a_rejected_pair_leaves_the_other_as_the_only_candidate(
    statement: object, tmp_path: Path
) -> None:
    review = tmp_path / "books.review.csv"
    queue = ReviewQueue(run(statement, review), review, reviewer="bia")
    second = queue.pending[1]
    queue.reject(second.entry_id, second.statement_id)
    assert [c.entry_id for c in queue.pending] == ["LED-004245"]
    again = run(statement, review)
    assert again.counts["needs_review"] == 0
    assert "LED-004245" in set(again.matched["entry_id"])
    assert "LED-004246" in set(again.category("missing_in_statement")["entry_id"])


def test_bad_decisions_are_refused(statement: object, tmp_path: Path) -> None:
    result = run(statement, tmp_path / "r.csv")
    with pytest.raises(ValueError, match="no review file"):
        ReviewQueue(result, None).confirm("LED-004245", "x")
    queue = ReviewQueue(result, tmp_path / "r.csv")
    with pytest.raises(KeyError, match="not a pair to review"):
        queue.confirm("LED-000001", "nope")
    with pytest.raises(ValueError, match="reviewer must be a name"):
        ReviewQueue(result, tmp_path / "r.csv", reviewer=" ")
    broken = tmp_path / "broken.csv"
    broken.write_text("not,a,review,file\n", encoding="utf-8")
    with pytest.raises(ReviewError):
        ReviewQueue(result, ReviewFile(broken)).confirm(*queue.pending[0].key)


def test_the_panel_is_a_view_of_the_queue(statement: object, tmp_path: Path) -> None:
    review = tmp_path / "p.csv"
    runs: list[int] = []
    panel = ReviewPanel(ReviewQueue(None, review, reviewer="caio"), decided=lambda: runs.append(1))
    assert panel.layout.display == "none"  # nothing to review: no panel
    panel.show(run(statement, review))
    assert panel.layout.display is None
    assert len(panel.pick.options) == 2
    assert "LED-004245" in panel.sides.value
    assert "review file. Equally good: LED-004246." in panel.rivals.value
    panel.note.value = "<b>recibo</b>"
    panel.confirm_button.click()
    assert runs == [1]
    assert "Confirmed: LED-004245" in panel.status.value
    assert panel.layout.display is None  # the saved decision stays in sight
    assert "<b>" not in panel.status.value
    assert panel.pick.options == ()
    assert "&lt;b&gt;recibo&lt;/b&gt;" not in review.read_text(encoding="utf-8")
    assert "<b>recibo</b>" in review.read_text(encoding="utf-8")
