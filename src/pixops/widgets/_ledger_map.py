"""`LedgerMapPanel`: the ledger mapping panel, a thin view of `LedgerMapFlow`.

Pick the ledger file, see its first rows, choose which column is what from dropdowns
with a live preview of the amounts in R$, and save the mapping beside the ledger.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import ipywidgets as w
import traitlets

from pixops.widgets._base import fitted, side_by_side, when_clicked
from pixops.widgets._format import message
from pixops.widgets._ledger_map_flow import LedgerMapFlow
from pixops.widgets._ledger_map_html import columns_table, preview_table
from pixops.widgets._ledger_map_model import FIELD_LABELS, FORMAT_CHOICES, LedgerMapDraft
from pixops.widgets._line import Line

__all__ = ["LedgerMapPanel"]

#: The dropdowns' "no column" and "detected" choices: text values (ipywidgets shows a
#: None value as an empty box), read back as None by `_chosen`.
_NONE: Final = ("— none —", "")
_DETECT: Final = ("detect", "")
_FORMAT_LABELS: Final = {"amount_unit": "Unit", "decimal": "Decimal", "date_format": "Days"}


class LedgerMapPanel(w.VBox):  # type: ignore[misc]
    """The mapping panel for a ledger file; ``on_saved`` is called with the saved path.

    A view over `LedgerMapFlow` (`.flow`): its state shows in the widgets and as traitlets
    (`ledger_path`, `status_text`, `reading_text`, `can_save`, `saved_path`)."""

    #: The ledger file open in the panel ("" when none reads).
    ledger_path = traitlets.Unicode("", read_only=True)
    #: The status line as text (the file's size, or why it cannot be read).
    status_text = traitlets.Unicode("", read_only=True)
    #: How the first rows read with the mapping, or what is still to choose.
    reading_text = traitlets.Unicode("", read_only=True)
    #: The mapping reads the first rows: Save may check the whole file.
    can_save = traitlets.Bool(False, read_only=True)
    #: The mapping file the last Save wrote ("" for none).
    saved_path = traitlets.Unicode("", read_only=True)

    def __init__(
        self,
        ledger: str | Path = "",
        *,
        on_saved: Callable[[Path], object] | None = None,
        open_now: bool = True,
    ) -> None:
        self.flow = LedgerMapFlow()
        self._on_saved = on_saved
        self._showing = False
        self.path = w.Text(
            description="Ledger",
            value=str(ledger),
            placeholder="path of the ledger CSV or Parquet file",
            layout=fitted("520px"),
        )
        self.open_button = w.Button(description="Open", icon="folder-open")
        self.status = w.HTML()
        self.head = w.HTML()
        self.fields = {
            field: w.Dropdown(description=label, options=[], layout=fitted("300px"))
            for field, label in FIELD_LABELS.items()
        }
        self.formats = {
            name: w.Dropdown(
                description=_FORMAT_LABELS[name],
                options=[_DETECT, *[(v, v) for v in FORMAT_CHOICES[name]]],
                layout=fitted("240px"),
            )
            for name in FORMAT_CHOICES
        }
        self.preview = w.HTML()
        self.read_as = w.HTML()
        self.save_button = w.Button(description="Save mapping", icon="save", disabled=True)
        self.save_status = w.HTML()
        when_clicked(self.open_button, self.open_ledger)
        when_clicked(self.save_button, self.save)
        for field, dropdown in self.fields.items():
            dropdown.observe(self._field_changed(field), names="value")
        for name, dropdown in self.formats.items():
            dropdown.observe(self._format_changed(name), names="value")
        super().__init__(
            [
                side_by_side(self.path, self.open_button),
                self.status,
                self.head,
                w.HTML("<b>Which column is what</b>"),
                side_by_side(*self.fields.values()),
                side_by_side(*self.formats.values()),
                self.read_as,
                self.preview,
                side_by_side(self.save_button),
                self.save_status,
            ]
        )
        if str(ledger) and open_now:
            self.open_ledger()

    @property
    def draft(self) -> LedgerMapDraft | None:
        """The flow's draft: the mapping being made (None when no file reads)."""
        return self.flow.draft

    def open_ledger(self) -> None:
        """Read the typed file's first rows and start a draft (from its saved mapping)."""
        self.flow.open(self.path.value)
        draft = self.flow.draft
        self.head.value = "" if draft is None else columns_table(draft.columns, draft.head.rows)
        if draft is not None:
            self._showing = True  # the dropdowns are set from the draft, not the other way
            try:
                for field, dropdown in self.fields.items():
                    dropdown.options = [_NONE, *[(c, c) for c in draft.columns]]
                    dropdown.value = draft.choices[field] or ""
                for name, dropdown in self.formats.items():
                    dropdown.value = draft.formats[name] or ""
            finally:
                self._showing = False
        self._show()

    def _field_changed(self, field: str) -> Callable[[Any], None]:
        def changed(_: Any) -> None:
            if not self._showing:
                self.flow.choose(field, _chosen(self.fields[field].value))
                self._show()

        return changed

    def _format_changed(self, name: str) -> Callable[[Any], None]:
        def changed(_: Any) -> None:
            if not self._showing:
                self.flow.set_format(name, _chosen(self.formats[name].value))
                self._show()

        return changed

    def refresh(self) -> None:
        """The preview of the first rows as the mapping reads them, or why it cannot."""
        self.flow.refresh()
        self._show()

    def save(self) -> None:
        """Save the mapping beside the ledger once the whole file reads with it."""
        written = self.flow.save()
        self._show()
        if written is not None and self._on_saved is not None:
            self._on_saved(written)

    def _show(self) -> None:
        """Every widget and trait from the flow's state."""
        flow = self.flow
        self.status.value = _line(flow.status)
        self.read_as.value = _line(flow.reading)
        self.preview.value = preview_table(flow.rows) if flow.rows else ""
        self.save_status.value = _line(flow.saved)
        self.save_button.disabled = not flow.can_save
        self.set_trait("ledger_path", "" if flow.draft is None else str(flow.draft.path))
        self.set_trait("status_text", flow.status.text)
        self.set_trait("reading_text", flow.reading.text)
        self.set_trait("can_save", flow.can_save)
        self.set_trait("saved_path", "" if flow.saved_path is None else str(flow.saved_path))


def _line(line: Line) -> str:
    return message(line.text, line.tone) if line.text else ""


def _chosen(value: object) -> str | None:
    """A dropdown's value as the draft takes it: "" (none, detect) is None."""
    return str(value) if value else None
