"""The server the hostile tests attack, and raw HTTP helpers.

:func:`served` starts the service as ``make run`` does (``arbiter serve --host --port``: gunicorn
with deploy/gunicorn.conf.py and its defaults, no ``ARBITER_*``, ``REDIS_*`` or
``PROMETHEUS_MULTIPROC_DIR`` from the calling shell) on a free loopback port, and stops it with
SIGTERM, checking that it exits 0. :func:`exchange` sends bytes exactly as given (what
http.client would refuse to send) and reads one answer.
"""

from __future__ import annotations

import contextlib
import json
import random
import socket
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from arbiter.simulate import random_log
from tests import gunicorn_support
from tests.gunicorn_support import HOST, Gunicorn, read_response

#: Variables of the calling shell that ``make run`` would not see.
SHELL_ONLY = ("ARBITER_", "REDIS_", "PROMETHEUS_")


@contextlib.contextmanager
def served(**env: str) -> Iterator[Gunicorn]:
    """The service as ``make run`` starts it, with ``env`` added to the environment."""
    environment = gunicorn_support.environment(
        SHELL_ONLY, **{"ARBITER_LOG_LEVEL": "warning", **env}
    )
    with (
        tempfile.TemporaryDirectory(prefix="arbiter-hostile-") as tmp,
        gunicorn_support.until_stopped(
            gunicorn_support.start(Path(tmp) / "gunicorn.out", environment, serve=True)
        ) as server,
    ):
        yield server


@pytest.fixture(scope="package")
def server() -> Iterator[Gunicorn]:
    with served() as srv:
        yield srv


@pytest.fixture(scope="package")
def log() -> dict[str, Any]:
    """A complete tute-2p log (one deal)."""
    return random_log("tute-2p", random.Random(12))


@dataclass
class Raw:
    """One answer read off a socket."""

    status: int
    headers: dict[str, str]  # names in lower case
    body: bytes
    closed: bool  # the server closed the connection after it

    def json(self) -> Any:
        return json.loads(self.body)


def read_answer(sock: socket.socket) -> Raw:
    """One HTTP/1.1 answer with a Content-Length (all of this service's answers have one)."""
    status, headers, body = read_response(sock)
    return Raw(status, headers, body, headers.get("connection", "").lower() == "close")


def exchange(port: int, data: bytes, timeout: float = 10.0) -> Raw:
    """``data`` sent as is on a new connection, and the answer."""
    with socket.create_connection((HOST, port), timeout=timeout) as sock:
        sock.sendall(data)
        return read_answer(sock)


def request_head(method: str, path: str, port: int, **headers: str) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"Host: {HOST}:{port}"]
    lines += [f"{name.replace('_', '-')}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def chunked(body: bytes, size: int = 65536) -> bytes:
    """``body`` in the chunked transfer coding."""
    parts = [b"%x\r\n%s\r\n" % (len(body[i : i + size]), body[i : i + size])
             for i in range(0, len(body), size)]  # fmt: skip
    return b"".join(parts) + b"0\r\n\r\n"


def wait_until(predicate: Any, timeout: float, step: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return bool(predicate())
