"""Issue 30, finding 7: a batch's access line and latency say how long its stream took and how
it ended.

The frame recorded a request when the app returned its answer: for a batch, before a line of
its stream was made, so its access line and its latency metric said ~0.7 ms and 200 whether
the stream took seconds or was reset. Now the request is recorded once the server closes the
stream, and the line has ``ended``: ``complete``, or ``reset`` (a client that did not read).

Against a live ``arbiter serve`` of one worker, JSON logs at INFO.
"""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from tests.api_support import NDJSON
from tests.archive_support import game_lines, ndjson
from tests.gunicorn_support import HOST, Gunicorn, request
from tests.hostile.conftest import request_head, served, wait_until

BATCH = "/v1/scores/batch"
SEND_TIMEOUT = 1.0
PAUSE = 1.0  # between the trickled lines


@pytest.fixture(scope="module")
def server() -> Iterator[Gunicorn]:
    with served(
        ARBITER_WORKERS="1",
        ARBITER_LOG_LEVEL="info",
        ARBITER_SEND_TIMEOUT=str(SEND_TIMEOUT),
        ARBITER_BATCH_BUFFER_BYTES=str(64 * 1024),
    ) as srv:
        yield srv


def access_line(server: Gunicorn, request_id: str) -> dict[str, Any] | None:
    for line in server.output().splitlines():
        if request_id in line and '"arbiter.access"' in line:
            found: dict[str, Any] = orjson.loads(line)
            return found
    return None


def _read_until_closed(sock: socket.socket) -> None:
    with contextlib.suppress(ConnectionResetError):
        while sock.recv(65536):
            pass


@pytest.mark.slow
def test_a_trickled_batch_is_recorded_when_its_stream_ends(server: Gunicorn) -> None:
    lines = game_lines(3, seed=90)
    with socket.create_connection((HOST, server.port), timeout=30) as sock:
        head = request_head("POST", BATCH, server.port, Content_Type=NDJSON,
                            Transfer_Encoding="chunked", X_Request_ID="trickled-1")  # fmt: skip
        sock.sendall(head)
        for line in lines:
            data = line + b"\n"
            sock.sendall(b"%x\r\n%s\r\n" % (len(data), data))
            time.sleep(PAUSE)  # the stream lasts at least the pauses
        sock.sendall(b"0\r\n\r\n")
        _read_until_closed(sock)
    assert wait_until(lambda: access_line(server, "trickled-1") is not None, 10)
    line = access_line(server, "trickled-1")
    assert line is not None
    assert line["status"] == 200 and line["ended"] == "complete"
    assert line["duration_ms"] >= 1000 * PAUSE * len(lines) * 0.9, line


@pytest.mark.slow
def test_a_batch_nobody_reads_is_recorded_as_reset(server: Gunicorn) -> None:
    body = ndjson(game_lines(200, seed=91) * 10)  # about 2 MB of answer
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a client that takes little
    sock.settimeout(60)
    sock.connect((HOST, server.port))
    try:
        with contextlib.suppress(OSError):  # the server may reset it while it still sends
            sock.sendall(request_head("POST", BATCH, server.port, Content_Type=NDJSON,
                                      Content_Length=str(len(body)),
                                      X_Request_ID="unread-1") + body)  # fmt: skip
        assert wait_until(lambda: access_line(server, "unread-1") is not None, SEND_TIMEOUT + 30)
    finally:
        sock.close()
    line = access_line(server, "unread-1")
    assert line is not None and line["ended"] == "reset", line
    assert line["duration_ms"] >= 1000 * SEND_TIMEOUT, line
    # an ordinary answer's line is as it was: no "ended"
    healthz = request(server.port, "GET", "/healthz", headers={"X-Request-ID": "plain-1"})
    assert healthz.status == 200
    assert wait_until(lambda: access_line(server, "plain-1") is not None, 10)
    assert "ended" not in (access_line(server, "plain-1") or {"ended": None})
