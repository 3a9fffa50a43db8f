"""``POST /v1/scores/batch``: NDJSON in and out, streamed, with the limits of a batch.

In process (the contract-checking test client: every answer line is checked against the
committed schema of a line) for what the answer holds; against a live gunicorn with the shipped
worker, over raw sockets, for what only a real server shows: the first lines arrive before the
body is all sent, a body that stops arriving ends the stream with a reason, and the time the
server spends scoring is not charged to the client's body deadline.
"""

from __future__ import annotations

import gzip
import socket
import tempfile
import threading
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

import arbiter
from arbiter.api.batch import CPU_ALLOWANCE, CpuMeter, Gate, _arriving
from arbiter.api.bodies import CHUNK, gunzip
from arbiter.contract import Problem
from devtools.gunicorn_support import dechunked
from tests import gunicorn_support
from tests.api_support import NDJSON, PROBLEM_JSON, make_client, metric_value
from tests.archive_support import game_lines, lines_of, mixed_lines, ndjson
from tests.gunicorn_support import HOST, Gunicorn, parse_head

BATCH = "/v1/scores/batch"


def post_batch(client: Any, body: bytes, **headers: str) -> Any:
    """The answer read whole, and closed as a server closes it (which frees its batch slot)."""
    headers = {"Content-Type": NDJSON, **headers}
    return client.post(BATCH, data=body, headers=headers, buffered=True)


# --- in process --------------------------------------------------------------------------


def test_the_lines_of_a_batch_are_the_library_lines() -> None:
    lines = mixed_lines(60, seed=21)
    answer = post_batch(make_client(), ndjson(lines), **{"Accept-Language": "es"})
    assert answer.status_code == 200 and answer.mimetype == NDJSON
    assert answer.headers["Connection"] == "close"
    assert lines_of(answer.get_data()) == list(arbiter.score_lines(lines, lang="es"))


def test_a_gzip_body_is_the_same_batch() -> None:
    body = ndjson(mixed_lines(30, seed=22))  # a 1 MB line of one byte: 96 times in gzip
    client = make_client(batch_max_ratio=0)
    plain = post_batch(client, body).get_data()
    for coding in ("gzip", "x-gzip"):
        coded = post_batch(client, gzip.compress(body), **{"Content-Encoding": coding})
        assert coded.status_code == 200 and coded.get_data() == plain


def test_past_the_lines_limit_the_answer_ends_with_a_reason() -> None:
    lines = [b"", *game_lines(8, seed=23)]  # a blank line counts, in the numbers and the limit
    answer = post_batch(make_client(batch_max_lines=5), ndjson(lines))
    assert answer.status_code == 200
    got = lines_of(answer.get_data())
    assert got[:4] == list(arbiter.score_lines(lines))[:4]
    assert got[4] == {
        "id": None,
        "source": 6,
        "error": {
            "status": 413,
            "title": "Too many lines",
            "errors": [
                {
                    "pointer": "",
                    "message": "a batch holds at most 5 lines: line 6 and those after it "
                    "were not read",
                }
            ],
        },
    }
    assert len(got) == 5


