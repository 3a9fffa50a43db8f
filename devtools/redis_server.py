"""A throwaway ``redis-server`` of the caller's own, for the tests and the benchmarks.

Neither the tests nor the benchmarks ever use a Redis they did not start (a developer's Redis
on 6379 may hold their data): they start one here, on a free 127.0.0.1 port, without
persistence (``--save '' --appendonly no``), its files in a directory of the caller's, and stop
it when done.

- :class:`RedisProcess`: one such server, which its owner can kill, restart on the same port,
  freeze (SIGSTOP) and thaw; :meth:`RedisProcess.flush` empties a database of it. Emptying a
  database is only possible here, on a server this process started (tests/test_hygiene.py
  fails on a FLUSHDB or FLUSHALL anywhere else).
- :func:`running`: a started server in a temporary directory, stopped on exit.

Import it as ``devtools.redis_server`` with the repository root on ``sys.path``.
"""

from __future__ import annotations

import contextlib
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from redis import Redis
from redis.exceptions import RedisError

HOST = "127.0.0.1"
BOOT_TIMEOUT = 10.0  # seconds for the server to answer PING
STOP_TIMEOUT = 10.0


class RedisServerError(RuntimeError):
    """The server could not be started (not installed, exited, or silent)."""


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


def client_of(url: str, timeout: float = 1.0) -> Redis:
    return Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)


class RedisProcess:
    """A ``redis-server`` of this process's on ``port`` (loopback only, no RDB, no AOF)."""

    def __init__(self, port: int, workdir: Path) -> None:
        self.port = port
        self.workdir = workdir
        self.process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None
        self.frozen = False

    @property
    def url(self) -> str:
        return self.url_of(0)

    def url_of(self, db: int) -> str:
        return f"redis://{HOST}:{self.port}/{db}"

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self) -> None:
        """Start the server (on the same port as before) and wait until it answers PING."""
        if self.running:
            raise RedisServerError(f"redis-server on port {self.port} is already running")
        binary = shutil.which("redis-server")
        if binary is None:
            raise RedisServerError(
                "redis-server is not installed (Debian: apt-get install redis-server)"
            )
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
        self._wait_for_ping()

    def _wait_for_ping(self) -> None:
        deadline = time.monotonic() + BOOT_TIMEOUT
        client = client_of(self.url, timeout=0.5)
        try:
            while True:
                if not self.running:
                    raise RedisServerError(
                        f"redis-server on port {self.port} exited:\n{self.output()}"
                    )
                with contextlib.suppress(RedisError):
                    if client.ping():
                        return
                if time.monotonic() > deadline:
                    self.kill()
                    raise RedisServerError(
                        f"redis-server on port {self.port} did not answer PING in "
                        f"{BOOT_TIMEOUT:g} s:\n{self.output()}"
                    )
                time.sleep(0.02)
        finally:
            client.close()

    def kill(self) -> None:
        """SIGKILL: the server vanishes with its data; its port refuses connections."""
        if self.process is None:
            return
        if self.process.poll() is None:
            if self.frozen:
                with contextlib.suppress(ProcessLookupError):
                    self.process.send_signal(signal.SIGCONT)
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

    def client(self, db: int = 0) -> Redis:
        return client_of(self.url_of(db))

    def flush(self, db: int = 0) -> None:
        """Empty database ``db`` of this server (it is ours: we started it)."""
        with self.client(db) as admin:
            admin.flushdb()

    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def output(self) -> str:
        """The end of what the server wrote."""
        if self._log is None:
            return ""
        self._log.flush()
        self._log.seek(0)
        return self._log.read().decode("utf-8", "replace")[-3000:]

    def close(self) -> None:
        """Stop the server whatever state it is in, and close its log."""
        self.kill()
        if self._log is not None:
            self._log.close()
            self._log = None


@contextlib.contextmanager
def running(workdir: Path | None = None) -> Iterator[RedisProcess]:
    """A started server on a free port (its files in ``workdir``, else in a temporary
    directory removed afterwards), stopped on exit whatever happened."""
    with contextlib.ExitStack() as stack:
        if workdir is None:
            workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="redis-")))
        server = RedisProcess(free_port(), workdir)
        stack.callback(server.close)
        server.start()
        yield server
