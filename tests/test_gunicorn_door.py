"""The contract of :mod:`arbiter.gunicorn_door` with the locked gunicorn: one test per private
attribute or behaviour the worker relies on, so that an upgrade that moves one fails here, by
name, rather than in a batch cut short on a live server; and the version guard that refuses an
untested gunicorn at start.
"""

from __future__ import annotations

import io
from typing import Any

import gunicorn
import pytest
from gunicorn.config import Config
from gunicorn.http.body import Body, ChunkedReader, LengthReader
from gunicorn.http.errors import InvalidChunkSize
from gunicorn.http.parser import RequestParser
from gunicorn.http.unreader import IterUnreader
from gunicorn.http.wsgi import Response

from arbiter import gunicorn_door
from arbiter.api import batch
from arbiter.worker import CONNECTION, Worker


class _Chunks:
    """What gunicorn's ChunkedReader reads of its request."""

    limit_request_field_size = 0
    max_buffer_headers = 0

    def __init__(self) -> None:
        self.trailers: list[Any] = []


def _chunked(*receives: bytes) -> Body:
    return Body(ChunkedReader(_Chunks(), IterUnreader(list(receives))))


# --- the version guard --------------------------------------------------------------------------


def test_the_locked_gunicorn_is_a_tested_one() -> None:
    gunicorn_door.check_version(gunicorn.__version__)
    assert gunicorn_door.version_of(gunicorn.__version__) in gunicorn_door.TESTED


@pytest.mark.parametrize("version", ["28.0.0", "26.1.3", "27.1.0"])
def test_an_untested_gunicorn_is_refused_by_name(version: str) -> None:
    with pytest.raises(
        gunicorn_door.UntestedGunicorn, match=f"tested with gunicorn 27.0 .*{version}"
    ):
        gunicorn_door.check_version(version)


def test_a_version_that_cannot_be_read_is_refused() -> None:
    with pytest.raises(gunicorn_door.UntestedGunicorn, match="cannot be read"):
        gunicorn_door.check_version("main")


def test_the_master_refuses_an_untested_gunicorn_before_any_worker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Keepalive:
        keepalive = 5

    monkeypatch.setattr(gunicorn, "__version__", "99.0.0")
    with pytest.raises(gunicorn_door.UntestedGunicorn, match=r"not 99\.0\.0"):
        Worker.check_config(Keepalive(), None)


# --- Body: buf, reader, failed ------------------------------------------------------------------


def test_body_keeps_what_a_read_took_beyond_its_size_in_buf() -> None:
    body = Body(LengthReader(IterUnreader([b"abcdef"]), 6))
    assert body.reader.__class__ is LengthReader
    assert body.read(2) == b"ab"
    assert isinstance(body.buf, io.BytesIO)
    assert body.buf.tell() == 4 and body.buf.getvalue() == b"cdef"


def test_body_reads_its_buf_first() -> None:
    body = Body(LengthReader(IterUnreader([b"cd"]), 2))
    body.buf.write(b"ab")
    assert body.read() == b"abcd"


def test_body_failed_is_what_keeps_a_connection_from_reuse() -> None:
    body = _chunked(b"zz\r\n")
    assert body.failed is False
    with pytest.raises(InvalidChunkSize):
        body.read(10)
    assert body.failed is True
    parser = RequestParser(Config(), iter([]), ("127.0.0.1", 1))
    parser.mesg = type("Message", (), {"body": body})()
    assert parser.finish_body() is False  # gunicorn reads `failed` to close the connection


# --- LengthReader: unreader, length; Unreader: take_buffered, unread, read ----------------------


def test_length_reader_counts_down_its_length() -> None:
    reader = LengthReader(IterUnreader([b"abcdef"]), 6)
    assert reader.read(4) == b"abcd"
    assert reader.length == 2
    assert reader.unreader.take_buffered() == b"ef"  # read ahead, held, handed over


def test_unreader_unread_goes_in_front_and_take_buffered_empties() -> None:
    unreader = IterUnreader([b"late"])
    unreader.unread(b"b")
    unreader.unread(b"a")
    assert unreader.take_buffered() == b"ab"
    assert unreader.take_buffered() == b""
    assert unreader.read(None, read_ahead=100) == b"late"  # one receive, nothing buffered


# --- ChunkedReader: parser, buf, parse_chunk_size ----------------------------------------------


def test_the_chunk_parser_yields_an_empty_piece_when_a_receive_ends_a_size_line() -> None:
    """The quirk behind issue 29: b"" from the parser is no end of the body."""
    reader = _chunked(b"3\r\n", b"abc\r\n0\r\n\r\n").reader
    pieces = list(reader.parser)
    assert pieces == [b"", b"abc"]


def test_chunked_reader_reads_its_buf_first_and_parser_none_is_the_end() -> None:
    reader = _chunked(b"3\r\nabc\r\n0\r\n\r\n").reader
    reader.buf.write(b"xy")
    assert reader.read(10) == b"xyabc"
    assert reader.parser is None


def test_the_parser_looks_up_parse_chunk_size_on_the_reader() -> None:
    body = _chunked(b"5\r\nabcde\r\n0\r\n\r\n")
    direct = gunicorn_door.direct(body, max_chunk=4)
    assert direct is not None
    with pytest.raises(InvalidChunkSize, match="over 4 bytes"):
        direct.wait(10)


# --- Response: force_close; Request: req_number -------------------------------------------------


def test_force_close_makes_the_answer_close_its_connection() -> None:
    parser = RequestParser(Config(), iter([b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"]), ("a", 1))
    request = next(parser)
    response = Response(request, None, Config())
    response.start_response("200 OK", [("Content-Length", "0")])
    assert response.should_close() is False
    assert gunicorn_door.response_of(response.start_response) is response
    gunicorn_door.close_after(response)
    assert response.should_close() is True


def test_req_number_counts_the_requests_of_a_connection() -> None:
    two = b"GET /1 HTTP/1.1\r\nHost: x\r\n\r\nGET /2 HTTP/1.1\r\nHost: x\r\n\r\n"
    parser = RequestParser(Config(), iter([two]), ("a", 1))
    numbers = []
    for request in parser:
        response = Response(request, None, Config())
        numbers.append(gunicorn_door.request_number(response))
    assert numbers == [1, 2]


def test_the_batch_finds_the_workers_connection_where_the_worker_puts_it() -> None:
    assert batch.CONNECTION == CONNECTION
