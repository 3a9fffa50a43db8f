"""Issue 22, findings 1 and 2: ``POST /v1/scores/batch`` costs what its client sends, and no
client holds its worker or its memory.

- **Blank lines count** (finding 1): a megabyte of gzip holds 64 million blank lines, which
  were skipped without counting against ``ARBITER_BATCH_MAX_LINES``: ~30 s of worker CPU for one
  request, going on after the client hung up. Now the batch stops at the limit (a 413 ``Too
  many lines`` last line) and reads the rest of the body undecoded: the worker's CPU time,
  from /proc, stays near nothing after the client hangs up.
- **At most** ``ARBITER_BATCH_CONCURRENCY`` **batches a worker** (finding 1: four batches took
  /v1/replays from 3 ms to 9.5 s): one more is a 429 problem with ``Retry-After``, and the
  worker still answers the tables' requests meanwhile.
- **A client that does not read** (finding 2: 12 of them took a worker from 68 MB to 210 MB,
  held as long as they stayed): past ``ARBITER_BATCH_BUFFER_BYTES`` kept for it, the answer
  waits ``ARBITER_SEND_TIMEOUT`` for it, then the connection is reset and what was kept for it
  freed (the worker's RSS, from /proc, comes back).
- **A client that trickles its lines** (finding 13) gets those it finished answered before
  the 408 stop line.

Against a live gunicorn of one worker (``make run``'s worker class) on loopback; each test takes
a few seconds.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

import arbiter
from devtools.gunicorn_support import dechunked
from tests.api_support import NDJSON, PROBLEM_JSON, make_client
from tests.archive_support import game_lines, lines_of, ndjson
from tests.gunicorn_support import HOST, Gunicorn, parse_head, post_json, request
from tests.hostile.conftest import request_head, served, wait_until

BATCH = "/v1/scores/batch"
#: The server of these tests: one worker, short deadlines, a small buffer per batch.
SEND_TIMEOUT = 1.0
BUFFER = 64 * 1024


@pytest.fixture(scope="module")
def server() -> Iterator[Gunicorn]:
    with served(
        ARBITER_WORKERS="1",
        ARBITER_BODY_TIMEOUT="1",
        ARBITER_SEND_TIMEOUT=str(SEND_TIMEOUT),
        ARBITER_BATCH_BUFFER_BYTES=str(BUFFER),
    ) as srv:
        yield srv


def _worker(server: Gunicorn) -> int:
    (pid,) = server.wait_workers(1)
    return pid


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def _head(port: int, **headers: str) -> bytes:
    return request_head("POST", BATCH, port, Content_Type=NDJSON, **headers)


def _read_until_closed(sock: socket.socket, timeout: float) -> tuple[bytes, bool]:
    """What the server sends until it closes the connection; whether it reset it."""
    sock.settimeout(timeout)
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except ConnectionResetError:
        return data, True
    return data, False


# --- blank lines ------------------------------------------------------------------------


def test_blank_lines_count_against_the_line_limit() -> None:
    game = game_lines(1, seed=71)[0]
    body = gzip.compress(b"\n" * 1000 + game + b"\n")
    headers = {"Content-Type": NDJSON, "Content-Encoding": "gzip"}
    answer = make_client(batch_max_lines=100).post(BATCH, data=body, headers=headers,
                                                   buffered=True)  # fmt: skip
    got = lines_of(answer.get_data())
    assert got == [
        {
            "id": None,
            "source": 101,
            "error": {
                "status": 413,
                "title": "Too many lines",
                "errors": [
                    {
                        "pointer": "",
                        "message": "a batch holds at most 100 lines: line 101 and those "
                        "after it were not read",
                    }
                ],
            },
        }
    ]


@pytest.fixture(scope="module")
def blank_bomb() -> bytes:
    """About a megabyte of gzip holding a GiB of blank lines (one member of 8 MiB, repeated:
    gzip data may hold several), the finding's request."""
    member = gzip.compress(b"\n" * (8 * 1024 * 1024), compresslevel=9)
    return member * 128


