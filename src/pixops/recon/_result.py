"""The result of a reconciliation: frames, a summary, exports and figures.

Stable API (the dashboard and the CLI rely on it):

- ``matched``: pairs that agree on amount, fee, status and business day.
- ``discrepancies``: one row per finding, ``category`` in `CATEGORIES`; columns
  entry_id, reference, transaction_id, statement_id, ledger_amount_base,
  statement_amount_base, difference_base (statement minus ledger), ledger_fee_base,
  statement_fee_base, ledger_status, statement_status, booked_on, business_date, detail.
  A ``balance_difference`` row is the opening plus the statement's settled movements
  (ledger_amount_base: what the balance should be) against the balance the service
  reported (statement_amount_base), on the day it closes, so its difference is reported
  minus expected, as in ``rollforward``; a reported balance that is off breaks the
  period after it too, by the opposite amount, and is listed once.
- ``refunds``: each refund or return linked to its original, with the original's
  amount, the total refunded and the remaining refundable amount.
- ``rollforward``: per pair of balance snapshots, opening + inflows - outflows - fees
  (expected_closing_base) against the closing balance reported; difference_base is
  reported minus expected.
- ``summary``: one row per category (``matched`` first): items, ledger_amount_base,
  statement_amount_base (their sums; empty for balance rows, balances do not add up) and
  difference_base (the sum of the differences).
Money columns are ``int64[pyarrow]`` base units; `brl_text` shows them to people.
"""

from __future__ import annotations

import csv
import html
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Final
from zoneinfo import ZoneInfo

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from pixops.money import format_brl_base
from pixops.recon._categories import (
    ATTENTION_CATEGORIES,
    CATEGORIES,
    CATEGORY_LABELS,
    money_or_dash,
)
from pixops.recon._mapping import PER_UNIT
from pixops.recon._reading import LedgerReading
from pixops.recon._spreadsheet import atomic_text_file, spreadsheet_money, spreadsheet_text
from pixops.recon._staging import destination, staged_directory, writing
from pixops.recon._tolerances import Tolerances

if TYPE_CHECKING:
    import plotly.graph_objects as go

__all__ = [
    "NOT_CHECKED",
    "SAMPLE_LEDGER_NAME",
    "ReconResult",
]

#: The file name of the demo month's ledger (``data/sample_ledger.csv``).
SAMPLE_LEDGER_NAME: Final = "sample_ledger.csv"

#: The Excel-friendly file's header of each discrepancies column.
EXCEL_HEADERS: Final[dict[str, str]] = {
    "category": "Category",
    "entry_id": "Ledger entry",
    "reference": "Reference",
    "transaction_id": "Transaction",
    "statement_id": "Statement id",
    "ledger_amount_base": "Ledger amount (R$)",
    "statement_amount_base": "Statement amount (R$)",
    "difference_base": "Difference (R$)",
    "ledger_fee_base": "Ledger fee (R$)",
    "statement_fee_base": "Statement fee (R$)",
    "ledger_status": "Ledger status",
    "statement_status": "Statement status",
    "booked_on": "Booked on",
    "business_date": "Business day",
    "detail": "Detail",
    "rule": "Matched by",
    "tolerance": "Tolerance used",
}

#: What the summary says of the balances when none were given: nothing was checked, which
#: a "0 items, R$ 0,00" row read as a balance that closes.
NOT_CHECKED: Final = "not checked (no balances given)"

_FRAMES: Final = ("matched", "discrepancies", "refunds", "rollforward", "summary")
#: The findings that name both sides of a pair (the unit hint counts them as pairs).
_PAIR_CATEGORIES: Final = (
    "rounding",
    "amount_mismatch",
    "fee_mismatch",
    "status_mismatch",
    "timing_difference",
    "unit_error",
)
_UNIT_NAMES: Final = {"base": "base units", "centavos": "centavos", "reais": "reais"}


