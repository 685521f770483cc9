"""`LedgerMapPanel`: the ledger mapping panel, a thin view of `LedgerMapDraft`.

Pick the ledger file, see its first rows, choose which column is what from dropdowns
with a live preview of the amounts in R$, and save the mapping beside the ledger.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import ipywidgets as w

from pixops.errors import PixopsError
from pixops.widgets._base import fitted, side_by_side, valid_text, when_clicked
from pixops.widgets._format import ID_STYLE, message, problem, table_shell
from pixops.widgets._ledger_map_model import (
    FIELD_LABELS,
    FORMAT_CHOICES,
    LedgerMapDraft,
    PreviewRow,
)

__all__ = ["LedgerMapPanel"]

#: The dropdowns' "no column" and "detected" choices: text values (ipywidgets shows a
#: None value as an empty box), read back as None by `_chosen`.
_NONE: Final = ("— none —", "")
_DETECT: Final = ("detect", "")
_FORMAT_LABELS: Final = {"amount_unit": "Unit", "decimal": "Decimal", "date_format": "Days"}
_CELL: Final = "padding:3px 8px;vertical-align:top;text-align:{}"
_UNDER: Final = '<br><span style="color:#666;font-size:12px">{}</span>'


def _th(label: str, align: str = "left") -> str:
    return f'<th style="{_CELL.format(align)}">{html.escape(label)}</th>'


def _td(text: str, under: str = "", *, align: str = "left", style: str = "") -> str:
    shown = html.escape(text) + (_UNDER.format(html.escape(under)) if under else "")
    return f'<td style="{_CELL.format(align)};{style}">{shown}</td>'


def columns_table(columns: list[str], rows: list[list[str | None]]) -> str:
    """The file's columns down the side, each with its first values as written: a
    ledger of any width reads in a narrow notebook, and a column is picked by its values."""
    body = "".join(
        "<tr>"
        + _td(column, style="font-weight:600;white-space:nowrap")
        + _td(
            " · ".join("—" if row[n] is None else str(row[n]) for row in rows if n < len(row)),
            style="overflow-wrap:anywhere",  # between values first, inside a long one if it must
        )
        + "</tr>"
        for n, column in enumerate(columns)
    )
    return table_shell(_th("Column") + _th("First values, as written"), body)


def preview_table(rows: list[PreviewRow]) -> str:
    """The first rows as the mapping reads them, four stacked columns (entry and reference,
    amount and way, fee, day and status): amounts in R$ never break."""
    nowrap = "white-space:nowrap"
    body = "".join(
        "<tr>"
        + _td(row.entry_id, row.reference, style=ID_STYLE.replace("user-select:all", ""))
        + _td(row.amount, row.direction, align="right", style=nowrap)
        + _td(row.fee, align="right", style=nowrap)
        + _td(row.booked_on, row.status, style=nowrap)
        + "</tr>"
        for row in rows
    )
    head = _th("Entry, reference") + _th("Amount", "right") + _th("Fee", "right") + _th("Booked on")
    return table_shell(head, body)


class LedgerMapPanel(w.VBox):  # type: ignore[misc]
    """The mapping panel for a ledger file; ``on_saved`` is called with the saved path."""

    def __init__(
        self,
        ledger: str | Path = "",
        *,
        on_saved: Callable[[Path], object] | None = None,
        open_now: bool = True,
    ) -> None:
        self.draft: LedgerMapDraft | None = None
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

    def open_ledger(self) -> None:
        """Read the file's first rows and start a draft (from its saved mapping, if any)."""
        self.save_status.value = ""
        try:
            typed = valid_text(self.path.value.strip(), "ledger path")
            self.draft = LedgerMapDraft(typed)
        except (PixopsError, ValueError, OSError) as error:
            self.draft = None
            self.status.value = message(problem(error), "error")
            self.head.value = self.preview.value = self.read_as.value = ""
            self.save_button.disabled = True
            return
        draft = self.draft
        saved = (
            f" Started from the mapping saved in {draft.saved_from.name}."
            if draft.saved_from
            else ""
        )
        self.status.value = message(
            f"{draft.path.name}: {draft.head.total_rows} rows, {len(draft.columns)} columns;"
            f" the first {len(draft.head.rows)} below.{saved}",
            "info",
        )
        self.head.value = columns_table(draft.columns, draft.head.rows)
        self._showing = True  # the dropdowns are set from the draft, not the other way
        try:
            for field, dropdown in self.fields.items():
                dropdown.options = [_NONE, *[(c, c) for c in draft.columns]]
                dropdown.value = draft.choices[field] or ""
            for name, dropdown in self.formats.items():
                dropdown.value = draft.formats[name] or ""
        finally:
            self._showing = False
        self.refresh()

    def _field_changed(self, field: str) -> Callable[[Any], None]:
        def changed(_: Any) -> None:
            if self.draft is not None and not self._showing:
                self.draft.choose(field, _chosen(self.fields[field].value))
                self.refresh()

        return changed

    def _format_changed(self, name: str) -> Callable[[Any], None]:
        def changed(_: Any) -> None:
            if self.draft is not None and not self._showing:
                self.draft.set_format(name, _chosen(self.formats[name].value))
                self.refresh()

        return changed

    def refresh(self) -> None:
        """The preview of the first rows as the mapping reads them, or why it cannot."""
        self.save_status.value = ""
        if self.draft is None:
            return
        try:
            rows, line = self.draft.preview()
        except (PixopsError, ValueError) as error:
            self.read_as.value = message(problem(error), "warn")
            self.preview.value = ""
            self.save_button.disabled = True
            return
        self.read_as.value = message(line[:1].upper() + line[1:], "ok")
        self.preview.value = preview_table(rows)
        self.save_button.disabled = False

    def save(self) -> None:
        """Save the mapping beside the ledger once the whole file reads with it."""
        if self.draft is None:
            return
        try:
            written, line = self.draft.save()
        except (PixopsError, ValueError, OSError) as error:
            self.save_status.value = message(f"Not saved: {problem(error)}", "error")
            return
        self.save_status.value = message(
            f"Saved {written.name} beside the ledger ({line}); the next Reconcile uses it.",
            "ok",
        )
        if self._on_saved is not None:
            self._on_saved(written)


def _chosen(value: object) -> str | None:
    """A dropdown's value as the draft takes it: "" (none, detect) is None."""
    return str(value) if value else None