@pytest.mark.slow
def test_a_blank_line_bomb_is_one_problem(server: Gunicorn, blank_bomb: bytes) -> None:
    """It expands a thousand times: refused before a line is scored (issue 30, finding 4),
    where it was read to the line limit before."""
    head = _head(server.port, Content_Encoding="gzip", Content_Length=str(len(blank_bomb)))
    with socket.create_connection((HOST, server.port), timeout=30) as sock:
        sock.sendall(head + blank_bomb)
        data, _ = _read_until_closed(sock, 30)
    status, headers, body = parse_head(data)
    assert status == 413 and headers["content-type"] == PROBLEM_JSON, data[:300]
    assert "ARBITER_BATCH_MAX_RATIO" in orjson.loads(body)["detail"]


@pytest.mark.slow
def test_ten_thousand_empty_objects_are_one_problem_not_ten_thousand(server: Gunicorn) -> None:
    """10,000 lines of {} gzip to 68 bytes: they cost 75-100 ms of worker CPU and a 1.25 MB
    answer of 10,000 problems (issue 30, finding 4); now one 413 problem."""
    body = gzip.compress(b"{}\n" * 10_000, compresslevel=9)
    answer = request(server.port, "POST", BATCH, body,
                     {"Content-Type": NDJSON, "Content-Encoding": "gzip"}, timeout=30)  # fmt: skip
    assert answer.status == 413 and answer.headers["content-type"] == PROBLEM_JSON
    assert len(answer.body) < 1000
    assert "ARBITER_BATCH_MAX_RATIO" in answer.json()["detail"]
    # an archive compressed as archives are is answered whole
    games = ndjson(game_lines(300, seed=75))
    archive = request(server.port, "POST", BATCH, gzip.compress(games),
                      {"Content-Type": NDJSON, "Content-Encoding": "gzip"}, timeout=60)  # fmt: skip
    assert archive.status == 200 and len(lines_of(archive.body)) == 300


@pytest.mark.slow
def test_a_blank_line_bomb_whose_client_hangs_up_costs_its_worker_little(
    server: Gunicorn, blank_bomb: bytes
) -> None:
    pid = _worker(server)
    head = _head(server.port, Content_Encoding="gzip", Content_Length=str(len(blank_bomb)))
    before = _cpu_seconds(pid)
    for _ in range(2):
        with socket.create_connection((HOST, server.port), timeout=30) as sock:
            sock.sendall(head + blank_bomb)  # and hang up at once
    time.sleep(3.0)
    used = _cpu_seconds(pid) - before
    assert used < 1.0, f"the worker spent {used:.2f} s of CPU on two hung-up bombs"
    assert request(server.port, "GET", "/healthz", timeout=5).status == 200


# --- one more batch than a worker takes --------------------------------------------------


class HeldBatch:
    """A batch whose body is sent a line at a time, held open until :meth:`finish`."""

    def __init__(self, port: int, line: bytes) -> None:
        self.sock = socket.create_connection((HOST, port), timeout=30)
        self.sock.sendall(_head(port, Transfer_Encoding="chunked"))
        self.line = line + b"\n"
        self.send_line()

    def send_line(self) -> None:
        self.sock.sendall(b"%x\r\n%s\r\n" % (len(self.line), self.line))

    def finish(self) -> tuple[int, list[dict[str, Any]]]:
        self.sock.sendall(b"0\r\n\r\n")
        data, _ = _read_until_closed(self.sock, 30)
        self.sock.close()
        status, _, rest = parse_head(data)
        body, complete = dechunked(rest)
        assert complete, data[-200:]
        return status, lines_of(body)


