"""`ReconFlow`: the reconciliation dashboard's steps as a plain class, testable without
ipywidgets.

Pick the days and the zone → run (`pixops.recon.run_days`: the statement one day either
side, the ledger, the balance snapshots) → choose a category and filter its rows → review
the suggested pairs (`ReviewQueue`) → export. Each step reads and writes this object's
state; the dashboard (`ReconDashboard`) only shows it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

from pixops.errors import PixopsError
from pixops.widgets._base import (
    Clock,
    InvalidTextError,
    Stopped,
    check_client,
    clock_for,
    valid_text,
    zone_hint,
)
from pixops.widgets._format import (
    BUSINESS_TZ,
    brl,
    count_text,
    plural,
    problem,
    zone_text,
)
from pixops.widgets._line import Line
from pixops.widgets._recon_rows import (
    DIRECTION_WORDS,
    OTHER_COLUMNS,
    TABLE_COLUMNS,
    finding_row,
)
from pixops.widgets._review_model import ReviewQueue

if TYPE_CHECKING:
    import pandas as pd

    from pixops.client import Client
    from pixops.recon import (
        Decision,
        LedgerMapping,
        NoOpeningBalanceError,
        ReconResult,
        RunInputError,
        Tolerances,
    )

__all__ = ["ReconFlow", "TablePage", "not_utf8"]

#: The rows a category's table draws; the rest are counted ("narrow the filter or export").
SHOWN_ROWS: Final = 200


def not_utf8(path: Path) -> str:
    """The words for a file that is not text in UTF-8 or Excel's Windows-1252."""
    return (
        f"The file {path.name} is not text in UTF-8 or in Excel's own encoding: open it in"
        ' Excel or LibreOffice and save it again as "CSV UTF-8"'
    )


@dataclass(frozen=True)
class TablePage:
    """What a category's table draws: its first rows as shown, the columns that say
    something for them, how many more there are, and what it says when empty."""

    rows: list[dict[str, Any]]
    columns: list[tuple[str, str]]
    more: int
    ids_wrap: bool
    empty: str


