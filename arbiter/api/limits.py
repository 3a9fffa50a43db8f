"""The rate limit of /v1/ (``ARBITER_RATE_LIMIT``): one budget per API key, or per client
address without keys, with the ``limits`` library's moving window.

The request's frame (:mod:`arbiter.api.frame`) asks :meth:`RateLimit.admit` once the API key
is checked, for every request a rule of /v1/ answers, the thin path's too. Over the budget:
429 problem+json with ``Retry-After``; within it, the answer carries ``X-RateLimit-Limit``,
``-Remaining`` and ``-Reset``.

**Whose budget.** The API key's when keys are set (its :func:`~arbiter.api.security.key_id`,
never the key). Else the client's address: the peer's, or, when the peer is a proxy named in
``ARBITER_FORWARDED_ALLOW_IPS`` (the peers whose ``X-Forwarded-*`` gunicorn believes), the
address that proxy put in ``X-Forwarded-For`` (:class:`Clients`).

**One budget across workers.** The counters live in the state cache's Redis (or Redis Cluster)
when one is configured, so every worker and replica shares them; else in a SQLite file that the
gunicorn master makes for its workers (:class:`HostStore`, named by ``ARBITER_SERVER_LIMITS``),
so that the workers of one host share them; in memory in a process of its own (an app made in
process, a test). A store that fails lets the requests through (logged): the limit protects the
service, it must not stop it.
"""

from __future__ import annotations

import ipaddress
import logging
import math
import os
import sqlite3
import threading
import time
from collections.abc import MutableMapping
from typing import Any, Final

from limits import RateLimitItem, parse_many
from limits.errors import StorageError
from limits.storage import MovingWindowSupport, Storage, storage_from_string
from limits.strategies import MovingWindowRateLimiter
from limits.util import WindowStats

from arbiter.api.frame import KEY_ID, Headers
from arbiter.contract import Problem
from arbiter.settings import Settings

_log = logging.getLogger("arbiter.api")

#: The longest X-Forwarded-For address kept as a bucket's name (an address is at most 45).
_MAX_ADDRESS: Final = 64

IpNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


class Clients:
    """The client address of a request: ``REMOTE_ADDR``, or when that peer is a trusted proxy
    the nearest address of ``X-Forwarded-For`` that is not itself one (each proxy appends the
    address it got the request from: what lies to its left, the client wrote itself)."""

    def __init__(self, forwarded_allow_ips: str) -> None:
        names = [n.strip() for n in forwarded_allow_ips.split(",") if n.strip()]
        self._anyone = "*" in names
        self._proxies = tuple(ipaddress.ip_network(n, strict=False) for n in names if n != "*")

    def trusted(self, address: str) -> bool:
        if self._anyone:
            return True
        if not self._proxies:
            return False
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in self._proxies)

    def of(self, environ: MutableMapping[str, Any]) -> str:
        peer: str = environ.get("REMOTE_ADDR") or "unknown"
        forwarded: str | None = environ.get("HTTP_X_FORWARDED_FOR")
        if not forwarded or not self.trusted(peer):
            return peer
        hops = [hop.strip() for hop in forwarded.split(",")]
        for hop in reversed(hops):
            if hop and not self.trusted(hop):
                return hop[:_MAX_ADDRESS]
        return hops[0][:_MAX_ADDRESS] or peer  # every hop a proxy: the farthest


class RateLimit:
    """The budget of ``settings.rate_limit`` (one or more limits, ``;``-separated), in the
    store of the module doc."""

    def __init__(self, settings: Settings) -> None:
        self.items: tuple[RateLimitItem, ...] = tuple(parse_many(settings.rate_limit))
        self.clients = Clients(settings.forwarded_allow_ips)
        self.storage = store_of(settings)
        self.limiter = MovingWindowRateLimiter(self.storage)

    def bucket(self, environ: MutableMapping[str, Any]) -> str:
        key_id = environ.get(KEY_ID)
        return f"key:{key_id}" if key_id else f"addr:{self.clients.of(environ)}"

    def admit(self, environ: MutableMapping[str, Any]) -> Headers:
        """Count the request against its bucket: the headers of its answer, or a 429
        :class:`Problem` (raised) when a limit is spent."""
        bucket = self.bucket(environ)
        try:
            for item in self.items:
                if not self.limiter.hit(item, "v1", bucket):
                    raise _over(item, self.limiter.get_window_stats(item, "v1", bucket))
            windows = [(self.limiter.get_window_stats(i, "v1", bucket), i) for i in self.items]
        except StorageError as err:
            _log.warning("rate limit store failed, request let through: %s", err)
            return []
        window, item = min(windows, key=lambda w: w[0].remaining)
        return _headers(item, window)


def _headers(item: RateLimitItem, window: WindowStats) -> Headers:
    return [
        ("X-RateLimit-Limit", str(item.amount)),
        ("X-RateLimit-Remaining", str(max(window.remaining, 0))),
        ("X-RateLimit-Reset", str(math.ceil(window.reset_time))),
    ]


