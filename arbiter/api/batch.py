"""The HTTP side of ``POST /v1/scores/batch``: the body read as :mod:`arbiter.api.bodies`
reads every body (NDJSON, gzip with a bound on the decoded size), scored and answered as a
stream by :func:`arbiter.archive.batch.score_batch`.

What goes wrong before the first chunk is read (a media type, a coding, a Content-Length over
the limit, a body that is not gzip) is a problem answer like any other; what goes wrong later
is the last line of the stream. The answer closes its connection (``Connection: close``): a
batch stopped early is not read to its end.

A batch costs what its client sends and no more (every line counts against
``ARBITER_BATCH_MAX_LINES``, blank ones too; past it the rest of the body is read, not decoded),
and no batch may hold its worker against the others:

- **At most** ``ARBITER_BATCH_CONCURRENCY`` **batches a worker** at once: one more is a 429
  problem (``Retry-After``) before its body is read, so that batches never take every turn
  from the short requests of the tables.
- **Lines as they arrive**: the body is read as it arrives (:mod:`arbiter.api.bodies`), so
  that a client that sends slowly gets the lines it finished answered before a 408 stop line.
- **Answers as the client takes them**: lines go out when the connection can take them
  without blocking; many clients (Python's http.client, requests) send their whole body before
  they read a byte of the answer, so what they have not read is kept for them, up to
  ``ARBITER_BATCH_BUFFER_BYTES``. Past it, and once the body is read, every piece waits at most
  ``ARBITER_SEND_TIMEOUT`` for the client to take it: a client that does not read is cut off
  (the connection reset) and what was kept for it is dropped.
- **A client that is gone** (it closed its connection) stops the scoring: the connection is
  looked at between chunks.

The socket work (can the connection take more, has the client gone, a reset) is the worker's
(:class:`arbiter.worker.Connection`, in the environ): this module only decides when.

Between chunks the worker's other connections get a turn (under gevent, ``time.sleep(0)``
yields to them: a long batch must not hold them off).
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Protocol

from flask import Response, current_app, request, stream_with_context

from arbiter.api import bodies
from arbiter.api.metrics import Metrics
from arbiter.archive.batch import Stop, score_batch
from arbiter.archive.records import Scored, Scorer, ScoringConfig
from arbiter.contract import Problem
from arbiter.i18n import Lang
from arbiter.service import Referee
from arbiter.settings import Settings

#: The key of the worker's connection in the environ (arbiter.worker.CONNECTION, which this
#: module does not import: the app runs without gevent too).
CONNECTION = "arbiter.connection"

#: Bytes sent at a time while the body is being read: small enough to fit what a connection
#: said it could take without blocking.
PIECE = 4 * 1024
#: Bytes sent at a time once the body is read.
OUT_CHUNK = 64 * 1024
#: An answer a connection takes without its client reading (any socket's buffers hold it).
SMALL_ANSWER = 32 * 1024
#: The batch takes NDJSON (only: a JSON document of several lines is no batch), gzip or not.
BATCH = bodies.Accepts(ndjson=True, gzip=True, json=False)
#: Where the app keeps the batches of this worker (one per process: each worker has its own).
_GATE = "arbiter.batches"


class Gate:
    """The batches a worker scores at once: at most ``limit``."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._slots = threading.BoundedSemaphore(limit)

    def enter(self) -> bool:
        """Take a slot (False: none is free)."""
        return self._slots.acquire(blocking=False)

    def leave(self) -> None:
        self._slots.release()


def answer(referee: Referee, settings: Settings, lang: Lang, metrics: Metrics) -> Response:
    """The streamed answer to the request's batch."""
    gate = _gate(settings)
    if not gate.enter():
        raise Problem(
            429,
            "Too Many Requests",
            f"This worker is scoring {gate.limit} batches already (ARBITER_BATCH_CONCURRENCY); "
            "send this one again in a moment.",
            headers={"Retry-After": "1", "Connection": "close"},
        )
    left = _Once(gate.leave)
    try:
        response = _stream(referee, settings, lang, metrics, left)
    except BaseException:
        left()
        raise
    # The slot is left when the answer ends, or when the server closes it: an answer the
    # server never reads to its end (or never starts) leaves it there.
    response.call_on_close(left)
    return response


def _gate(settings: Settings) -> Gate:
    extensions = current_app.extensions
    gate: Gate | None = extensions.get(_GATE)
    if gate is None:
        gate = extensions.setdefault(_GATE, Gate(settings.batch_concurrency))
    return gate