@dataclass
class ReconFlow:
    """Reconcile business days against the merchant's ledger, then explore the findings.

    The arguments are `ReconDashboard`'s (checked here, each with its one-line error)."""

    client: Client
    ledger: str | Path | pd.DataFrame
    now: Clock
    balances_path: Path | None = None
    out_dir: Path = Path("data/out")
    ledger_setting: str = "the dashboard's ledger"
    mapping: LedgerMapping | str | Path | None = None
    unit_setting: str = 'amount_unit = "{unit}" in the ledger mapping'
    tolerances: Tolerances | None = None
    #: Where decisions on suggested pairs are kept (None: a DataFrame ledger, no file).
    review_file: Path | None = None
    reviewer: str | None = None
    #: The suggested pairs of the last run, and the decisions taken on them.
    queue: ReviewQueue = field(init=False)
    result: ReconResult | None = field(default=None, init=False)
    statement: pd.DataFrame | None = field(default=None, init=False)
    #: The first and last business day of the result held (None before a run).
    days: tuple[date, date] | None = field(default=None, init=False)
    #: The zone the result's days are counted in.
    tz: str = field(default="America/Sao_Paulo", init=False)
    #: Each statement movement's direction in words, by transaction id.
    directions: dict[str, str] = field(default_factory=dict, init=False)
    #: The status line: what the last run found, or why it could not run.
    status: Line = field(default_factory=Line, init=False)
    #: How the ledger was read, in one line (`LedgerReading.line`); empty before a run.
    ledger_line: str = field(default="", init=False)
    #: The category whose rows are shown, and the filter typed over them.
    category: str | None = field(default=None, init=False)
    filter_text: str = field(default="", init=False)
    #: What the last export wrote, and the line saying so.
    written: list[Path] = field(default_factory=list, init=False)
    export_line: Line = field(default_factory=Line, init=False)

    def __post_init__(self) -> None:
        self.queue = ReviewQueue(None, self.review_file, reviewer=self.reviewer)

    @classmethod
    def open(
        cls,
        client: Client,
        ledger: str | Path | pd.DataFrame,
        now: Clock | None = None,
        *,
        balances: str | Path | None = None,
        out_dir: str | Path = "data/out",
        ledger_setting: str = "the dashboard's ledger",
        mapping: LedgerMapping | str | Path | None = None,
        unit_setting: str = 'amount_unit = "{unit}" in the ledger mapping',
        tolerances: Tolerances | None = None,
        review_file: str | Path | None = None,
        reviewer: str | None = None,
    ) -> ReconFlow:
        """A flow over `ReconDashboard`'s arguments, each checked with its one-line error;
        ``now`` None: the service's clock; ``review_file`` None: the ``<ledger>.review.csv``
        beside a ledger file."""
        check_client(client, "statement", "balance")
        clock = clock_for(client, now)
        if not isinstance(ledger, str | Path) and not hasattr(ledger, "columns"):
            raise TypeError("ledger must be a CSV or Parquet path, or a DataFrame")
        if balances is not None and not isinstance(balances, str | Path):
            raise TypeError("balances must be the path of a balance snapshots CSV, or None")
        if not isinstance(out_dir, str | Path):
            raise TypeError("out_dir must be a folder path")
        if not isinstance(ledger_setting, str):
            raise TypeError("ledger_setting must be text, like 'ledger_path'")
        from pixops.recon import LedgerMapping, Tolerances, review_path

        if mapping is not None and not isinstance(mapping, LedgerMapping | str | Path):
            raise TypeError("mapping must be a LedgerMapping, the path of a mapping file or None")
        if tolerances is not None and not isinstance(tolerances, Tolerances):
            raise TypeError("tolerances must be a pixops.recon.Tolerances, or None")
        if review_file is not None and not isinstance(review_file, str | Path):
            raise TypeError("review_file must be the path of a review file, or None")
        return cls(
            client,
            ledger,
            clock,
            balances_path=None if balances is None else Path(balances),
            out_dir=Path(out_dir),
            ledger_setting=ledger_setting,
            mapping=mapping,
            unit_setting=unit_setting,
            tolerances=tolerances,
            review_file=(
                Path(review_file)
                if review_file is not None
                else review_path(ledger)
                if isinstance(ledger, str | Path)
                else None
            ),
            reviewer=reviewer,
        )

    def yesterday(self) -> date:
        """The day offered without one: yesterday in São Paulo, on the service's clock."""
        return self.now().astimezone(BUSINESS_TZ).date() - timedelta(days=1)

    # -- running ---------------------------------------------------------------------

    def run(self, first: date | None, last: date | None, tz: str) -> bool:
        """Load the statement and reconcile ``first`` to ``last`` counted in ``tz``; True
        when a result is held (the status line says what it found, or why not)."""
        from pixops.frames import parse_tz
        from pixops.recon import DayNotComeError, NoOpeningBalanceError, RunInputError, run_days

        tz = tz.strip()
        if first is None or last is None:
            return self._refuse("Choose the first and the last business day.")
        if last < first:
            return self._refuse("The last day is before the first one.")
        if not tz:
            return self._refuse(
                "Type the time zone the days are counted in, like America/Sao_Paulo."
            )
        try:
            valid_text(tz, "time zone")
        except InvalidTextError as error:
            return self._refuse(str(error))
        try:
            parse_tz(tz)
        except ValueError:
            return self._refuse(f"Unknown time zone “{tz}”: {zone_hint(tz)}")
        try:
            ran = run_days(
                self.client,
                first,
                last,
                ledger=self.ledger,
                balances=self.balances_path,
                tz=tz,
                mapping=self.ledger_mapping(),
                tolerances=self.rule_tolerances(),
                review_file=self.review_file,
                now=self.now(),
            )
        except DayNotComeError as error:
            return self._refuse(
                f"{error.last:%d/%m/%Y} has not happened yet (today is {error.today:%d/%m/%Y}): "
                "choose a day up to today."
            )
        except NoOpeningBalanceError as error:
            opening = ValueError(_no_opening(error))
            return self._refuse(f"The reconciliation could not run. {self._why(opening)}")
        except RunInputError as error:
            return self._refuse(f"The reconciliation could not run. {self._input_why(error)}")
        except (PixopsError, ValueError, OSError) as error:
            return self._refuse(f"The reconciliation could not run. {self._why(error)}")
        statement, result = ran.statement_frame(), ran.result
        self.statement, self.result, self.days, self.tz = statement, result, (first, last), tz
        self.directions = {
            str(movement): DIRECTION_WORDS.get(str(way), str(way))
            for movement, way in zip(
                statement["transaction_id"], statement["direction"], strict=True
            )
            if movement is not None
        }
        self.export_line = Line()  # an export of the previous run no longer applies
        self.queue.load(result)
        reading = result.ledger_reading
        name = Path(self.ledger).name if isinstance(self.ledger, str | Path) else "The ledger"
        self.ledger_line = "" if reading is None else f"{name} {reading.line()}."
        self.status = self._headline()
        self.category = self.first_category()
        return True

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
        return self.status.text.strip()

    def require_result(self) -> ReconResult:
        """The result of the last run; a notebook's Run All stops here, with the status
        line as its one line of output, when there is none (a file, a day, the service)."""
        if self.result is None:
            raise Stopped(self.status_text or "Reconcile first.")
        return self.result

    def _refuse(self, text: str) -> Literal[False]:
        """An error in the status line; a result already held stays, saying whose days."""
        if self.days is not None:
            text += f" Below: still {days_text(*self.days)}."
        self.status = Line(text, "error")
        return False

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

    # -- what a run found --------------------------------------------------------------

    @property
    def findings(self) -> int:
        """How many items need a person's attention (0 before a run)."""
        from pixops.recon import ATTENTION_CATEGORIES

        if self.result is None:
            return 0
        return sum(self.result.counts[c] for c in ATTENTION_CATEGORIES)

    def window(self) -> pd.DataFrame:
        """The statement's movements of the days reconciled (without the day either side)."""
        statement = self.statement
        if statement is None or self.days is None:
            raise Stopped("Reconcile first.")
        first, last = self.days
        # A boolean Series, not a list: an empty list would select no columns, not no rows.
        days_in = statement["created_at"].dt.tz_convert(self.tz).dt.date
        window: pd.DataFrame = statement[((days_in >= first) & (days_in <= last)).astype(bool)]
        return window

    @property
    def nothing(self) -> bool:
        """The days had no movement and no ledger entry: nothing to reconcile (or chart)."""
        if self.result is None:
            return False
        return self.window().empty and not self.findings and not self.result.counts["matched"]

    def _headline(self) -> Line:
        """The status line of a run: a wrong unit first (the findings follow from it), a
        ledger that pairs with nothing, nothing at all, findings, or all clear."""
        result = self.result
        assert result is not None
        assert self.days is not None
        counts, findings = result.counts, self.findings
        days = f"{days_text(*self.days)} ({zone_text(self.tz)})"
        tally = f"{count_text(counts['matched'])} matched"
        hint = result.unit_hint(self.unit_setting)
        if hint is not None:
            return Line(f"{hint} {days}: {tally}, {plural(findings, 'finding')} to check.", "error")
        foreign = result.ledger_warning(self.ledger, setting=self.ledger_setting)
        if foreign is not None:  # nothing paired: say why before the hundreds of findings
            return Line(
                f"{days}: {tally}, {plural(findings, 'finding')} to check. {foreign}", "error"
            )
        if self.nothing:
            return Line(
                f"{days}: no movement in the statement and no entry in the ledger:"
                " nothing to reconcile.",
                "info",
            )
        if findings:
            return Line(f"{days}: {tally}, {plural(findings, 'finding')} to check.", "warn")
        return Line(f"{days}: {tally}, nothing to check.", "ok")

    # -- exploring ---------------------------------------------------------------------

    def categories(self) -> list[tuple[str, str]]:
        """The categories to pick from, with their counts: matched, rounding (when any),
        then every kind of finding (empty ones too: "none" is an answer)."""
        from pixops.recon import ATTENTION_CATEGORIES, CATEGORY_LABELS

        if self.result is None:
            return []
        result = self.result
        counts = result.counts
        options = []
        for c in ("matched", "rounding", *ATTENTION_CATEGORIES):
            if not counts[c] and c in ("matched", "rounding"):
                continue
            name = CATEGORY_LABELS.get(c, c)
            # A balance not checked says so: "(0)" read as a balance that closes.
            note = result.category_summary(c)
            options.append((f"{name}: {note}" if note else f"{name} ({counts[c]})", c))
        return options

    def first_category(self) -> str | None:
        """The category shown after a run: the first with findings, else matched."""
        from pixops.recon import ATTENTION_CATEGORIES

        options = self.categories()
        if self.result is None or not options:
            return None
        shown = {value for _, value in options}
        return next(
            (c for c in ATTENTION_CATEGORIES if self.result.counts[c]),
            "matched" if "matched" in shown else options[0][1],
        )

    def choose(self, category: str | None) -> None:
        """Show another category's rows (the filter stays)."""
        self.category = category

    def filter(self, text: str) -> None:
        """Show only the rows containing ``text`` as the table shows them."""
        self.filter_text = text

    def rows(self) -> list[dict[str, Any]]:
        """The rows of the chosen category that contain the filter text."""
        if self.result is None or self.category is None:
            return []
        frame = self.result.category(self.category)
        records = [{str(k): v for k, v in r.items()} for r in frame.to_dict(orient="records")]
        needle = " ".join(self.filter_text.split()).casefold()
        if needle:
            records = [r for r in records if needle in self._searchable(r)]
        return records

    def _searchable(self, record: dict[str, Any]) -> str:
        """A row's text as its table shows it (reais, dd/mm/yyyy, the direction), ISO days too."""
        words = [self.directions.get(str(record.get("transaction_id")), "")]
        for key, value in finding_row(record).items():
            if key.endswith("_base") and value is not None:
                words.append(brl(value))
            elif isinstance(value, date):
                words.append(f"{value:%d/%m/%Y} {value.isoformat()}")
            elif value is not None:
                words.append(str(value))
        return "\n".join(words).casefold()

    def page(self) -> TablePage:
        """The table of the chosen category and filter, as its drawing needs it."""
        records = self.rows()
        shown = [finding_row(r) for r in records[:SHOWN_ROWS]]
        for row in shown:
            row["direction"] = self.directions.get(str(row.get("transaction_id")))
        candidates = TABLE_COLUMNS.get(str(self.category), OTHER_COLUMNS)
        # Only columns that say something for these rows: a table of dashes is wider, not clearer.
        columns = [
            (k, label) for k, label in candidates if any(r.get(k) is not None for r in shown)
        ]
        return TablePage(
            rows=shown,
            columns=columns,
            more=max(len(records) - len(shown), 0),
            # A balance's "Transaction" is words, not an id.
            ids_wrap=self.category != "balance_difference",
            empty=self.no_rows(),
        )

    def no_rows(self) -> str:
        """What an empty table says: with a filter, that the filter hides the rows and how
        to see them ("No rows." alone read as a category with nothing in it)."""
        typed = " ".join(self.filter_text.split())
        if not typed or self.result is None or self.category is None:
            return "No rows."
        try:
            valid_text(typed, "filter")
        except InvalidTextError as error:
            return f"No rows. {error}"
        total = len(self.result.category(self.category))
        if not total:
            return "No rows."
        from pixops.recon import CATEGORY_LABELS

        category = CATEGORY_LABELS.get(self.category, self.category)
        rows = f"{plural(total, 'row')} of {category}"
        return f"No rows. None of the {rows} contains “{typed}”: change or clear the Filter."

    # -- reviewing and exporting -----------------------------------------------------------

    def decide(
        self,
        entry_id: str,
        statement_id: str,
        decision: Literal["confirmed", "rejected"],
        note: str = "",
    ) -> Decision:
        """Save a decision on a suggested pair (`ReviewQueue.decide`), then reconcile the
        same days again so that it applies."""
        made = self.queue.decide(entry_id, statement_id, decision, note)
        if self.days is not None:
            decided = list(self.queue.decided)
            self.run(*self.days, self.tz)
            self.queue.decided = decided  # the new run's queue, what was decided kept
        return made

    @property
    def can_export(self) -> bool:
        return self.result is not None

    def export(self) -> bool:
        """Write the result's frames (Parquet, CSV, Excel-friendly CSV) under `out_dir`;
        True when written (`export_line` says where, or why not)."""
        if self.result is None:
            self.export_line = Line("Reconcile first.", "error")
            return False
        # The result's days, not the pickers' (changed since, perhaps, without a run).
        first, last = self.days if self.days is not None else (None, None)
        name = f"recon-{first}" if first == last else f"recon-{first}-to-{last}"
        try:
            self.written = self.result.write(self.out_dir / name)
        except OSError as error:
            why = error.strerror or str(error)  # "Permission denied", without the errno
            self.export_line = Line(f"Could not write the files in {self.out_dir}: {why}.", "error")
            return False
        # The time of writing (a second export reads as a new one), in São Paulo time as
        # every time the panels show: the machine's own clock may run on UTC.
        at = datetime.now(BUSINESS_TZ).strftime("%H:%M:%S")
        self.export_line = Line(
            f"Exported {len(self.written)} files at {at} ({zone_text(BUSINESS_TZ)}) to"
            f" {self.out_dir / name} (discrepancies_excel.csv opens in Excel with reais).",
            "ok",
        )
        return True


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


def days_text(first: date, last: date) -> str:
    """``15/01/2026``, or ``30/01/2026 to 31/01/2026``."""
    return first.strftime("%d/%m/%Y") + ("" if first == last else f" to {last:%d/%m/%Y}")