@dataclass(frozen=True)
class ReconResult:
    """Frames of one reconciliation run; see the module docstring for their columns."""

    matched: pd.DataFrame
    discrepancies: pd.DataFrame
    refunds: pd.DataFrame
    rollforward: pd.DataFrame
    summary: pd.DataFrame
    first_day: date | None
    last_day: date | None
    tz: str
    #: How the ledger was read (`LedgerReading.line`); None for a result built by hand.
    ledger_reading: LedgerReading | None = None
    tolerances: Tolerances = field(default_factory=Tolerances)

    @property
    def counts(self) -> dict[str, int]:
        """Items per category, every category present (zero when clean)."""
        found = {
            str(category): int(items)
            for category, items in zip(self.summary["category"], self.summary["items"], strict=True)
        }
        return {category: found.get(category, 0) for category in CATEGORIES}

    def unit_hint(self, how: str = "--amount-unit {unit}") -> str | None:
        """One line when most pairs differ by exactly 100x or 10000x: the ledger's unit
        looks wrong, what its amounts look like, and the setting that reads them so
        (``how``, with ``{unit}``: ``--amount-unit {unit}`` on the command line,
        ``amount_unit = "{unit}"`` in a notebook). None otherwise."""
        rows = self.discrepancies
        units = rows[rows["category"] == "unit_error"]
        paired = rows[rows["category"].isin(_PAIR_CATEGORIES)]["entry_id"].dropna().nunique()
        pairs = len(self.matched) + int(paired)
        if not len(units) or 2 * len(units) <= pairs:
            return None
        ratios: dict[tuple[int, int], int] = {}
        for ledger_base, statement_base in zip(
            units["ledger_amount_base"], units["statement_amount_base"], strict=True
        ):
            big, small = int(statement_base), int(ledger_base)
            key = (big // small, 1) if big > small else (1, small // max(big, 1))
            ratios[key] = ratios.get(key, 0) + 1
        (up, down), _ = max(ratios.items(), key=lambda item: item[1])
        read = self.ledger_reading.amount_unit if self.ledger_reading else "base"
        factor = PER_UNIT[read] * up // down if (PER_UNIT[read] * up) % down == 0 else 0
        real = next((unit for unit, per in PER_UNIT.items() if per == factor), None)
        times = f"{max(up, down):,}".replace(",", ".")
        way = "smaller" if up > 1 else "larger"
        said = (
            f"The ledger's unit looks wrong: {len(units)} of {pairs} pairs differ by exactly"
            f" {times}x (the ledger's amounts {times}x {way} than the statement's)"
        )
        if real is None:
            return f"{said}; check the unit its amounts are written in."
        return (
            f"{said}: its amounts look like {_UNIT_NAMES[real]}, read as"
            f" {_UNIT_NAMES[read]}; give {how.format(unit=real)}."
        )

    @property
    def balances_checked(self) -> bool:
        """Whether balances were rolled forward: False when no balance snapshots were
        given, so "Balance does not close" with 0 items means "not checked", not "closes"."""
        return not self.rollforward.empty

    def category_summary(self, category: str) -> str | None:
        """What a summary row says instead of its figures: `NOT_CHECKED` for the balance
        row of a run without balances; None when the row's figures say it."""
        if category == "balance_difference" and not self.balances_checked:
            return NOT_CHECKED
        return None

    @property
    def needs_attention(self) -> bool:
        """True when any category other than ``matched`` has an item."""
        counts = self.counts
        return any(counts[category] for category in ATTENTION_CATEGORIES)

    @property
    def unpaired(self) -> tuple[int, int] | None:
        """``(ledger entries, statement movements)`` in scope when not one of them paired
        although the statement has movements; None when something paired or the statement
        has nothing. A pair is a match or a finding that names both sides (an amount, fee,
        status, day or unit that differs); a ledger of another account or day pairs with
        nothing, so every row reads as missing. The rule behind `ledger_warning`."""
        rows = self.discrepancies[self.discrepancies["category"] != "balance_difference"]
        both = rows["entry_id"].notna() & rows["statement_id"].notna()
        if len(self.matched) or bool(both.any()):
            return None
        movements = int(rows["statement_id"].dropna().nunique())
        if not movements:
            return None
        return int(rows["entry_id"].dropna().nunique()), movements

    def ledger_warning(
        self, ledger: object = None, *, setting: str = "the ledger path"
    ) -> str | None:
        """One sentence for people when nothing paired (`unpaired`): the ledger file is most
        likely not this account's (or not these days'), naming the file (``ledger``, a path;
        the demo month's when it is `SAMPLE_LEDGER_NAME`) and what to set (``setting``:
        ``ledger_path`` in a notebook, ``--ledger`` on the command line). None otherwise."""
        sides = self.unpaired
        if sides is None:
            return None
        entries, movements = sides
        name = Path(ledger).name if isinstance(ledger, str | Path) else None
        one_day = self.first_day is not None and self.first_day == self.last_day
        days = "this day's" if one_day else "these days'"
        if name == SAMPLE_LEDGER_NAME:
            whose = f"{name} is the demo month's ledger, most likely not this account's"
        else:
            whose = f"the ledger file {name}" if name else "the ledger"
            whose += f" is most likely not this account's (or not {days})"
        period = "" if self.first_day is None else f" of {self._period()}"
        if movements == 1:
            the_movements = any_movement = "the one statement movement"
        else:
            the_movements = f"the {_count(movements)} statement movements"
            any_movement = f"any of {the_movements}"
        if entries == 1:
            nothing = f"The one ledger entry does not pair with {any_movement}{period}"
        elif entries:
            listed = f"{_count(entries)} ledger entries"
            nothing = f"None of the {listed} pairs with {any_movement}{period}"
        else:
            nothing = f"The ledger has no entry to pair with {the_movements}{period}"
        return f"{nothing}: {whose}; set {setting} to your account's ledger file."

    def category(self, name: str) -> pd.DataFrame:
        """The rows of one category (``matched`` gives the matched frame)."""
        if name not in CATEGORIES:
            raise ValueError(f"unknown category {name!r}; one of {list(CATEGORIES)}")
        if name == "matched":
            return self.matched
        selected = self.discrepancies[self.discrepancies["category"] == name]
        return selected.reset_index(drop=True)

    def frames(self) -> dict[str, pd.DataFrame]:
        return {name: getattr(self, name) for name in _FRAMES}

    def to_parquet(self, directory: str | Path) -> list[Path]:
        """Each frame as ``<name>.parquet`` (exact types) in ``directory``; all of them or,
        on a failure, none (they are written beside it and moved in together)."""
        with staged_directory(directory) as stage:
            written = self._parquet_into(stage)
        return [Path(directory) / path.name for path in written]

    def to_csv(self, directory: str | Path) -> list[Path]:
        """Each frame as ``<name>.csv`` (integers in base units, ISO dates) in
        ``directory``; all of them or, on a failure, none."""
        with staged_directory(directory) as stage:
            written = self._csv_into(stage)
        return [Path(directory) / path.name for path in written]

    def _parquet_into(self, out: Path) -> list[Path]:
        written = []
        for name, frame in self.frames().items():
            path = out / f"{name}.parquet"
            pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path)
            written.append(path)
        return written

    def _csv_into(self, out: Path) -> list[Path]:
        written = []
        for name, frame in self.frames().items():
            path = out / f"{name}.csv"
            # Text quoted: pandas leaves a carriage return in a reference unquoted, which
            # splits the row in every reader.
            _formula_free(frame).to_csv(path, index=False, quoting=csv.QUOTE_NONNUMERIC)
            written.append(path)
        return written

    def to_excel_csv(self, path: str | Path) -> Path:
        """The discrepancies for a spreadsheet in pt-BR: ``;`` separated, UTF-8 with BOM,
        headers and categories in words, money as ``1.234,56`` in reais (exact, by the
        one rule: a sub-centavo fee keeps its four decimals; negative as ``-0,50``) and
        days as ``31/01/2026``, which Excel in Brazil opens as numbers and dates. A text
        cell a spreadsheet would run as a formula (a reference ``=1+1``) starts with
        ``'`` (`spreadsheet_text`). The machine-readable columns are in `to_csv` and
        `to_parquet`. The file is written beside ``path`` and renamed to it once
        complete (a failure leaves no half-written file), readable like the others."""
        target = destination(path, "path")
        if target.is_dir():
            raise IsADirectoryError(
                f"{target} is a folder: give a file path (e.g. {target / 'discrepancies.csv'})"
            )
        frame = self.discrepancies
        columns = [str(name) for name in frame.columns]
        with writing(target.parent):
            target.parent.mkdir(parents=True, exist_ok=True)
            with atomic_text_file(target, encoding="utf-8-sig") as handle:
                writer = csv.writer(handle, delimiter=";")
                writer.writerow([EXCEL_HEADERS.get(name, name) for name in columns])
                for row in frame.itertuples(index=False):
                    writer.writerow(
                        [_excel_cell(n, value) for n, value in zip(columns, row, strict=True)]
                    )
        return target

    def write(self, directory: str | Path) -> list[Path]:
        """Parquet, CSV and the Excel-friendly discrepancies file, all in ``directory``.

        The files are written to a folder beside it and moved in when all are written:
        a failure (disk full, a file in the way) leaves ``directory`` as it was."""
        with staged_directory(directory) as stage:
            written = [
                *self._parquet_into(stage),
                *self._csv_into(stage),
                self.to_excel_csv(stage / "discrepancies_excel.csv"),
            ]
        return [Path(directory) / path.name for path in written]

    def __repr__(self) -> str:
        counts = self.counts
        findings = sum(counts[category] for category in ATTENTION_CATEGORIES)
        verdict = "needs attention" if findings else "all matched"
        return (
            f"<ReconResult {self._period()} ({self.tz}): {counts['matched']} matched, "
            f"{findings} findings, {verdict}>"
        )

    def _repr_html_(self) -> str:
        """The summary as a notebook shows it: pt-BR categories, amounts in reais."""
        head = "".join(
            f'<th style="text-align:{align}">{label}</th>'
            for label, align in (
                ("Category", "left"),
                ("Items", "right"),
                ("Ledger", "right"),
                ("Statement", "right"),
                ("Difference", "right"),
            )
        )
        body = []
        for row in self.summary.to_dict(orient="records"):
            cells = [f"<td>{html.escape(CATEGORY_LABELS[str(row['category'])])}</td>"]
            instead = self.category_summary(str(row["category"]))
            if instead is not None:
                body.append("<tr>" + cells[0] + f'<td colspan="4">{instead}</td></tr>')
                continue
            cells.append(f'<td style="text-align:right">{_count(int(row["items"]))}</td>')
            for column in ("ledger_amount_base", "statement_amount_base", "difference_base"):
                shown = money_or_dash(row[column], format_brl_base)
                cells.append(f'<td style="text-align:right;white-space:nowrap">{shown}</td>')
            body.append("<tr>" + "".join(cells) + "</tr>")
        title = html.escape(self.__repr__().strip("<>").removeprefix("ReconResult "))
        return (
            f"<p><b>Reconciliation</b> {title}</p>"
            f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
            f"<p>Tolerances: {html.escape(self.tolerances.describe())}</p>"
        )

    def _period(self) -> str:
        if self.first_day is None or self.last_day is None:
            return "of the rows given"
        if self.first_day == self.last_day:
            return f"{self.first_day:%d/%m/%Y}"
        return f"{self.first_day:%d/%m/%Y} to {self.last_day:%d/%m/%Y}"

    def summary_text(self) -> str:
        """The summary as plain text for people: categories in words, counts and amounts
        in pt-BR by the one rule (no non-zero digit hidden: `format_brl_base`), then
        each balance period with how far its reported closing is from the expected one."""
        width = max(len(label) for label in CATEGORY_LABELS.values())
        lines = []
        for row in self.summary.to_dict(orient="records"):
            name = CATEGORY_LABELS.get(str(row["category"]), str(row["category"]))
            instead = self.category_summary(str(row["category"]))
            if instead is not None:
                lines.append(f"{name:<{width}}       -  {instead}")
                continue
            lines.append(
                f"{name:<{width}}"
                f" {_count(int(row['items'])):>7}"
                f"  ledger {money_or_dash(row['ledger_amount_base'], format_brl_base):>18}"
                f"  statement {money_or_dash(row['statement_amount_base'], format_brl_base):>18}"
                f"  difference {format_brl_base(int(row['difference_base'])):>14}"
            )
        lines.append(f"Tolerances: {self.tolerances.describe()}")
        zone = ZoneInfo(self.tz)
        for row in self.rollforward.to_dict(orient="records"):
            opening = row["opening_at"].astimezone(zone)
            closing = row["closing_at"].astimezone(zone)
            off_base = int(row["difference_base"])  # reported minus expected
            verdict = (
                "closes"
                if off_base == 0
                else f"{format_brl_base(abs(off_base))} {'over' if off_base > 0 else 'short'}"
            )
            lines.append(
                f"Balance {opening:%d/%m/%Y %H:%M} to {closing:%d/%m/%Y %H:%M} ({self.tz}):"
                f" expected {format_brl_base(int(row['expected_closing_base']))},"
                f" reported {format_brl_base(int(row['closing_base']))}: {verdict}"
            )
        return "\n".join(lines)

    def summary_figure(self) -> go.Figure:
        """Bar chart of items per category; hover shows amounts in reais (pt-BR)."""
        from pixops.recon._figures import summary_figure

        return summary_figure(self)

    def rollforward_figure(self) -> go.Figure:
        """Waterfall of the balance roll-forward, in reais (pt-BR labels)."""
        from pixops.recon._figures import rollforward_figure

        return rollforward_figure(self)


