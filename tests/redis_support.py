"""Redis fixtures of the suite; tests/conftest.py makes them available to every test module.

No test touches a Redis it did not start (a developer's Redis on 6379 may hold their data):

- :func:`session_redis`: one throwaway ``redis-server`` for the whole session (a free loopback
  port, no persistence, a temporary directory: :mod:`devtools.redis_server`), stopped at the
  end — unless ``ARBITER_TEST_REDIS_URL`` names a Redis for the tests explicitly.
- :func:`redis_db`: a :class:`RedisDatabase` of that server for one test. On the session's own
  server the database is emptied (FLUSHDB) before and after the test; on a server named by
  ``ARBITER_TEST_REDIS_URL`` nothing is ever flushed: the test sees, and at its end deletes,
  only the keys that were not there when it began (:meth:`RedisDatabase.own_keys`).
- :func:`private_redis`: a ``redis-server`` of the test's own on a free loopback port, that the
  test can kill, restart on the same port, freeze (SIGSTOP), thaw and empty. It is always
  stopped at teardown. A test that needs a Redis emptied mid-test uses it.

A test that needs a Redis fails (it is not skipped) when it cannot have one: the cache tests are
the only place where the Redis backend is exercised.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import pytest
from redis import Redis
from redis.exceptions import RedisError

from devtools.redis_server import RedisProcess, RedisServerError, free_port

__all__ = [
    "URL_VARIABLE",
    "RedisDatabase",
    "RedisProcess",
    "SessionRedis",
    "free_port",
    "private_redis",
    "redis_db",
    "session_redis",
]

#: Where the tests may find a Redis of their own instead of starting one.
URL_VARIABLE = "ARBITER_TEST_REDIS_URL"
TIMEOUT = 1.0


@dataclass(frozen=True)
class SessionRedis:
    """The session's Redis: its URL, and the server when the session started it."""

    url: str
    server: RedisProcess | None

    @property
    def ours(self) -> bool:
        return self.server is not None


class RedisDatabase(Redis):
    """A client of the test's database (:func:`redis_db`) that knows which keys are the test's."""

    url: str
    _before: frozenset[bytes]

    def own_keys(self) -> list[bytes]:
        """The keys that were not there when the test began, sorted."""
        return sorted(k for k in self.scan_iter(count=1000) if k not in self._before)


@pytest.fixture(scope="session")
def session_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SessionRedis]:
    url = os.environ.get(URL_VARIABLE, "").strip()
    if url:
        yield SessionRedis(url, None)
        return
    server = RedisProcess(free_port(), tmp_path_factory.mktemp("redis"))
    try:
        server.start()
        yield SessionRedis(server.url, server)
    finally:
        server.close()


@pytest.fixture
def redis_db(session_redis: SessionRedis) -> Iterator[RedisDatabase]:
    """A client of the session's Redis (see the module docstring for what is emptied)."""
    made = RedisDatabase.from_url(  # typed as a Redis; it is made by cls
        session_redis.url, socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT
    )
    client = cast(RedisDatabase, made)
    client.url = session_redis.url
    try:
        client.ping()
    except RedisError as err:
        client.close()
        pytest.fail(f"the tests' Redis {session_redis.url} does not answer: {err}")
    if session_redis.server is not None:
        session_redis.server.flush()
    client._before = frozenset() if session_redis.ours else frozenset(client.scan_iter(count=1000))
    try:
        yield client
    finally:
        if session_redis.server is not None:
            session_redis.server.flush()
        else:
            mine = client.own_keys()
            if mine:
                client.delete(*mine)
        client.close()


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[RedisProcess]:
    """A running private redis-server; killed at teardown whatever the test did to it."""
    server = RedisProcess(free_port(), tmp_path)
    try:
        server.start()
    except RedisServerError as err:
        server.close()
        pytest.fail(str(err))
    try:
        yield server
    finally:
        server.close()
