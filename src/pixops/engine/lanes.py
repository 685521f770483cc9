"""Delivery lanes: jobs run on a bounded thread pool, one lane at a time per key.

Webhook deliveries under the wall clock go through here, keyed by subscription: the
jobs of one subscription run one after another in submission order (its events keep
their order), while different subscriptions run side by side on at most `workers`
threads. A receiver that never answers holds one thread for its timeout and delays
only its own lane; settlements, expiries and every other subscriber go on.

The manual clock (the sandbox) does not use lanes: there deliveries run inline, in
timer order, so a replay of the world stays deterministic.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

__all__ = ["Lanes"]

log = logging.getLogger("pixops.engine")

Job = Callable[[], None]


class Lanes:
    """A bounded pool running each lane's jobs in order, one at a time."""

    def __init__(self, workers: int, *, name: str = "pixops-delivery") -> None:
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError("workers must be a positive integer")
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=name)
        self._guard = threading.Lock()
        self._waiting: dict[str, deque[tuple[str | None, Job]]] = {}
        self._queued_keys: set[str] = set()
        self._idle = threading.Condition(self._guard)
        self._closed = False

    def submit(self, lane: str, job: Job, *, key: str | None = None) -> None:
        """Queue `job` behind the lane's earlier jobs; start the lane if it is idle.

        A job with a `key` is not queued again while one with the same key waits (a
        timer leased again before its first run started submits its work twice).
        """
        with self._guard:
            if self._closed:
                raise RuntimeError("the delivery lanes are shut down")
            if key is not None:
                if key in self._queued_keys:
                    return
                self._queued_keys.add(key)
            queue = self._waiting.get(lane)
            if queue is not None:
                queue.append((key, job))
                return
            self._waiting[lane] = deque([(key, job)])
        self._pool.submit(self._drain, lane)

    def _drain(self, lane: str) -> None:
        while True:
            with self._guard:
                queue = self._waiting[lane]
                if not queue:
                    del self._waiting[lane]
                    self._idle.notify_all()
                    return
                key, job = queue.popleft()
                if key is not None:
                    self._queued_keys.discard(key)
            try:
                job()
            except Exception:
                log.exception("delivery job on lane %s failed", lane)

    def busy(self) -> bool:
        """Whether any lane has a job queued or running."""
        with self._guard:
            return bool(self._waiting)

    def wait_idle(self, timeout_s: float) -> bool:
        """Wait until no lane has work; False if `timeout_s` passed first."""
        with self._idle:
            return self._idle.wait_for(lambda: not self._waiting, timeout=timeout_s)

    def shutdown(self, *, wait: bool = True) -> None:
        """Refuse new jobs; with `wait`, let the queued ones finish first."""
        with self._guard:
            self._closed = True
        self._pool.shutdown(wait=wait, cancel_futures=not wait)