def test_a_body_over_the_batch_limit_is_a_problem_or_a_last_line() -> None:
    body = ndjson(game_lines(200, seed=24))
    client = make_client(batch_max_bytes=len(body) // 2)
    refused = post_batch(client, body)  # its Content-Length says so: nothing is read
    assert refused.status_code == 413 and refused.mimetype == PROBLEM_JSON
    stopped = post_batch(client, gzip.compress(body), **{"Content-Encoding": "gzip"})
    assert stopped.status_code == 200  # the decoded size passes the limit while it is read
    got = lines_of(stopped.get_data())
    assert 0 < len(got) < 200 and all("status" in line for line in got[:-1])
    assert got[-1]["id"] is None and got[-1]["error"]["status"] == 413
    assert "decompressed request body is larger" in got[-1]["error"]["errors"][0]["message"]


def test_a_gzip_bomb_is_bounded() -> None:
    """200 MiB of blanks in 200 KB of gzip: stopped at the decoded limit, in small chunks."""
    bomb = gzip.compress(b" " * (200 * 1024 * 1024), compresslevel=9)
    assert len(bomb) < 300_000
    chunks = [bomb[i : i + CHUNK] for i in range(0, len(bomb), CHUNK)]
    decoded = gunzip(iter(chunks), 64 * 1024 * 1024)
    first = next(decoded)
    assert len(first) <= CHUNK  # no chunk expands in memory past CHUNK
    tracemalloc.start()
    try:
        client = make_client(batch_max_ratio=0)  # the decoded size's limit, alone
        answer = post_batch(client, bomb, **{"Content-Encoding": "gzip"})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert answer.status_code == 200
    (last,) = lines_of(answer.get_data())
    assert last["error"]["status"] == 413 and last["id"] is None
    assert peak < 16 * 1024 * 1024, f"{peak} bytes at the peak"


@pytest.mark.parametrize("ratio", [20, 50, 200])
def test_a_body_that_expands_past_the_ratio_is_one_problem(ratio: int) -> None:
    """What a batch costs follows what its client sent (issue 30, finding 4)."""
    body = b"{}\n" * 10_000 + b"x" * ratio * 1000  # past any ratio here, whatever precedes it
    answer = post_batch(make_client(batch_max_ratio=ratio), gzip.compress(body),
                        **{"Content-Encoding": "gzip"})  # fmt: skip
    assert answer.status_code == 413 and answer.content_type == PROBLEM_JSON
    assert f"{ratio} times" in answer.get_json()["detail"]


def test_an_archive_gzip_coded_passes_the_ratio() -> None:
    body = ndjson(game_lines(100, seed=24))
    answer = post_batch(make_client(), gzip.compress(body, 9), **{"Content-Encoding": "gzip"})
    assert answer.status_code == 200 and len(lines_of(answer.get_data())) == 100


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"Content-Type": "application/json"}, 415),  # a JSON document is not a batch
        ({"Content-Type": "text/plain"}, 415),
        ({"Content-Type": NDJSON, "Content-Encoding": "br"}, 415),
        ({"Content-Type": NDJSON, "Content-Encoding": "gzip, gzip"}, 415),
        ({"Content-Type": f"{NDJSON}; charset=latin-1"}, 415),
        ({"Content-Type": NDJSON, "Content-Encoding": "gzip"}, 400),  # not gzip data
    ],
)
def test_bodies_the_batch_does_not_take(headers: dict[str, str], status: int) -> None:
    answer = make_client().post(BATCH, data=b'{"ruleset": "tute-2p"}\n', headers=headers)
    assert answer.status_code == status and answer.mimetype == PROBLEM_JSON
    if status == 415:
        assert answer.headers["Accept-Encoding"] == "gzip, identity"


def test_an_empty_batch_has_an_empty_answer() -> None:
    answer = post_batch(make_client(), b"")
    assert answer.status_code == 200 and answer.get_data() == b""


def test_renuncios_of_a_batch_are_counted() -> None:
    client = make_client()
    lines = game_lines(40, seed=25, renuncio_rate=0.2)
    got = lines_of(post_batch(client, ndjson(lines)).get_data())
    asistir = sum(
        v["obligation"] == "asistir" for line in got for d in line["deals"] for v in d["violations"]
    )
    assert asistir > 0
    metrics = client.get("/metrics").get_data(as_text=True)
    assert metric_value(metrics, "arbiter_renuncios_total", obligation="asistir") == asistir


# --- a live server -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def server() -> Iterator[Gunicorn]:
    """The shipped server, one worker; a body may wait 1 s in all."""
    env = gunicorn_support.environment(
        ARBITER_LOG_LEVEL="warning", ARBITER_WORKERS="1", ARBITER_BODY_TIMEOUT="1"
    )
    with tempfile.TemporaryDirectory(prefix="arbiter-batch-") as tmp:
        srv = gunicorn_support.start(Path(tmp) / "gunicorn.out", env)
        try:
            yield srv
        finally:
            status = gunicorn_support.stop(srv)
        assert status == 0, f"gunicorn exited with {status}:\n{srv.tail(3000)}"


class Exchange:
    """A chunked POST of the batch on a raw socket, sent by a thread while the answer is read
    here (a client that only reads once it has sent everything would block a streamed answer
    once both buffers are full)."""

    def __init__(self, port: int, parts: list[bytes], pause: float = 0.0) -> None:
        self.sock = socket.create_connection((HOST, port), timeout=60)
        self.parts = parts
        self.pause = pause
        self.sent_all = threading.Event()
        self.first_part_sent = threading.Event()
        self.go_on = threading.Event()
        self.sender = threading.Thread(target=self._send, daemon=True)

    def _send(self) -> None:
        head = (
            f"POST {BATCH} HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: {NDJSON}\r\n"
            "Transfer-Encoding: chunked\r\n\r\n"
        ).encode()
        try:
            self.sock.sendall(head)
            for n, part in enumerate(self.parts):
                self.sock.sendall(f"{len(part):x}\r\n".encode() + part + b"\r\n")
                if n == 0:
                    self.first_part_sent.set()
                    self.go_on.wait(60)
                    time.sleep(self.pause)
            self.sock.sendall(b"0\r\n\r\n")
            self.sent_all.set()
        except OSError:  # the server closed early: what it answered is read all the same
            pass

    def start(self) -> None:
        self.sender.start()

    def read_some(self) -> bytes:
        return self.sock.recv(65536)

    def read_all(self, data: bytes = b"") -> tuple[int, dict[str, str], bytes]:
        while chunk := self.sock.recv(65536):
            data += chunk
        self.sock.close()
        status, headers, rest = parse_head(data)
        assert headers.get("transfer-encoding") == "chunked", headers
        body, complete = dechunked(rest)
        assert complete, rest[-200:]
        return status, headers, body


