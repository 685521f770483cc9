"""The review file: a person's decisions on suggested pairs, kept beside the ledger.

A plain CSV (one decision a line, diff-able, UTF-8): ``entry_id``, ``statement_id``,
``decision`` (``confirmed`` or ``rejected``), ``decided_by``, ``decided_at`` (ISO 8601
with an offset) and an optional ``note``. Later runs read it: a confirmed pair is matched
(`reason`: who confirmed it and when) and a rejected one is never suggested again; the
ids are the ledger's and the statement's own, so a re-import of an overlapping statement
file finds the same rows. A later line about the same pair replaces an earlier one (a
person changed their mind); anything else unreadable is an error naming its line.

People open it in a spreadsheet too: the ids (the ledger's, so any text), who decided
and the note are written so that none runs as a formula (a leading ``'``, as in every
export meant for a spreadsheet), and read back exactly; the file gets the permissions
of the other files beside the ledger.
"""

from __future__ import annotations

import csv
import getpass
import io
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Final, Literal

import pyarrow as pa

from pixops.errors import PixopsError
from pixops.recon._spreadsheet import atomic_text_file, spreadsheet_text

__all__ = [
    "DECISIONS_SCHEMA",
    "REVIEW_COLUMNS",
    "Decision",
    "ReviewError",
    "ReviewFile",
    "decisions_table",
    "review_path",
]

REVIEW_COLUMNS: Final = (
    "entry_id",
    "statement_id",
    "decision",
    "decided_by",
    "decided_at",
    "note",
)
_REQUIRED: Final = REVIEW_COLUMNS[:5]
_DECISIONS: Final = ("confirmed", "rejected")

#: ``decisions_in``, the input the SQL applies them from.
DECISIONS_SCHEMA: Final = pa.schema(
    [
        ("entry_id", pa.string()),
        ("statement_id", pa.string()),
        ("decision", pa.string()),
        ("decided_by", pa.string()),
        ("decided_at", pa.string()),
    ]
)


class ReviewError(PixopsError, ValueError):
    """The review file cannot be read or written as it is."""


@dataclass(frozen=True)
class Decision:
    """One line of the review file (``line``: its line number, the header being 1)."""

    entry_id: str
    statement_id: str
    decision: Literal["confirmed", "rejected"]
    decided_by: str
    decided_at: datetime
    note: str = ""
    line: int = 0


def review_path(ledger: str | Path) -> Path:
    """Where the review file of a ledger file lives: beside it, ``<name>.review.csv``."""
    path = Path(ledger)
    return path.with_name(f"{path.stem}.review.csv")


