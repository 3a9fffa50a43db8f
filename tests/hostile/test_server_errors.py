"""Finding 5 (the HTTP server): what gunicorn refuses before the app is a problem+json too.

A request line over 4,094 bytes (414), header fields over 8 KB or too many (431), a negative or
non-numeric Content-Length, a header holding NUL or a bare CR, a malformed request line, an
unknown transfer coding: each answered ``application/problem+json`` with a new request id and
the API's headers, then the connection is closed. ``X-Request-ID`` values that are not 1-128
printable ASCII characters are replaced, never echoed.
"""

from __future__ import annotations

import uuid

import pytest

from tests.api_support import assert_problem
from tests.gunicorn_support import Gunicorn, request
from tests.hostile.conftest import exchange, request_head, wait_until

# Hostile clients against a live gunicorn (or the real command): the quick loop leaves them out.
pytestmark = pytest.mark.slow


def _head(line: str, *fields: bytes) -> bytes:
    return line.encode() + b"\r\n" + b"".join(f + b"\r\n" for f in fields) + b"\r\n"


POST, GET = "POST /v1/replays HTTP/1.1", "GET /healthz HTTP/1.1"
REFUSED = {
    "request line over 4094 bytes": (_head("GET /" + "a" * 5000 + " HTTP/1.1"), 414),
    "a 100 KB Accept-Language": (_head(GET, b"Accept-Language: " + b"e" * 100_000), 431),
    "headers over 8 KB": (_head(GET, b"X-Big: " + b"a" * 9000), 431),
    "more than 100 header fields": (_head(GET, *(b"X-%d: 1" % i for i in range(120))), 431),
    "a negative Content-Length": (_head(POST, b"Content-Length: -5"), 400),
    "a Content-Length that is no number": (_head(POST, b"Content-Length: 1x"), 400),
    "two Content-Lengths": (_head(POST, b"Content-Length: 2", b"Content-Length: 3"), 400),
    "an X-Request-ID holding NUL": (_head(GET, b"X-Request-ID: a\x00b"), 400),
    "an X-Request-ID holding a bare CR": (_head(GET, b"X-Request-ID: a\rb"), 400),
    "an X-Request-ID holding DEL": (_head(GET, b"X-Request-ID: a\x7fb"), 400),
    "a malformed request line": (_head("garbage"), 400),
    "a bad HTTP version": (_head("GET /healthz HTTP/9.7"), 400),
    "an unknown transfer coding": (_head(POST, b"Transfer-Encoding: gzip"), 400),
    "a header name with a space": (_head(GET, b"Bad Name: 1"), 400),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_before_the_app_as_a_problem(server: Gunicorn, name: str) -> None:
    head, status = REFUSED[name]
    answer = exchange(server.port, head)
    problem = assert_problem(answer, status)
    assert answer.closed
    assert len(problem["detail"]) <= 300
    uuid.UUID(problem["request_id"])  # a new id: the request's own was never read


def test_the_server_still_serves_after_them(server: Gunicorn) -> None:
    for _ in range(3):
        exchange(server.port, b"garbage\r\n\r\n")
    assert request(server.port, "GET", "/healthz").status == 200


@pytest.mark.parametrize(
    "request_id",
    [
        "<script>alert(1)</script>" * 10,  # printable but 250 characters
        "caf\u00e9-1",  # not ASCII (sent as latin-1)
        "tab\there",
        "x" * 129,
        "   ",
    ],
    ids=["too long", "not ASCII", "tab", "129 characters", "blank"],
)
def test_unfit_request_ids_are_replaced(server: Gunicorn, request_id: str) -> None:
    head = request_head("GET", "/healthz", server.port, X_Request_ID=request_id)
    answer = exchange(server.port, head)
    assert answer.status == 200
    echoed = answer.headers["x-request-id"]
    assert echoed != request_id.strip()
    uuid.UUID(echoed)


def test_a_fit_request_id_is_echoed(server: Gunicorn) -> None:
    request_id = "table-7/move 12:ok"
    answer = exchange(server.port, request_head("GET", "/healthz", server.port,
                                                X_Request_ID=request_id))  # fmt: skip
    assert answer.headers["x-request-id"] == request_id


# --- issue 22, findings 12 and 13 ---------------------------------------------------------------


def test_an_unknown_transfer_coding_is_the_clients_error(server: Gunicorn) -> None:
    """``Transfer-Encoding: xchunked`` with a Content-Length: a 501 that says what is wrong with
    the request, logged as a WARNING of one line — no traceback a client could fill the log
    with (it went through the branch of server faults: "The server failed to handle the
    request", and a traceback at ERROR)."""
    logged = len(server.output())
    head = _head(POST, b"Transfer-Encoding: xchunked", b"Content-Length: 2") + b"{}"
    answer = exchange(server.port, head)
    problem = assert_problem(answer, 501)
    assert "Transfer-Encoding" in problem["detail"]
    assert "failed" not in problem["detail"]
    assert answer.closed
    assert wait_until(lambda: "refused a request" in server.output()[logged:], 5)
    log = server.output()[logged:]
    assert "501" in log and "xchunked" in log
    assert "Traceback" not in log and '"level":"error"' not in log


def test_an_oversized_chunk_size_is_a_400_at_once(server: Gunicorn) -> None:
    """A chunk of 2^80 bytes announced: refused when its size line is read (it waited for the
    whole body deadline, ARBITER_BODY_TIMEOUT, 10 s). The answer must come well before."""
    for path in ("/v1/replays", "/v1/scores/batch"):
        media = "application/json" if path == "/v1/replays" else "application/x-ndjson"
        head = _head(f"POST {path} HTTP/1.1", f"Content-Type: {media}".encode(),
                     b"Transfer-Encoding: chunked")  # fmt: skip
        answer = exchange(server.port, head + b"FFFFFFFFFFFFFFFFFFFF\r\n{}", timeout=3.0)
        assert "chunk" in assert_problem(answer, 400)["detail"], path
        assert answer.closed
