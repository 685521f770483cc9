"""The local store against the service's own answer: day edges, late rows, unsynced days.

Ground truth is `load_statement` straight from the service (the same sandbox), which the
store must equal for every window it has synced, whatever the zone.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pandas as pd
import pytest

from pixops.client import AuthenticationError
from pixops.frames import LocalStore, load_statement
from pixops.sandbox import Sandbox

SAO_PAULO = "America/Sao_Paulo"


def _ids(frame: pd.DataFrame) -> list[str]:
    return sorted(frame["id"].tolist())


def _same(stored: pd.DataFrame, direct: pd.DataFrame) -> bool:
    return bool(
        stored.sort_values("id")
        .reset_index(drop=True)
        .equals(direct.sort_values("id").reset_index(drop=True))
    )


def test_a_qr_credit_linked_hours_after_midnight_is_not_lost() -> None:
    # A QR paid at 23:59 whose credit row is stored two hours later carries the payment's
    # time: it appears in a day that was already over when the store last looked.
    sandbox = Sandbox(start=datetime(2026, 1, 20, 23, 0, tzinfo=UTC))
    merchant = sandbox.create_merchant("Loja", balance_centavos=1_000_000)
    client = sandbox.client(sandbox.issue_api_key(merchant.id))
    charge = client.pix.cash_in(amount_centavos=5_000)
    sandbox.advance(minutes=59)
    credit = sandbox.pay_charge(charge.transaction_id, link_after_seconds=2 * 3600)
    day = date(2026, 1, 20)
    sandbox.advance(minutes=31)
    with LocalStore() as store:
        for _ in range(3):  # 00:30, 01:30, 02:30: the credit is stored at 01:59
            store.sync(client, day, day, now=sandbox.now(), progress=False)
            sandbox.advance(hours=1)
        store.sync(client, day, day, now=sandbox.now(), progress=False)
        stored = store.statement(day, day)
    direct = load_statement(client, day, day, progress=False)
    assert list(direct["transaction_id"]) == [credit]
    assert _same(stored, direct)


def test_the_margin_is_the_stores_to_choose() -> None:
    sandbox = Sandbox(start=datetime(2026, 1, 20, 12, 0, tzinfo=UTC))
    merchant = sandbox.create_merchant("Loja", balance_centavos=1_000_000)
    client = sandbox.client(sandbox.issue_api_key(merchant.id))
    day = date(2026, 1, 20)
    with LocalStore(settle_margin=timedelta(hours=2)) as store:
        sandbox.advance(hours=13)  # 01:00 the next day: within the margin
        store.sync(client, day, day, now=sandbox.now(), progress=False)
        assert store.days_to_fetch(day, day) == [day]
        sandbox.advance(hours=2)
        store.sync(client, day, day, now=sandbox.now(), progress=False)
        assert store.days_to_fetch(day, day) == []
    for bad in (timedelta(hours=-1), 3600):
        with pytest.raises(ValueError, match="settle_margin"):
            LocalStore(settle_margin=bad)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def edges() -> tuple[Any, dict[str, str]]:
    """Credits at 02:59:59Z and 03:00:00Z (São Paulo midnight) and 00:00:00Z of the
    1st of February, and at 03:00:00Z that day; a client on them."""
    sandbox = Sandbox(start=datetime(2026, 1, 31, 2, 59, 59, tzinfo=UTC))
    merchant = sandbox.create_merchant("Loja", balance_centavos=1_000_000)
    client = sandbox.client(sandbox.issue_api_key(merchant.id))
    made = {"before_sp_midnight": sandbox.receive_pix(merchant.id, amount_centavos=101)}
    sandbox.advance(1)
    made["sp_midnight"] = sandbox.receive_pix(merchant.id, amount_centavos=102)
    sandbox.advance(hours=21)
    made["utc_midnight"] = sandbox.receive_pix(merchant.id, amount_centavos=103)
    sandbox.advance(hours=3)
    made["next_sp_midnight"] = sandbox.receive_pix(merchant.id, amount_centavos=104)
    sandbox.advance(days=3)
    return client, made


@pytest.mark.parametrize("tz", [None, SAO_PAULO])
@pytest.mark.parametrize(
    ("first", "last"),
    [
        ("2026-01-30", "2026-01-30"),
        ("2026-01-31", "2026-01-31"),
        ("2026-02-01", "2026-02-01"),
        ("2026-01-30", "2026-02-02"),
    ],
)
def test_the_store_equals_the_service_at_both_midnights(
    edges: tuple[Any, dict[str, str]], tz: str | None, first: str, last: str
) -> None:
    client, _ = edges
    with LocalStore() as store:
        store.sync(client, first, last, tz=tz, now=datetime(2026, 3, 1, tzinfo=UTC), progress=False)
        stored = store.statement(first, last, tz=tz)
    direct = load_statement(client, first, last, tz=tz, progress=False)
    assert _same(stored, direct)


def test_midnight_rows_land_in_the_right_day(edges: tuple[Any, dict[str, str]]) -> None:
    client, made = edges
    day = {
        tz: {
            name: [
                d
                for d in ("2026-01-30", "2026-01-31", "2026-02-01")
                if made[name]
                in set(load_statement(client, d, d, tz=tz, progress=False)["transaction_id"])
            ]
            for name in made
        }
        for tz in (None, SAO_PAULO)
    }
    assert day[None] == {
        "before_sp_midnight": ["2026-01-31"],
        "sp_midnight": ["2026-01-31"],
        "utc_midnight": ["2026-02-01"],
        "next_sp_midnight": ["2026-02-01"],
    }
    assert day[SAO_PAULO] == {
        "before_sp_midnight": ["2026-01-30"],
        "sp_midnight": ["2026-01-31"],
        "utc_midnight": ["2026-01-31"],
        "next_sp_midnight": ["2026-02-01"],
    }


def test_a_window_the_store_never_synced_is_an_error_not_an_empty_day(
    edges: tuple[Any, dict[str, str]],
) -> None:
    client, made = edges
    now = datetime(2026, 3, 1, tzinfo=UTC)
    with LocalStore() as store:
        store.sync(client, "2026-01-31", "2026-01-31", now=now, progress=False)  # UTC day
        # The São Paulo 31st runs to 03:00Z of the 1st, a UTC day never fetched: its
        # credit at 00:00Z would silently be missing.
        with pytest.raises(ValueError, match="2026-02-01"):
            store.statement("2026-01-31", "2026-01-31", tz=SAO_PAULO)
        partial = store.statement("2026-01-31", "2026-01-31", tz=SAO_PAULO, allow_unsynced=True)
        assert made["utc_midnight"] not in set(partial["transaction_id"])
        store.sync(client, "2026-01-31", "2026-01-31", tz=SAO_PAULO, now=now, progress=False)
        whole = store.statement("2026-01-31", "2026-01-31", tz=SAO_PAULO)
        assert made["utc_midnight"] in set(whole["transaction_id"])
        with pytest.raises(TypeError, match="allow_unsynced"):
            store.statement("2026-01-31", "2026-01-31", allow_unsynced="yes")  # type: ignore[arg-type]
        assert store.unsynced_days(date(2026, 1, 30), date(2026, 2, 2)) == [
            date(2026, 1, 30),
            date(2026, 2, 2),
        ]


class _BrokenAfter:
    """A client whose statement pages stop with an error after ``pages`` pages."""

    def __init__(self, client: Any, pages: int) -> None:
        self._client = client
        self._pages = pages
        self.statement = self
        self.transactions = client.transactions

    def iter_raw(self, **filters: Any) -> Iterator[bytes]:
        pages = self._client.statement.iter_raw(**{**filters, "per_page": 2})
        for number, page in enumerate(pages):
            if number == self._pages:
                raise ConnectionError("the network went away")
            yield page


def test_an_interrupted_sync_keeps_nothing_half_done_and_a_rerun_completes() -> None:
    sandbox = Sandbox(start=datetime(2026, 1, 10, 12, 0, tzinfo=UTC))
    merchant = sandbox.create_merchant("Loja", balance_centavos=1_000_000)
    client = sandbox.client(sandbox.issue_api_key(merchant.id))
    for day in range(3):
        for n in range(5):
            sandbox.receive_pix(merchant.id, amount_centavos=100 + 10 * day + n)
            sandbox.advance(minutes=1)
        sandbox.advance(days=1)
    first, last = "2026-01-10", "2026-01-12"
    now = sandbox.now()
    direct = load_statement(client, first, last, progress=False)
    assert len(direct) == 15
    with LocalStore() as store:
        store.sync(client, "2026-01-11", "2026-01-11", now=now, progress=False)
        with pytest.raises(ConnectionError):
            store.sync(_BrokenAfter(client, 2), first, last, now=now, progress=False)
        # The 11th stays as it was; the 10th and 12th are neither stored nor marked.
        assert store.unsynced_days(date(2026, 1, 10), date(2026, 1, 12)) == [
            date(2026, 1, 10),
            date(2026, 1, 12),
        ]
        assert store.row_count() == 5
        report = store.sync(client, first, last, now=now, progress=False)
        assert report.days_fetched == (date(2026, 1, 10), date(2026, 1, 12))
        assert _ids(store.statement(first, last)) == _ids(direct)
        assert store.row_count() == 15


def test_without_now_the_services_clock_decides_which_days_are_final() -> None:
    # The sandbox's clock is months behind the wall clock: by the wall clock its day is long
    # over, by its own it is still going, so a payment made later that day must be fetched.
    sandbox = Sandbox(start=datetime(2026, 1, 20, 12, 0, tzinfo=UTC))
    merchant = sandbox.create_merchant("Loja", balance_centavos=1_000_000)
    client = sandbox.client(sandbox.issue_api_key(merchant.id))
    day = date(2026, 1, 20)
    with LocalStore() as store:
        store.sync(client, day, day, progress=False)
        sandbox.receive_pix(merchant.id, amount_centavos=2_500)
        sandbox.advance(minutes=5)
        report = store.sync(client, day, day, progress=False)
        stored = store.statement(day, day)
    assert report.days_fetched == (day,)
    direct = load_statement(client, day, day, progress=False)
    assert len(direct) == 1
    assert _same(stored, direct)


def test_a_key_that_may_not_read_the_balance_still_syncs() -> None:
    sandbox = Sandbox(start=datetime(2026, 1, 20, 12, 0, tzinfo=UTC))
    merchant = sandbox.create_merchant("Loja", balance_centavos=1_000_000)
    sandbox.receive_pix(merchant.id, amount_centavos=2_500)
    sandbox.advance(minutes=5)
    key = sandbox.issue_api_key(merchant.id, permissions=["statement:read"])
    client = sandbox.client(key)
    day = date(2026, 1, 20)
    with LocalStore() as store:
        report = store.sync(client, day, day, progress=False)
        assert report.rows_fetched == 1


def test_any_other_refusal_of_the_balance_stops_the_sync() -> None:
    """Only a 403 means "this key may not read the balance"; a key the service does not
    know (401) is an error, never a silent fall back to the wall clock."""
    sandbox = Sandbox(start=datetime(2026, 1, 20, 12, 0, tzinfo=UTC))
    merchant = sandbox.create_merchant("Loja", balance_centavos=1_000_000)
    key = sandbox.issue_api_key(merchant.id)
    client = sandbox.client(key)
    sandbox.revoke_api_key(key.client_id)
    with LocalStore() as store:
        with pytest.raises(AuthenticationError):
            store.sync(client, date(2026, 1, 20), date(2026, 1, 20), progress=False)
        assert store.row_count() == 0


def test_a_key_that_may_not_read_the_balance_takes_the_service_s_time() -> None:
    """The balance's 403 is dated on the service's clock: the sandbox's January, not this
    machine's today."""
    from datetime import timedelta

    from pixops.frames import service_now

    sandbox = Sandbox(start=datetime(2026, 1, 20, 12, 0, tzinfo=UTC))
    merchant = sandbox.create_merchant("Loja")
    key = sandbox.issue_api_key(merchant.id, permissions=["statement:read"])
    assert abs(service_now(sandbox.client(key)) - sandbox.now()) < timedelta(seconds=2)
