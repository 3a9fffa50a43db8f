"""Log lines that never wait for their reader: a bounded queue per descriptor, written by a
thread of its own.

In a server process (gunicorn's master and each worker: :func:`queue_standard_streams`, called
by :class:`arbiter.jsonlog.GunicornLogger` before gunicorn makes its handlers) ``sys.stderr``
and ``sys.stdout`` are :class:`QueuedStream` objects: every line written to them — the app's,
gunicorn's own (its warnings, its access log with ``ARBITER_ACCESS_LOG=-``, the master's
``WORKER TIMEOUT``), Python's warnings, a traceback gevent prints — is queued by the
:class:`LineWriter` of its descriptor, and nothing that logs ever waits for the descriptor. A
standard error that is a pipe nobody reads (a container whose log has stopped being read)
blocks the writer's thread, not the answers nor the master's supervision of its workers.

What that costs, on purpose (deploy/README.md, "Logs: a log nobody reads"):

- a line reaches the log up to :data:`FLUSH_SECONDS` after it was logged; a line longer than
  :data:`WRITE_BYTES` is written alone, and another process's line may cut it;
- at most :data:`MAX_QUEUED_BYTES` of lines wait per descriptor; past them lines are dropped
  and counted, and once the descriptor takes lines again (and at exit) a warning line says how
  many;
- the queue is a ``bytearray`` of the lines and an array of where each ends — no object per
  line, so a queued line costs its own bytes: a live worker grew by 1.9 MB with 5,000 access
  lines waiting, and by 2.6 MB at most (benchmarks/bench_log_queue.py). A ``bytes`` object per
  line, kept among what the requests allocate and free around it, pinned about a page of
  memory each: 4 KB a line, 40 MB at 10,000;
- a worker that dies with lines it has not written (killed, or stopped on a log nobody reads)
  cannot say so itself: it counts them in memory it shares with the master
  (:class:`Ledger`), and the master writes how many when it reaps the worker.

Elsewhere (the tests, the library, the command line) nothing is queued.
"""

from __future__ import annotations

import array
import atexit
import bisect
import importlib
import io
import logging
import mmap
import os
import select
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any, Final

from arbiter.jsonlog import formatter

#: How often the writer's thread writes what has been queued, in seconds.
FLUSH_SECONDS: Final = 0.05
#: Bytes of lines kept waiting per descriptor at most (about 8,000 JSON access lines); past
#: them lines are dropped and counted.
MAX_QUEUED_BYTES: Final = 2 * 1024 * 1024
#: Bytes written at once: a write to a pipe of at most PIPE_BUF bytes is atomic, so lines of
#: other processes writing to the same pipe (gunicorn's master, the other workers) never end up
#: in the middle of one of ours.
WRITE_BYTES: Final = select.PIPE_BUF
#: Seconds an exit waits for the thread's write in progress (a log reader that has stopped).
EXIT_WAIT: Final = 1.0
#: A partial line (written without its newline) longer than this is queued as a line.
MAX_PARTIAL: Final = 64 * 1024
#: The logger named by the line that says how many lines were dropped.
LOGGER: Final = "arbiter.log"
#: Workers whose unwritten lines the master can count at once (:class:`Ledger`).
LEDGER_SLOTS: Final = 1024


def _native(module: str, name: str) -> Any:
    """The standard library's own ``module.name``, also where gevent has patched it (a thread
    of the system, a lock and a sleep that do not involve gevent's hub)."""
    monkey = sys.modules.get("gevent.monkey")
    if monkey is not None:
        return monkey.get_original(module, name)
    return getattr(importlib.import_module(module), name)


def _lock() -> Any:
    return _native("_thread", "allocate_lock")()


