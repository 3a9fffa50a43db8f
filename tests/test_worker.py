"""The shipped gunicorn worker's pieces (arbiter/worker.py), without a server.

The live behaviour (slow clients, problems before the app, 408) is in tests/hostile/; here the
parts on their own: which status each gunicorn error becomes, the body deadline (gevent's
cooperative read, as in the worker), the ``Connection: close`` bridge, and the answer bytes.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import socket
import time
from typing import Any

import gevent
import gevent.socket
import pytest
from gunicorn.http import errors as http_errors
from gunicorn.http.body import Body, ChunkedReader, LengthReader
from gunicorn.http.unreader import Unreader
from hypothesis import example, given, settings
from hypothesis import strategies as st

from arbiter.worker import (
    KEEPALIVE_REQUESTS,
    BodyTimeout,
    DeadlineInput,
    DeadlineSocket,
    SendTimeout,
    Worker,
    client_error,
    detail_of,
    problem_bytes,
    status_of,
    with_deadlines,
)


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (http_errors.LimitRequestLine(5000, 4094), 414),
        (http_errors.LimitRequestHeaders("too many"), 431),
        (http_errors.InvalidHeader("CONTENT-LENGTH"), 400),
        (http_errors.InvalidRequestLine("garbage"), 400),
        (http_errors.InvalidHTTPVersion("HTTP/9.7"), 400),
        (http_errors.UnsupportedTransferCoding("gzip"), 501),
        (http_errors.InvalidChunkSize(b"zz"), 400),
        (http_errors.ConfigurationProblem("path '/y' does not start with SCRIPT_NAME '/x'"), 400),
        (RuntimeError("a bug"), 500),
    ],
)
def test_status_of_each_gunicorn_error(error: BaseException, status: int) -> None:
    assert status_of(error)[0] == status
    # every error gunicorn raises about a request is the client's: no traceback is logged
    assert client_error(error) is (status != 500)


def test_what_each_problem_says() -> None:
    """A client error says what was wrong with the request; only a fault of the server says
    it failed, with the request id to quote (issue 22, finding 12)."""
    coding = detail_of(http_errors.UnsupportedTransferCoding("xchunked"), 501, "r1")
    assert "Transfer-Encoding" in coding and "failed" not in coding
    script = detail_of(http_errors.ConfigurationProblem("..."), 400, "r1")
    assert "SCRIPT_NAME" in script
    assert "quote request id r1" in detail_of(RuntimeError("a bug"), 500, "r1")


def test_problem_bytes_are_a_whole_answer() -> None:
    raw = problem_bytes(431, "Request Header Fields Too Large", "Too large.", "abc123")
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    assert lines[0] == "HTTP/1.1 431 Request Header Fields Too Large"
    headers = dict(line.split(": ", 1) for line in lines[1:])
    assert headers["Content-Type"] == "application/problem+json"
    assert headers["Connection"] == "close"
    assert headers["X-Request-ID"] == "abc123"
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert int(headers["Content-Length"]) == len(body)
    assert json.loads(body)["request_id"] == "abc123"


class Trickle:
    """A body that arrives a byte every ``pause`` seconds (gevent sleeps, as a socket waits)."""

    def __init__(self, pause: float) -> None:
        self.pause = pause

    def read(self, size: int | None = None) -> bytes:
        gevent.sleep(self.pause)
        return b"x"


def test_a_slow_body_times_out() -> None:
    stream = DeadlineInput(Trickle(0.05), 0.3)
    began = time.monotonic()
    with pytest.raises(BodyTimeout):
        while True:
            stream.read(10)
    assert time.monotonic() - began < 1.0
    with pytest.raises(TimeoutError):  # past the deadline, at once
        stream.read(1)


def test_a_read_waiting_past_the_deadline_is_interrupted() -> None:
    stream = DeadlineInput(Trickle(5.0), 0.2)
    began = time.monotonic()
    with pytest.raises(BodyTimeout):
        stream.read(1)
    assert time.monotonic() - began < 1.0


@pytest.mark.slow
def test_only_the_time_waiting_for_the_body_counts() -> None:
    """An app that works between reads (a streamed batch) is not charged for its work."""
    stream = DeadlineInput(Trickle(0.05), 0.3)
    for _ in range(4):  # 0.2 s waiting in all, 0.8 s working between the reads
        assert stream.read(1) == b"x"
        time.sleep(0.2)
    assert stream.read(1) == b"x"
    with pytest.raises(BodyTimeout):
        while True:
            stream.read(1)


def test_a_body_in_time_is_read_as_is() -> None:
    stream = DeadlineInput(io.BytesIO(b"line 1\nline 2\n"), 5)
    assert stream.readline() == b"line 1\n"
    assert list(stream) == [b"line 2\n"]


class Request:
    def __init__(self, req_number: int) -> None:
        self.req_number = req_number  # the request's rank on its connection, from 1


class Response:
    """What gunicorn's Response offers the wrapper: start_response, force_close, req."""

    def __init__(self, req_number: int = 1) -> None:
        self.closed = False
        self.headers: list[tuple[str, str]] = []
        self.req = Request(req_number)

    def start_response(
        self, status: str, headers: list[tuple[str, str]], exc_info: Any = None
    ) -> None:
        self.headers = headers

    def force_close(self) -> None:
        self.closed = True


