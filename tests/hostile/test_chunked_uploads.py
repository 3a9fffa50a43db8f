"""Issue 29, item 1: a batch streamed with a chunked body loses no line, however it is cut.

A client streaming its archive one line per chunk got 200 answers that ended early (317 to
9,059 lines of 10,000) with no stop line; with 1,000-byte chunks every run ended at line 131,
after calling a valid game "Not JSON". gunicorn's chunked parser hands over an empty piece when
a receive ends right after a chunk-size line, and the worker took it for the end of the body.

Here the archive goes to a live ``arbiter serve`` in 1-byte, 1-line, 1,000-byte and random
chunks; the sender also makes receives end right after size lines (it pauses there now and
then, so that the server reads what came so far). Every answer must equal the answer to the
same archive sent plainly, with a Content-Length.
"""

from __future__ import annotations

import random
import socket
import threading
import time
from collections.abc import Iterator

import pytest

from devtools.gunicorn_support import dechunked
from tests.api_support import NDJSON
from tests.archive_support import game_lines, ndjson
from tests.gunicorn_support import HOST, Gunicorn, parse_head, request
from tests.hostile.conftest import request_head, served

BATCH = "/v1/scores/batch"
#: Times the sender pauses right after a size line, spread over the body.
PAUSES = 50


@pytest.fixture(scope="module")
def server() -> Iterator[Gunicorn]:
    with served(ARBITER_WORKERS="1") as srv:
        yield srv


#: Games streamed: fewer in 1-byte chunks (each byte costs the server a chunk to parse, and
#: parsing counts against the body's deadline as waiting for it does).
GAMES = {"1-byte": 40, "1-line": 400, "1000-byte": 400, "random": 400}


@pytest.fixture(scope="module")
def games() -> list[bytes]:
    return game_lines(400, seed=29)


def _cut(body: bytes, how: str) -> list[bytes]:
    """``body`` in the chunks of ``how``."""
    if how == "1-byte":
        return [body[i : i + 1] for i in range(len(body))]
    if how == "1-line":
        return body.splitlines(keepends=True)
    if how == "1000-byte":
        return [body[i : i + 1000] for i in range(0, len(body), 1000)]
    rng = random.Random(2029)
    chunks, at = [], 0
    while at < len(body):
        size = rng.choice([1, 2, 7, 100, 999, 1000, 4093, 8192, 20000])
        chunks.append(body[at : at + size])
        at += size
    return chunks


def _send_chunked(sock: socket.socket, chunks: list[bytes]) -> None:
    """The chunks, each size line now and then sent on its own and followed by a pause:
    a receive of the server then ends right after it."""
    waiting = bytearray()
    every = max(2, len(chunks) // PAUSES)
    for number, chunk in enumerate(chunks):
        size_line = b"%x\r\n" % len(chunk)
        if number % every == 1:
            sock.sendall(bytes(waiting) + size_line)
            waiting.clear()
            time.sleep(0.01)
            waiting += chunk + b"\r\n"
        else:
            waiting += size_line + chunk + b"\r\n"
        if len(waiting) > 16384:
            sock.sendall(bytes(waiting))
            waiting.clear()
    sock.sendall(bytes(waiting) + b"0\r\n\r\n")


def _streamed(port: int, chunks: list[bytes]) -> tuple[int, bytes, bool]:
    """The status, the answer's body and whether its chunked coding ended cleanly."""
    with socket.create_connection((HOST, port), timeout=60) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.sendall(request_head("POST", BATCH, port, Content_Type=NDJSON,
                                  Transfer_Encoding="chunked"))  # fmt: skip
        sender = threading.Thread(target=_send_chunked, args=(sock, chunks), daemon=True)
        sender.start()
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
        sender.join(60)
    status, _, rest = parse_head(data)
    body, complete = dechunked(rest)
    return status, body, complete


@pytest.mark.slow
@pytest.mark.parametrize("how", ["1-byte", "1-line", "1000-byte", "random"])
def test_a_chunked_archive_is_answered_whole(
    server: Gunicorn, games: list[bytes], how: str
) -> None:
    count = GAMES[how]
    archive = ndjson(games[:count])
    plain = request(server.port, "POST", BATCH, archive, {"Content-Type": NDJSON}, timeout=60)
    assert plain.status == 200
    assert plain.body.count(b"\n") == count
    status, body, complete = _streamed(server.port, _cut(archive, how))
    assert status == 200 and complete
    answered = body.count(b"\n")
    assert answered == count, f"{answered} lines of {count} answered: {body[-300:]!r}"
    assert body == plain.body


@pytest.mark.slow
def test_an_archive_sent_in_batches_from_offsets_is_numbered_as_one(
    server: Gunicorn, games: list[bytes]
) -> None:
    """Issue 29, item 8: ``?first_line=N`` numbers a batch from N, so that the ids and sources
    of an archive sent in several batches do not repeat."""
    headers = {"Content-Type": NDJSON}
    whole = request(server.port, "POST", BATCH, ndjson(games[:30]), headers, timeout=60).body
    parts = b"".join(
        request(server.port, "POST", f"{BATCH}?first_line={start + 1}",
                ndjson(games[start : start + 10]), headers, timeout=60).body
        for start in (0, 10, 20)
    )  # fmt: skip
    assert parts == whole
