"""The shared gunicorn helpers (:mod:`devtools.gunicorn_support`) with the live tests'
defaults: ready once ``/healthz`` answers 200 (and all ``workers`` are up, if given), three tries
on a fresh port, and a :func:`stop` that fails the test when gunicorn does not stop in time.
Used by tests/test_live_server.py, tests/test_operations_live.py, tests/test_two_workers.py and
tests/hostile/; :func:`serving` is the whole life of one server for the browser tests
(tests/browser_support.py) and tests/test_readme.py.
"""

from __future__ import annotations

import contextlib
import json
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

from prometheus_client.mmap_dict import MmapedDict

from devtools import gunicorn_support as shared
from devtools.gunicorn_support import (
    BOOT_TIMEOUT,
    HOST,
    STOP_TIMEOUT,
    Answer,
    Gunicorn,
    environment,
    free_port,
    post_json,
    request,
)

__all__ = [
    "ACCESS_FORMAT",
    "HOST",
    "Answer",
    "Gunicorn",
    "access_fields",
    "environment",
    "free_port",
    "parse_head",
    "post_json",
    "read_response",
    "request",
    "requests_by_worker",
    "serving",
    "start",
    "stop",
    "until_stopped",
]

G = TypeVar("G", bound=Gunicorn)


#: gunicorn's access lines as ``pid request-id status``, for tests that ask which worker answered
#: (``--access-logformat``, with ``ARBITER_ACCESS_LOG`` naming the file).
ACCESS_FORMAT = "%(p)s %({x-request-id}i)s %(s)s"


def access_fields(path: Path) -> list[list[str]]:
    """The fields of each gunicorn access line in ``path``, in the :data:`ACCESS_FORMAT`.
    gunicorn writes them as the service's log lines: JSON objects, the line in ``message``."""
    out = []
    for line in path.read_text().splitlines():
        message = json.loads(line)["message"] if line.startswith("{") else line
        out.append([field.strip("<>") for field in message.split()])  # gunicorn writes <pid>
    return out


def requests_by_worker(metrics_dir: Path, **labels: str) -> dict[int, float]:
    """``arbiter_requests_total{labels}`` as each process wrote it in its own file of
    Prometheus' multiprocess mode (``PROMETHEUS_MULTIPROC_DIR``): which worker answered what."""
    out: dict[int, float] = {}
    for path in metrics_dir.glob("counter_*.db"):
        pid = int(path.stem.split("_")[1])
        for key, value, _ts, _pos in MmapedDict.read_all_values_from_file(str(path)):
            _metric, name, key_labels, _help = json.loads(key)
            if name == "arbiter_requests_total" and key_labels == labels:
                out[pid] = out.get(pid, 0.0) + value
    return out


def stop(server: Gunicorn, timeout: float = STOP_TIMEOUT) -> int:
    """SIGTERM and the exit status; SIGKILL and :class:`subprocess.TimeoutExpired` when it
    does not stop within ``timeout``."""
    return shared.stop(server, timeout, reraise=True)


def start(
    log: Path,
    env: dict[str, str],
    *,
    workers: int | None = None,
    boot_timeout: float = BOOT_TIMEOUT,
    stop_timeout: float = STOP_TIMEOUT,
    **options: Any,
) -> Gunicorn:
    """``arbiter.wsgi:app`` under the shipped config, once ``/healthz`` answers (``options``:
    ``args``, ``bind_option``, ``capture_stdout``, ``serve`` of
    :func:`devtools.gunicorn_support.start`)."""
    return shared.start(
        log,
        env,
        shared.answers("/healthz", workers=workers),
        attempts=3,  # the free port may be taken between the probe and the bind
        boot_timeout=boot_timeout,
        stop_timeout=stop_timeout,
        **options,
    )


@contextlib.contextmanager
def until_stopped(server: G) -> Iterator[G]:
    """``server`` for the block; then SIGTERM, which must exit 0 (else the test fails with
    gunicorn's last words)."""
    try:
        yield server
    finally:
        status = stop(server)
    assert status == 0, f"gunicorn exited with {status} after SIGTERM:\n{server.tail()}"


@contextlib.contextmanager
def serving(prefix: str, **env: str) -> Iterator[Gunicorn]:
    """The shipped app, one worker unless ``env`` says otherwise (whatever the calling shell
    exports, plus ``env``), its output in a temporary directory; stopped with SIGTERM at the end,
    which must exit 0."""
    environ = environment(ARBITER_LOG_LEVEL="warning", **{"ARBITER_WORKERS": "1", **env})
    with (
        tempfile.TemporaryDirectory(prefix=prefix) as tmp,
        until_stopped(start(Path(tmp) / "gunicorn.out", environ)) as server,
    ):
        yield server


def read_response(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """An HTTP/1.1 response read off ``sock`` to the end of its Content-Length: the status,
    the headers (names in lower case) and the body."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError(f"connection closed after {data[:200]!r}")
        data += chunk
    status, headers, rest = parse_head(data)
    length = int(headers["content-length"])
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError(f"body cut at {len(rest)} of {length} bytes")
        rest += chunk
    return status, headers, rest[:length]


def parse_head(data: bytes) -> tuple[int, dict[str, str], bytes]:
    """An HTTP/1.1 response's status, its headers (names in lower case), and what follows them."""
    head, _, rest = data.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(status_line.split()[1]), headers, rest
