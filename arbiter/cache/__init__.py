"""The replay-state cache: storage keys of log prefixes, stores (memory, Redis, Redis Cluster),
a circuit breaker. It loads and stores bytes; the service decides what to keep.
"""

from __future__ import annotations

from typing import Final

from arbiter.cache.breaker import CircuitBreaker
from arbiter.cache.keys import PrefixKeys, prefix_keys
from arbiter.cache.states import CacheObserver, StateCache
from arbiter.cache.stores import MemoryStore, RedisClusterStore, RedisStore, StateStore
from arbiter.settings import Settings

#: Fewest events in a log for a cache lookup to pay, by build of the engine and backend: the
#: compiled engine replays about three times faster, so a lookup pays later, and a Redis
#: lookup and store are two round trips (measured with ``benchmarks/bench_positions.py`` on
#: loopback, 100 µs a round trip; ARBITER_CACHE_MIN_EVENTS overrides it, lower for a faster
#: network, higher for a slower one).
DEFAULT_MIN_EVENTS: Final = {
    "pure": {"memory": 48, "redis": 320, "cluster": 320},
    "compiled": {"memory": 160, "redis": 1300, "cluster": 1300},
}

__all__ = [
    "DEFAULT_MIN_EVENTS",
    "CacheObserver",
    "PrefixKeys",
    "StateCache",
    "build_cache",
    "prefix_keys",
]


def build_cache(
    settings: Settings, secret: bytes, observer: CacheObserver | None = None
) -> StateCache | None:
    """The cache the settings ask for (None when it is off); ``secret`` keys its tags."""
    backend = settings.cache_backend
    store: StateStore
    if backend == "off":
        return None
    if backend == "redis":
        assert settings.redis_url is not None
        store = RedisStore(settings.redis_url, settings.cache_timeout)
    elif backend == "cluster":
        assert settings.redis_cluster_url is not None
        store = RedisClusterStore(settings.redis_cluster_url, settings.cache_timeout)
    else:
        store = MemoryStore(settings.cache_max_entries)
    breaker = CircuitBreaker(settings.breaker_failures, settings.breaker_cooldown)
    min_events = settings.cache_min_events
    if min_events is None:
        from arbiter import BUILD

        min_events = DEFAULT_MIN_EVENTS[BUILD][backend]
    return StateCache(store, secret, settings.cache_ttl, breaker, min_events, observer)
