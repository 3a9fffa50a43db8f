"""Redis fixtures for the state-cache tests (tests/test_cache.py, tests/test_cache_faults.py).

- :func:`redis_db`: a database of the shared Redis server on 127.0.0.1:6379 that only these
  tests use (:data:`TEST_DB`), emptied with FLUSHDB before and after each test. A test that
  needs it fails (it is not skipped) when the server does not answer: the cache tests are the
  only place where the Redis backend is exercised.
- :func:`private_redis`: a ``redis-server`` of the test's own on a free loopback port, without
  persistence, that the test can kill, restart on the same port, freeze (SIGSTOP) and thaw.
  It is always stopped at teardown.

Import the fixtures into a test module with ``from tests.redis_support import redis_db``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest
from redis import Redis
from redis.exceptions import RedisError

HOST = "127.0.0.1"
SHARED_PORT = 6379
#: The first of the three databases of the shared server that the suite uses (11, 12 and 13 by
#: default). ARBITER_TEST_REDIS_DB_BASE moves them, so that two checkouts can run at once.
DB_BASE = int(os.environ.get("ARBITER_TEST_REDIS_DB_BASE", "11"))
#: The database of the shared server that belongs to these tests (others use other indexes).
TEST_DB = DB_BASE + 2
SHARED_URL = f"redis://{HOST}:{SHARED_PORT}/{TEST_DB}"
BOOT_TIMEOUT = 10.0  # seconds for a private redis-server to answer PING
STOP_TIMEOUT = 10.0


def _client(url: str, timeout: float = 1.0) -> Redis:
    return Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)


@pytest.fixture
def redis_db() -> Iterator[Redis]:
    """A client of :data:`SHARED_URL`, the database flushed before and after the test."""
    client = _client(SHARED_URL)
    try:
        client.ping()
    except RedisError as err:
        client.close()
        pytest.fail(f"the shared Redis server {HOST}:{SHARED_PORT} does not answer: {err}")
    client.flushdb()
    try:
        yield client
    finally:
        client.flushdb()
        client.close()


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


class RedisProcess:
    """A private ``redis-server`` on ``port`` (loopback only, no RDB, no AOF)."""

    def __init__(self, port: int, workdir: Path) -> None:
        self.port = port
        self.workdir = workdir
        self.process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None
        self.frozen = False

    @property
    def url(self) -> str:
        return f"redis://{HOST}:{self.port}/0"

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self) -> None:
        """Start the server (on the same port as before) and wait until it answers PING."""
        assert not self.running, "already running"
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.fail("redis-server is not installed")
        if self._log is None:
            self._log = (self.workdir / "redis.log").open("ab+")
        command = [
            binary,
            "--port",
            str(self.port),
            "--bind",
            HOST,
            "--save",
            "",
            "--appendonly",
            "no",
            "--daemonize",
            "no",
            "--dir",
            str(self.workdir),
        ]
        self.process = subprocess.Popen(
            command, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        )
        self.frozen = False
        deadline = time.monotonic() + BOOT_TIMEOUT
        client = _client(self.url, timeout=0.5)
        try:
            while True:
                if not self.running:
                    pytest.fail(f"redis-server on port {self.port} exited:\n{self.output()}")
                try:
                    if client.ping():
                        return
                except RedisError:
                    pass
                if time.monotonic() > deadline:
                    pytest.fail(f"redis-server on port {self.port} did not answer PING in time")
                time.sleep(0.02)
        finally:
            client.close()

    def kill(self) -> None:
        """SIGKILL: the server vanishes with its data; its port refuses connections."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(STOP_TIMEOUT)
        self.frozen = False
        self.process = None

    def restart(self) -> None:
        self.kill()
        self.start()

    def freeze(self) -> None:
        """SIGSTOP: connections are still accepted by the kernel, but nothing answers."""
        assert self.process is not None and self.running
        self.process.send_signal(signal.SIGSTOP)
        self.frozen = True

    def thaw(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGCONT)
        self.frozen = False

    def client(self) -> Redis:
        return _client(self.url)

    def output(self) -> str:
        if self._log is None:
            return ""
        self._log.flush()
        self._log.seek(0)
        return self._log.read().decode("utf-8", "replace")[-3000:]

    def close(self) -> None:
        if self.process is not None and self.frozen:
            with contextlib.suppress(ProcessLookupError):
                self.process.send_signal(signal.SIGCONT)
        self.kill()
        if self._log is not None:
            self._log.close()
            self._log = None


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[RedisProcess]:
    """A running private redis-server; killed at teardown whatever the test did to it."""
    server = RedisProcess(free_port(), tmp_path)
    try:
        server.start()
        yield server
    finally:
        server.close()
