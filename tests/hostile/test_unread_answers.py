"""Issue 30, finding 1: answers nobody reads no longer pin the host's memory.

100 GETs of ``/docs/swagger-ui-bundle.js`` (1.68 MB each, no key needed), never read, held
~232 MiB of kernel TCP memory for as long as the client kept its connections (120 s and more):
each socket's send buffer grew to hold the whole bundle. Now every write of every answer must
make progress within ``ARBITER_SEND_TIMEOUT`` or the connection is reset, and each
connection's send buffer is ``ARBITER_SEND_BUFFER_BYTES``; the bundle goes gzip-coded to a
client that accepts it, with an ETag (a 304 the next time).

Against a live ``arbiter serve``: the server's side of the connections is read with ``ss -tm``
(its sockets' ``skmem``: ``w``, the bytes queued to send), while they are held and after the
deadline.
"""

from __future__ import annotations

import contextlib
import gzip
import re
import socket
import subprocess
from collections.abc import Iterator

import pytest

from arbiter.api.docs import DIST
from tests.gunicorn_support import HOST, Gunicorn, request
from tests.hostile.conftest import request_head, served, wait_until

BUNDLE = "/docs/swagger-ui-bundle.js"
SEND_TIMEOUT = 2.0
SEND_BUFFER = 64 * 1024
READERS = 20
_QUEUED = re.compile(r"skmem:\(r\d+,rb\d+,t\d+,tb\d+,f\d+,w(\d+),")


@pytest.fixture(scope="module")
def server() -> Iterator[Gunicorn]:
    with served(
        ARBITER_WORKERS="1",
        ARBITER_SEND_TIMEOUT=str(SEND_TIMEOUT),
        ARBITER_SEND_BUFFER_BYTES=str(SEND_BUFFER),
    ) as srv:
        yield srv


def queued_by_server(port: int) -> list[int]:
    """Bytes queued to send on each of the server's established connections on ``port``."""
    out = subprocess.run(
        ["ss", "-tmnH", "state", "established", f"( sport = :{port} )"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [int(m.group(1)) for m in _QUEUED.finditer(out)]


@contextlib.contextmanager
def unread_gets(port: int, count: int, **headers: str) -> Iterator[list[socket.socket]]:
    """``count`` connections, each sending one GET of the bundle and reading nothing."""
    socks = []
    try:
        for _ in range(count):
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # takes little
            sock.connect((HOST, port))
            sock.sendall(request_head("GET", BUNDLE, port, **headers))
            socks.append(sock)
        yield socks
    finally:
        for sock in socks:
            sock.close()


def _reset(sock: socket.socket) -> bool:
    """Did the server reset the connection? (What it sent before may still be read.)"""
    sock.settimeout(10)
    try:
        while sock.recv(65536):
            pass
    except ConnectionResetError:
        return True
    return False


@pytest.mark.slow
def test_unread_answers_hold_a_bounded_buffer_and_are_reset(server: Gunicorn) -> None:
    with unread_gets(server.port, READERS) as socks:
        assert wait_until(lambda: len(queued_by_server(server.port)) == READERS, 10)
        assert wait_until(lambda: min(queued_by_server(server.port)) > 0, 10)
        held = queued_by_server(server.port)
        print(f"\n{READERS} unread GETs of the bundle: the server queues {sum(held) / 2**20:.2f} "
              f"MiB, at most {max(held) / 1024:.0f} KiB a connection")  # fmt: skip
        # the kernel doubles SO_SNDBUF and counts its own overhead: a few times the setting,
        # against the whole 1.68 MB bundle (and more) a connection before
        assert max(held) <= 4 * SEND_BUFFER, held
        # past the deadline every connection is reset and its memory freed
        assert wait_until(lambda: not queued_by_server(server.port), SEND_TIMEOUT + 20)
        assert all(_reset(sock) for sock in socks)


def test_the_bundle_is_gzip_coded_and_cached(server: Gunicorn) -> None:
    first = request(server.port, "GET", BUNDLE, headers={"Accept-Encoding": "gzip"})
    assert first.status == 200
    assert first.headers["content-encoding"] == "gzip"
    assert len(first.body) < 600_000  # of 1,684,244
    assert gzip.decompress(first.body) == (DIST / "swagger-ui-bundle.js").read_bytes()
    assert "max-age" in first.headers["cache-control"]
    again = request(
        server.port,
        "GET",
        BUNDLE,
        headers={"Accept-Encoding": "gzip", "If-None-Match": first.headers["etag"]},
    )
    assert again.status == 304 and again.body == b""
    plain = request(server.port, "GET", BUNDLE)
    assert "content-encoding" not in plain.headers and len(plain.body) == 1_684_244
