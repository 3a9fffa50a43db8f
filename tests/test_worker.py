"""The shipped gunicorn worker's pieces (arbiter/worker.py), without a server.

The live behaviour (slow clients, problems before the app, 408) is in tests/hostile/; here the
parts on their own: which status each gunicorn error becomes, the body deadline (gevent's
cooperative read, as in the worker), the ``Connection: close`` bridge, and the answer bytes.
"""

from __future__ import annotations

import io
import json
import time
from typing import Any

import gevent
import pytest
from gunicorn.http import errors as http_errors

from arbiter.worker import (
    KEEPALIVE_REQUESTS,
    BodyTimeout,
    DeadlineInput,
    Worker,
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
        (RuntimeError("a bug"), 500),
    ],
)
def test_status_of_each_gunicorn_error(error: BaseException, status: int) -> None:
    assert status_of(error)[0] == status


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