class ReviewFile:
    """The decisions file at ``path`` (it need not exist yet: no decisions)."""

    def __init__(self, path: str | Path) -> None:
        if not isinstance(path, str | Path):
            raise TypeError(f"review file must be a path, not {type(path).__name__}")
        self.path = Path(path)

    def __repr__(self) -> str:
        return f"ReviewFile({str(self.path)!r})"

    def decisions(self) -> list[Decision]:
        """The decisions in force: one per pair (a later line replaces an earlier one),
        checked for contradictions (an entry or a row confirmed twice)."""
        if self.path.is_dir():
            raise ReviewError(f"{self.path} is a folder, not a review file")
        if not self.path.exists():
            return []
        try:
            text = self.path.read_text(encoding="utf-8-sig")
        except UnicodeDecodeError:
            raise ReviewError(f"{self.path} is not UTF-8 text: is it the review file?") from None
        return _in_force(self.path, _parse(self.path, text))

    def record(
        self,
        entry_id: str,
        statement_id: str,
        decision: Literal["confirmed", "rejected"],
        *,
        by: str | None = None,
        at: datetime | None = None,
        note: str = "",
    ) -> Decision:
        """Add a decision (who: ``by``, or this machine's user; when: ``at``, or now) and
        write the file anew beside itself, then rename it: never half-written."""
        if decision not in _DECISIONS:
            raise ReviewError(f"decision must be one of {list(_DECISIONS)}, not {decision!r}")
        for name, value in (("entry_id", entry_id), ("statement_id", statement_id)):
            if not isinstance(value, str) or not value.strip():
                raise ReviewError(f"{name} must name a row, not {value!r}")
        who = (by if by is not None else _user()).strip() or "unknown"
        when = (at or datetime.now(UTC)).astimezone(UTC).replace(microsecond=0)
        made = Decision(entry_id.strip(), statement_id.strip(), decision, who, when, note)
        lines = [*self._lines(), _line(made)]
        _in_force(self.path, _parse(self.path, _csv_text(lines)))  # refuse a contradiction
        self._write(lines)
        return made

    def _lines(self) -> list[list[str]]:
        if not self.path.exists():
            return []
        self.decisions()  # the file as it is must read
        rows = list(csv.reader(io.StringIO(self.path.read_text(encoding="utf-8-sig"))))
        header = rows[0]
        return [
            [row[header.index(name)] if name in header else "" for name in REVIEW_COLUMNS]
            for row in rows[1:]
            if any(cell.strip() for cell in row)
        ]

    def _write(self, lines: list[list[str]]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_text_file(self.path, encoding="utf-8") as handle:
            handle.write(_csv_text(lines))


def decisions_table(decisions: list[Decision]) -> pa.Table:
    """``decisions_in``: the decisions the SQL applies (times as ISO text in UTC)."""
    return pa.Table.from_pylist(
        [
            {
                "entry_id": d.entry_id,
                "statement_id": d.statement_id,
                "decision": d.decision,
                "decided_by": d.decided_by,
                "decided_at": d.decided_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            }
            for d in decisions
        ],
        schema=DECISIONS_SCHEMA,
    )


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no user name on this machine
        return "unknown"


def _line(decision: Decision) -> list[str]:
    return [
        _cell_out(decision.entry_id),
        _cell_out(decision.statement_id),
        decision.decision,
        _cell_out(decision.decided_by),
        decision.decided_at.isoformat(),
        _cell_out(decision.note),
    ]


#: The cells written by `_cell_out` and read by `_cell_in`: text from outside.
_FREE_TEXT: Final = frozenset({"entry_id", "statement_id", "decided_by", "note"})


def _cell_out(text: str) -> str:
    """A text cell as written: one a spreadsheet would run as a formula gets a leading
    ``'`` (`spreadsheet_text`), and so does one that starts with ``'`` itself, so that
    reading takes exactly one off and gives the text back."""
    return "'" + text if text.startswith("'") else spreadsheet_text(text)


def _cell_in(text: str) -> str:
    """What `_cell_out` wrote, as it was given."""
    return text[1:] if text.startswith("'") else text


def _csv_text(lines: list[list[str]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(REVIEW_COLUMNS)
    writer.writerows(lines)
    return out.getvalue()


def _parse(path: Path, text: str) -> list[Decision]:
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        return []
    header = [cell.strip() for cell in rows[0]]
    missing = [name for name in _REQUIRED if name not in header]
    if missing:
        raise ReviewError(
            f"{path}: the header lacks {', '.join(missing)}; a review file's header is"
            f" {','.join(REVIEW_COLUMNS)}"
        )
    found = []
    for number, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) > len(header):
            raise ReviewError(
                f"{path}, line {number}: {len(row)} fields where the header has {len(header)}"
            )
        cells = {name: (row[i].strip() if i < len(row) else "") for i, name in enumerate(header)}
        cells = {n: _cell_in(v) if n in _FREE_TEXT else v for n, v in cells.items()}
        found.append(_decision(path, number, cells))
    return found


def _decision(path: Path, number: int, cells: dict[str, str]) -> Decision:
    where = f"{path}, line {number}"
    for name in ("entry_id", "statement_id"):
        if not cells[name]:
            raise ReviewError(f"{where}: {name} is empty")
    decision = cells["decision"].lower()
    if decision not in _DECISIONS:
        raise ReviewError(
            f"{where}: decision {cells['decision']!r} is not one of {list(_DECISIONS)}"
        )
    try:
        at = datetime.fromisoformat(cells["decided_at"])
    except ValueError:
        at = None
    if at is None or at.tzinfo is None:
        raise ReviewError(
            f"{where}: decided_at {cells['decided_at']!r} is not a time with an offset"
            " (e.g. 2026-01-16T14:03:00+00:00)"
        )
    return Decision(
        entry_id=cells["entry_id"],
        statement_id=cells["statement_id"],
        decision=decision,  # type: ignore[arg-type]
        decided_by=cells["decided_by"] or "unknown",
        decided_at=at,
        note=cells.get("note", ""),
        line=number,
    )


def _in_force(path: Path, decisions: list[Decision]) -> list[Decision]:
    latest: dict[tuple[str, str], Decision] = {}
    for decision in decisions:
        latest.pop((decision.entry_id, decision.statement_id), None)
        latest[(decision.entry_id, decision.statement_id)] = decision
    kept = list(latest.values())
    for side in ("entry_id", "statement_id"):
        confirmed: dict[str, Decision] = {}
        for decision in kept:
            if decision.decision != "confirmed":
                continue
            key = getattr(decision, side)
            earlier = confirmed.get(key)
            if earlier is not None:
                raise ReviewError(
                    f"{path}, lines {earlier.line} and {decision.line}: {side} {key!r} is"
                    " confirmed with two different pairs; reject one of them"
                )
            confirmed[key] = decision
    return kept
