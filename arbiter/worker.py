"""The gunicorn worker of the shipped configuration: ``arbiter.worker.Worker``.

gunicorn's gevent worker (one greenlet per connection: a client that sends slowly holds a
greenlet, a few KB, instead of one of a few threads), with deadlines and problem answers:

- **Request head**: gevent's worker gives every request head, the first of a connection
  included, ``keepalive`` seconds to arrive (``ARBITER_KEEPALIVE``), then closes the connection;
  :meth:`Worker.check_config` refuses ``keepalive = 0``, under which gunicorn reads a first
  head without any deadline.
- **Request body**: ``wsgi.input`` raises :class:`BodyTimeout` (a :class:`TimeoutError`) once
  reading the body has waited ``ARBITER_BODY_TIMEOUT`` seconds in all, and the app answers 408
  (:mod:`arbiter.api.bodies`); the app's own work between reads does not count.
- **Spreading**: a connection is closed after :data:`KEEPALIVE_REQUESTS` answers, so that
  long-lived connections do not stay piled on one worker.
- **Closing**: an answer carrying ``Connection: close`` (a body refused before it was all read)
  closes the connection instead of letting gunicorn parse the rest of the body; what the
  client still sends is read and dropped for a bounded time first (:func:`linger`), so that it
  gets the answer rather than a reset.
- **Refused before the app** (request line too long, headers too large or too many, a bad
  Content-Length, a malformed request...): answered as ``application/problem+json`` with a new
  request id, and counted in ``arbiter_requests_total{endpoint="unparsed"}``.

The engine's CPU work runs in the request's greenlet as it did in a thread: a long replay holds
its worker as it held a sync worker, and every I/O wait (a body, Redis) lets the others run.
"""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Callable, Iterable, Iterator, MutableMapping
from typing import Any

import gevent
from gunicorn import util
from gunicorn.http import errors as http_errors
from gunicorn.workers.ggevent import GeventWorker

#: What an early answer's connection may still read and drop before it closes (:func:`linger`).
LINGER_SECONDS = 2.0
LINGER_BYTES = 16 * 1024 * 1024
CHUNK = 64 * 1024

#: Requests answered on one connection before it is closed (nginx's keepalive_requests). A
#: kept-alive connection stays with the worker that accepted it: a client that reconnects now
#: and then goes to whichever worker is free to accept at that moment, which keeps a few
#: long-lived connections (a game server's pool, a proxy's upstream) spread over the workers.
KEEPALIVE_REQUESTS = 100

WsgiApp = Callable[[MutableMapping[str, Any], Callable[..., Any]], Iterable[bytes]]

#: What gunicorn raises for each answer, most specific first; anything else it raises while
#: reading a request is a 400, and anything that is no request error a 500.
_STATUS = (
    (http_errors.LimitRequestLine, 414, "URI Too Long"),
    (http_errors.LimitRequestHeaders, 431, "Request Header Fields Too Large"),
    (http_errors.UnsupportedTransferCoding, 501, "Not Implemented"),
    (http_errors.ExpectationFailed, 417, "Expectation Failed"),
    (http_errors.ForbiddenProxyRequest, 403, "Forbidden"),
    (http_errors.ConfigurationProblem, 500, "Internal Server Error"),
    (http_errors.ParseException, 400, "Bad Request"),
)
_DETAIL = {
    414: "The request line is longer than the server accepts.",
    431: "The request's header fields are too large or too many.",
    501: "The request's Transfer-Encoding is not supported (chunked only).",
    417: "The request's Expect header cannot be met.",
    403: "The request is forbidden.",
    400: "The request is not well-formed HTTP",
    500: "The server failed to handle the request",
}


class BodyTimeout(TimeoutError):
    """The request body did not arrive within its deadline."""


class DeadlineInput:
    """``wsgi.input`` whose reads raise :class:`BodyTimeout` once they have waited ``seconds``
    in all; gevent interrupts a read that is waiting for the client. Only the time spent
    waiting for the body counts: an app that reads, works, then reads again (a streamed batch,
    :mod:`arbiter.api.batch`) is not charged for its own work, while a client that sends
    slowly is for every wait."""

    def __init__(self, stream: Any, seconds: float) -> None:
        self._stream = stream
        self._left = seconds

    def _call(self, method: Callable[..., Any], *args: Any) -> Any:
        if self._left <= 0:
            raise BodyTimeout("the request body took too long")
        began = time.monotonic()
        try:
            with gevent.Timeout(self._left, BodyTimeout("the request body took too long")):
                return method(*args)
        finally:
            self._left -= time.monotonic() - began

    def read(self, size: int | None = None) -> bytes:
        data: bytes = self._call(self._stream.read, size)
        return data

    def readline(self, size: int | None = None) -> bytes:
        line: bytes = self._call(self._stream.readline, size)
        return line

    def readlines(self, hint: int | None = None) -> list[bytes]:
        lines: list[bytes] = self._call(self._stream.readlines, hint)
        return lines

    def __iter__(self) -> DeadlineInput:
        return self

    def __next__(self) -> bytes:
        line = self.readline()
        if not line:
            raise StopIteration
        return line


class _LingerOver(Exception):
    """The time to linger is over."""


