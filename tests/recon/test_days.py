"""`run_days`: the one run of business days that `pixops recon` and the dashboard make."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from pixops.demo import demo_month
from pixops.recon import (
    DayNotComeError,
    LedgerError,
    NoOpeningBalanceError,
    RunInputError,
    load_days,
    read_balances,
    run_days,
)

DATA = Path(__file__).resolve().parents[2] / "data"
LEDGER = DATA / "sample_ledger.csv"


@dataclass(frozen=True)
class _Balance:
    as_of: datetime
    balance: int


class _Clock:
    """A client that only knows the service's time (``GET /balance``): the refusals
    come before any statement is read, so nothing else is asked of it."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def balance(self) -> _Balance:
        return _Balance(self.now, 0)


def test_a_day_after_the_services_today_is_refused_before_anything_is_read() -> None:
    client = _Clock(datetime(2026, 2, 12, 2, 0, tzinfo=UTC))  # 11/02 23:00 in São Paulo
    with pytest.raises(DayNotComeError) as refused:
        run_days(client, "2026-02-10", "2026-02-12", ledger=DATA / "no-such-ledger.csv")
    assert (refused.value.last, refused.value.today) == (date(2026, 2, 12), date(2026, 2, 11))
    # In UTC the 12th has come: the days are counted in the run's zone.
    with pytest.raises(RunInputError) as bad:
        load_days(client, "2026-02-12", ledger=DATA / "no-such-ledger.csv", tz="UTC")
    assert bad.value.setting == "ledger"
    assert isinstance(bad.value.__cause__, LedgerError)


def test_the_service_clock_given_wins_over_the_clients() -> None:
    client = _Clock(datetime(2026, 2, 12, 15, 0, tzinfo=UTC))
    with pytest.raises(DayNotComeError):
        load_days(client, "2026-02-12", ledger=LEDGER, now=datetime(2026, 2, 1, 12, 0, tzinfo=UTC))


def test_snapshots_without_an_opening_balance_are_refused(tmp_path: Path) -> None:
    client = _Clock(datetime(2026, 2, 12, 15, 0, tzinfo=UTC))
    later = [(datetime(2026, 1, 20, 3, 0, tzinfo=UTC), 1_000)]
    with pytest.raises(NoOpeningBalanceError) as refused:
        load_days(client, "2026-01-15", ledger=LEDGER, balances=later)
    assert refused.value.start_at == datetime(2026, 1, 15, 3, 0, tzinfo=UTC)
    assert refused.value.first_at == later[0][0]
    unreadable = tmp_path / "balances.csv"
    unreadable.write_bytes(b"as_of,balance_base\nnot a time,1\n")
    with pytest.raises(RunInputError) as bad:
        load_days(client, "2026-01-15", ledger=LEDGER, balances=unreadable)
    assert bad.value.setting == "balances"


def test_a_day_of_the_demo_month_rolls_its_balance_from_opening_to_live() -> None:
    month = demo_month()
    client = month.sandbox.client(month.api_key)
    run = run_days(client, "2026-01-15", ledger=LEDGER, balances=DATA / "balances.csv")
    snapshots = read_balances(DATA / "balances.csv")
    opening = max(s for s in snapshots if s[0] <= datetime(2026, 1, 15, 3, 0, tzinfo=UTC))
    assert run.balances is not None
    assert run.balances[0] == opening
    assert run.balances[1] == (datetime(2026, 1, 16, 3, 0, tzinfo=UTC), run.balances[1][1])
    assert run.balances[-1][0] > datetime(2026, 2, 1, tzinfo=UTC)  # the live balance
    assert (run.first, run.last, run.tz) == (
        date(2026, 1, 15),
        date(2026, 1, 15),
        "America/Sao_Paulo",
    )
    assert run.result.balances_checked
    assert run.result.needs_attention  # the sample ledger's planted findings
    frame = run.statement_frame()
    assert len(frame) == run.statement.num_rows
