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
import io
import socket
import sys
import time
from collections.abc import Callable, Iterable, Iterator, MutableMapping
from typing import Any

import gevent
from gunicorn import util
from gunicorn.http import body as http_body
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
    (:class:`_Direct`), elsewhere it is ``read``."""

    def __init__(self, stream: Any, seconds: float, max_chunk: int | None = None) -> None:
        self._stream = stream
        self._left = seconds
        self._direct = _Direct.of(stream, max_chunk)

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


class _Direct:
    """The bytes of a gunicorn request body as they arrive, from its reader: a
    ``Content-Length`` body from the connection's read-ahead buffer and then one receive at a
    time, a chunked one a piece of a chunk at a time (gunicorn's own ``read(size)`` waits until
    it holds ``size`` bytes). Made for a body nothing has read yet, and used for every read
    after (:meth:`of`); a chunked body's chunk sizes are bounded by ``max_chunk``."""

    def __init__(self, body: Any) -> None:
        self.body = body
        self.reader = body.reader

    @classmethod
    def of(cls, stream: Any, max_chunk: int | None) -> _Direct | None:
        body = stream
        if not isinstance(body, http_body.Body) or body.buf.tell():
            return None
        reader = body.reader
        if isinstance(reader, http_body.LengthReader):
            return _Length(body)
        if isinstance(reader, http_body.ChunkedReader):
            if max_chunk is not None:
                _bound_chunks(reader, max_chunk)
            return _Chunked(body)
        return None

    def received(self, size: int) -> bytes | None:
        """Bytes already received (at most ``size``), b"" at the end, None: to wait for.
        What gunicorn's Body kept from a ``read`` made on it comes first."""
        held = _held(self.body, self.body.buf, size)
        return held if held is not None else self._arrived(size)

    def _arrived(self, size: int) -> bytes | None:
        raise NotImplementedError

    def wait(self, size: int) -> bytes:
        """The next bytes to arrive (at most ``size``), b"" at the end."""
        try:
            return self._next(size)
        except BaseException:
            self.body.failed = True  # the connection cannot be reused (gunicorn's Body does so)
            raise

    def _next(self, size: int) -> bytes:
        raise NotImplementedError

    def unread(self, data: bytes) -> None:
        """Put ``data`` (the last bytes taken) back in front of the rest: in front of what
        gunicorn's Body keeps from a ``read`` made on it, which every read takes first."""
        if data:
            body = self.body
            rest = body.buf.getvalue()
            body.buf = io.BytesIO()
            body.buf.write(data + rest)


def _held(stream: Any, buffer: io.BytesIO, size: int) -> bytes | None:
    """At most ``size`` of the bytes ``stream`` keeps in ``buffer`` (its ``read`` of no more
    than that does not wait), or None when it keeps none."""
    held = buffer.tell()
    if not held:
        return None
    data: bytes = stream.read(min(size, held))
    return data


class _Length(_Direct):
    def _arrived(self, size: int) -> bytes | None:
        reader = self.reader
        wanted = min(size, reader.length)
        if wanted <= 0:
            return b""
        buffered = reader.unreader.buf
        buffered.seek(0, 2)
        if not buffered.tell():
            return None
        return self._take(reader.unreader.read(), wanted)

    def _next(self, size: int) -> bytes:
        reader = self.reader
        wanted = min(size, reader.length)
        if wanted <= 0:
            return b""
        return self._take(reader.unreader.read(None, read_ahead=reader.length), wanted)

    def _take(self, data: bytes, wanted: int) -> bytes:
        if len(data) > wanted:
            self.reader.unreader.unread(data[wanted:])
            data = data[:wanted]
        self.reader.length -= len(data)
        return data


class _Chunked(_Direct):
    def _arrived(self, size: int) -> bytes | None:
        reader = self.reader
        held = _held(reader, reader.buf, size)
        if held is not None:
            return held
        return b"" if reader.parser is None else None

    def _next(self, size: int) -> bytes:
        reader = self.reader
        piece = b""
        # gunicorn's parser yields an empty piece when a receive ends right after a chunk-size
        # line: that is no end of the body (only StopIteration is), so ask again.
        while not piece:
            try:
                piece = next(reader.parser)
            except StopIteration:
                reader.parser = None
                return b""
        if len(piece) > size:
            reader.buf.write(piece[size:])
            piece = piece[:size]
        return piece


def _bound_chunks(reader: Any, limit: int) -> None:
    """Make ``reader`` (a gunicorn ``ChunkedReader``) refuse a chunk size over ``limit`` as
    soon as it reads its line: gunicorn would wait for all of its bytes."""
    parse = reader.parse_chunk_size

    def parse_chunk_size(unreader: Any, data: Any = None) -> tuple[int, Any]:
        size, rest = parse(unreader, data=data)
        if size > limit:
            raise http_errors.InvalidChunkSize(b"over %d bytes" % limit)
        return size, rest

    reader.parse_chunk_size = parse_chunk_size


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
        largest = max(settings.max_body_bytes, settings.batch_max_bytes)
        self.wsgi = with_deadlines(self.wsgi, settings.body_timeout, largest)

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
