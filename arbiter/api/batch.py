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
- **At most** ``ARBITER_BATCH_PER_CLIENT`` **of them for one client** (its API key, else its
  address, the forwarded one behind a trusted proxy): a client that opens many connections
  leaves the other slots to the others.
- **A minimum rate and a total deadline**: a body that arrives slower than
  ``ARBITER_BATCH_MIN_RATE`` bytes a second (over the time spent waiting for it, past its
  first :data:`GRACE` seconds), or a batch that takes longer than ``ARBITER_BATCH_SECONDS``,
  ends with a 408 stop line (a reset once the answer is being sent): a trickled batch holds
  its slot for seconds.
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
from arbiter.api.frame import KEY_ID, STREAM_END
from arbiter.api.limits import Clients
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
#: Seconds of waiting for a batch's body before its rate counts (ARBITER_BATCH_MIN_RATE).
GRACE = 2.0
#: CPU seconds any batch may spend, whatever it sent (ARBITER_BATCH_CPU_MS_PER_KIB).
CPU_ALLOWANCE = 0.5
#: The batch takes NDJSON (only: a JSON document of several lines is no batch), gzip or not.
BATCH = bodies.Accepts(ndjson=True, gzip=True, json=False)
#: Where the app keeps the batches of this worker (one per process: each worker has its own).
_GATE = "arbiter.batches"


class Gate:
    """The batches a worker scores at once: at most ``limit``, and at most ``per_client`` of
    them for one client, so that a client that opens many (or trickles them) leaves slots to
    the others."""

    def __init__(self, limit: int, per_client: int) -> None:
        self.limit = limit
        self.per_client = per_client
        self._held: dict[str, int] = {}  # slots taken, by client
        self._lock = threading.Lock()

    def enter(self, client: str) -> str | None:
        """Take a slot for ``client``: None, or why there is none (a 429's detail)."""
        with self._lock:
            if sum(self._held.values()) >= self.limit:
                return (
                    f"This worker is scoring {self.limit} batches already "
                    "(ARBITER_BATCH_CONCURRENCY); send this one again in a moment."
                )
            mine = self._held.get(client, 0)
            if mine >= self.per_client:
                return (
                    f"This client is scoring {mine} batch(es) on this worker already "
                    "(ARBITER_BATCH_PER_CLIENT); send this one when one is done."
                )
            self._held[client] = mine + 1
            return None

    def leave(self, client: str) -> None:
        with self._lock:
            left = self._held.get(client, 0) - 1
            if left > 0:
                self._held[client] = left
            else:
                self._held.pop(client, None)


def answer(referee: Referee, settings: Settings, lang: Lang, metrics: Metrics) -> Response:
    """The streamed answer to the request's batch."""
    gate = _gate(settings)
    client = _client(settings)
    refused = gate.enter(client)
    if refused is not None:
        raise Problem(
            429,
            "Too Many Requests",
            refused,
            headers={"Retry-After": "1", "Connection": "close"},
        )
    left = _Once(lambda: gate.leave(client))
    try:
        response = _stream(referee, settings, lang, metrics, left)
    except BaseException:
        left()
        raise
    # The slot is left when the answer ends, or when the server closes it: an answer the
    # server never reads to its end (or never starts) leaves it there.
    response.call_on_close(left)
    return response


def _client(settings: Settings) -> str:
    """Who sends the batch: its API key, else its address (the forwarded one behind a trusted
    proxy), as the rate limit counts it."""
    environ = request.environ
    key_id = environ.get(KEY_ID)
    address = Clients(settings.forwarded_allow_ips).of(environ)
    return f"key:{key_id}" if key_id else f"addr:{address}"


def _gate(settings: Settings) -> Gate:
    extensions = current_app.extensions
    gate: Gate | None = extensions.get(_GATE)
    if gate is None:
        gate = extensions.setdefault(
            _GATE, Gate(settings.batch_concurrency, settings.batch_per_client)
        )
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
    first_line = _first_line()
    limit = settings.batch_max_bytes
    deadline = time.monotonic() + settings.batch_seconds
    meter = CpuMeter(settings.batch_cpu_ms_per_kib)
    raw = _arriving(
        bodies.raw_chunks(request.environ, limit), settings.batch_min_rate, deadline, meter
    )
    ratio = settings.batch_max_ratio or None
    chunks = bodies.gunzip(raw, limit, ratio) if coding == bodies.GZIP else raw
    first = next(chunks, None)  # a Content-Length over the limit, not gzip: a problem answer
    body = chunks if first is None else itertools.chain((first,), chunks)
    scorer = Scorer(referee, ScoringConfig.of(settings, lang))

    def observe(scored: Scored) -> None:
        if scored.error is None:
            metrics.count_adjudication(scored.body)

    environ = request.environ
    connection = environ.get(CONNECTION) or _Unpaced()
    paced = _Paced(connection, settings.batch_buffer_bytes, settings.send_timeout, done)
    paced.deadline = deadline
    paced.ended = lambda how: environ.__setitem__(STREAM_END, how)

    def rest() -> Iterable[bytes]:
        # Past the lines limit, the rest of the body is read and dropped, undecoded, so that a
        # client that sends it all before it reads gets its answer; an answer the connection
        # takes at once needs none of it (the worker drops what still comes after the answer).
        return raw if paced.waiting > SMALL_ANSWER else ()

    lines = score_batch(body, scorer, settings.batch_max_lines, observe, _stop, rest, first_line)
    environ[STREAM_END] = "closed"  # the frame records the request once the stream is closed
    return Response(
        stream_with_context(paced.answer(meter.scoring(lines))),
        mimetype=bodies.NDJSON,
        headers={"Connection": "close"},
    )