class LineWriter:
    """Lines written to a file descriptor by a thread of the system of their own.

    :meth:`put` only queues, under a lock held for the copy of the line; the thread, started
    on the first line, writes the queue every :data:`FLUSH_SECONDS` in writes of whole lines
    of at most :data:`WRITE_BYTES` (a longer line alone); an exit waits a while for it. A
    forked child starts empty, with a thread of its own (the parent's lines are the parent's
    to write).

    ``cell``, when set (:meth:`count_in`), is a shared counter of the lines this writer has
    taken and neither written nor said it dropped: what is lost if the process dies now."""

    def __init__(self, fd: int, as_json: bool = True) -> None:
        self.fd = fd
        self._formatter = formatter(as_json)
        self.forked()
        atexit.register(self._at_exit)

    def forked(self) -> None:
        """Nothing queued, no thread yet, fresh locks (the parent's thread may have held them
        when the process forked), no shared counter."""
        self._data = bytearray()
        self._ends = array.array("q")  # where each queued line ends in _data
        self._dropped = 0  # lines dropped since the last write said so
        self._unwritten = 0  # lines queued, being written, or dropped and not said so
        self._partial = bytearray()  # what QueuedStream got after its last newline
        self._lock = _lock()  # the queue's
        self._flushing = _lock()  # held by the thread's flush (close() waits for it)
        self._started = False
        self._closed = False
        self._cell: memoryview | None = None

    @property
    def dropped(self) -> int:
        """Lines dropped that no line has said yet."""
        return self._dropped

    def put(self, line: bytes) -> None:
        """Queue ``line`` (one line or more, ending with a newline), or drop and count it."""
        with self._lock:
            self._queue(line)
        if not self._started:
            self._start()

    def put_text(self, text: str) -> None:
        """Text written to a stream (:class:`QueuedStream`): what ends with its last newline
        queued as one line, the rest kept for the next write."""
        data = text.encode("utf-8", "backslashreplace")
        cut = data.rfind(b"\n") + 1
        with self._lock:
            partial = self._partial
            if not cut and len(partial) + len(data) <= MAX_PARTIAL:
                partial += data
                return
            if not cut:  # a line that never ends: queued as one
                data, cut = data + b"\n", len(data) + 1
            if partial:
                data, cut = bytes(partial) + data, cut + len(partial)
                partial.clear()
            self._queue(data[:cut])
            partial += data[cut:]
        if not self._started:
            self._start()

    def _queue(self, line: bytes) -> None:
        """:meth:`put` with the lock held."""
        data = self._data
        if len(data) + len(line) > MAX_QUEUED_BYTES:
            self._dropped += 1
        else:
            data += line
            self._ends.append(len(data))
        self._unwritten += 1
        if self._cell is not None:
            self._cell[0] += 1

    def count_in(self, cell: memoryview) -> None:
        """Count in ``cell`` (one signed 64-bit integer) the lines not written yet: those
        queued now, and every line put from now on until it is written or said dropped."""
        with self._lock:
            cell[0] = self._unwritten
            self._cell = cell

    def _settle(self, lines: int) -> None:
        """``lines`` written (or said dropped): no longer lost if the process dies."""
        with self._lock:
            self._unwritten -= lines
            if self._cell is not None:
                self._cell[0] -= lines

    def _start(self) -> None:
        with self._lock:
            if self._started:
                return
            self._started = True
        _native("_thread", "start_new_thread")(self._run, (_native("time", "sleep"),))

    def _run(self, sleep: Callable[[float], None]) -> None:
        while not self._closed:
            sleep(FLUSH_SECONDS)
            self._flush()

    def close(self) -> None:
        """Write nothing more (the thread stops): for a descriptor about to be closed. Waits
        for a write in progress (close the pipe's other end first to end one that waits)."""
        with self._flushing:
            self._closed = True
        atexit.unregister(self._at_exit)

    def _at_exit(self) -> None:
        """What is queued, written by the thread: waited for at most :data:`EXIT_WAIT`
        seconds. The process never writes itself (a write to a log that is not read would
        wait for ever, and a process must stop)."""
        if self._partial:  # a line never ended is a line
            self.put_text("\n")
        sleep = _native("time", "sleep")
        deadline = time.monotonic() + EXIT_WAIT
        while self._started and not self._closed and self._unwritten > 0:
            if time.monotonic() >= deadline:
                return
            sleep(FLUSH_SECONDS / 5)

    def _flush(self) -> None:
        """The thread's: write every line queued, then the count of those dropped, if any
        (waiting as long as the descriptor makes it); a write that fails counts its lines as
        dropped (a log must not fail the service)."""
        flushing = self._flushing
        flushing.acquire()
        try:
            if self._closed:
                return
            with self._lock:
                data, ends, dropped = self._data, self._ends, self._dropped
                if not ends and not dropped:
                    return
                self._data, self._ends, self._dropped = bytearray(), array.array("q"), 0
            self._write(data, ends, dropped)
        finally:
            flushing.release()

    def _write(self, data: bytearray, ends: array.array[int], dropped: int) -> None:
        view = memoryview(data)
        start = 0
        try:
            for end, lines in _pieces(ends):
                _write_all(self.fd, view[start:end])
                start = end
                self._settle(lines)
            if dropped:
                _write_all(self.fd, self._note(dropped))
                self._settle(dropped)
        except OSError:
            unwritten = len(ends) - bisect.bisect_right(ends, start)
            with self._lock:
                self._dropped += unwritten + dropped  # still counted in the cell
        finally:
            view.release()

    def _note(self, dropped: int) -> bytes:
        message = "%d log lines dropped: the log was not read"
        record = logging.LogRecord(LOGGER, logging.WARNING, __file__, 0, message, (dropped,), None)
        record.dropped = dropped
        return (self._formatter.format(record) + "\n").encode("utf-8", "backslashreplace")


def _pieces(ends: array.array[int]) -> Iterator[tuple[int, int]]:
    """Where each write of whole lines of at most :data:`WRITE_BYTES` ends, and how many lines
    it holds (a longer line alone)."""
    first, start = 0, 0
    while first < len(ends):
        last = bisect.bisect_right(ends, start + WRITE_BYTES, lo=first) - 1
        last = max(last, first)
        yield ends[last], last + 1 - first
        first, start = last + 1, ends[last]


