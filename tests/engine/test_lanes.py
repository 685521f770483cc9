"""Delivery lanes: per-lane order, lanes side by side, a bounded pool, failures logged."""

from __future__ import annotations

import logging
import threading

import pytest

from pixops.engine.lanes import Lanes


def test_jobs_of_one_lane_run_in_order_one_at_a_time() -> None:
    lanes = Lanes(4)
    seen: list[int] = []
    running = threading.Semaphore(1)

    def job(n: int) -> None:
        assert running.acquire(blocking=False), "two jobs of one lane ran at once"
        seen.append(n)
        running.release()

    for n in range(50):
        lanes.submit("wh_a", lambda n=n: job(n))  # type: ignore[misc]
    assert lanes.wait_idle(10)
    assert seen == list(range(50))
    lanes.shutdown()


def test_a_blocked_lane_does_not_hold_up_the_others() -> None:
    lanes = Lanes(2)
    release = threading.Event()
    done = threading.Event()
    lanes.submit("slow", lambda: release.wait(10) and None)
    lanes.submit("fast", done.set)
    assert done.wait(5)
    assert lanes.busy()
    release.set()
    assert lanes.wait_idle(5)
    assert not lanes.busy()
    lanes.shutdown()


@pytest.mark.expect_engine_errors
def test_a_failing_job_is_logged_and_the_lane_goes_on(caplog: pytest.LogCaptureFixture) -> None:
    lanes = Lanes(1)
    after: list[str] = []

    def boom() -> None:
        raise RuntimeError("receiver exploded")

    with caplog.at_level(logging.ERROR, logger="pixops.engine"):
        lanes.submit("wh_a", boom)
        lanes.submit("wh_a", lambda: after.append("next"))
        assert lanes.wait_idle(5)
    assert after == ["next"]
    assert "delivery job on lane wh_a failed" in caplog.text
    lanes.shutdown()


def test_bad_sizes_and_use_after_shutdown_are_refused() -> None:
    for bad in (0, -1, True, 1.5):
        with pytest.raises(ValueError, match="positive integer"):
            Lanes(bad)  # type: ignore[arg-type]
    lanes = Lanes(1)
    lanes.shutdown()
    with pytest.raises(RuntimeError, match="shut down"):
        lanes.submit("wh_a", lambda: None)


def test_a_keyed_job_is_not_queued_twice_while_it_waits() -> None:
    lanes = Lanes(1)
    release = threading.Event()
    seen: list[str] = []
    lanes.submit("wh_a", release.wait)
    lanes.submit("wh_a", lambda: seen.append("first"), key="delivery-7")
    lanes.submit("wh_a", lambda: seen.append("second"), key="delivery-7")
    release.set()
    assert lanes.wait_idle(10)
    assert seen == ["first"]
    lanes.submit("wh_a", lambda: seen.append("again"), key="delivery-7")
    assert lanes.wait_idle(10)
    assert seen == ["first", "again"], "once started, the key may be queued again"
    lanes.shutdown()