def _count(number: int) -> str:
    """A count the pt-BR way (``9.483``)."""
    return f"{number:,}".replace(",", ".")


def _excel_cell(column: str, value: object) -> str:
    if value is None or value is pd.NA or value is pd.NaT:
        return ""
    if column.endswith("_base"):
        return spreadsheet_money(int(value))  # type: ignore[call-overload]
    if column == "category":
        return CATEGORY_LABELS.get(str(value), str(value))
    if column.endswith("_status"):
        return spreadsheet_text(str(value).replace("_", " ").capitalize())  # settled -> Settled
    if isinstance(value, date):
        return f"{value:%d/%m/%Y}"
    return spreadsheet_text(str(value))


def _formula_free(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with each text cell a spreadsheet would run as a formula made text
    (`spreadsheet_text`); numbers, dates and times as they are. The machine-readable CSV
    files open in a spreadsheet too; Parquet keeps the text exactly."""
    texts = [
        name
        for name, dtype in frame.dtypes.items()
        if pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype)
    ]
    if not texts:
        return frame
    safe = frame.copy()
    for name in texts:
        safe[name] = [
            spreadsheet_text(value) if isinstance(value, str) else value for value in frame[name]
        ]
        safe[name] = safe[name].astype(frame[name].dtype)
    return safe