def _over(item: RateLimitItem, window: WindowStats) -> Problem:
    retry_after = max(1, math.ceil(window.reset_time - time.time()))
    return Problem(
        429,
        "Too Many Requests",
        f"Too many requests: the limit is {item}. Retry later.",
        headers=dict([("Retry-After", str(retry_after)), *_headers(item, window)]),
    )


def store_of(settings: Settings) -> Storage:
    """The counters' store: Redis, the host's file, or this process's memory."""
    # a Redis that does not answer costs each request at most this, as it does the cache
    options = {"socket_timeout": settings.cache_timeout,
               "socket_connect_timeout": settings.cache_timeout}  # fmt: skip
    backend = settings.cache_backend
    if backend == "redis" and settings.redis_url:
        return _store(settings.redis_url, **options)
    if backend == "cluster" and settings.redis_cluster_url:
        return _store(
            "redis+cluster://" + settings.redis_cluster_url.split("://", 1)[-1], **options
        )
    if settings.server_limits:
        return HostStore(settings.server_limits)
    return _store("memory://")


def _store(uri: str, **options: float) -> Storage:
    store = storage_from_string(uri, wrap_exceptions=True, **options)
    assert isinstance(store, Storage)  # not one of the asyncio stores
    return store


def install(settings: Settings) -> RateLimit | None:
    """The rate limit of ``settings``, or None when none is set."""
    return RateLimit(settings) if settings.rate_limit else None


# --- the store of one host's workers ----------------------------------------------------------

_SCHEMA: Final = (
    "CREATE TABLE IF NOT EXISTS hits (key TEXT NOT NULL, at REAL NOT NULL, until REAL NOT NULL)",
    "CREATE INDEX IF NOT EXISTS hits_of_key ON hits (key)",
    "CREATE INDEX IF NOT EXISTS hits_until ON hits (until)",
)


class HostStore(Storage, MovingWindowSupport):
    """A moving-window store for the ``limits`` library in one SQLite file, shared by the
    processes of one host (the gunicorn workers of one master): one row per request counted,
    until it leaves its window. Every count is one write transaction (``BEGIN IMMEDIATE``): two
    workers never both take the last request of a budget. Each process opens the file itself
    (a connection is never carried across a fork). The fixed-window strategy's methods are not
    provided: the service counts with the moving window only."""

    STORAGE_SCHEME = None

    def __init__(self, path: str, timeout: float = 1.0) -> None:
        super().__init__(wrap_exceptions=True)
        self.path = path
        self.timeout = timeout
        self._lock = threading.Lock()  # one connection per process; threads take turns
        self._connection: sqlite3.Connection | None = None
        self._pid = 0

    @property
    def base_exceptions(self) -> type[Exception]:
        return sqlite3.Error

    def _db(self) -> sqlite3.Connection:
        if self._connection is None or self._pid != os.getpid():
            db = sqlite3.connect(
                self.path, timeout=self.timeout, isolation_level=None, check_same_thread=False
            )
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=OFF")  # counters of a minute: no need to outlive
            for statement in _SCHEMA:
                db.execute(statement)
            self._connection, self._pid = db, os.getpid()
        return self._connection

    def acquire_entry(self, key: str, limit: int, expiry: int, amount: int = 1) -> bool:
        if amount > limit:
            return False
        with self._lock:
            db = self._db()
            now = time.time()
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute("DELETE FROM hits WHERE until <= ?", (now,))
                (count,) = db.execute("SELECT count(*) FROM hits WHERE key = ?", (key,)).fetchone()
                taken = count + amount <= limit
                if taken:
                    rows = [(key, now, now + expiry)] * amount
                    db.executemany("INSERT INTO hits VALUES (?, ?, ?)", rows)
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            return bool(taken)

    def get_moving_window(self, key: str, limit: int, expiry: int) -> tuple[float, int]:
        with self._lock:
            now = time.time()
            query = "SELECT min(at), count(*) FROM hits WHERE key = ? AND until > ?"
            oldest, count = self._db().execute(query, (key, now)).fetchone()
            return (now if oldest is None else oldest), count

    def check(self) -> bool:
        with self._lock:
            self._db().execute("SELECT 1").fetchone()
            return True

    def reset(self) -> int | None:
        with self._lock:
            return self._db().execute("DELETE FROM hits").rowcount

    def clear(self, key: str) -> None:
        with self._lock:
            self._db().execute("DELETE FROM hits WHERE key = ?", (key,))

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        raise NotImplementedError("HostStore counts moving windows only")

    def get(self, key: str) -> int:
        raise NotImplementedError("HostStore counts moving windows only")

    def get_expiry(self, key: str) -> float:
        raise NotImplementedError("HostStore counts moving windows only")
