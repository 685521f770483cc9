"""`ReconDashboard`: reconcile business days against the merchant's ledger, then explore.

Run: the statement (one day either side, so a payment across midnight is a timing
difference), the ledger file and, when given, the treasury's balance snapshots plus the
live balance go to `pixops.recon.reconcile`. Explore: a summary per category, charts of
the days (volumes, fees, statuses, findings by category), and each category's rows
with a text filter; Export writes Parquet, CSV and an Excel-friendly file.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import ipywidgets as w

from pixops.errors import PixopsError
from pixops.widgets._base import (
    Clock,
    InvalidTextError,
    Stopped,
    check_client,
    clock_for,
    date_echo,
    fitted,
    side_by_side,
    valid_text,
    when_clicked,
    zone_hint,
)
from pixops.widgets._charts import (
    append_figure,
    fees_by_day_figure,
    findings_figure,
    status_by_day_figure,
    volume_by_day_figure,
)
from pixops.widgets._findings_table import summary_table
from pixops.widgets._format import (
    BUSINESS_TZ,
    brl,
    count_text,
    html_table,
    message,
    plural,
    problem,
    text_of,
    zone_text,
)
from pixops.widgets._recon_rows import (
    DIRECTION_WORDS,
    OTHER_COLUMNS,
    TABLE_COLUMNS,
    finding_row,
)

if TYPE_CHECKING:
    import pandas as pd

    from pixops.client import Client
    from pixops.recon import (
        LedgerMapping,
        NoOpeningBalanceError,
        ReconResult,
        RunInputError,
        Tolerances,
    )

__all__ = ["ReconDashboard", "read_balance_snapshots"]

_SHOWN_ROWS: Final = 200


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


def not_utf8(path: Path) -> str:
    """The words for a file that is not text in UTF-8 or Excel's Windows-1252."""
    return (
        f"The file {path.name} is not text in UTF-8 or in Excel's own encoding: open it in"
        ' Excel or LibreOffice and save it again as "CSV UTF-8"'
    )


