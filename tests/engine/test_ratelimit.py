"""The rate limiter: fixed 60-second windows keyed by (IP, window), on the engine clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

import pytest

from pixops.engine.config import EngineConfig
from pixops.engine.ratelimit import RateLimiter
from pixops.sandbox import ApiKey, Sandbox

if TYPE_CHECKING:
    from tests.conftest import Api, Connect

CPF = {"cpf": "52998224725"}
TOO_MANY = {"error": {"status": 429, "message": "Too many requests. Please try again later."}}
OTHER_IP = "10.20.30.40"


@pytest.fixture
def small() -> Sandbox:
    return Sandbox(rate_limit_per_minute=5)


@pytest.fixture
def small_key(small: Sandbox) -> ApiKey:
    owner = small.create_merchant("Loja")
    return small.issue_api_key(owner.id, ip_whitelist=["127.0.0.1", OTHER_IP])


def remaining_after(api: Api, count: int) -> list[str]:
    return [
        api("POST", "/cpf/validate", CPF).headers.get("x-ratelimit-remaining", "-")
        for _ in range(count)
    ]


def assert_limited(api: Api) -> None:
    response = api("POST", "/cpf/validate", CPF)
    assert response.status_code == 429
    assert response.json() == TOO_MANY
    assert response.headers["retry-after"] == "60"
    assert "x-ratelimit-remaining" not in response.headers


def test_remaining_counts_down_then_429(
    connect: Connect, small: Sandbox, small_key: ApiKey
) -> None:
    api = connect(small, small_key)
    assert remaining_after(api, 5) == ["4", "3", "2", "1", "0"]
    assert_limited(api)
    assert_limited(api)


def test_window_resets_after_60_seconds(
    connect: Connect, small: Sandbox, small_key: ApiKey
) -> None:
    api = connect(small, small_key)
    remaining_after(api, 5)
    small.advance(59)
    assert_limited(api)
    small.advance(1)
    assert remaining_after(api, 1) == ["4"]


def test_windows_are_fixed_not_sliding(connect: Connect) -> None:
    sandbox = Sandbox(rate_limit_per_minute=5, start=datetime(2026, 1, 5, 12, 0, 50, tzinfo=UTC))
    owner = sandbox.create_merchant("Loja")
    api = connect(sandbox, sandbox.issue_api_key(owner.id))
    remaining_after(api, 5)
    assert_limited(api)
    sandbox.advance(10)  # 12:01:00, a new window although only 10 s passed
    assert remaining_after(api, 5) == ["4", "3", "2", "1", "0"]
    assert_limited(api)


def test_each_ip_has_its_own_counter(connect: Connect, small: Sandbox, small_key: ApiKey) -> None:
    here = connect(small, small_key)
    there = connect(small, small_key, client_ip=OTHER_IP)
    remaining_after(here, 5)
    assert_limited(here)
    assert remaining_after(there, 2) == ["4", "3"]
    assert_limited(here)


def test_the_counter_is_per_ip_not_per_key(
    connect: Connect, small: Sandbox, small_key: ApiKey
) -> None:
    owner = small.create_merchant("Outra")
    other_key = small.issue_api_key(owner.id)
    remaining_after(connect(small, small_key), 3)
    assert remaining_after(connect(small, other_key), 2) == ["1", "0"]
    assert_limited(connect(small, other_key))


def test_errors_after_the_limiter_count_but_carry_no_header(
    connect: Connect, small: Sandbox, small_key: ApiKey
) -> None:
    api = connect(small, small_key)
    refused = api("POST", "/cpf/validate", {})
    assert refused.status_code == 400
    assert "x-ratelimit-remaining" not in refused.headers
    assert remaining_after(api, 1) == ["3"]


def test_gets_count_toward_the_same_window(
    connect: Connect, small: Sandbox, small_key: ApiKey
) -> None:
    api = connect(small, small_key)
    for _ in range(4):
        assert api("GET", "/webhooks").status_code != 429
    assert remaining_after(api, 1) == ["0"]
    assert api("GET", "/webhooks").status_code == 429


def test_balance_is_never_limited_nor_counted(
    connect: Connect, small: Sandbox, small_key: ApiKey
) -> None:
    api = connect(small, small_key)
    for _ in range(20):
        response = api("GET", "/balance")
        assert response.status_code == 200
        assert "x-ratelimit-remaining" not in response.headers
    assert remaining_after(api, 5) == ["4", "3", "2", "1", "0"]
    assert api("GET", "/balance").status_code == 200


def test_replays_pass_through_the_limiter(
    connect: Connect, small: Sandbox, small_key: ApiKey
) -> None:
    api = connect(small, small_key)
    headers = {"idempotency-key": "k"}
    first = api("POST", "/cpf/validate", CPF, headers=headers)
    replay = api("POST", "/cpf/validate", CPF, headers=headers)
    assert replay.headers["x-idempotent-replay"] == "true"
    assert (first.headers["x-ratelimit-remaining"], replay.headers["x-ratelimit-remaining"]) == (
        "4",
        "3",
    )


def test_configured_through_engine_config(connect: Connect) -> None:
    sandbox = Sandbox(config=EngineConfig(rate_limit_per_minute=2))
    owner = sandbox.create_merchant("Loja")
    api = connect(sandbox, sandbox.issue_api_key(owner.id))
    assert remaining_after(api, 2) == ["1", "0"]
    assert_limited(api)


# -- the limiter on its own ----------------------------------------------------------

NOON = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)


def test_limiter_counts_per_address_and_window() -> None:
    limiter = RateLimiter(2)
    assert [limiter.hit("a", NOON) for _ in range(3)] == [1, 0, None]
    assert limiter.hit("b", NOON) == 1
    assert limiter.hit("a", NOON + timedelta(seconds=59)) is None
    assert limiter.hit("a", NOON + timedelta(seconds=60)) == 1


def test_limiter_forgets_old_windows_without_losing_the_current_one() -> None:
    limiter = RateLimiter(3)
    for index in range(10_050):
        limiter.hit(f"10.0.{index // 256}.{index % 256}", NOON)
    later = NOON + timedelta(minutes=1)
    assert limiter.hit("x", later) == 2
    assert limiter.hit("x", later) == 1
    assert len(limiter._counts) <= 10_002


@pytest.mark.parametrize("bad", [0, -1])
def test_limiter_needs_a_positive_limit(bad: int) -> None:
    with pytest.raises(ValueError, match="at least 1"):
        RateLimiter(bad)
