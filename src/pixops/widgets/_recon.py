"""`ReconDashboard`: reconcile business days against the merchant's ledger, then explore.

Run: the statement (one day either side, so a payment across midnight is a timing
difference), the ledger file and, when given, the treasury's balance snapshots plus the
live balance go to `pixops.recon.reconcile`. Explore: a summary per category, charts of
the days (volumes, fees, statuses, findings by category), and each category's rows
with a text filter; Export writes Parquet, CSV and an Excel-friendly file.
The steps are `ReconFlow`'s (a plain class); this panel only shows its state.
"""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import ipywidgets as w
import traitlets

from pixops.widgets._base import (
    Clock,
    date_echo,
    fitted,
    side_by_side,
    when_clicked,
)
from pixops.widgets._charts import append_figure
from pixops.widgets._findings_table import summary_table
from pixops.widgets._format import message, text_of
from pixops.widgets._line import Line
from pixops.widgets._recon_flow import ReconFlow, not_utf8
from pixops.widgets._recon_html import day_figures, table_html

if TYPE_CHECKING:
    import pandas as pd

    from pixops.client import Client
    from pixops.recon import LedgerMapping, ReconResult, Tolerances

__all__ = ["ReconDashboard", "read_balance_snapshots"]


def read_balance_snapshots(path: str | Path) -> list[tuple[datetime, int]]:
    """Balance snapshots from a CSV with ``as_of`` (ISO 8601 with zone) and ``balance_base``
    (`pixops.recon.read_balances`); a file that is not text says how to save it."""
    from pixops.recon import read_balances

    try:
        return read_balances(path)
    except ValueError as error:
        if isinstance(error.__cause__, UnicodeDecodeError):
            raise ValueError(not_utf8(Path(path))) from None
        raise