@pytest.mark.slow
def test_one_batch_more_than_a_worker_takes_is_429() -> None:
    line = game_lines(1, seed=72)[0]
    # one client holds both slots (its share, the rate: tests/hostile/test_fair_batches.py)
    with served(
        ARBITER_WORKERS="1",
        ARBITER_BATCH_CONCURRENCY="2",
        ARBITER_BATCH_PER_CLIENT="2",
        ARBITER_BATCH_MIN_RATE="0",
    ) as srv:
        held = [HeldBatch(srv.port, line) for _ in range(2)]
        time.sleep(0.3)  # both are being read
        one_more = arbiter_answer(srv.port, ndjson([line]))
        assert one_more.status == 429, one_more
        assert one_more.headers["content-type"] == PROBLEM_JSON
        assert one_more.headers["retry-after"] == "1"
        assert "ARBITER_BATCH_CONCURRENCY" in one_more.json()["detail"]
        log = orjson.loads(line)
        replay = post_json(srv.port, "/v1/replays", log, timeout=5)  # the tables go on
        assert replay.status == 200 and replay.json()["status"] == arbiter.replay(log).status
        for batch in held:
            batch.send_line()
        answers = [batch.finish() for batch in held]
        assert [status for status, _ in answers] == [200, 200]
        assert all([line["source"] for line in lines] == [1, 2] for _, lines in answers)
        # the slots are free again once the answers are done
        assert wait_until(lambda: arbiter_answer(srv.port, ndjson([line])).status == 200, 5)


def arbiter_answer(port: int, body: bytes) -> Any:
    return request(port, "POST", BATCH, body, {"Content-Type": NDJSON}, timeout=30)


# --- a client that does not read -------------------------------------------------------------


@pytest.mark.slow
def test_a_client_that_does_not_read_is_cut_off_and_its_memory_freed(server: Gunicorn) -> None:
    pid = _worker(server)
    lines = game_lines(200, seed=73) * 30  # 6,000 games: about 7 MB of answer
    body = ndjson(lines)
    rss_before = _rss_bytes(pid)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a client that takes little
    sock.settimeout(60)
    sock.connect((HOST, server.port))
    sent = threading.Event()

    def send() -> None:
        # an OSError: the server reset the connection, what this test waits for
        with contextlib.suppress(OSError):
            sock.sendall(_head(server.port, Content_Length=str(len(body))) + body)
        sent.set()

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    assert sent.wait(60), "the client could not send its body"
    time.sleep(SEND_TIMEOUT + 2.0)  # it never reads: the server's deadline passes
    rss_cut = _rss_bytes(pid)
    data, reset = _read_until_closed(sock, 10)
    sock.close()
    _, _, rest = parse_head(data) if b"\r\n\r\n" in data else (0, {}, b"")
    answered, complete = dechunked(rest)
    print(f"\nworker RSS {rss_before / 2**20:.1f} MB before, {rss_cut / 2**20:.1f} MB once cut; "
          f"{len(answered):,} bytes of answer reached the client")  # fmt: skip
    assert not complete, "the whole answer waited for a client that did not read"
    assert reset or len(answered) < 7_000_000
    assert rss_cut - rss_before < 16 * 1024 * 1024, (rss_before, rss_cut)
    # the worker is free for others at once
    assert arbiter_answer(server.port, ndjson(lines[:3])).status == 200


# --- a client that trickles -------------------------------------------------------------------


@pytest.mark.slow
def test_a_trickled_batch_gets_its_finished_lines_before_the_408(server: Gunicorn) -> None:
    lines = game_lines(3, seed=74)
    with socket.create_connection((HOST, server.port), timeout=30) as sock:
        sock.sendall(_head(server.port, Transfer_Encoding="chunked"))
        for line in lines:  # 0.2 s apart, then nothing: the 1 s the body may wait runs out
            sock.sendall(b"%x\r\n%s\n\r\n" % (len(line) + 1, line))
            time.sleep(0.2)
        data, _ = _read_until_closed(sock, 30)
    status, _, rest = parse_head(data)
    body, complete = dechunked(rest)
    got = lines_of(body)
    assert status == 200 and complete, data[-300:]
    assert got[:-1] == list(arbiter.score_lines(lines))
    assert got[-1]["source"] == 4 and got[-1]["error"]["status"] == 408
