"""Structured logs: one JSON object per line, and one access line per request.

The access line has the request id, method, path, status, duration and ruleset — never the
players' names or cards (a log is personal data of a club's members).

The service's own lines (warnings, errors) go through :mod:`logging` to standard error. The
access lines, one per request, do not: :class:`AccessLog` formats each line itself (the same
JSON object, or the same plain-text line, that :mod:`logging` would write, without building a
``LogRecord``) and hands it to its writer. In a gunicorn worker (:func:`queue_lines`, called by
deploy/gunicorn.conf.py once the app is loaded) that is a :class:`LineWriter`, which writes the
lines a thread of its own collects every :data:`FLUSH_SECONDS`: a request never waits for its
line to be written, and a standard error that is a pipe whose reader has stopped (a container's
log) blocks that thread, not the worker. The trade-off, written down in deploy/README.md: a
line reaches the log up to :data:`FLUSH_SECONDS` after its answer (so it may follow a warning
written later); at most :data:`MAX_PENDING` lines wait, and past them lines are dropped and
counted (a line says how many, once the log takes lines again); a worker killed with SIGKILL
loses the lines it had not written yet (an exit flushes them). Elsewhere (an app made in
process: the tests, the library) the line is written at once to ``sys.stderr``.
"""

from __future__ import annotations

import atexit
import collections
import importlib
import logging
import os
import select
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Final

import orjson

from arbiter.jsonlog import Clock, formatter

ACCESS = logging.getLogger("arbiter.access")
_INFO: Final = logging.INFO
#: How often the writer's thread writes what has been collected, in seconds.
FLUSH_SECONDS: Final = 0.05
#: Lines kept waiting for the writer at most (about 3 MB of JSON lines); past them, dropped.
MAX_PENDING: Final = 10_000
#: Bytes written at once: a write to a pipe of at most PIPE_BUF bytes is atomic, so lines of
#: other processes writing to the same pipe (gunicorn's master, the other workers) never end up
#: in the middle of one of ours.
WRITE_BYTES: Final = select.PIPE_BUF
#: Seconds an exit waits for the thread's write in progress (a log reader that has stopped).
EXIT_WAIT: Final = 1.0


def configure(level: str, as_json: bool) -> None:
    """Send the ``arbiter`` loggers to stderr, as JSON or plain text."""
    logger = logging.getLogger("arbiter")
    logger.setLevel(level)
    if any(getattr(h, "_arbiter", False) for h in logger.handlers):
        return  # one handler per process, however many apps are created
    handler = logging.StreamHandler(sys.stderr)
    handler._arbiter = True  # type: ignore[attr-defined]
    handler.setFormatter(formatter(as_json))
    logger.addHandler(handler)
    logger.propagate = False


# --- the writer --------------------------------------------------------------------------------


def _native(module: str, name: str) -> Any:
    """The standard library's own ``module.name``, also where gevent has patched it (a thread
    of the system, a lock and a sleep that do not involve gevent's hub)."""
    monkey = sys.modules.get("gevent.monkey")
    if monkey is not None:
        return monkey.get_original(module, name)
    return getattr(importlib.import_module(module), name)


