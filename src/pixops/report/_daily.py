"""The scheduled run: the daily reconciliation notebook of one business day as a report."""

from __future__ import annotations

import tempfile
import zoneinfo
from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from pixops.report._errors import ReportError
from pixops.report._render import render_report

if TYPE_CHECKING:
    from pixops.recon import LedgerMapping, Tolerances

DEFAULT_TIMEZONE = "America/Sao_Paulo"
#: The names of the daily notebook's `parameters` cell.
DATE_PARAMETER = "business_date"
TIMEZONE_PARAMETER = "timezone"
LEDGER_PARAMETER = "ledger_path"
BALANCES_PARAMETER = "balances_path"
LEDGER_MAP_PARAMETER = "ledger_map"
REVIEW_PARAMETER = "review_file"


def find_daily_notebook(notebooks: str | Path) -> Path:
    """The daily reconciliation notebook of a notebooks folder (`*daily*.ipynb`)."""
    notebooks = Path(notebooks)
    if not notebooks.is_dir():
        raise ReportError(f"no such notebooks folder: {notebooks}")
    found = sorted(notebooks.glob("*daily*.ipynb"))
    if len(found) != 1:
        names = [path.name for path in found] or "none"
        raise ReportError(f"expected one *daily*.ipynb in {notebooks}, found {names}")
    return found[0]


def daily_report(
    business_date: date,
    out: str | Path,
    *,
    notebook: str | Path,
    timezone: str = DEFAULT_TIMEZONE,
    ledger: str | Path | None = None,
    balances: str | Path | None = None,
    without_balances: bool = False,
    mapping: LedgerMapping | None = None,
    tolerances: Tolerances | None = None,
    review_file: str | Path | None = None,
    say: Callable[[str], object] | None = None,
    findings: Callable[[int | None], object] | None = None,
) -> Path:
    """Run the daily reconciliation notebook for `business_date` and write its HTML report.

    `ledger` and `balances` replace the notebook's own defaults when given, and
    ``mapping`` (`pixops.recon.LedgerMapping`) the ledger's mapping (handed to the
    notebook as a mapping file for the run, with ``tolerances``, `pixops.recon.Tolerances`,
    as its ``[tolerances]``), ``review_file`` the decisions on suggested pairs (else the
    notebook's, beside the ledger); ``without_balances`` runs it with none
    (`pixops recon --html` of a run without ``--balances``: one run, one set of inputs,
    one verdict). ``say`` gets the notebook's headline, line by line, and ``findings``
    its number of findings (`render_report`).
    """
    if not isinstance(business_date, date) or isinstance(business_date, datetime):
        raise ReportError(f"business_date must be a date, not {business_date!r}")
    if not isinstance(timezone, str) or timezone not in zoneinfo.available_timezones():
        raise ReportError(f"unknown time zone: {timezone!r}")
    parameters: dict[str, str | int | bool] = {
        DATE_PARAMETER: business_date.isoformat(),
        TIMEZONE_PARAMETER: timezone,
    }
    if ledger is not None:
        ledger = Path(ledger)
        if not ledger.is_file():
            raise ReportError(f"no such ledger file: {ledger}")
        parameters[LEDGER_PARAMETER] = str(ledger.resolve())
    if without_balances and balances is not None:
        raise ReportError("give balances or without_balances, not both")
    if without_balances:
        parameters[BALANCES_PARAMETER] = ""  # the notebook's cue: no balances to check
    if balances is not None:
        balances = Path(balances)
        if not balances.is_file():
            raise ReportError(f"no such balances file: {balances}")
        parameters[BALANCES_PARAMETER] = str(balances.resolve())
    from pixops.widgets._format import zone_text  # here: `pixops --help` loads no widgets

    # The reader's words for the zone ("São Paulo time"), as the notebook's heading says it.
    title = f"Reconciliation {business_date:%d/%m/%Y} ({zone_text(timezone)})"
    if review_file is not None:
        parameters[REVIEW_PARAMETER] = str(Path(review_file).resolve())
    with tempfile.TemporaryDirectory(prefix="pixops-report-") as folder:
        if mapping is not None or tolerances is not None:
            from pixops.recon import LedgerMapping, Tolerances, write_mapping

            written = write_mapping(
                LedgerMapping() if mapping is None else mapping,
                Path(folder) / "ledger.mapping.toml",
                Tolerances() if tolerances is None else tolerances,
            )
            parameters[LEDGER_MAP_PARAMETER] = str(written)
        return render_report(
            notebook, out, parameters=parameters, title=title, say=say, findings=findings
        )


def recon_html_report(
    out: Path,
    first: date,
    last: date,
    timezone: str,
    ledger: Path,
    *,
    balances: Path | None = None,
    notebooks: Path | None = None,
    mapping: LedgerMapping | None = None,
    tolerances: Tolerances | None = None,
    review_file: Path | None = None,
) -> Path:
    """`pixops recon --html`: the daily notebook of the day just reconciled, as a page,
    from the run's own inputs (no balances given: none read, the balance not checked)."""
    from pixops.desk import ServerError, default_notebooks_dir

    if first != last:
        raise ReportError("the HTML report covers one business day: use --date, not --from/--to")
    try:
        folder = notebooks or default_notebooks_dir()
    except ServerError as error:
        raise ReportError(str(error)) from None
    notebook = find_daily_notebook(folder)
    return daily_report(
        first,
        out,
        notebook=notebook,
        timezone=timezone,
        ledger=ledger,
        balances=balances,
        without_balances=balances is None,
        mapping=mapping,
        tolerances=tolerances,
        review_file=review_file,
    )
