"""What notebooks 01 and 02 show a finance reader, read from their stored outputs (the ones
nbval checks against a fresh run on the demo month)."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import nbformat
import pytest

from pixops.money import format_brl_base, parse_base

_NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


def _tables(name: str) -> list[list[list[str]]]:
    """Every HTML table in the notebook's outputs, as rows of cell texts."""
    notebook: Any = nbformat.read(_NOTEBOOKS / name, as_version=4)  # type: ignore[no-untyped-call]
    tables = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            html = output.get("data", {}).get("text/html", "")
            for table in re.findall(r"<table.*?</table>", html, flags=re.DOTALL):
                rows = re.findall(r"<tr>(.*?)</tr>", table, flags=re.DOTALL)
                cells = [re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row) for row in rows]
                tables.append([[text for cell in row for text in _parts(cell)] for row in cells])
    return tables


def _parts(cell: str) -> list[str]:
    """A cell's texts, each line of a stacked cell (the fee under the amount) apart."""
    return [part for part in re.split(r"<br>|<span[^>]*>|</span>", cell) if part]


def _table_headed(name: str, first: str) -> list[list[str]]:
    return next(table for table in _tables(name) if table[0][0] == first)


def _base(text: str) -> int:
    """'R$ 1.234,56' (or 'R$ 0,1305') as base units (1 centavo = 100)."""
    return parse_base(text.replace("&nbsp;", " ").replace("\u00a0", " "))


def test_the_weekdays_compare_per_day() -> None:
    """January 2026 has five Thursdays, Fridays and Saturdays: by their totals alone those
    days looked the busiest when Monday takes the most per day."""
    table = _table_headed("02_statement_analysis.ipynb", "Weekday")
    assert table[0] == ["Weekday", "Days", "Payments", "Received", "Received per day"]
    days = {row[0]: int(row[1]) for row in table[1:]}
    assert sum(days.values()) == 31
    assert [days[d] for d in ("Thursday", "Friday", "Saturday")] == [5, 5, 5]
    for row in table[1:]:
        per_day = _base(row[3]) // int(row[1])
        assert row[4] == format_brl_base(per_day)


def test_the_largest_payments_show_the_amount_first() -> None:
    """At 1024 px with Lab's file browser open the table scrolls sideways: the amount, what
    the table is about, was its last column and out of sight."""
    table = _table_headed("02_statement_analysis.ipynb", "Amount")
    assert table[0] == ["Amount", "When (São Paulo)", "Payer", "Payer&#x27;s bank"]


def test_the_latest_movements_say_what_each_was() -> None:
    """A list of names alone did not say what the latest lines were; the time goes under
    the movement, the fee under the amount and the status under Net, so every figure
    fits at 800 px beside the file browser; the direction is the sign of Net. On the
    demo they are the demo month's own (they were ten refunds of February)."""
    table = _table_headed("01_quickstart.ipynb", "Movement")
    assert table[0] == ["Movement", "When (São Paulo)", "Amount", "Fee", "Net", "Status"]
    assert len(table) == 11
    for row in table[1:]:
        assert row[0].startswith(("Refund to ", "PIX from ", "PIX to ", "QR code charge"))
        assert row[1].endswith("/01/2026", 0, 10)  # the demo month: January 2026
        assert row[4].startswith(("R$", "-R$"))
    # The month's own last line, 23:58 in São Paulo (02:58 UTC on 1 February): a UTC
    # `date_to` of 31 January stopped at 20:59, three hours short.
    assert table[1][1] == "31/01/2026 23:58"


def _cell_with(name: str, text: str) -> str:
    notebook: Any = nbformat.read(_NOTEBOOKS / name, as_version=4)  # type: ignore[no-untyped-call]
    return next(c.source for c in notebook.cells if c.cell_type == "code" and text in c.source)


