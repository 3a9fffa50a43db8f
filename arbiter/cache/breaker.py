"""A circuit breaker: stop calling a failing cache for a while.

After ``failures`` consecutive errors the breaker *opens*: calls are refused (the caller
replays without the cache) for ``cooldown`` seconds. Then one call is let through; success
closes the breaker, another failure opens it again at once. :meth:`failure` and
:meth:`success` say when an outage begins and ends, so that each is logged once.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class CircuitBreaker:
    def __init__(
        self, failures: int, cooldown: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._threshold = max(1, failures)
        self._cooldown = cooldown
        self._clock = clock
        self._failures = 0
        self._open_until = 0.0
        self._lock = threading.Lock()

    @property
    def is_open(self) -> bool:
        return self._failures >= self._threshold and self._clock() < self._open_until

    def allow(self) -> bool:
        """Whether to call the backend now. After the cooldown exactly one caller (the probe)
        is allowed; the breaker stays open for the others until the probe reports back."""
        if self._failures < self._threshold:
            return True
        with self._lock:
            now = self._clock()
            if now < self._open_until:
                return False
            self._open_until = now + self._cooldown  # re-armed until the probe succeeds
            return True

    def success(self) -> bool:
        """Record a call that worked; True when it ends an outage (the breaker was open)."""
        if not self._failures:
            return False
        with self._lock:
            ended = self._failures >= self._threshold
            self._failures = 0
            self._open_until = 0.0
            return ended

    def failure(self) -> bool:
        """Record a failed call; True when it begins an outage (this failure opened it)."""
        with self._lock:
            self._failures += 1
            if self._failures >= self._threshold:
                self._open_until = self._clock() + self._cooldown
            return self._failures == self._threshold
