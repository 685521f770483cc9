"""The daily run: which notebook, which parameters, and what is refused before running."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

import pytest

from pixops.report import ReportError, daily_report, find_daily_notebook, render_report


def test_the_daily_notebook_is_found_by_name(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="found none"):
        find_daily_notebook(tmp_path)
    (tmp_path / "03_daily_reconciliation.ipynb").write_text("{}")
    assert find_daily_notebook(tmp_path).name == "03_daily_reconciliation.ipynb"
    with pytest.raises(ReportError, match="no such notebooks folder"):
        find_daily_notebook(tmp_path / "nope")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"business_date": "2026-01-31"}, "must be a date"),
        ({"timezone": "Mars/Olympus"}, "unknown time zone"),
        ({"ledger": Path("/nowhere/ledger.csv")}, "no such ledger file"),
        ({"balances": Path("/nowhere/balances.csv")}, "no such balances file"),
    ],
)
def test_bad_arguments_are_refused_before_any_kernel(
    tmp_path: Path, kwargs: dict[str, object], message: str
) -> None:
    arguments: dict[str, object] = {"business_date": date(2026, 1, 31), **kwargs}
    with pytest.raises(ReportError, match=message):
        daily_report(
            out=tmp_path / "r.html",
            notebook=tmp_path / "03_daily_reconciliation.ipynb",
            **arguments,  # type: ignore[arg-type]
        )
    assert list(tmp_path.iterdir()) == []


def test_recon_html_covers_one_day_only(tmp_path: Path) -> None:
    from pixops.report import recon_html_report

    with pytest.raises(ReportError, match="one business day"):
        recon_html_report(
            tmp_path / "r.html",
            date(2026, 1, 1),
            date(2026, 1, 31),
            "America/Sao_Paulo",
            tmp_path / "ledger.csv",
        )


def test_paths_as_text_and_wrong_values_are_named(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="no such notebooks folder"):
        find_daily_notebook(str(tmp_path / "missing"))
    notebook = tmp_path / "daily.ipynb"
    notebook.write_text("{}", encoding="utf-8")
    with pytest.raises(ReportError, match="no such ledger file"):
        daily_report(date(2026, 1, 15), tmp_path / "r.html", notebook=notebook, ledger="x.csv")
    with pytest.raises(ReportError, match="business_date must be a date"):
        daily_report(datetime(2026, 1, 15), tmp_path / "r.html", notebook=notebook)
    with pytest.raises(ReportError, match="parameters must be a mapping"):
        render_report(notebook, tmp_path / "r.html", parameters=[("a", 1)])  # type: ignore[arg-type]


def test_the_daily_page_is_titled_with_its_day_the_pt_br_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pixops.report._daily as daily

    seen: dict[str, object] = {}

    def render(notebook: Path, out: Path, **kwargs: object) -> Path:
        seen.update(kwargs)
        return out

    monkeypatch.setattr(daily, "render_report", render)
    daily_report(date(2026, 1, 15), tmp_path / "r.html", notebook=tmp_path / "daily.ipynb")
    assert seen["title"] == "Reconciliation 15/01/2026 (São Paulo time)"
    assert seen["parameters"] == {"business_date": "2026-01-15", "timezone": "America/Sao_Paulo"}