@pytest.mark.slow
def test_the_first_lines_arrive_before_the_body_is_all_sent(server: Gunicorn) -> None:
    lines = game_lines(400, seed=26)
    first, rest = ndjson(lines[:150]), ndjson(lines[150:])
    assert len(first) > 4 * CHUNK  # more than a read's worth
    exchange = Exchange(server.port, [first, rest])
    exchange.start()
    assert exchange.first_part_sent.wait(30)
    received = b""
    while b"}\n" not in received.partition(b"\r\n\r\n")[2]:  # a whole line of the answer
        data = exchange.read_some()
        assert data, "the connection closed before any line"
        received += data
    assert not exchange.sent_all.is_set()  # the rest of the body is still with the client
    exchange.go_on.set()
    status, headers, body = exchange.read_all(received)
    assert status == 200 and headers["content-type"] == NDJSON
    assert lines_of(body) == list(arbiter.score_lines(lines))


@pytest.mark.slow
def test_a_body_that_stops_arriving_ends_the_stream_with_a_reason(server: Gunicorn) -> None:
    lines = game_lines(200, seed=27)
    exchange = Exchange(server.port, [ndjson(lines[:100]), ndjson(lines[100:])], pause=3.0)
    exchange.start()
    exchange.go_on.set()  # the sender sends the first half, then waits 3 s: past the deadline
    status, _, body = exchange.read_all()
    got = lines_of(body)
    assert status == 200
    assert got[:-1] == list(arbiter.score_lines(lines))[: len(got) - 1]
    assert got[-1]["id"] is None
    assert got[-1]["error"]["status"] == 408, got[-1]


@pytest.mark.slow
def test_scoring_time_is_not_charged_to_the_body_deadline(server: Gunicorn) -> None:
    """A batch sent at once whose scoring takes longer than the 1 s a body may wait."""
    lines = [line for line in game_lines(300, seed=28) for _ in range(30)]  # 9,000 games
    exchange = Exchange(server.port, [ndjson(lines[:10]), ndjson(lines[10:])])
    exchange.start()
    exchange.go_on.set()
    began = time.monotonic()
    status, _, body = exchange.read_all()
    elapsed = time.monotonic() - began
    got = lines_of(body)
    assert status == 200
    assert len(got) == len(lines) and all("error" not in line for line in got), (elapsed, got[-1])


@pytest.mark.slow
def test_a_client_that_sends_all_before_it_reads_gets_the_whole_answer(server: Gunicorn) -> None:
    """http.client sends the whole body, then reads: the answer waits for it."""
    lines = [line for line in game_lines(300, seed=30) for _ in range(30)]  # 9,000 games
    answer = gunicorn_support.request(
        server.port, "POST", BATCH, ndjson(lines), {"Content-Type": NDJSON}, timeout=120
    )
    assert answer.status == 200
    got = lines_of(answer.body)
    assert len(got) == 9_000 and all("error" not in line for line in got)
    assert got[:300] == list(arbiter.score_lines(lines[:300]))


@pytest.mark.slow
def test_over_the_lines_limit_the_client_still_reads_the_whole_answer(server: Gunicorn) -> None:
    lines = game_lines(50, seed=29)
    body = ndjson(lines * 220)  # 11,000 games: 1,000 past the default limit
    answer = gunicorn_support.request(
        server.port, "POST", BATCH, body, {"Content-Type": NDJSON}, timeout=120
    )
    got = lines_of(answer.body)
    assert answer.status == 200 and len(got) == 10_001
    assert got[-1]["error"]["title"] == "Too many lines"
    assert got[-1]["source"] == 10_001
    assert orjson.dumps(got[0]) == orjson.dumps(next(arbiter.score_lines(lines[:1])))


# --- slots shared between clients (issue 30, finding 3) ----------------------------------------


def test_a_client_holds_at_most_its_share_of_the_slots() -> None:
    gate = Gate(limit=3, per_client=1)
    assert gate.enter("addr:1") is None
    refused = gate.enter("addr:1")
    assert refused is not None and "ARBITER_BATCH_PER_CLIENT" in refused
    assert gate.enter("addr:2") is None and gate.enter("key:k") is None
    full = gate.enter("addr:3")
    assert full is not None and "ARBITER_BATCH_CONCURRENCY" in full
    gate.leave("addr:1")
    assert gate.enter("addr:3") is None  # a slot left is free for anyone
    assert gate.enter("addr:1") is not None  # the worker is full again