class LineWriter:
    """Lines written to a file descriptor by a thread of the system of their own.

    :meth:`put` only queues (a ``deque``: no lock, and nothing waits); the thread, started on
    the first line, writes the queue every :data:`FLUSH_SECONDS` in writes of whole lines of at
    most :data:`WRITE_BYTES`. Also flushed at exit. A forked child starts empty, with a thread
    of its own (the parent's lines are the parent's to write)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._lines: collections.deque[bytes] = collections.deque()
        self.dropped = 0  # lines dropped since the last write said so
        self._started = False
        self._lock: Any = None  # the flushing lock, a native one (made with the thread)
        atexit.register(self.flush)  # with EXIT_WAIT

    def put(self, line: bytes) -> None:
        lines = self._lines
        if len(lines) >= MAX_PENDING:
            self.dropped += 1
            return
        lines.append(line)
        if not self._started:
            self._start()

    def _start(self) -> None:
        self._started = True
        self._lock = _native("_thread", "allocate_lock")()
        _native("_thread", "start_new_thread")(self._run, (_native("time", "sleep"),))

    def _run(self, sleep: Callable[[float], None]) -> None:
        while True:
            sleep(FLUSH_SECONDS)
            self.flush(-1)  # the thread waits as long as it takes

    def forked(self) -> None:
        """In a forked child: nothing queued, no thread yet (nor its lock, which the parent's
        thread may have held when the process forked)."""
        self._lines.clear()
        self.dropped = 0
        self._started = False
        self._lock = None

    def flush(self, wait: float = EXIT_WAIT) -> None:
        """Write every line queued (a write that fails drops them: a log must not fail the
        service). Waits at most ``wait`` seconds for a write of the thread's in progress (at
        exit: a log that is not read must not keep a worker from stopping)."""
        lock = self._lock
        if lock is None or not lock.acquire(True, wait):
            return
        try:
            lines = self._lines
            taken = [lines.popleft() for _ in range(len(lines))]
            dropped, self.dropped = self.dropped, 0  # before the writes: put() counts on
            if dropped:
                note = {"time": Clock().utc(time.time()), "level": "warning", "logger": ACCESS.name}
                note["message"] = f"{dropped} access lines dropped: the log was not read"
                taken.append(orjson.dumps(note) + b"\n")
            for chunk in _pieces(taken):
                try:
                    _write_all(self.fd, chunk)
                except OSError:
                    return
        finally:
            lock.release()


def _pieces(lines: Iterable[bytes]) -> Iterator[bytes]:
    """Whole lines joined into pieces of at most :data:`WRITE_BYTES` (a longer line alone)."""
    piece: list[bytes] = []
    size = 0
    for line in lines:
        if piece and size + len(line) > WRITE_BYTES:
            yield b"".join(piece)
            piece, size = [], 0
        piece.append(line)
        size += len(line)
    if piece:
        yield b"".join(piece)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


_WRITERS: dict[int, LineWriter] = {}


def writer(fd: int) -> LineWriter:
    """The process's writer of ``fd`` (one, however many apps are created: the thread and the
    descriptor are the process's)."""
    found = _WRITERS.get(fd)
    if found is None:
        found = _WRITERS[fd] = LineWriter(fd)
    return found


def _after_fork() -> None:
    for found in _WRITERS.values():
        found.forked()


os.register_at_fork(after_in_child=_after_fork)


# --- access lines ------------------------------------------------------------------------------


class StreamWriter:
    """Lines written at once to the current ``sys.stderr`` (an app made in process)."""

    def put(self, line: bytes) -> None:
        stream = sys.stderr
        stream.write(line.decode("utf-8"))
        stream.flush()


class AccessLog:
    """One line per request, as the ``arbiter.access`` logger would write it at INFO (and only
    when that logger is enabled for INFO: ``ARBITER_LOG_LEVEL``), handed to :attr:`writer`
    (anything with ``put(line: bytes)``)."""

    def __init__(self, as_json: bool, line_writer: Any = None) -> None:
        self.as_json = as_json
        self.writer: Any = line_writer if line_writer is not None else StreamWriter()
        self._clock = Clock()

    def write(
        self,
        request_id: str,
        method: str,
        path: str,
        status: int,
        seconds: float,
        ruleset: str | None,
    ) -> None:
        if not ACCESS.isEnabledFor(_INFO):
            return
        now = time.time()
        message = f"{method} {path} {status}"
        if self.as_json:
            line = orjson.dumps(
                {
                    "time": self._clock.utc(now),
                    "level": "info",
                    "logger": "arbiter.access",
                    "message": message,
                    "request_id": request_id,
                    "method": method,
                    "path": path,
                    "status": status,
                    "duration_ms": int(seconds * 1e6 + 0.5) / 1000,  # µs, in ms
                    "ruleset": ruleset,
                },
                option=orjson.OPT_APPEND_NEWLINE,
            )
        else:
            pid = os.getpid()
            text = f"{self._clock.local(now)} [{pid}] [INFO] arbiter.access: {message}\n"
            line = text.encode("utf-8", "backslashreplace")
        self.writer.put(line)


def queue_lines(app: Any) -> None:
    """In a server's worker: the access lines of ``app`` (if it is the service's) go to the
    process's :class:`LineWriter` of standard error."""
    extensions = getattr(app, "extensions", None)
    access = extensions.get("arbiter.access") if isinstance(extensions, dict) else None
    if isinstance(access, AccessLog):
        access.writer = writer(sys.stderr.fileno())