def _write_all(fd: int, data: memoryview | bytes) -> None:
    """All of ``data``, waiting as long as it takes (also on a descriptor some other process
    sharing it made non-blocking)."""
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view) :]
        except BlockingIOError:
            select.select([], [fd], [])


class QueuedStream(io.TextIOBase):
    """``sys.stderr`` or ``sys.stdout`` of a server process: text written is queued by the
    :class:`LineWriter` of its descriptor (:meth:`LineWriter.put_text`), never waited for."""

    def __init__(self, line_writer: LineWriter, original: Any) -> None:
        super().__init__()
        self.writer = line_writer
        self.original = original  # the stream it stands for (never written to again)

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"

    @property
    def errors(self) -> str:  # type: ignore[override]
        return "backslashreplace"

    def write(self, text: str) -> int:
        self.writer.put_text(text)
        return len(text)

    def fileno(self) -> int:
        return self.writer.fd

    def isatty(self) -> bool:
        return os.isatty(self.writer.fd)

    def writable(self) -> bool:
        return True


_WRITERS: dict[int, LineWriter] = {}


def writer(fd: int, as_json: bool = True) -> LineWriter:
    """The process's writer of ``fd`` (one, however many apps are created: the thread and the
    descriptor are the process's); ``as_json``: the format of its line on dropped lines, when
    it is made."""
    found = _WRITERS.get(fd)
    if found is None:
        found = _WRITERS[fd] = LineWriter(fd, as_json)
    return found


def queue_standard_streams(as_json: bool) -> None:
    """Make ``sys.stderr`` and ``sys.stdout`` :class:`QueuedStream` objects (once: a process
    keeps them, its forked workers too)."""
    for name in ("stderr", "stdout"):
        stream = getattr(sys, name)
        if isinstance(stream, QueuedStream):
            continue
        try:
            fd = stream.fileno()
            stream.flush()
        except (AttributeError, OSError, ValueError):  # no descriptor: nothing to queue for
            continue
        setattr(sys, name, QueuedStream(writer(fd, as_json), stream))


def _after_fork() -> None:
    for found in _WRITERS.values():
        found.forked()


os.register_at_fork(after_in_child=_after_fork)


# --- a dead worker's lines, counted by the master ------------------------------------------------

#: The descriptors whose writers a worker counts in its slot, in the order of its cells.
_COUNTED: Final = (2, 1)


class Ledger:
    """Memory the master shares with every worker it forks: a slot per worker, where the
    worker's writers (:data:`_COUNTED`) count the lines they have not written yet
    (:meth:`LineWriter.count_in`). The master gives a slot before it forks a worker
    (:meth:`take`) and reads it once it has reaped it (:meth:`release`): what the worker took
    to write and never wrote."""

    def __init__(self, slots: int = LEDGER_SLOTS) -> None:
        self._memory = mmap.mmap(-1, slots * len(_COUNTED) * 8)  # MAP_SHARED: seen across fork
        self._cells = memoryview(self._memory).cast("q")
        self._free = list(range(slots - 1, -1, -1))

    def take(self) -> int | None:
        """A free slot, zeroed (None when every slot is taken: that worker is not counted)."""
        if not self._free:
            return None
        slot = self._free.pop()
        for i in range(len(_COUNTED)):
            self._cells[slot * len(_COUNTED) + i] = 0
        return slot

    def count_in(self, slot: int) -> None:
        """In the worker given ``slot``: its writers count their unwritten lines there."""
        for i, fd in enumerate(_COUNTED):
            found = _WRITERS.get(fd)
            if found is not None:
                begin = slot * len(_COUNTED) + i
                found.count_in(self._cells[begin : begin + 1])

    def release(self, slot: int) -> int:
        """The lines the worker of ``slot`` had not written when it died; the slot is free."""
        begin = slot * len(_COUNTED)
        lost = sum(self._cells[begin : begin + len(_COUNTED)])
        self._free.append(slot)
        return max(0, lost)


_LEDGERS: list[Ledger] = []


def ledger() -> Ledger:
    """The master's ledger (made on its first use, before the first worker forks)."""
    if not _LEDGERS:
        _LEDGERS.append(Ledger())
    return _LEDGERS[0]


# gunicorn's server hooks (deploy/gunicorn.conf.py): ``worker`` is gunicorn's Worker.


def before_fork(worker: Any) -> None:
    """In the master: the slot the worker will count its unwritten lines in."""
    worker.log_slot = ledger().take()


def after_fork(worker: Any) -> None:
    """In the worker, just forked: count its unwritten lines in its slot."""
    slot = getattr(worker, "log_slot", None)
    if slot is not None:
        ledger().count_in(slot)


def after_exit(log: Any, worker: Any) -> None:
    """In the master, the worker reaped: say how many lines it died without writing."""
    slot = getattr(worker, "log_slot", None)
    if slot is None:
        return
    worker.log_slot = None
    lost = ledger().release(slot)
    if lost:
        log.warning(
            "worker %s exited with %d log lines it had not written: the log was not read",
            worker.pid,
            lost,
        )
