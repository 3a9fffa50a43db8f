"""The gunicorn worker of the shipped configuration: ``arbiter.worker.Worker``.

gunicorn's gevent worker (one greenlet per connection: a client that sends slowly holds a
greenlet, a few KB, instead of one of a few threads), with deadlines and problem answers:

- **Request head**: gevent's worker gives every request head, the first of a connection
  included, ``keepalive`` seconds to arrive (``ARBITER_KEEPALIVE``), then closes the connection;
  :meth:`Worker.check_config` refuses ``keepalive = 0``, under which gunicorn reads a first
  head without any deadline.
- **Request body**: ``wsgi.input`` raises :class:`BodyTimeout` (a :class:`TimeoutError`) once
  reading the body has waited ``ARBITER_BODY_TIMEOUT`` seconds in all, and the app answers 408
  (:mod:`arbiter.api.bodies`); the app's own work between reads does not count. Its
  :meth:`DeadlineInput.read1` hands over the bytes received so far instead of waiting for a
  whole block (a batch trickled in gets its finished lines answered before the 408), and a
  chunk whose size line says more than any endpoint reads (``ARBITER_BATCH_MAX_BYTES``,
  ``ARBITER_MAX_BODY_BYTES``) is refused as soon as that line is read: a 400, not a wait for
  bytes that will never be read.
- **Answers**: every write of every answer must make progress within ``ARBITER_SEND_TIMEOUT``
  seconds (:class:`DeadlineSocket`), else the connection is reset; each connection's send
  buffer is ``ARBITER_SEND_BUFFER_BYTES`` (SO_SNDBUF), so that an answer nobody reads holds
  that much of the host's memory for that long, not megabytes for as long as the client keeps
  its connection. An app that paces its answer (the batch) finds the :class:`Connection` in
  the environ at :data:`CONNECTION`: the socket work is the worker's, not a view's.
- **gunicorn's insides**: every private attribute of gunicorn the worker reads is in
  :mod:`arbiter.gunicorn_door`, and :meth:`Worker.check_config` refuses an untested gunicorn.
- **Spreading**: a connection is closed after :data:`KEEPALIVE_REQUESTS` answers, so that
  long-lived connections do not stay piled on one worker.
- **Closing**: an answer carrying ``Connection: close`` (a body refused before it was all read)
  closes the connection instead of letting gunicorn parse the rest of the body; what the
  client still sends is read and dropped for a bounded time first (:func:`linger`), so that it
  gets the answer rather than a reset.
- **Refused before the app** (request line too long, headers too large or too many, a bad
  Content-Length, a malformed request, an unknown transfer coding, a ``SCRIPT_NAME`` that is
  not a prefix of the path...): answered as ``application/problem+json`` with a new request id,
  and counted in ``arbiter_requests_total{endpoint="unparsed"}``. What the client sent wrong is
  logged as a WARNING of one line; a traceback only for a fault of the server.

The engine's CPU work runs in the request's greenlet as it did in a thread: a long replay holds
its worker as it held a sync worker, and every I/O wait (a body, Redis) lets the others run.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import select
import socket
import struct
import sys
import time
from collections.abc import Callable, Iterable, Iterator, MutableMapping
from typing import Any

import gevent
from gunicorn import util
from gunicorn.http import errors as http_errors
from gunicorn.workers.ggevent import GeventWorker

from arbiter import gunicorn_door

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
#: reading a request is a 400 (all are the client's doing: :func:`client_error`), and anything
#: that is no request error a 500.
_STATUS = (
    (http_errors.LimitRequestLine, 414, "URI Too Long"),
    (http_errors.LimitRequestHeaders, 431, "Request Header Fields Too Large"),
    (http_errors.UnsupportedTransferCoding, 501, "Not Implemented"),
    (http_errors.ExpectationFailed, 417, "Expectation Failed"),
    (http_errors.ForbiddenProxyRequest, 403, "Forbidden"),
    # gunicorn raises it for a SCRIPT_NAME (from a trusted proxy) that is not a prefix of the
    # request's path: the request's fault, not the server's.
    (http_errors.ConfigurationProblem, 400, "Bad Request"),
    (http_errors.ParseException, 400, "Bad Request"),
)
_DETAIL = {
    414: "The request line is longer than the server accepts.",
    431: "The request's header fields are too large or too many.",
    501: "The request's Transfer-Encoding is not supported: send chunked, or a Content-Length.",
    417: "The request's Expect header cannot be met.",
    403: "The request is forbidden.",
    400: "The request is not well-formed HTTP",
    500: "The server failed to handle the request",
}
_SCRIPT_NAME_DETAIL = "The request's SCRIPT_NAME is not a prefix of its path."


class BodyTimeout(TimeoutError):
    """The request body did not arrive within its deadline."""


class DeadlineInput:
    """``wsgi.input`` whose reads raise :class:`BodyTimeout` once they have waited ``seconds``
    in all; gevent interrupts a read that is waiting for the client. Only the time spent
    waiting for the body counts: an app that reads, works, then reads again (a streamed batch,
    :mod:`arbiter.api.batch`) is not charged for its own work, while a client that sends
    slowly is for every wait.

    :meth:`read1` returns what has arrived (at most ``size`` bytes) as soon as there is any,
    without a timer when it is already received (the body of a small request comes with its
    head); on gunicorn's body readers it takes the bytes from them directly
    (:func:`arbiter.gunicorn_door.direct`), elsewhere it is ``read``."""

    def __init__(self, stream: Any, seconds: float, max_chunk: int | None = None) -> None:
        self._stream = stream
        self._left = seconds
        self._direct = gunicorn_door.direct(stream, max_chunk)

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

    def read1(self, size: int = CHUNK) -> bytes:
        direct = self._direct
        if direct is None:
            return self.read(size)
        data = direct.received(size)
        if data is None:
            data = self._call(direct.wait, size)
        return data

    def readline(self, size: int | None = None) -> bytes:
        direct = self._direct
        if direct is None:
            line: bytes = self._call(self._stream.readline, size)
            return line
        limit = size if size is not None and size >= 0 else sys.maxsize
        parts: list[bytes] = []
        got = 0
        while got < limit:  # what has arrived, up to a newline; waiting only for more
            data = self.read1(min(CHUNK, limit - got))
            if not data:
                break
            end = data.find(b"\n") + 1
            if end:
                direct.unread(data[end:])
                parts.append(data[:end])
                break
            parts.append(data)
            got += len(data)
        return b"".join(parts)

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


#: Where the worker puts the request's :class:`Connection` in the WSGI environ.
CONNECTION = "arbiter.connection"

_log = logging.getLogger("arbiter.worker")


class Connection:
    """The client's connection as an app that paces its answer sees it (the batch,
    :mod:`arbiter.api.batch`): can it take more now, has the client gone, and a reset. The
    socket work of an answer lives here, in the worker, not in a view."""

    def __init__(self, sock: Any) -> None:
        self._sock = sock

    def writable(self, timeout: float = 0.0) -> bool:
        """Can the connection take a piece without blocking, within ``timeout`` seconds?"""
        try:
            return bool(select.select([], [self._sock], [], timeout)[1])
        except (OSError, ValueError):  # closed: the write will say so
            return True

    def gone(self) -> bool:
        """Has the client closed the connection (an end of its stream, or a reset)? Only an
        end that nothing unread is in front of shows: a body still arriving is not looked
        into."""
        try:
            if not select.select([self._sock], [], [], 0)[0]:
                return False
            peeked: bytes = self._sock.recv(1, socket.MSG_PEEK)
        except BlockingIOError:
            return False
        except (OSError, ValueError):
            return True
        return peeked == b""

    def reset(self) -> None:
        """Reset the connection: the client gets no more, and the bytes the system still
        holds for it are dropped with it."""
        reset(self._sock)


def reset(sock: Any) -> None:
    """Close ``sock`` with a reset (SO_LINGER 0): what the system holds to send is dropped."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.shutdown(socket.SHUT_RDWR)


