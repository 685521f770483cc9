"""`LedgerMapFlow`: the ledger mapping panel's steps as a plain class (tested without
ipywidgets): open a file, choose columns and formats with the preview kept current, save.

Each step turns what `LedgerMapDraft` says (or refuses) into the lines a person reads;
the panel (`LedgerMapPanel`) only shows this object's state.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

from pixops.errors import PixopsError
from pixops.widgets._base import valid_text
from pixops.widgets._format import problem
from pixops.widgets._ledger_map_model import LedgerMapDraft, PreviewRow
from pixops.widgets._line import Line

__all__ = ["LedgerMapFlow", "in_panel_words"]

#: The ledger reader's advice names the command line's flags; the panel has settings.
_PANEL_WORDS: Final = (
    (
        re.compile(
            r"say their unit with --amount-unit reais, centavos or base"
            r" \(amount_unit in a mapping file or LedgerMapping; "
        ),
        "choose their Unit above (reais, centavos or base; ",
    ),
    (
        re.compile(r"; for amounts in reais give --amount-unit reais \([^)]*\)\)"),
        "; for amounts in reais choose Unit: reais above",
    ),
    (
        re.compile(r"\(--decimal comma or point; decimal in a mapping file\)"),
        "(choose the Decimal mark above: comma or point)",
    ),
    (
        re.compile(r"give --decimal comma or --decimal point \(decimal in a mapping file\)"),
        "choose the Decimal mark above: comma or point",
    ),
    (re.compile(r"give --date-format \(([^)]*)\)"), r"choose the form of the Days above (\1)"),
    (
        re.compile(r"\(--separator (\w+) or (\w+); separator in a mapping file\)"),
        r'(write separator = "\1" or "\2" in the mapping file beside the ledger)',
    ),
    (re.compile(r"--amount-unit"), "Unit"),
    (re.compile(r"--decimal"), "Decimal"),
    (re.compile(r"--date-format"), "Days"),
)


def in_panel_words(text: str) -> str:
    """The reader's `text` with its command-line advice (``--amount-unit reais``) said as
    the panel's settings (its Unit, Decimal and Days dropdowns)."""
    for pattern, words in _PANEL_WORDS:
        text = pattern.sub(words, text)
    return text


class LedgerMapFlow:
    """The mapping being made in the panel: the draft (None before a file opens or when it
    cannot), the status line, how the first rows read (`reading`) with their `rows`, and
    what the last save said (`saved`, with the file in `saved_path`)."""

    def __init__(self) -> None:
        self.draft: LedgerMapDraft | None = None
        self.status = Line()
        self.reading = Line()
        self.rows: list[PreviewRow] = []
        self.saved = Line()
        self.saved_path: Path | None = None

    @property
    def can_save(self) -> bool:
        """The first rows read with the mapping chosen: Save may check the whole file."""
        return self.draft is not None and self.reading.tone == "ok"

    def open(self, typed: str) -> None:
        """Read the first rows of the ledger at ``typed`` and start a draft (from its saved
        mapping, if one is beside it); a path that cannot be read says why."""
        self.saved, self.saved_path = Line(), None
        try:
            self.draft = LedgerMapDraft(valid_text(typed.strip(), "ledger path"))
        except (PixopsError, ValueError, OSError) as error:
            self.draft = None
            self.status = Line(in_panel_words(problem(error)), "error")
            self.reading, self.rows = Line(), []
            return
        draft = self.draft
        saved = (
            f" Started from the mapping saved in {draft.saved_from.name}."
            if draft.saved_from
            else ""
        )
        self.status = Line(
            f"{draft.path.name}: {draft.head.total_rows} rows, {len(draft.columns)} columns;"
            f" the first {len(draft.head.rows)} below.{saved}",
            "info",
        )
        self.refresh()

    def choose(self, field: str, column: str | None) -> None:
        """The ledger's ``column`` holds ``field`` (None: none); the preview follows."""
        if self.draft is not None:
            self.draft.choose(field, column)
            self.refresh()

    def set_format(self, name: str, value: str | None) -> None:
        """A format setting (None: detected); the preview follows."""
        if self.draft is not None:
            self.draft.set_format(name, value)
            self.refresh()

    def refresh(self) -> None:
        """The first rows as the mapping reads them, or why they cannot be read yet."""
        self.saved = Line()
        if self.draft is None:
            return
        try:
            self.rows, line = self.draft.preview()
        except (PixopsError, ValueError) as error:
            self.reading, self.rows = Line(in_panel_words(problem(error)), "warn"), []
            return
        self.reading = Line(line[:1].upper() + line[1:], "ok")

    def save(self) -> Path | None:
        """Save the mapping beside the ledger once the whole file reads with it: the file
        written, or None (and `saved` says why; nothing is written)."""
        if self.draft is None:
            return None
        try:
            written, line = self.draft.save()
        except (PixopsError, ValueError, OSError) as error:
            self.saved = Line(f"Not saved: {in_panel_words(problem(error))}", "error")
            return None
        self.saved = Line(
            f"Saved {written.name} beside the ledger ({line}); the next Reconcile uses it.",
            "ok",
        )
        self.saved_path = written
        return written