@pytest.mark.parametrize("close", [True, False])
def test_connection_close_from_the_app_closes(close: bool) -> None:
    def app(environ: Any, start_response: Any) -> list[bytes]:
        headers = [("Content-Type", "application/json")]
        if close:
            headers.append(("Connection", "close"))
        start_response("413 Request Entity Too Large", headers)
        return [b"{}"]

    response = Response()
    environ = {"wsgi.input": io.BytesIO(b""), "gunicorn.socket": None}
    answer = with_deadlines(app, 1.0)(environ, response.start_response)
    assert list(answer) == [b"{}"]
    assert response.closed is close
    assert ("Connection", "close") not in response.headers  # hop-by-hop: not the app's


@pytest.mark.parametrize("number", [1, KEEPALIVE_REQUESTS - 1, KEEPALIVE_REQUESTS])
def test_a_connection_closes_after_so_many_answers(number: int) -> None:
    def app(environ: Any, start_response: Any) -> list[bytes]:
        start_response("200 OK", [("Content-Type", "application/json")])
        return [b"{}"]

    response = Response(number)
    environ = {"wsgi.input": io.BytesIO(b""), "gunicorn.socket": None}
    list(with_deadlines(app, 1.0)(environ, response.start_response))
    assert response.closed is (number >= KEEPALIVE_REQUESTS)


def test_keepalive_zero_is_refused() -> None:
    class Config:
        keepalive = 0

    with pytest.raises(RuntimeError, match="keepalive"):
        Worker.check_config(Config(), None)


# --- reads as the bytes arrive (gunicorn's own body readers) -------------------------------------


class Arriving(Unreader):
    """A connection's unreader whose pieces arrive when the test says (``pieces``: what comes,
    ``None`` for a wait of ``pause`` seconds, a gevent sleep as a socket waits)."""

    def __init__(self, pieces: list[bytes | None], pause: float = 5.0) -> None:
        super().__init__()
        self.pieces = list(pieces)
        self.pause = pause
        self.waits = 0

    def chunk(self, size_hint: int | None = None) -> bytes:
        while self.pieces:
            piece = self.pieces.pop(0)
            if piece is not None:
                return piece
            self.waits += 1
            gevent.sleep(self.pause)
        return b""


class _ChunkedRequest:
    """What gunicorn's ChunkedReader reads of its request."""

    limit_request_field_size = 0
    max_buffer_headers = 0

    def __init__(self) -> None:
        self.trailers: list[Any] = []


def _length_body(pieces: list[bytes | None], length: int, buffered: bytes = b"") -> Body:
    unreader = Arriving(pieces)
    unreader.unread(buffered)  # what came with the head
    return Body(LengthReader(unreader, length))