class SendTimeout(ConnectionResetError):
    """The client took nothing of its answer for ``ARBITER_SEND_TIMEOUT`` seconds: the
    connection was reset (gunicorn drops a reset connection without a word)."""


class DeadlineSocket:
    """The client's socket as gunicorn writes an answer to it: every write must make
    progress within ``seconds`` (each ``send`` that the client makes room for restarts the
    clock, as nginx's ``send_timeout``), else the connection is reset and
    :class:`SendTimeout` raised. With the connection's send buffer bounded
    (``ARBITER_SEND_BUFFER_BYTES``), an answer nobody reads holds that much memory for that
    long, not all of it for as long as the client likes. Everything else is the socket's."""

    def __init__(self, sock: Any, seconds: float) -> None:
        self._sock = sock
        self._seconds = seconds

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)

    def sendall(self, data: bytes) -> None:
        view = memoryview(data).cast("B")
        while view:
            try:
                with gevent.Timeout(self._seconds, _Stalled):
                    sent: int = self._sock.send(view[:CHUNK])
            except _Stalled:
                reset(self._sock)
                _log.info("reset a connection that took none of its answer in %ss", self._seconds)
                raise SendTimeout(errno.ECONNRESET, "the client does not read") from None
            view = view[sent:]

    def sendfile(self, file: Any, offset: int = 0, count: int | None = None) -> int:
        """A file's bytes through :meth:`sendall` (gunicorn's sendfile of a file answer)."""
        file.seek(offset)
        left = count if count is not None else -1
        total = 0
        while left:
            block = file.read(CHUNK if left < 0 else min(CHUNK, left))
            if not block:
                break
            self.sendall(block)
            total += len(block)
            left -= len(block) if left > 0 else 0
        return total