class _Once:
    """``action``, run at most once however often it is called."""

    def __init__(self, action: Callable[[], None]) -> None:
        self._action = action
        self._done = False

    def __call__(self) -> None:
        if not self._done:
            self._done = True
            self._action()


def _stream(
    referee: Referee, settings: Settings, lang: Lang, metrics: Metrics, done: _Once
) -> Response:
    bodies.check_media_type(request.headers.get("Content-Type"), BATCH)
    coding = bodies.content_coding(request.headers.get("Content-Encoding"), BATCH)
    limit = settings.batch_max_bytes
    raw = bodies.raw_chunks(request.environ, limit)
    chunks = bodies.gunzip(raw, limit) if coding == bodies.GZIP else raw
    first = next(chunks, None)  # a Content-Length over the limit, not gzip: a problem answer
    body = chunks if first is None else itertools.chain((first,), chunks)
    scorer = Scorer(referee, ScoringConfig.of(settings, lang))

    def observe(scored: Scored) -> None:
        if scored.error is None:
            metrics.count_adjudication(scored.body)

    connection = request.environ.get(CONNECTION) or _Unpaced()
    paced = _Paced(connection, settings.batch_buffer_bytes, settings.send_timeout, done)

    def rest() -> Iterable[bytes]:
        # Past the lines limit, the rest of the body is read and dropped, undecoded, so that a
        # client that sends it all before it reads gets its answer; an answer the connection
        # takes at once needs none of it (the worker drops what still comes after the answer).
        return raw if paced.waiting > SMALL_ANSWER else ()

    lines = score_batch(body, scorer, settings.batch_max_lines, observe, _stop, rest)
    return Response(
        stream_with_context(paced.answer(lines)),
        mimetype=bodies.NDJSON,
        headers={"Connection": "close"},
    )


def _stop(err: Exception) -> Stop | None:
    if isinstance(err, Problem):
        return Stop(err.status, err.title, err.detail)
    return None


class _Paced:
    """The answer's bytes, written as the connection takes them (see the module docstring)."""

    def __init__(self, connection: Pacing, buffer_bytes: int, timeout: float, done: _Once) -> None:
        self.connection = connection
        self.buffer_bytes = buffer_bytes
        self.timeout = timeout
        self.done = done
        self.pending = bytearray()
        self.sent = 0  # bytes of pending already yielded (dropped from its front now and then)

    @property
    def waiting(self) -> int:
        """Answer bytes made and not sent yet."""
        return len(self.pending) - self.sent

    def answer(self, lines: Iterator[bytes]) -> Iterator[bytes]:
        pending = self.pending
        try:
            for data in lines:
                if self.sent > len(pending) // 2:
                    del pending[: self.sent]
                    self.sent = 0
                pending += data
                while self.waiting and self._may_send(self.waiting):
                    yield bytes(pending[self.sent : self.sent + PIECE])
                    self.sent = min(self.sent + PIECE, len(pending))
                if self.waiting > self.buffer_bytes or (
                    not self.waiting and self.connection.gone()
                ):
                    self.connection.reset()
                    return
                time.sleep(0)
            for start in range(self.sent, len(pending), OUT_CHUNK):
                if not self.connection.writable(self.timeout):
                    self.connection.reset()
                    return
                yield bytes(pending[start : start + OUT_CHUNK])
        finally:
            close = getattr(lines, "close", None)
            if close is not None:
                close()  # the scoring stops here too, whatever stopped the answer
            self.done()

    def _may_send(self, waiting: int) -> bool:
        """Can a piece go out now? Past the buffer, after waiting up to the deadline."""
        timeout = self.timeout if waiting > self.buffer_bytes else 0.0
        return self.connection.writable(timeout)


class Pacing(Protocol):
    """The connection of the answer, as the worker gives it (:class:`arbiter.worker.Connection`,
    in the environ at :data:`arbiter.worker.CONNECTION`): the socket work is the worker's."""

    def writable(self, timeout: float = 0.0) -> bool: ...

    def gone(self) -> bool: ...

    def reset(self) -> None: ...


class _Unpaced:
    """No connection to pace (a test client, another server): every piece goes at once."""

    def writable(self, timeout: float = 0.0) -> bool:
        return True

    def gone(self) -> bool:
        return False

    def reset(self) -> None:
        return None