def linger(sock: Any) -> None:
    """Close ``sock`` the way nginx does after an early answer: end our side, then read and
    drop what the client is still sending (at most :data:`LINGER_BYTES` for at most
    :data:`LINGER_SECONDS`). Closing a socket with unread data resets the connection, and a
    client still sending its body would then lose the answer before reading it."""
    buffer = bytearray(CHUNK)
    dropped = 0
    with contextlib.suppress(OSError, _LingerOver), gevent.Timeout(LINGER_SECONDS, _LingerOver):
        sock.shutdown(socket.SHUT_WR)
        while dropped < LINGER_BYTES:
            got = sock.recv_into(buffer)
            if not got:
                break
            dropped += got


class _Lingering:
    """The app's answer; once gunicorn has sent it, :func:`linger` on the connection."""

    def __init__(self, answer: Iterable[bytes], sock: Any) -> None:
        self._answer = answer
        self._sock = sock

    def __iter__(self) -> Iterator[bytes]:
        return iter(self._answer)

    def close(self) -> None:
        try:
            close = getattr(self._answer, "close", None)
            if close is not None:
                close()
        finally:
            if self._sock is not None:
                linger(self._sock)


def with_deadlines(app: WsgiApp, body_timeout: float) -> WsgiApp:
    """``app`` with a deadline on its request body, and ``Connection: close`` honoured."""

    def wrapped(
        environ: MutableMapping[str, Any], start_response: Callable[..., Any]
    ) -> Iterable[bytes]:
        environ["wsgi.input"] = DeadlineInput(environ["wsgi.input"], body_timeout)
        closing = False

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            nonlocal closing
            kept = [(k, v) for k, v in headers if k.lower() != "connection"]
            # gunicorn drops hop-by-hop headers; its Response is start_response's owner.
            owner = getattr(start_response, "__self__", None)
            if owner is not None and hasattr(owner, "force_close"):
                if len(kept) < len(headers):
                    owner.force_close()
                    closing = True
                elif getattr(getattr(owner, "req", None), "req_number", 0) >= KEEPALIVE_REQUESTS:
                    owner.force_close()  # answered with Connection: close; the client reconnects
            return start_response(status, kept, exc_info)

        answer = app(environ, start)
        return _Lingering(answer, environ.get("gunicorn.socket")) if closing else answer

    return wrapped


def status_of(exc: BaseException) -> tuple[int, str]:
    """The status and reason for an error gunicorn raised while reading a request."""
    for kind, status, reason in _STATUS:
        if isinstance(exc, kind):
            return status, reason
    return 500, "Internal Server Error"


def problem_bytes(status: int, reason: str, detail: str, request_id: str) -> bytes:
    """A whole HTTP/1.1 answer: the problem as JSON, the API's headers, then close."""
    from arbiter.api.security import API_HEADERS
    from arbiter.contract import PROBLEM_JSON, problem_document

    body = problem_document(status, reason, detail, request_id)
    head = [
        f"HTTP/1.1 {status} {reason}",
        "Connection: close",
        f"Content-Type: {PROBLEM_JSON}",
        f"Content-Length: {len(body)}",
        f"X-Request-ID: {request_id}",
        *(f"{name}: {value}" for name, value in API_HEADERS.items()),
    ]
    return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body


class Worker(GeventWorker):
    """gunicorn's gevent worker with the deadlines and problem answers of the module doc."""

    #: the app's Metrics, to count what is refused before the app (set by load_wsgi)
    app_metrics: Any = None

    @classmethod
    def check_config(cls, cfg: Any, log: Any) -> None:
        """Called by gunicorn's master before it starts workers (gunicorn/arbiter.py)."""
        if cfg.keepalive <= 0:
            raise RuntimeError(
                "arbiter.worker.Worker needs keepalive >= 1 (ARBITER_KEEPALIVE): it is the "
                "deadline of every request head"
            )

    def load_wsgi(self) -> None:
        super().load_wsgi()
        from arbiter.settings import Settings

        self.app_metrics = _extension(self.wsgi, "arbiter.metrics")
        settings = _extension(self.wsgi, "arbiter.settings") or Settings.from_env()
        self.wsgi = with_deadlines(self.wsgi, settings.body_timeout)

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        status, reason = status_of(exc)
        from arbiter.contract import new_request_id

        request_id = new_request_id()
        if status >= 500:
            self.log.exception("error handling a request (request %s)", request_id)
            detail = f"{_DETAIL[500]}; quote request id {request_id}."
        else:
            peer = addr[0] if addr else "unix"
            self.log.warning("refused a request from %s: %s %s", peer, status, exc)
            detail = _DETAIL.get(status, _DETAIL[400])
            if status == 400:
                detail = f"{detail}: {exc}."
        if self.app_metrics is not None:
            method = getattr(req, "method", None) or "-"
            self.app_metrics.observe_request(method, "unparsed", status, 0.0)
        try:
            util.write_nonblock(client, problem_bytes(status, reason, detail, request_id))
        except Exception:
            self.log.debug("could not send the problem answer")
        else:
            linger(client)


def _extension(app: Any, name: str) -> Any:
    """The Flask app's extension ``name`` (its metrics, its settings), if the app is ours."""
    extensions = getattr(app, "extensions", None)
    return extensions.get(name) if isinstance(extensions, dict) else None