def test_read1_hands_over_what_came_with_the_head_without_a_timer() -> None:
    body = _length_body([None, b"late"], 10, buffered=b"early.")
    stream = DeadlineInput(body, 0.2)
    began = time.monotonic()
    assert stream.read1(65536) == b"early."  # no wait for the 4 bytes still to come
    assert time.monotonic() - began < 0.1
    with pytest.raises(BodyTimeout):
        stream.read1(65536)  # then the wait for them is bounded by the deadline


def test_readline_returns_a_line_that_has_arrived() -> None:
    """A trickled batch: each line as soon as it is whole, the wait only for what has not
    come (before, a read waited for a whole 64 KiB block; issue 22, finding 13)."""
    body = _length_body([b"one\ntw", b"o\nthr", None], 100)
    stream = DeadlineInput(body, 0.3)
    assert stream.readline(65536) == b"one\n"
    assert stream.readline(65536) == b"two\n"
    with pytest.raises(BodyTimeout):
        stream.readline(65536)


TRAP = [("read", 1), ("readline", 5)]


@settings(max_examples=200, deadline=None)
# a read leaves bytes in gunicorn's Body buffer; a short readline then puts some back
@example(body=b"ab\ncdefgh\nijklmnop\n", cuts=[], calls=TRAP, chunked=False)
@example(body=b"ab\ncdefgh\nijklmnop\n", cuts=[], calls=TRAP, chunked=True)
@given(
    body=st.binary(max_size=300),
    cuts=st.lists(st.integers(1, 40), max_size=20),
    calls=st.lists(st.tuples(st.sampled_from(["read", "read1", "readline"]), st.integers(1, 64))),
    chunked=st.booleans(),
)
def test_reads_of_every_kind_give_the_body_in_order(
    body: bytes, cuts: list[int], calls: list[tuple[str, int]], chunked: bool
) -> None:
    """Whatever the pieces the body arrives in and whatever mix of read, read1 and readline
    the app makes, the bytes come out once each, in order."""
    pieces, rest = [], body
    for cut in cuts:
        if rest:
            pieces.append(rest[:cut])
            rest = rest[cut:]
    if rest:
        pieces.append(rest)
    if chunked:
        coded: list[bytes | None] = [b"%x\r\n%s\r\n" % (len(p), p) for p in pieces if p]
        coded.append(b"0\r\n\r\n")
        stream = DeadlineInput(Body(ChunkedReader(_ChunkedRequest(), Arriving(coded))), 5.0, 1000)
    else:
        stream = DeadlineInput(Body(LengthReader(Arriving(list(pieces)), len(body))), 5.0)
    out = b""
    for kind, size in [*calls, *[("read1", 64)] * (len(body) + 2)]:
        data = getattr(stream, kind)(size)
        assert len(data) <= size
        if kind == "readline" and data and data[-1:] != b"\n":
            assert len(data) == size or out + data == body
        out += data
    assert out == body


def test_a_chunk_larger_than_any_body_is_refused_at_once() -> None:
    coded: list[bytes | None] = [b"FFFFFFFFFFFFFFFFFFFF\r\n{}", None]
    stream = DeadlineInput(Body(ChunkedReader(_ChunkedRequest(), Arriving(coded))), 5.0, 1000)
    began = time.monotonic()
    with pytest.raises(http_errors.InvalidChunkSize):
        stream.read1(65536)
    assert time.monotonic() - began < 1.0  # not the body deadline
    pieces: list[bytes | None] = [b"3e8\r\n", b"x" * 1000, b"\r\n0\r\n\r\n"]
    small = DeadlineInput(Body(ChunkedReader(_ChunkedRequest(), Arriving(pieces))), 5.0, 1000)
    assert len(small.read(2000)) == 1000  # a chunk at the limit is read


# --- chunked bodies, however they are cut (issue 29, item 1) -------------------------------------


def _chunked_coding(body: bytes, sizes: list[int]) -> bytes:
    """``body`` in the chunked coding, in chunks of the ``sizes`` in turn (the rest in one)."""
    out, rest = [], body
    for size in sizes:
        if not rest:
            break
        out.append(b"%x\r\n%s\r\n" % (len(rest[:size]), rest[:size]))
        rest = rest[size:]
    if rest:
        out.append(b"%x\r\n%s\r\n" % (len(rest), rest))
    return b"".join(out) + b"0\r\n\r\n"