class ReconDashboard(w.VBox):  # type: ignore[misc]
    """Reconcile a business day (or a range) and explore what does not match.

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
        check_client(client, "statement", "balance")
        from pixops.frames import parse_day, parse_tz

        parse_tz(tz)  # refuses an unknown zone now, not at the first click
        if not isinstance(ledger, str | Path) and not hasattr(ledger, "columns"):
            raise TypeError("ledger must be a CSV or Parquet path, or a DataFrame")
        if balances is not None and not isinstance(balances, str | Path):
            raise TypeError("balances must be the path of a balance snapshots CSV, or None")
        if not isinstance(out_dir, str | Path):
            raise TypeError("out_dir must be a folder path")
        if not isinstance(ledger_setting, str):
            raise TypeError("ledger_setting must be text, like 'ledger_path'")
        from pixops.recon import LedgerMapping

        if mapping is not None and not isinstance(mapping, LedgerMapping | str | Path):
            raise TypeError("mapping must be a LedgerMapping, the path of a mapping file or None")
        self.mapping = mapping
        from pixops.recon import Tolerances, review_path

        if tolerances is not None and not isinstance(tolerances, Tolerances):
            raise TypeError("tolerances must be a pixops.recon.Tolerances, or None")
        if review_file is not None and not isinstance(review_file, str | Path):
            raise TypeError("review_file must be the path of a review file, or None")
        self.tolerances = tolerances
        #: Where decisions on suggested pairs are kept (None: a DataFrame ledger, no file).
        self.review_file: Path | None = (
            Path(review_file)
            if review_file is not None
            else review_path(ledger)
            if isinstance(ledger, str | Path)
            else None
        )
        from pixops.widgets._review import ReviewPanel
        from pixops.widgets._review_model import ReviewQueue

        self.review = ReviewPanel(
            ReviewQueue(None, self.review_file, reviewer=reviewer), decided=self.run
        )
        self.unit_setting = unit_setting
        self.client = client
        self.ledger = ledger
        #: Where the ledger is set, for the warning when nothing pairs (e.g. ``ledger_path``).
        self.ledger_setting = ledger_setting
        self.balances_path = None if balances is None else Path(balances)
        self.out_dir = Path(out_dir)
        self._now = clock_for(client, now)
        today = self._now().astimezone(BUSINESS_TZ).date()
        chosen = parse_day(day) if day is not None else today - timedelta(days=1)
        self.result: ReconResult | None = None
        self.statement: pd.DataFrame | None = None
        #: Each statement movement's direction in words, by transaction id.
        self._directions: dict[str, str] = {}
        self.written: list[Path] = []
        #: The first and last business day of the result shown (None before a run).
        self.days: tuple[date, date] | None = None

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
        self.export_button = w.Button(description="Export", icon="download", disabled=True)
        self.export_status = w.HTML()

        when_clicked(self.run_button, self.run, busy=True)
        self.category.observe(lambda _: self._show_table(), names="value")
        self.filter.observe(lambda _: self._show_table(), names="value")
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

    # -- running ---------------------------------------------------------------------

    def run(self) -> None:
        """Load the statement, reconcile, and show the summary, charts and findings."""
        from pixops.frames import parse_tz
        from pixops.recon import DayNotComeError, NoOpeningBalanceError, RunInputError, run_days

        first, last, tz = self.first_day.value, self.last_day.value, self.tz.value.strip()
        if first is None or last is None:
            self._refuse("Choose the first and the last business day.")
            return
        if last < first:
            self._refuse("The last day is before the first one.")
            return
        if not tz:
            self._refuse("Type the time zone the days are counted in, like America/Sao_Paulo.")
            return
        try:
            valid_text(tz, "time zone")
        except InvalidTextError as error:
            self._refuse(str(error))
            return
        try:
            parse_tz(tz)
        except ValueError:
            self._refuse(f"Unknown time zone “{tz}”: {zone_hint(tz)}")
            return
        try:
            days = run_days(
                self.client,
                first,
                last,
                ledger=self.ledger,
                balances=self.balances_path,
                tz=tz,
                mapping=self.ledger_mapping(),
                tolerances=self.rule_tolerances(),
                review_file=self.review_file,
                now=self._now(),
            )
        except DayNotComeError as error:
            self._refuse(
                f"{error.last:%d/%m/%Y} has not happened yet (today is {error.today:%d/%m/%Y}): "
                "choose a day up to today."
            )
            return
        except NoOpeningBalanceError as error:
            opening = ValueError(_no_opening(error))
            self._refuse(f"The reconciliation could not run. {self._why(opening)}")
            return
        except RunInputError as error:
            self._refuse(f"The reconciliation could not run. {self._input_why(error)}")
            return
        except (PixopsError, ValueError, OSError) as error:
            self._refuse(f"The reconciliation could not run. {self._why(error)}")
            return
        statement, result = days.statement_frame(), days.result
        self.statement, self.result, self.days = statement, result, (first, last)
        self._directions = {
            str(movement): DIRECTION_WORDS.get(str(way), str(way))
            for movement, way in zip(
                statement["transaction_id"], statement["direction"], strict=True
            )
            if movement is not None
        }
        self.export_status.value = ""  # an export of the previous run no longer applies
        self._render(first, last, tz)

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

    def ledger_mapping(self) -> LedgerMapping | None:
        """The mapping the next run reads the ledger with: the one given (a mapping file
        is read again each run), else the one saved beside the ledger, else None."""
        from pixops.recon import find_mapping, read_mapping

        if isinstance(self.mapping, str | Path):
            return read_mapping(self.mapping)
        if self.mapping is not None:
            return self.mapping
        saved = find_mapping(self.ledger) if isinstance(self.ledger, str | Path) else None
        return None if saved is None else read_mapping(saved)

    def rule_tolerances(self) -> Tolerances | None:
        """The tolerances the next run uses: the ones given, else the ``[tolerances]`` of
        the mapping file (given, or saved beside the ledger), else None (exact)."""
        from pixops.recon import find_mapping, read_tolerances

        if self.tolerances is not None:
            return self.tolerances
        if isinstance(self.mapping, str | Path):
            return read_tolerances(self.mapping)
        if self.mapping is not None or not isinstance(self.ledger, str | Path):
            return None
        saved = find_mapping(self.ledger)
        return None if saved is None else read_tolerances(saved)

    @property
    def status_text(self) -> str:
        """The status line as text: what the last run found, or why it could not run."""
        return text_of(self.status.value)

    def require_result(self) -> ReconResult:
        """The result of the last run; a notebook's Run All stops here, with the status
        line as its one line of output, when there is none (a file, a day, the service)."""
        if self.result is None:
            raise Stopped(self.status_text or "Reconcile first.")
        return self.result

    def _refuse(self, text: str) -> None:
        """An error in the status line; a result already shown stays, saying whose days."""
        if self.days is not None:
            text += f" Below: still {_days_text(*self.days)}."
        self._set_status(text, "error")

    def _why(self, error: BaseException) -> str:
        """A failure in words: the service's in plain sentences, a file's by its name."""
        cause: BaseException | None = error
        while cause is not None:
            if isinstance(cause, UnicodeDecodeError) and isinstance(self.ledger, str | Path):
                return not_utf8(Path(self.ledger)) + "."
            cause = cause.__cause__ or (None if cause.__suppress_context__ else cause.__context__)
        return problem(error)

    def _input_why(self, error: RunInputError) -> str:
        """A ledger or snapshots file that cannot be used, in words: a snapshots file
        that is not text says how to save it, as `read_balance_snapshots` does."""
        cause = error.__cause__ if error.__cause__ is not None else error
        if (
            error.setting == "balances"
            and self.balances_path is not None
            and isinstance(cause.__cause__, UnicodeDecodeError)
        ):
            return problem(ValueError(not_utf8(self.balances_path)))
        return self._why(cause)

    # -- showing ---------------------------------------------------------------------

    def _render(self, first: date, last: date, tz: str) -> None:
        from pixops.recon import ATTENTION_CATEGORIES, CATEGORY_LABELS

        result, statement = self.result, self.statement
        assert result is not None
        assert statement is not None
        counts = result.counts
        findings = sum(counts[c] for c in ATTENTION_CATEGORIES)
        days = _days_text(first, last)
        # A boolean Series, not a list: an empty list would select no columns, not no rows.
        days_in = statement["created_at"].dt.tz_convert(tz).dt.date
        window = statement[((days_in >= first) & (days_in <= last)).astype(bool)]
        nothing = window.empty and not findings and not counts["matched"]
        foreign = result.ledger_warning(self.ledger, setting=self.ledger_setting)
        reading = result.ledger_reading
        name = Path(self.ledger).name if isinstance(self.ledger, str | Path) else "The ledger"
        self.ledger_line.value = (
            "" if reading is None else message(f"{name} {reading.line()}.", "info")
        )
        hint = result.unit_hint(self.unit_setting)
        if hint is not None:  # first: the findings below follow from it
            self._set_status(
                f"{hint} {days} ({zone_text(tz)}): {count_text(counts['matched'])} matched,"
                f" {plural(findings, 'finding')} to check.",
                "error",
            )
        elif foreign is not None:  # nothing paired: say why before the hundreds of findings
            self._set_status(
                f"{days} ({zone_text(tz)}): {count_text(counts['matched'])} matched,"
                f" {plural(findings, 'finding')} to check. {foreign}",
                "error",
            )
        elif nothing:
            self._set_status(
                f"{days} ({zone_text(tz)}): no movement in the statement and no entry in the"
                " ledger: nothing to reconcile.",
                "info",
            )
        elif findings:
            self._set_status(
                f"{days} ({zone_text(tz)}): {count_text(counts['matched'])} matched,"
                f" {plural(findings, 'finding')} to check.",
                "warn",
            )
        else:
            self._set_status(
                f"{days} ({zone_text(tz)}): {count_text(counts['matched'])} matched,"
                " nothing to check.",
                "ok",
            )
        # The categories' names wrap and the ledger's sum sits above the statement's, so
        # the statement and difference stay in sight at 800 px beside Lab's file browser.
        self.summary.value = summary_table(result).markup
        self.review.show(result)
        self.charts.outputs = ()
        # Charts of a day with nothing on it would be four empty frames.
        figures = (
            ()
            if nothing
            else (
                findings_figure(result),
                volume_by_day_figure(window, tz),
                fees_by_day_figure(window, tz),
                status_by_day_figure(window, tz),
            )
        )
        for figure in figures:
            append_figure(self.charts, figure)
        if not result.rollforward.empty:
            append_figure(self.charts, result.rollforward_figure())
        options = [
            (f"{CATEGORY_LABELS.get(c, c)} ({counts[c]})", c)
            for c in ("matched", "rounding", *ATTENTION_CATEGORIES)
            if counts[c] or c not in ("matched", "rounding")
        ]
        self.category.options = options
        shown = {value for _, value in options}
        first_finding = next(
            (c for c in ATTENTION_CATEGORIES if counts[c]),
            "matched" if "matched" in shown else options[0][1],
        )
        if self.category.value == first_finding:
            self._show_table()
        else:
            self.category.value = first_finding
        self.export_button.disabled = False

    def rows(self) -> list[dict[str, Any]]:
        """The rows of the chosen category that contain the filter text."""
        if self.result is None or self.category.value is None:
            return []
        frame = self.result.category(self.category.value)
        records = [{str(k): v for k, v in r.items()} for r in frame.to_dict(orient="records")]
        needle = " ".join(self.filter.value.split()).casefold()
        if needle:
            records = [r for r in records if needle in self._searchable(r)]
        return records

    def _searchable(self, record: dict[str, Any]) -> str:
        """A row's text as its table shows it (reais, dd/mm/yyyy, the direction), ISO days too."""
        words = [self._directions.get(str(record.get("transaction_id")), "")]
        for key, value in finding_row(record).items():
            if key.endswith("_base") and value is not None:
                words.append(brl(value))
            elif isinstance(value, date):
                words.append(f"{value:%d/%m/%Y} {value.isoformat()}")
            elif value is not None:
                words.append(str(value))
        return "\n".join(words).casefold()

    def _show_table(self) -> None:
        records = self.rows()
        shown = [finding_row(r) for r in records[:_SHOWN_ROWS]]
        for row in shown:
            row["direction"] = self._directions.get(str(row.get("transaction_id")))
        candidates = TABLE_COLUMNS.get(str(self.category.value), OTHER_COLUMNS)
        # Only columns that say something for these rows: a table of dashes is wider, not clearer.
        columns = [
            (k, label) for k, label in candidates if any(r.get(k) is not None for r in shown)
        ]
        more = len(records) - len(shown)
        note = (
            f"<p><i>{plural(more, 'more row')}: narrow the filter or export.</i></p>"
            if more > 0
            else ""
        )
        self.table.value = (
            html_table(
                shown,
                columns,
                money_columns={k for k, _ in columns if k.endswith("_base")},
                # Ids wrap at 1024 px; a balance's "Transaction" is words, not an id.
                id_columns=()
                if self.category.value == "balance_difference"
                else {"transaction_id", "ledger_reference"},
                empty=self._no_rows(),
            )
            + note
        )

    def _no_rows(self) -> str:
        """What an empty table says: with a filter, that the filter hides the rows and how
        to see them ("No rows." alone read as a category with nothing in it)."""
        typed = " ".join(self.filter.value.split())
        if not typed or self.result is None or self.category.value is None:
            return "No rows."
        try:
            valid_text(typed, "filter")
        except InvalidTextError as error:
            return f"No rows. {error}"
        total = len(self.result.category(self.category.value))
        if not total:
            return "No rows."
        from pixops.recon import CATEGORY_LABELS

        category = CATEGORY_LABELS.get(self.category.value, self.category.value)
        rows = f"{plural(total, 'row')} of {category}"
        return f"No rows. None of the {rows} contains “{typed}”: change or clear the Filter."

    def export(self) -> None:
        """Write the result's frames (Parquet, CSV, Excel-friendly CSV) under `out_dir`."""
        if self.result is None:
            self.export_status.value = message("Reconcile first.", "error")
            return
        # The result's days, not the pickers' (changed since, perhaps, without a run).
        first, last = self.days if self.days is not None else (None, None)
        name = f"recon-{first}" if first == last else f"recon-{first}-to-{last}"
        try:
            self.written = self.result.write(self.out_dir / name)
        except OSError as error:
            why = error.strerror or str(error)  # "Permission denied", without the errno
            self.export_status.value = message(
                f"Could not write the files in {self.out_dir}: {why}.", "error"
            )
            return
        # The time of writing (a second export reads as a new one), in São Paulo time as
        # every time the panels show: the machine's own clock may run on UTC.
        at = datetime.now(BUSINESS_TZ).strftime("%H:%M:%S")
        self.export_status.value = message(
            f"Exported {len(self.written)} files at {at} ({zone_text(BUSINESS_TZ)}) to"
            f" {self.out_dir / name} (discrepancies_excel.csv opens in Excel with reais).",
            "ok",
        )

    def _set_status(self, text: str, tone: str = "info") -> None:
        self.status.value = message(text, tone) if text else ""


def _no_opening(error: NoOpeningBalanceError) -> str:
    """No balance to count from, in the panel's words (São Paulo time)."""
    start = error.start_at.astimezone(BUSINESS_TZ)
    first_known = (
        ""
        if error.first_at is None
        else f"; its first is at {error.first_at.astimezone(BUSINESS_TZ):%d/%m/%Y %H:%M}"
    )
    return (
        f"the balance snapshots file has no balance at the start of {start:%d/%m/%Y} "
        f"to count from{first_known} (São Paulo time)"
    )


def _days_text(first: date, last: date) -> str:
    return first.strftime("%d/%m/%Y") + ("" if first == last else f" to {last:%d/%m/%Y}")
