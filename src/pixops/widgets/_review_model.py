"""`ReviewQueue`: the review panel's logic, without widgets (tested as is).

The pairs a reconciliation could not decide (`needs_review`: two equally good
candidates) side by side, ledger entry beside statement row; a person confirms or rejects
one and the decision goes to the review file beside the ledger (`pixops.recon.ReviewFile`:
who, when), which every later run applies and never asks again.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

from pixops.recon import Decision, ReviewFile
from pixops.widgets._format import brl, label

if TYPE_CHECKING:
    from pixops.recon import ReconResult

__all__ = ["Candidate", "ReviewQueue"]

_DASH: Final = "—"


def _text(value: Any) -> str:
    return _DASH if value is None or value != value else str(value)  # NA: not equal to itself


def _day(value: Any) -> str:
    return f"{value:%d/%m/%Y}" if isinstance(value, date | datetime) else _DASH


@dataclass(frozen=True)
class Candidate:
    """One suggested pair of `needs_review`: a ledger entry and a statement row."""

    entry_id: str
    statement_id: str
    transaction_id: str | None
    reference: str | None
    ledger_amount_base: int | None
    statement_amount_base: int | None
    ledger_fee_base: int | None
    statement_fee_base: int | None
    ledger_status: str | None
    statement_status: str | None
    booked_on: date | None
    business_date: date | None
    detail: str

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Candidate:
        """A row of ``result.category("needs_review")``."""

        def get(key: str) -> Any:
            value = record.get(key)
            return None if value is None or value != value else value

        return cls(
            entry_id=str(record["entry_id"]),
            statement_id=str(record["statement_id"]),
            transaction_id=get("transaction_id"),
            reference=get("reference"),
            ledger_amount_base=get("ledger_amount_base"),
            statement_amount_base=get("statement_amount_base"),
            ledger_fee_base=get("ledger_fee_base"),
            statement_fee_base=get("statement_fee_base"),
            ledger_status=get("ledger_status"),
            statement_status=get("statement_status"),
            booked_on=get("booked_on"),
            business_date=get("business_date"),
            detail=str(get("detail") or ""),
        )

    @property
    def key(self) -> tuple[str, str]:
        return self.entry_id, self.statement_id

    def label(self) -> str:
        """``LED-004245 ↔ PIXINE… (R$ 159,75)``: the dropdown's words for the pair."""
        movement = self.transaction_id or self.statement_id
        return f"{self.entry_id} ↔ {movement} ({brl(self.statement_amount_base)})"

    def sides(self) -> list[dict[str, str]]:
        """The pair side by side: one row per field, the ledger's value beside the
        statement's (money in pt-BR by the one rule)."""
        return [
            {"field": "Id", "ledger": self.entry_id, "statement": _text(self.transaction_id)},
            {"field": "Reference", "ledger": _text(self.reference), "statement": _DASH},
            {
                "field": "Amount",
                "ledger": brl(self.ledger_amount_base),
                "statement": brl(self.statement_amount_base),
            },
            {
                "field": "Fee",
                "ledger": brl(self.ledger_fee_base),
                "statement": brl(self.statement_fee_base),
            },
            {
                "field": "Status",
                "ledger": label(self.ledger_status) if self.ledger_status else _DASH,
                "statement": label(self.statement_status) if self.statement_status else _DASH,
            },
            {
                "field": "Day",
                "ledger": _day(self.booked_on),
                "statement": _day(self.business_date),
            },
        ]


class ReviewQueue:
    """The pairs of a result left for a person, and their decisions saved to
    ``review_file`` (who: ``reviewer``, else this machine's user; when: now).

    A confirmed pair settles its entry and its row: the other candidates of either leave
    the queue (the next run matches the pair; the others are no longer ties). A rejected
    pair leaves the queue alone. The next run applies the file and asks again about
    nothing decided."""

    def __init__(
        self,
        result: ReconResult | None,
        review_file: ReviewFile | str | Path | None,
        *,
        reviewer: str | None = None,
    ) -> None:
        if reviewer is not None and (not isinstance(reviewer, str) or not reviewer.strip()):
            raise ValueError(f"reviewer must be a name, not {reviewer!r}")
        if review_file is not None and not isinstance(review_file, ReviewFile):
            review_file = ReviewFile(review_file)
        self.review_file = review_file
        self.reviewer = reviewer
        self.decided: list[Decision] = []
        self._pending: list[Candidate] = []
        self.load(result)

    def load(self, result: ReconResult | None) -> None:
        """The candidates of ``result`` (a new run: what is decided is applied in it)."""
        self.decided = []
        if result is None:
            self._pending = []
            return
        frame = result.category("needs_review")
        records = [{str(k): v for k, v in r.items()} for r in frame.to_dict(orient="records")]
        self._pending = [Candidate.from_record(record) for record in records]

    @property
    def pending(self) -> list[Candidate]:
        """The pairs still to decide, grouped by statement row (the ties side by side)."""
        return sorted(self._pending, key=lambda c: (c.statement_id, c.entry_id))

    def find(self, entry_id: str, statement_id: str) -> Candidate:
        for candidate in self._pending:
            if candidate.key == (entry_id, statement_id):
                return candidate
        raise KeyError(f"{entry_id} with {statement_id} is not a pair to review")

    def rivals(self, candidate: Candidate) -> list[Candidate]:
        """The other candidates sharing its entry or its statement row (the tie)."""
        return [
            other
            for other in self.pending
            if other.key != candidate.key
            and (
                other.entry_id == candidate.entry_id or other.statement_id == candidate.statement_id
            )
        ]

    def decide(
        self,
        entry_id: str,
        statement_id: str,
        decision: Literal["confirmed", "rejected"],
        note: str = "",
    ) -> Decision:
        """Save a decision to the review file and take the pair (and, confirmed, its
        rivals) out of the queue. `pixops.recon.ReviewError` when the file cannot take it;
        `KeyError` for a pair that is not in the queue."""
        if self.review_file is None:
            raise ValueError(
                "no review file: give review_file= (the ledger is not a file to save it beside)"
            )
        candidate = self.find(entry_id, statement_id)
        made = self.review_file.record(
            entry_id, statement_id, decision, by=self.reviewer, note=note.strip()
        )
        gone = {candidate.key}
        if decision == "confirmed":
            gone |= {other.key for other in self.rivals(candidate)}
        self._pending = [c for c in self._pending if c.key not in gone]
        self.decided.append(made)
        return made

    def confirm(self, entry_id: str, statement_id: str, note: str = "") -> Decision:
        return self.decide(entry_id, statement_id, "confirmed", note)

    def reject(self, entry_id: str, statement_id: str, note: str = "") -> Decision:
        return self.decide(entry_id, statement_id, "rejected", note)

    def said(self, made: Decision) -> str:
        """The decision in words, for the panel's status line."""
        word = "Confirmed" if made.decision == "confirmed" else "Rejected"
        where = "" if self.review_file is None else f" in {self.review_file.path.name}"
        return (
            f"{word}: {made.entry_id} with {made.statement_id}, by {made.decided_by} at"
            f" {made.decided_at:%d/%m/%Y %H:%M} UTC; saved{where}, which every run applies."
        )

    def headline(self) -> str:
        """How many pairs wait, in one line."""
        count = len(self._pending)
        if not count:
            return "Nothing to review." if not self.decided else "Every pair is decided."
        rows = len({c.statement_id for c in self._pending})
        return (
            f"{count} suggested pair{'s' if count > 1 else ''} to review"
            f" ({rows} statement row{'s' if rows > 1 else ''} with equally good candidates):"
            " confirm the right one, reject a wrong one."
        )