class _Stalled(Exception):
    """A write made no progress within its deadline."""


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


def with_deadlines(app: WsgiApp, body_timeout: float, max_chunk: int | None = None) -> WsgiApp:
    """``app`` with a deadline on its request body (and chunks of at most ``max_chunk``
    bytes), and ``Connection: close`` honoured."""

    def wrapped(
        environ: MutableMapping[str, Any], start_response: Callable[..., Any]
    ) -> Iterable[bytes]:
        environ["wsgi.input"] = DeadlineInput(environ["wsgi.input"], body_timeout, max_chunk)
        sock = environ.get("gunicorn.socket")
        if sock is not None:
            environ[CONNECTION] = Connection(sock)
        closing = False

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            nonlocal closing
            kept = [(k, v) for k, v in headers if k.lower() != "connection"]
            # gunicorn drops hop-by-hop headers; its Response is start_response's owner.
            owner = gunicorn_door.response_of(start_response)
            if owner is not None:
                if len(kept) < len(headers):
                    gunicorn_door.close_after(owner)
                    closing = True
                elif gunicorn_door.request_number(owner) >= KEEPALIVE_REQUESTS:
                    # answered with Connection: close; the client reconnects
                    gunicorn_door.close_after(owner)
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


def client_error(exc: BaseException) -> bool:
    """Did the client cause ``exc`` (a request gunicorn could not read or accept)? Else it is
    a fault of the server, the only kind whose traceback is logged."""
    return isinstance(exc, http_errors.ParseException)


def detail_of(exc: BaseException, status: int, request_id: str) -> str:
    """What the problem answer says about ``exc``."""
    if not client_error(exc):
        return f"{_DETAIL[500]}; quote request id {request_id}."
    if isinstance(exc, http_errors.ConfigurationProblem):
        return _SCRIPT_NAME_DETAIL
    detail = _DETAIL.get(status, _DETAIL[400])
    return f"{detail}: {exc}." if status == 400 else detail


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

    #: seconds a write of an answer may wait for the client (ARBITER_SEND_TIMEOUT)
    send_timeout = 10.0
    #: the send buffer of each connection (ARBITER_SEND_BUFFER_BYTES; 0: the system's own)
    send_buffer = 0

    @classmethod
    def check_config(cls, cfg: Any, log: Any) -> None:
        """Called by gunicorn's master before it starts workers (gunicorn/arbiter.py)."""
        gunicorn_door.check_version()
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
        largest = max(settings.max_body_bytes, settings.batch_max_bytes)
        self.wsgi = with_deadlines(self.wsgi, settings.body_timeout, largest)
        self.send_timeout = settings.send_timeout
        self.send_buffer = settings.send_buffer_bytes

    def handle(self, listener: Any, client: Any, addr: Any) -> None:
        if self.send_buffer:
            with contextlib.suppress(OSError):  # a unix socket may refuse it: no matter
                client.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.send_buffer)
        super().handle(listener, client, addr)

    def handle_request(self, listener_name: Any, req: Any, sock: Any, addr: Any) -> bool:
        # gunicorn writes the answer to the socket it is given here (the request was read
        # from the connection's own): every write of every answer gets the send deadline.
        deadlined: Any = DeadlineSocket(sock, self.send_timeout)  # a socket to gunicorn
        return bool(super().handle_request(listener_name, req, deadlined, addr))

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        status, reason = status_of(exc)
        from arbiter.contract import new_request_id

        request_id = new_request_id()
        if client_error(exc):
            peer = addr[0] if addr else "unix"
            self.log.warning("refused a request from %s: %s %s", peer, status, exc)
        else:
            self.log.exception("error handling a request (request %s)", request_id)
        detail = detail_of(exc, status, request_id)
        if self.app_metrics is not None:
            from arbiter.api.metrics import UNPARSED

            method = getattr(req, "method", None) or "-"
            self.app_metrics.observe_request(method, UNPARSED, status, 0.0)
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