@pytest.mark.slow
def test_a_body_slower_than_the_minimum_rate_is_a_408() -> None:
    def trickle() -> Iterator[bytes]:
        for _ in range(8):
            time.sleep(0.4)  # at most 125 bytes a second, however loaded the machine
            yield b"x" * 50

    got = b""
    with pytest.raises(Problem) as refused:
        for chunk in _arriving(trickle(), 4096, time.monotonic() + 60):
            got += chunk
    assert refused.value.status == 408 and "ARBITER_BATCH_MIN_RATE" in refused.value.detail
    assert 0 < len(got) < 400  # the pieces before the cut reached the batch


def test_a_batch_past_its_total_deadline_is_a_408() -> None:
    with pytest.raises(Problem, match="ARBITER_BATCH_SECONDS"):
        list(_arriving(iter([b"a", b"b"]), 0, time.monotonic() - 1))


def test_a_batch_that_spent_more_cpu_than_it_sent_allows_is_a_413() -> None:
    meter = CpuMeter(ms_per_kib=10)
    meter.received = 2048
    meter.seconds = CPU_ALLOWANCE + 0.019  # 2 KiB sent: 20 ms more than the allowance
    assert not meter.over()
    chunks = _arriving(iter([b"more", b"and more"]), 0, time.monotonic() + 60, meter)
    assert next(chunks) == b"more"
    meter.seconds += 0.002
    assert meter.over()
    with pytest.raises(Problem, match="ARBITER_BATCH_CPU_MS_PER_KIB") as refused:
        next(chunks)
    assert refused.value.status == 413
    assert not CpuMeter(ms_per_kib=0).over()  # 0: no bound


def test_the_cpu_of_scoring_is_counted_and_the_scoring_closed() -> None:
    closed = []

    def lines() -> Iterator[bytes]:
        try:
            while True:
                sum(range(20_000))  # some CPU
                yield b"line\n"
        finally:
            closed.append(True)

    meter = CpuMeter(ms_per_kib=1)
    scoring = meter.scoring(lines())
    assert [next(scoring) for _ in range(50)] == [b"line\n"] * 50
    assert meter.seconds > 0
    scoring.close()  # as the answer closes it: the scoring stops too
    assert closed == [True]


# --- numbering from an offset (issue 29, item 8) -----------------------------------------------


def test_batches_numbered_from_an_offset_do_not_repeat_ids() -> None:
    """An archive sent in two batches, the second from ?first_line=N: the ids and sources of
    its id-less lines are those of one batch of it all."""
    lines = game_lines(6, seed=25)
    client = make_client(batch_max_lines=4)
    whole = lines_of(post_batch(make_client(), ndjson(lines)).get_data())
    first = lines_of(post_batch(client, ndjson(lines[:3])).get_data())
    second = client.post(
        f"{BATCH}?first_line=4", data=ndjson(lines[3:]), headers={"Content-Type": NDJSON}
    )
    assert first + lines_of(second.get_data()) == whole
    over = client.post(
        f"{BATCH}?first_line=101", data=ndjson(lines), headers={"Content-Type": NDJSON}
    )
    stop = lines_of(over.get_data())[-1]  # the line limit counts this batch's lines only
    assert stop["source"] == 105 and "line 105" in stop["error"]["errors"][0]["message"]


@pytest.mark.parametrize("value", ["0", "-1", "x", "1.5", "\uff19", str(2**53), "9" * 400, ""])
def test_a_bad_first_line_is_a_400_naming_it(value: str) -> None:
    answer = make_client().post(
        f"{BATCH}?first_line={value}", data=b"{}\n", headers={"Content-Type": NDJSON}
    )
    assert answer.status_code == 400 and answer.content_type == PROBLEM_JSON
    assert answer.get_json()["errors"][0]["pointer"] == "/first_line"


@pytest.mark.parametrize("first_line", [1, 4_000_000_001])
def test_every_answer_line_has_its_line_number_in_source(first_line: int) -> None:
    """``id`` is the log's own (a string) or, without one, the line number (an integer): a
    client that keys its lines by one type reads ``source``, always the line's number."""
    lines = mixed_lines(12, seed=43)
    answer = make_client().post(
        f"{BATCH}?first_line={first_line}", data=ndjson(lines), headers={"Content-Type": NDJSON}
    )
    got = lines_of(answer.get_data())
    numbers = [first_line + n for n, line in enumerate(lines) if line.strip()]
    assert [line["source"] for line in got] == numbers
    assert all(type(line["source"]) is int for line in got)
    assert all(isinstance(line["id"], str) or line["id"] == line["source"] for line in got)
    own = {line["id"] for line in got if isinstance(line["id"], str)}
    assert {"game-43-0", "game-43-5", "game-43-10"} <= own  # game_lines' ids: their own