def _received(coded: bytes, cuts: list[int]) -> list[bytes | None]:
    """``coded`` as the receives of a socket cut at the ``cuts`` (offsets, in any order)."""
    bounds = sorted({c for c in cuts if 0 < c < len(coded)})
    edges = [0, *bounds, len(coded)]
    return [coded[a:b] for a, b in itertools.pairwise(edges)]


def _gunicorns_own(pieces: list[bytes | None]) -> bytes:
    """What gunicorn's own reader makes of the received pieces: the reference."""
    return Body(ChunkedReader(_ChunkedRequest(), Arriving(pieces))).read()


READS = st.lists(
    st.tuples(st.sampled_from(["read", "read1", "readline", "readlines"]), st.integers(1, 64))
)


@settings(max_examples=300, deadline=None)
# the chunk-size line of the second chunk ends a receive: gunicorn's parser yields b"" there,
# which the worker took for the end of the body (a batch cut at line 131, issue 29)
@example(body=b"one\ntwo\n", sizes=[4], cuts=[9, 12], calls=[("readline", 64)] * 3)
@example(body=b"a\nb\nc\n", sizes=[1] * 6, cuts=list(range(1, 60)), calls=[])
@given(
    body=st.binary(max_size=400),
    sizes=st.lists(st.integers(1, 50), max_size=30),
    cuts=st.lists(st.integers(1, 700), max_size=40),
    calls=READS,
)
def test_a_chunked_body_comes_whole_however_it_is_cut(
    body: bytes, sizes: list[int], cuts: list[int], calls: list[tuple[str, int]]
) -> None:
    """Whatever the chunk sizes, wherever the receives end (in a size line, right after one,
    in a chunk's CRLF) and whatever reads the app makes, every byte of the body reaches it,
    once, in order: what gunicorn's own reader gives."""
    pieces = _received(_chunked_coding(body, sizes), cuts)
    assert _gunicorns_own(list(pieces)) == body
    reader = Body(ChunkedReader(_ChunkedRequest(), Arriving(list(pieces))))
    stream = DeadlineInput(reader, 5.0, 1000)
    out = b""
    for kind, size in [*calls, *[("read1", 64)] * (len(body) + 2)]:
        if kind == "readlines":
            out += b"".join(stream.readlines())
            continue
        data = getattr(stream, kind)(size)
        assert len(data) <= size
        out += data
    assert out == body
    assert stream.read1(64) == b""  # the end, and it stays the end


# --- every answer's send deadline (issue 30, finding 1) ------------------------------------------


def _pair() -> tuple[Any, Any]:
    server, client = gevent.socket.socketpair()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    return server, client


def test_an_answer_nobody_reads_is_reset_at_the_deadline() -> None:
    server, client = _pair()
    with server, client:
        began = time.monotonic()
        with pytest.raises(SendTimeout):
            DeadlineSocket(server, 0.3).sendall(b"x" * 1_000_000)
        assert time.monotonic() - began < 5.0
        got = b""
        with contextlib.suppress(OSError):
            while chunk := client.recv(65536):
                got += chunk
        assert len(got) < 1_000_000  # what was queued is dropped with the connection


def test_an_answer_read_slowly_goes_whole_and_a_file_too() -> None:
    server, client = _pair()
    data = bytes(range(256)) * 2000
    got = bytearray()

    def read() -> None:
        while len(got) < 2 * len(data):
            gevent.sleep(0.01)  # slower than the server writes, faster than the deadline
            got.extend(client.recv(8192))

    with server, client:
        reader = gevent.spawn(read)
        deadlined = DeadlineSocket(server, 2.0)
        deadlined.sendall(data)
        assert deadlined.sendfile(io.BytesIO(b"--" + data), offset=2) == len(data)
        reader.join(30)
    assert bytes(got) == data + data