def test_the_webhook_cell_says_something_without_an_inbox(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """On the real service (no inbox unless one is given) the cell printed nothing at all."""
    source = _cell_with("01_quickstart.ipynb", "connection.inbox")
    namespace: dict[str, Any] = {"connection": SimpleNamespace(inbox=None)}
    exec(compile(source, "quickstart-webhooks", "exec"), namespace)
    assert "No webhook inbox" in capsys.readouterr().out


def test_the_disputes_cell_can_be_run_again(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Run a second time (Shift+Enter again), the cell opened the same demo disputes again
    and showed a MedError traceback ("already has MED case")."""
    import pixops

    for name in ("PIXOPS_BASE_URL", "PIXOPS_CLIENT_ID", "PIXOPS_CLIENT_SECRET"):
        monkeypatch.delenv(name, raising=False)
    client = pixops.connect(env_file=None, announce=False)
    source = _cell_with("05_med_disputes.ipynb", "open_med_case")
    namespace: dict[str, Any] = {"client": client}
    exec(compile(source, "med-disputes", "exec"), namespace)
    exec(compile(source, "med-disputes", "exec"), namespace)
    first, second = capsys.readouterr().out.splitlines()
    assert first == second == "Blocked now: R$ 167,19"
    opened = [case for case in client.med.iter() if case.status == "OPEN"]
    assert len(opened) == 2


def test_the_payment_cell_can_be_run_again(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The cell says to run it again when the payment was late; on the sandbox that paid
    the paid charge again and showed a SimulationError traceback."""
    import pixops

    for name in ("PIXOPS_BASE_URL", "PIXOPS_CLIENT_ID", "PIXOPS_CLIENT_SECRET"):
        monkeypatch.delenv(name, raising=False)
    namespace: dict[str, Any] = {"client": pixops.connect(env_file=None, announce=False)}
    exec(compile(_cell_with("01_quickstart.ipynb", "cash_in("), "charge", "exec"), namespace)
    paying = compile(_cell_with("01_quickstart.ipynb", "pay_charge("), "paying", "exec")
    capsys.readouterr()
    exec(paying, namespace)
    first = capsys.readouterr().out
    exec(paying, namespace)
    assert capsys.readouterr().out == first
    assert "Status:    Settled" in first
    assert "Credited:  R$ 49,4060" in first


def test_the_month_is_set_in_one_place() -> None:
    """Notebook 02's month was written in its code (two dates and the printed period): an
    analyst changes `month` in the `parameters` cell, and no code cell names a day."""
    from pixops.report import declared_parameters

    notebook: Any = nbformat.read(_NOTEBOOKS / "02_statement_analysis.ipynb", as_version=4)  # type: ignore[no-untyped-call]
    assert declared_parameters(_NOTEBOOKS / "02_statement_analysis.ipynb") == {"month"}
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert "parameters" in code[0].metadata.get("tags", [])
    assert 'month = "2026-01"' in code[0].source
    assert "month" in notebook.cells[0].source  # the heading's text says where it is set
    for cell in code[1:]:
        assert not re.search(r"20[0-9]{2}-[0-9]{2}", cell.source), cell.source


def test_the_month_gives_its_first_and_last_day() -> None:
    from datetime import date

    from pixops.widgets import Stopped, month_days

    assert month_days("2026-01") == (date(2026, 1, 1), date(2026, 1, 31))
    assert month_days("2024-02") == (date(2024, 2, 1), date(2024, 2, 29))
    for typed in ("2026-13", "2026-1", "janeiro", "2026-01-01", None, "0000-01"):
        with pytest.raises(Stopped, match="month must be a year and a month written yyyy-mm"):
            month_days(typed)


def test_a_month_not_yet_begun_stops_in_one_line() -> None:
    """The month 2026-03 on the demo month (its clock at 12/02/2026) gave empty charts and zeros
    with nothing to say why; the month that has begun, and earlier ones, still run."""
    from datetime import date

    from pixops.demo import demo_month
    from pixops.widgets import Stopped, month_days

    month = demo_month()
    client = month.sandbox.client(month.api_key)
    with pytest.raises(Stopped, match=r"month 2026-03 has not begun yet: today is 12/02/2026"):
        month_days("2026-03", client=client)
    assert month_days("2026-02", client=client) == (date(2026, 2, 1), date(2026, 2, 28))
    assert month_days("2025-12", client=client) == (date(2025, 12, 1), date(2025, 12, 31))


def test_a_month_without_payments_received_has_no_average(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """With the month a setting, a month not yet begun is one edit away: its numbers cell
    divided by zero payments received (ZeroDivisionError) and the report stopped there."""
    import pandas as pd

    from pixops.widgets import count_text

    source = _cell_with("02_statement_analysis.ipynb", "Average payment received")
    text = pd.Series([], dtype="string[pyarrow]")
    money = pd.Series([], dtype="int64[pyarrow]")
    empty = {"payment_status": text, "direction": text}
    empty.update(dict.fromkeys(("amount_base", "fee_base", "net_base"), money))
    namespace: dict[str, Any] = {
        "statement": pd.DataFrame(empty),
        "format_brl_base": format_brl_base,
        "count_text": count_text,
    }
    exec(compile(source, "month-in-numbers", "exec"), namespace)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["Received", "R$", "0,00"]
    assert lines[-1].split() == ["Average", "payment", "received", "—"]
