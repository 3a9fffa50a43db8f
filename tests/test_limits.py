"""The store that the workers of one host share for the rate limit (arbiter/api/limits.py,
``HostStore``: a SQLite file), through the ``limits`` library's moving window as the service
uses it.

- Processes counting against one file count one budget: forked processes hitting the same
  bucket at once are granted exactly the limit between them, never one more.
- A request leaves the window when its time is up (the clock is the store's, moved by the test).
- A store that cannot be used lets the request through, logged, as a failing Redis does.
"""

from __future__ import annotations

import logging
import multiprocessing
import time
from pathlib import Path

import pytest
from limits import parse
from limits.strategies import MovingWindowRateLimiter

from arbiter.api import create_app
from arbiter.api.limits import HostStore
from arbiter.settings import Settings

LIMIT = parse("60/minute")


def _hits(path: str, n: int, out: multiprocessing.Queue[int]) -> None:
    limiter = MovingWindowRateLimiter(HostStore(path))
    out.put(sum(limiter.hit(LIMIT, "v1", "addr:198.51.100.1") for _ in range(n)))


def test_processes_sharing_the_file_count_one_budget(tmp_path: Path) -> None:
    path = str(tmp_path / "limits.sqlite")
    context = multiprocessing.get_context("fork")
    out: multiprocessing.Queue[int] = context.Queue()
    workers = [context.Process(target=_hits, args=(path, 40, out)) for _ in range(4)]
    for worker in workers:
        worker.start()
    granted = [out.get(timeout=60) for _ in workers]
    for worker in workers:
        worker.join(timeout=60)
        assert worker.exitcode == 0
    assert sum(granted) == LIMIT.amount  # 160 asked at once, 60 granted
    limiter = MovingWindowRateLimiter(HostStore(path))  # and a newcomer sees them all
    assert limiter.get_window_stats(LIMIT, "v1", "addr:198.51.100.1").remaining == 0
    assert limiter.hit(LIMIT, "v1", "addr:198.51.100.2")  # another bucket is its own


def test_a_request_leaves_the_window_when_its_time_is_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = [1_900_000_000.0]
    monkeypatch.setattr(time, "time", lambda: now[0])
    limiter = MovingWindowRateLimiter(HostStore(str(tmp_path / "limits.sqlite")))
    two = parse("2/minute")
    assert limiter.hit(two, "b")
    now[0] += 30
    assert limiter.hit(two, "b")
    assert not limiter.hit(two, "b")
    stats = limiter.get_window_stats(two, "b")
    assert stats.remaining == 0 and stats.reset_time == 1_900_000_060.0
    now[0] += 30  # the first has left the window, the second has not
    assert limiter.hit(two, "b")
    assert not limiter.hit(two, "b")


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def test_a_store_that_cannot_be_opened_lets_requests_through(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-directory" / "limits.sqlite"
    settings = Settings(rate_limit="1/minute", server_limits=str(missing))
    client = create_app(settings).test_client()
    records = _Records()
    logger = logging.getLogger("arbiter")  # the service's loggers do not propagate to the root
    logger.addHandler(records)
    try:
        for _ in range(3):
            answer = client.get("/v1/rulesets")
            assert answer.status_code == 200
            assert "X-RateLimit-Limit" not in answer.headers
    finally:
        logger.removeHandler(records)
    assert len(records.messages) == 3
    assert all("rate limit store failed" in m for m in records.messages)
