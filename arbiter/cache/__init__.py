"""The replay-state cache: state ids, stores (memory, Redis, Redis Cluster), circuit breaker.

Only an adapter: the engine's snapshots are what is stored; the engine never sees the cache.
"""

from arbiter.cache.states import CachedReplay, CachedState, StateCache, build_cache

__all__ = ["CachedReplay", "CachedState", "StateCache", "build_cache"]