class CpuMeter:
    """The CPU a batch spends decoding and scoring, against what its client has sent: at most
    ``ms_per_kib`` milliseconds a KiB received, plus :data:`CPU_ALLOWANCE` (0: no bound).
    Counted around the scoring's steps (:meth:`scoring`), less the reads of the body within
    them (:func:`_arriving`): the only places where the worker's other greenlets may run."""

    def __init__(self, ms_per_kib: float) -> None:
        self.ms_per_kib = ms_per_kib
        self.seconds = 0.0
        self.received = 0

    def over(self) -> bool:
        allowed = CPU_ALLOWANCE + self.ms_per_kib * self.received / 1024 / 1000
        return bool(self.ms_per_kib) and self.seconds > allowed

    def scoring(self, lines: Iterator[bytes]) -> Iterator[bytes]:
        try:
            while True:
                began = time.process_time()
                data = next(lines, None)
                self.seconds += time.process_time() - began
                if data is None:
                    return
                yield data
        finally:
            close = getattr(lines, "close", None)
            if close is not None:
                close()


def _arriving(
    raw: Iterator[bytes], min_rate: int, deadline: float, meter: CpuMeter | None = None
) -> Iterator[bytes]:
    """``raw``, at ``min_rate`` bytes a second at least over the time spent waiting for it
    (past :data:`GRACE` seconds of it: the time the server spends scoring between reads does
    not count), and ending by ``deadline``: else a 408, which ends the answer with a stop
    line. A client that trickles its batch holds its slot for seconds, not for as long as it
    likes (issue 30: ten connections at 783 B/s kept an honest client's batches at 429).
    With a ``meter``, a 413 once the batch has spent more CPU than what was sent allows."""
    meter = meter or CpuMeter(0)
    waited = 0.0
    while True:
        began = time.monotonic()
        if began > deadline:
            raise _late("The batch took longer than ARBITER_BATCH_SECONDS.")
        if meter.over():
            raise _costly(meter)
        cpu = time.process_time()
        chunk = next(raw, None)
        meter.seconds -= time.process_time() - cpu  # waiting, or other connections' turns
        if chunk is None:
            return
        waited += time.monotonic() - began
        meter.received += len(chunk)
        if min_rate and waited > GRACE and meter.received < min_rate * waited:
            raise _late(
                f"The batch's body arrives at {meter.received / waited:.0f} bytes/s, slower "
                f"than the {min_rate} bytes/s a batch needs (ARBITER_BATCH_MIN_RATE)."
            )
        yield chunk


def _costly(meter: CpuMeter) -> Problem:
    detail = (
        f"The batch used {meter.seconds * 1000:.0f} ms of CPU for {meter.received} bytes sent: "
        f"at most {meter.ms_per_kib:g} ms a KiB sent (ARBITER_BATCH_CPU_MS_PER_KIB) and "
        f"{CPU_ALLOWANCE * 1000:.0f} ms."
    )
    return Problem(413, "Request Entity Too Large", detail, headers={"Connection": "close"})


def _late(detail: str) -> Problem:
    return Problem(408, "Request Timeout", detail, headers={"Connection": "close"})


#: The largest ``first_line``: a line number JSON's numbers hold exactly.
LAST_LINE = 2**53 - 1


def _first_line() -> int:
    """The number of the batch's first line: ``?first_line=N`` (1 without it), so that a client
    sending an archive in several batches gets ids and sources that do not repeat."""
    raw = request.args.get("first_line")
    if raw is None:
        return 1
    if not (raw.isascii() and raw.isdigit() and 1 <= int(raw[:20]) <= LAST_LINE):
        detail = f"first_line must be a whole number from 1 to {LAST_LINE}, not {raw[:40]!r}."
        errors = [{"pointer": "/first_line", "message": detail}]
        raise Problem(400, "Bad Request", detail, errors, headers={"Connection": "close"})
    return int(raw)


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
        self.deadline = float("inf")  # past it (ARBITER_BATCH_SECONDS), the answer is cut
        self.sent = 0  # bytes of pending already yielded (dropped from its front now and then)
        #: told how the answer ended: "complete", or "reset" (its reader too slow, its deadline)
        self.ended: Callable[[str], None] = lambda how: None

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
                    self._reset()
                    return
                time.sleep(0)
            for start in range(self.sent, len(pending), OUT_CHUNK):
                late = time.monotonic() > self.deadline
                if late or not self.connection.writable(self.timeout):
                    self._reset()
                    return
                yield bytes(pending[start : start + OUT_CHUNK])
            self.ended("complete")
        finally:
            close = getattr(lines, "close", None)
            if close is not None:
                close()  # the scoring stops here too, whatever stopped the answer
            self.done()

    def _reset(self) -> None:
        self.ended("reset")
        self.connection.reset()

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
