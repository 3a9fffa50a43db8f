"""Where replay states are kept: in-process LRU, Redis or Redis Cluster.

A store maps keys to bytes with a time to live; it knows nothing of games. Every call may
raise (a Redis that is down, slow or restarting): :class:`~arbiter.cache.states.StateCache`
puts a circuit breaker in front and treats failures as misses. Redis clients are created on
first use in each process (so after gunicorn forks) with short timeouts and no retries: a
request must not wait on a failing cache longer than it would take to replay.

redis-py is imported only when a Redis store is made or a cache asks what a backend raises
(:func:`store_errors`): importing it pulls asyncio, ssl and sockets (17.6 MB of a process that
scores archives, which never uses a cache: ``arbiter score`` imports the service, and the
service this package).
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any, Protocol


@cache
def store_errors() -> tuple[type[BaseException], ...]:
    """What a failing backend raises; anything else is a bug and propagates. (redis-py's
    RedisClusterException, "cannot be connected", is not a RedisError.)"""
    from redis.exceptions import RedisClusterException, RedisError

    return (RedisError, RedisClusterException, OSError)


def __getattr__(name: str) -> Any:
    # STORE_ERRORS, the name the exceptions went by, without importing redis with the module
    if name == "STORE_ERRORS":
        return store_errors()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class StateStore(Protocol):
    """Bytes by key, with a time to live."""

    name: str

    def get_many(self, keys: Sequence[str]) -> list[bytes | None]: ...

    def put_many(self, items: Mapping[str, bytes], ttl: int) -> None: ...

    def ping(self) -> bool: ...


class MemoryStore:
    """A bounded LRU in this process (the default): fast, but private to one worker."""

    name = "memory"

    def __init__(self, max_entries: int, clock: Callable[[], float] = time.monotonic) -> None:
        self._entries: OrderedDict[str, tuple[float, bytes]] = OrderedDict()
        self._max = max_entries
        self._clock = clock
        self._lock = threading.Lock()  # gthread workers share the store between threads

    def get_many(self, keys: Sequence[str]) -> list[bytes | None]:
        now = self._clock()
        out: list[bytes | None] = []
        with self._lock:
            for key in keys:
                entry = self._entries.get(key)
                if entry is None or entry[0] <= now:
                    if entry is not None:
                        del self._entries[key]
                    out.append(None)
                else:
                    self._entries.move_to_end(key)
                    out.append(entry[1])
        return out

    def put_many(self, items: Mapping[str, bytes], ttl: int) -> None:
        expires = self._clock() + ttl
        with self._lock:
            for key, value in items.items():
                self._entries[key] = (expires, value)
                self._entries.move_to_end(key)
            while len(self._entries) > self._max:
                self._entries.popitem(last=False)

    def ping(self) -> bool:
        return True

    def __len__(self) -> int:
        return len(self._entries)


class _LazyClient:
    """A Redis client made on first use in each process (never shared across a fork)."""

    def __init__(self, factory: Callable[[], Any]) -> None:
        self._factory = factory
        self._client: Any = None
        self._pid = -1

    def get(self) -> Any:
        if self._client is None or self._pid != os.getpid():
            self._client = self._factory()
            self._pid = os.getpid()
        return self._client


def _client_options(timeout: float) -> dict[str, Any]:
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    return {
        "socket_timeout": timeout,
        "socket_connect_timeout": timeout,
        "retry": Retry(NoBackoff(), 0),  # no retry storms: a miss costs less than a wait
        "health_check_interval": 0,
    }


class RedisStore:
    """One Redis server (``REDIS_URL``)."""

    name = "redis"

    def __init__(self, url: str, timeout: float) -> None:
        from redis import Redis

        self._client = _LazyClient(lambda: Redis.from_url(url, **_client_options(timeout)))

    def get_many(self, keys: Sequence[str]) -> list[bytes | None]:
        values: list[bytes | None] = self._client.get().mget(keys)
        return values

    def put_many(self, items: Mapping[str, bytes], ttl: int) -> None:
        pipe = self._client.get().pipeline(transaction=False)
        for key, value in items.items():
            pipe.set(key, value, ex=ttl)
        pipe.execute()

    def ping(self) -> bool:
        return bool(self._client.get().ping())


class RedisClusterStore:
    """A Redis Cluster (``REDIS_CLUSTER_URL``: any node). The keys of one game share a hash
    tag, so a lookup is a single MGET on one node."""

    name = "cluster"

    def __init__(self, url: str, timeout: float) -> None:
        from redis.cluster import RedisCluster

        options = _client_options(timeout)
        options.pop("health_check_interval")
        self._client = _LazyClient(lambda: RedisCluster.from_url(url, **options))

    def get_many(self, keys: Sequence[str]) -> list[bytes | None]:
        values: list[bytes | None] = self._client.get().mget_nonatomic(keys)
        return values

    def put_many(self, items: Mapping[str, bytes], ttl: int) -> None:
        pipe = self._client.get().pipeline()
        for key, value in items.items():
            pipe.set(key, value, ex=ttl)
        pipe.execute()

    def ping(self) -> bool:
        return bool(self._client.get().ping())
