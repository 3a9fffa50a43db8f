"""Issue 30, finding 3: one client no longer keeps every batch slot.

Ten connections trickling a line every 0.9 s (783 B/s) kept an honest client's 3-line batches
at 429 for 56 of 60 tries. Now a client (its API key here; its address without keys) holds at
most ``ARBITER_BATCH_PER_CLIENT`` slots of a worker, a body slower than
``ARBITER_BATCH_MIN_RATE`` ends with a 408 stop line, and a batch may take
``ARBITER_BATCH_SECONDS`` in all.

Against a live ``arbiter serve`` of one worker (``ARBITER_BATCH_CONCURRENCY`` 2, the default):
a greedy client keeps ten connections trickling (each one reconnects as soon as it is
answered), and an honest client sends its batches meanwhile.
"""

from __future__ import annotations

import contextlib
import itertools
import select
import socket
import threading
import time
from collections.abc import Iterator

import pytest

from devtools.gunicorn_support import dechunked
from tests.api_support import NDJSON
from tests.archive_support import game_lines, lines_of, ndjson
from tests.gunicorn_support import HOST, Gunicorn, parse_head, request
from tests.hostile.conftest import request_head, served

BATCH = "/v1/scores/batch"
GREEDY, HONEST = "greedy-client-key-0001", "honest-client-key-0002"
TRICKLERS = 10
#: The finding's trickle: a piece of a line every 0.9 s, 783 bytes a second.
PAUSE = 0.9
PIECE = 700


@pytest.fixture(scope="module")
def server() -> Iterator[Gunicorn]:
    with served(ARBITER_WORKERS="1", ARBITER_API_KEYS=f"{GREEDY},{HONEST}") as srv:
        yield srv


class Greedy:
    """Ten connections of one client, each trickling game lines; answered, it starts again."""

    def __init__(self, port: int, line: bytes) -> None:
        self.port = port
        self.pieces = _pieces(line)
        self.stop = threading.Event()
        self.answers: list[tuple[int, float]] = []  # status and seconds held, per connection
        self.threads = [threading.Thread(target=self._run, daemon=True) for _ in range(TRICKLERS)]

    def __enter__(self) -> Greedy:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(30)

    def _run(self) -> None:
        while not self.stop.is_set():
            with contextlib.suppress(OSError):
                self._one()
            time.sleep(0.2)  # a 429 says Retry-After: 1; this client hardly waits

    def _one(self) -> None:
        began = time.monotonic()
        with socket.create_connection((HOST, self.port), timeout=30) as sock:
            head = request_head("POST", BATCH, self.port, Content_Type=NDJSON,
                                Transfer_Encoding="chunked", X_API_Key=GREEDY)  # fmt: skip
            sock.sendall(head)
            data = _trickle(sock, self.pieces, self.stop)
        if data:
            self.answers.append((parse_head(data)[0], time.monotonic() - began))


def _trickle(sock: socket.socket, pieces: list[bytes], stop: threading.Event) -> bytes:
    """Send ``pieces`` over and over, one every :data:`PAUSE` seconds, reading the answer
    meanwhile, until the server ends it (or ``stop``): the answer."""
    data = b""
    for piece in itertools.cycle(pieces):
        if stop.is_set():
            return b""
        with contextlib.suppress(OSError):  # the server may have stopped reading
            sock.sendall(piece)
        deadline = time.monotonic() + PAUSE
        while (left := deadline - time.monotonic()) > 0:
            if not select.select([sock], [], [], left)[0]:
                break
            try:
                chunk = sock.recv(65536)
            except OSError:
                return data
            if not chunk:
                return data
            data += chunk
    return data


def _pieces(line: bytes) -> list[bytes]:
    """``line`` and its newline as chunks of :data:`PIECE` bytes, in the chunked coding."""
    data = line + b"\n"
    return [b"%x\r\n%s\r\n" % (len(data[i : i + PIECE]), data[i : i + PIECE])
            for i in range(0, len(data), PIECE)]  # fmt: skip


def _honest(port: int, body: bytes) -> tuple[int, bytes]:
    answer = request(port, "POST", BATCH, body, {"Content-Type": NDJSON, "X-API-Key": HONEST},
                     timeout=30)  # fmt: skip
    return answer.status, answer.body


@pytest.mark.slow
def test_a_greedy_client_leaves_slots_to_an_honest_one(server: Gunicorn) -> None:
    lines = game_lines(4, seed=30)
    honest = ndjson(lines[:3])
    expected = _honest(server.port, honest)
    assert expected[0] == 200 and len(lines_of(expected[1])) == 3
    statuses = []
    with Greedy(server.port, lines[3]) as greedy:
        time.sleep(2 * PAUSE)  # every trickler has sent its head and a line or two
        for _ in range(15):
            status, body = _honest(server.port, honest)
            statuses.append(status)
            if status == 200:
                assert body == expected[1]
            time.sleep(0.3)
        time.sleep(4.0)  # past the grace and the rate: the tricklers get their 408 lines
    held = [seconds for status, seconds in greedy.answers if status == 200]
    refused = sum(1 for status, _ in greedy.answers if status == 429)
    print(f"\nhonest: {statuses.count(200)} of {len(statuses)} answered; greedy: {refused} "
          f"refused (429), {len(held)} trickled batches cut after "
          f"{max(held, default=0):.1f} s at most")  # fmt: skip
    assert statuses == [200] * len(statuses)
    assert refused > 0  # the greedy client's connections past its share were refused
    assert held and max(held) < 15  # a trickled batch holds its slot for seconds


@pytest.mark.slow
def test_a_trickled_batch_ends_with_a_408_for_its_rate(server: Gunicorn) -> None:
    pieces = _pieces(game_lines(1, seed=31)[0])
    with socket.create_connection((HOST, server.port), timeout=30) as sock:
        sock.sendall(request_head("POST", BATCH, server.port, Content_Type=NDJSON,
                                  Transfer_Encoding="chunked", X_API_Key=HONEST))  # fmt: skip
        data = _trickle(sock, pieces, threading.Event())
    status, _, rest = parse_head(data)
    body, complete = dechunked(rest)
    got = lines_of(body)
    assert status == 200 and complete
    assert got[-1]["error"]["status"] == 408
    assert "ARBITER_BATCH_MIN_RATE" in got[-1]["error"]["errors"][0]["message"]
    assert all("error" not in answered for answered in got[:-1])