class ReconDashboard(w.VBox):  # type: ignore[misc]
    """Reconcile a business day (or a range) and explore what does not match.

    A view over `ReconFlow` (`.flow`): its state shows in the widgets and as traitlets
    (`status_text`, `findings`, `category_shown`, `can_export`, `export_text`).

    ``ledger_setting`` names where the ledger is set (``ledger_path`` in a notebook): the
    status line names it when not one ledger entry pairs with the statement
    (`ReconResult.ledger_warning`). ``mapping``: the ledger's `LedgerMapping` or the path
    of a mapping file; None reads the one saved beside the ledger at each run, as the
    *Ledger mapping* panel below the status line saves it. ``unit_setting`` says how to
    set the unit when the ledger's looks wrong (`ReconResult.unit_hint`).

    The rules beyond identifiers (docs/reconciliation-rules.md): ``tolerances`` (None: the
    ``[tolerances]`` of the mapping file, else exact); ``review_file`` (None: the
    ``<ledger>.review.csv`` beside a ledger file), where the *Pairs to review* panel saves
    a person's decisions (who: ``reviewer``, else this machine's user) and every run
    reads them."""

    #: The status line as text: what the last run found, or why it could not run.
    status_text = traitlets.Unicode("", read_only=True)
    #: How many items of the result shown need a person's attention.
    findings = traitlets.Int(0, read_only=True)
    #: The category whose rows the table shows (None before a run).
    category_shown = traitlets.Unicode(None, allow_none=True, read_only=True)
    #: A result is shown: Export can write it.
    can_export = traitlets.Bool(False, read_only=True)
    #: What the last Export said, as text.
    export_text = traitlets.Unicode("", read_only=True)

    def __init__(
        self,
        client: Client,
        ledger: str | Path | pd.DataFrame,
        *,
        day: date | str | None = None,
        balances: str | Path | None = None,
        tz: str = "America/Sao_Paulo",
        out_dir: str | Path = "data/out",
        now: Clock | None = None,
        ledger_setting: str = "the dashboard's ledger",
        mapping: LedgerMapping | str | Path | None = None,
        unit_setting: str = 'amount_unit = "{unit}" in the ledger mapping',
        tolerances: Tolerances | None = None,
        review_file: str | Path | None = None,
        reviewer: str | None = None,
    ) -> None:
        from pixops.frames import parse_day, parse_tz

        self.flow = ReconFlow.open(
            client,
            ledger,
            now,
            balances=balances,
            out_dir=out_dir,
            ledger_setting=ledger_setting,
            mapping=mapping,
            unit_setting=unit_setting,
            tolerances=tolerances,
            review_file=review_file,
            reviewer=reviewer,
        )
        parse_tz(tz)  # refuses an unknown zone now, not at the first click
        chosen = parse_day(day) if day is not None else self.flow.yesterday()
        from pixops.widgets._review import ReviewPanel

        self.review = ReviewPanel(self.flow.queue, decided=self.run)
        self._quiet = False  # the category list is being filled: no table to draw

        self.first_day = w.DatePicker(description="From", value=chosen)
        self.last_day = w.DatePicker(description="To", value=chosen)
        self.tz = w.Text(description="Time zone", value=tz)
        self.run_button = w.Button(description="Reconcile", button_style="primary", icon="play")
        self.status = w.HTML()
        #: How the ledger was read, in one line (`LedgerReading.line`).
        self.ledger_line = w.HTML()
        self.summary = w.HTML()
        self.charts = w.Output()
        self.category = w.Dropdown(description="Show", options=[], layout=fitted("420px"))
        self.filter = w.Text(description="Filter", placeholder="reference, transaction or text")
        self.table = w.HTML()
        self.table.add_class("pixops-rows")
        self.export_button = w.Button(description="Export", icon="download", disabled=True)
        self.export_status = w.HTML()

        when_clicked(self.run_button, self.run, busy=True)
        self.category.observe(self._chosen, names="value")
        self.filter.observe(lambda change: self._filtered(change["new"]), names="value")
        self.export_button.on_click(lambda _: self.export())
        super().__init__(
            [
                w.HTML("<h3 style='margin:4px 0'>Reconciliation</h3>"),
                side_by_side(
                    side_by_side(self.first_day, date_echo(self.first_day)),
                    side_by_side(self.last_day, date_echo(self.last_day)),
                ),
                side_by_side(self.tz, self.run_button),
                self.status,
                self.ledger_line,
                *self._mapping_section(),
                self.summary,
                self.review,
                self.charts,
                side_by_side(self.category, self.filter, self.export_button),
                self.export_status,
                self.table,
            ]
        )

    # -- what the flow holds -----------------------------------------------------

    @property
    def client(self) -> Client:
        return self.flow.client

    @property
    def ledger(self) -> str | Path | pd.DataFrame:
        return self.flow.ledger

    @property
    def ledger_setting(self) -> str:
        """Where the ledger is set, for the warning when nothing pairs (``ledger_path``)."""
        return self.flow.ledger_setting

    @property
    def unit_setting(self) -> str:
        return self.flow.unit_setting

    @property
    def mapping(self) -> LedgerMapping | str | Path | None:
        return self.flow.mapping

    @property
    def tolerances(self) -> Tolerances | None:
        return self.flow.tolerances

    @property
    def review_file(self) -> Path | None:
        """Where decisions on suggested pairs are kept (None: a DataFrame ledger, no file)."""
        return self.flow.review_file

    @property
    def balances_path(self) -> Path | None:
        return self.flow.balances_path

    @property
    def out_dir(self) -> Path:
        return self.flow.out_dir

    @property
    def result(self) -> ReconResult | None:
        """The result of the last run that could run."""
        return self.flow.result

    @property
    def statement(self) -> pd.DataFrame | None:
        return self.flow.statement

    @property
    def days(self) -> tuple[date, date] | None:
        """The first and last business day of the result shown (None before a run)."""
        return self.flow.days

    @property
    def written(self) -> list[Path]:
        """The files the last Export wrote."""
        return self.flow.written

    # -- the steps ---------------------------------------------------------------

    def run(self) -> None:
        """Load the statement, reconcile, and show the summary, charts and findings."""
        if self.flow.run(self.first_day.value, self.last_day.value, self.tz.value):
            self._render()
        else:
            self._show_status()

    def ledger_mapping(self) -> LedgerMapping | None:
        """The mapping the next run reads the ledger with (`ReconFlow.ledger_mapping`)."""
        return self.flow.ledger_mapping()

    def rule_tolerances(self) -> Tolerances | None:
        """The tolerances the next run uses (`ReconFlow.rule_tolerances`)."""
        return self.flow.rule_tolerances()

    def require_result(self) -> ReconResult:
        """The result of the last run; a notebook's Run All stops here, with the status
        line as its one line of output, when there is none (a file, a day, the service)."""
        return self.flow.require_result()

    def rows(self) -> list[dict[str, Any]]:
        """The rows of the chosen category that contain the filter text."""
        return self.flow.rows()

    def export(self) -> None:
        """Write the result's frames (Parquet, CSV, Excel-friendly CSV) under `out_dir`."""
        self.flow.export()
        self._show_export()

    def _chosen(self, change: dict[str, Any]) -> None:
        if not self._quiet:
            self.flow.choose(change["new"])
            self._show_table()

    def _filtered(self, text: str) -> None:
        self.flow.filter(text)
        self._show_table()

    def _mapping_section(self) -> list[Any]:
        """The *Ledger mapping* panel, folded (opened on first unfolding), for a ledger
        file; a DataFrame has its columns already."""
        if not isinstance(self.ledger, str | Path):
            self.mapping_panel = None
            return []
        from pixops.widgets._ledger_map import LedgerMapPanel

        self.mapping_panel = LedgerMapPanel(self.ledger, open_now=False)
        fold = w.Accordion(children=[self.mapping_panel], selected_index=None)
        fold.set_title(0, "Ledger mapping: columns and units")
        panel = self.mapping_panel

        def unfolded(change: dict[str, Any]) -> None:
            if change["new"] == 0 and panel.draft is None:
                panel.open_ledger()

        fold.observe(unfolded, names="selected_index")
        return [fold]

    # -- showing -------------------------------------------------------------------

    def _render(self) -> None:
        """Every part of a new result: status, ledger line, summary, pairs, charts, table."""
        flow = self.flow
        result = flow.require_result()
        self._show_status()
        self.ledger_line.value = message(flow.ledger_line, "info") if flow.ledger_line else ""
        # The categories' names wrap and the ledger's sum sits above the statement's, so
        # the statement and difference stay in sight at 800 px beside Lab's file browser.
        self.summary.value = summary_table(result).markup
        self.review.renew()  # the flow's run loaded its queue
        self.charts.outputs = ()
        for figure in day_figures(flow):
            append_figure(self.charts, figure)
        self._quiet = True
        try:
            self.category.options = flow.categories()
            self.category.value = flow.category
        finally:
            self._quiet = False
        self._show_table()
        self.export_button.disabled = not flow.can_export
        self.set_trait("can_export", flow.can_export)
        self._show_export()

    def _show_table(self) -> None:
        self.table.value = table_html(self.flow.page())
        self.set_trait("category_shown", self.flow.category)

    def _show_status(self) -> None:
        line = self.flow.status
        self.status.value = message(line.text, line.tone) if line.text else ""
        self.set_trait("status_text", text_of(self.status.value))
        self.set_trait("findings", self.flow.findings)

    def _show_export(self) -> None:
        line: Line = self.flow.export_line
        self.export_status.value = message(line.text, line.tone) if line.text else ""
        self.set_trait("export_text", text_of(self.export_status.value))
