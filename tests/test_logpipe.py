"""The bounded queue every log line of a server process goes through (arbiter/logpipe.py).

- :class:`LineWriter`: lines come out whole and in order, in writes of at most ``PIPE_BUF``
  bytes of whole lines; on a pipe nobody reads, :meth:`LineWriter.put` never waits, at most
  :data:`MAX_QUEUED_BYTES` wait, the rest are dropped and counted, and once the pipe is read a
  line says how many (what was queued is all written).
- A queued line costs its own bytes (tracemalloc): no object per line.
- :class:`QueuedStream`: text written in pieces is queued by whole lines, a record written at
  once (a traceback) as one piece.
- A process set up as gunicorn's master is (:class:`arbiter.jsonlog.GunicornLogger`): gunicorn's
  warnings and access lines, the root logger's records, Python warnings and plain prints all
  return at once on a full pipe nobody reads, and come out as the service's JSON lines (with
  the count of the dropped ones) once the pipe is read.
- :class:`Ledger`: a forked worker that dies without writing its lines leaves their number in
  the memory it shares with its parent.

The same on a live ``arbiter serve``: tests/test_logpipe_live.py.
"""

from __future__ import annotations

import array
import os
import select
import subprocess
import sys
import textwrap
import threading
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from arbiter import logpipe
from arbiter.logpipe import MAX_QUEUED_BYTES, Ledger, LineWriter, QueuedStream

ROOT = Path(__file__).resolve().parent.parent
WAIT = 30.0  # seconds, at most, for what a thread writes (it writes every FLUSH_SECONDS)


def _read_all(fd: int) -> bytes:
    out = b""
    while True:
        try:
            data = os.read(fd, 65536)
        except BlockingIOError:
            return out
        if not data:
            return out
        out += data


def read_until(fd: int, done: Callable[[bytes], bool], timeout: float = WAIT) -> bytes:
    """What ``fd`` (non-blocking) gives until ``done(got)`` (bounded by ``timeout``)."""
    got = b""
    deadline = time.monotonic() + timeout
    while not done(got) and time.monotonic() < deadline:
        more = _read_all(fd)
        got += more
        if not more:
            threading.Event().wait(logpipe.FLUSH_SECONDS)
    return got


def notes_of(got: bytes) -> list[Any]:
    """The lines of ``got`` that say how many lines were dropped (one per write that could
    say so: drops before and after a write of the thread are said by two)."""
    lines = [orjson.loads(line) for line in got.split(b"\n") if line.startswith(b"{")]
    return [line for line in lines if line["logger"] == logpipe.LOGGER]


def fill(fd: int) -> int:
    """Fill the pipe of write end ``fd`` to the brim; the bytes it took."""
    os.set_blocking(fd, False)
    taken = 0
    try:
        while True:
            taken += os.write(fd, b"\n" * 4096)
    except BlockingIOError:
        pass
    try:
        while True:
            taken += os.write(fd, b"\n")
    except BlockingIOError:
        pass
    os.set_blocking(fd, True)
    return taken


def test_the_line_writer_writes_whole_lines_in_order() -> None:
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)
    writer = LineWriter(write_end)
    try:
        sent = [b"%d %s\n" % (i, b"x" * (i * 7 % 5000)) for i in range(500)]
        for line in sent:
            writer.put(line)
        total = sum(map(len, sent))
        got = read_until(read_end, lambda got: len(got) >= total)
        assert got == b"".join(sent)
    finally:
        os.close(read_end)
        writer.close()
        os.close(write_end)


def test_writes_are_whole_lines_of_at_most_pipe_buf() -> None:
    ends = array.array("q")
    size = 0
    for length in [100] * 50 + [5000, 10, select.PIPE_BUF, 1]:
        size += length
        ends.append(size)
    pieces = list(logpipe._pieces(ends))
    assert sum(lines for _, lines in pieces) == len(ends)
    start = 0
    for end, _lines in pieces:
        assert end in ends
        assert end - start <= select.PIPE_BUF or _lines == 1  # a longer line goes alone
        start = end
    assert start == size


def test_a_log_nobody_reads_never_holds_a_line() -> None:
    """The pipe is full and nobody reads it (a stuck log reader): the writer's thread waits on
    it, put() does not. Past MAX_QUEUED_BYTES lines are dropped and counted, and a line says
    how many once the log is read again."""
    read_end, write_end = os.pipe()
    writer = LineWriter(write_end)
    line = b"%s\n" % (b"y" * 199)
    try:
        brim = fill(write_end)
        count = 0
        while count < 2 * MAX_QUEUED_BYTES // len(line):  # twice what may wait
            writer.put(line)
            count += 1
        assert writer.dropped > 0  # put() returned every time: it only queues
        os.set_blocking(read_end, False)
        got = read_until(read_end, lambda got: b"log lines dropped" in got)
        got += read_until(read_end, lambda got: got.endswith(b"\n"), 1.0)
        assert b" log lines dropped: the log was not read" in got
        kept = got.count(line)
        assert kept >= MAX_QUEUED_BYTES // len(line)  # what the queue held was written
        assert got[:brim] == b"\n" * brim
        notes = notes_of(got)
        for note in notes:
            assert note["level"] == "warning" and note["logger"] == "arbiter.log"
            assert note["dropped"] == int(note["message"].split()[0])
        assert sum(note["dropped"] for note in notes) + kept == count
    finally:
        os.close(read_end)
        writer.close()
        os.close(write_end)


def test_a_queued_line_costs_its_own_bytes() -> None:
    """Queued on a pipe nobody reads: what tracemalloc sees allocated per line is the line's
    bytes, its end's 8 bytes and the buffers' growth (an eighth at most) — no object per line
    (a ``bytes`` object would add 33 bytes and a pointer to each)."""
    read_end, write_end = os.pipe()
    writer = LineWriter(write_end)
    lines = [b'{"message": "GET /v1/rulesets/tute-2p 200", "n": %09d}\n' % i for i in range(8000)]
    size = sum(map(len, lines)) / len(lines)
    try:
        fill(write_end)
        writer.put(b"\n")  # the thread starts, and blocks on the full pipe
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            for line in lines:
                writer.put(line)
            per_line = (tracemalloc.get_traced_memory()[0] - before) / len(lines)
        finally:
            tracemalloc.stop()
        assert writer.dropped == 0
        assert per_line < size * 1.125 + 12, (per_line, size)
    finally:
        os.close(read_end)
        writer.close()
        os.close(write_end)


def test_a_stream_queues_whole_lines() -> None:
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)
    writer = LineWriter(write_end)
    stream = QueuedStream(writer, sys.__stderr__)
    try:
        print("one", "two", file=stream)  # three writes: one line
        stream.write("three\nfour")
        stream.write(" five\n")
        stream.write("Traceback:\n  File x\nValueError: y\n")
        stream.flush()
        assert stream.fileno() == write_end and stream.writable()
        expected = b"one two\nthree\nfour five\nTraceback:\n  File x\nValueError: y\n"
        got = read_until(read_end, lambda got: len(got) >= len(expected))
        assert got == expected
        assert list(writer._ends) == []  # all written: three lines, then two, then one piece
    finally:
        os.close(read_end)
        writer.close()
        os.close(write_end)


#: A process logging as gunicorn's master does, on a full pipe nobody reads: every way a line
#: is written returns, then it says so on the descriptor its argument names and waits for a
#: line on stdin to exit.
SERVER_PROCESS = textwrap.dedent(
    """
    import logging, os, sys, warnings
    from gunicorn.config import Config
    from arbiter.jsonlog import GunicornLogger

    config = Config()
    config.set("accesslog", "-")
    log = GunicornLogger(config)
    os.set_blocking(2, False)
    try:
        while True:
            os.write(2, b"\\n" * 512)
    except BlockingIOError:
        os.set_blocking(2, True)
    log.warning("Invalid request from ip=1.2.3.4: Bad Header Line")
    log.critical("WORKER TIMEOUT (pid:%s)", 4321)
    log.access_log.info("GET / HTTP/1.1 200")
    logging.getLogger("some.library").warning("a library's warning")
    warnings.warn("a Python warning", UserWarning)
    print("a print to stdout")
    print("a print to stderr", file=sys.stderr)
    for i in range(20_000):
        log.warning("filler %d %s", i, "x" * 200)
    os.write(int(sys.argv[1]), b"returned\\n")
    sys.stdin.readline()
    """
)


def test_every_line_of_a_server_process_is_queued() -> None:
    read_end, write_end = os.pipe()
    done_read, done_write = os.pipe()
    process = subprocess.Popen(
        [sys.executable, "-c", SERVER_PROCESS, str(done_write)],
        stdin=subprocess.PIPE,
        stdout=write_end,
        stderr=write_end,
        pass_fds=(done_write,),
        cwd=ROOT,
        env={**os.environ, "ARBITER_LOG_JSON": "true"},
    )
    os.close(write_end)
    os.close(done_write)
    try:
        ready, _, _ = select.select([done_read], [], [], WAIT)
        assert ready, "a log line waited for the full pipe"
        assert os.read(done_read, 100) == b"returned\n"
        os.set_blocking(read_end, False)
        got = read_until(read_end, lambda got: b"log lines dropped" in got)
        assert process.stdin is not None
        process.stdin.close()
        os.set_blocking(read_end, True)
        while more := os.read(read_end, 1 << 16):
            got += more
        assert process.wait(WAIT) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(read_end)
        os.close(done_read)
    lines = [orjson.loads(line) for line in got.split(b"\n") if line.startswith(b"{")]
    others = {line for line in got.split(b"\n") if line.strip() and not line.startswith(b"{")}
    assert others == {b"a print to stdout", b"a print to stderr"}  # whole lines, not JSON
    messages = {line["message"]: line for line in lines}
    for message, logger in [
        ("Invalid request from ip=1.2.3.4: Bad Header Line", "gunicorn.error"),
        ("WORKER TIMEOUT (pid:4321)", "gunicorn.error"),
        ("GET / HTTP/1.1 200", "gunicorn.access"),
        ("a library's warning", "some.library"),
    ]:
        assert messages[message]["logger"] == logger
    (warning,) = [line for line in lines if line["logger"] == "py.warnings"]
    assert "UserWarning: a Python warning" in warning["message"]
    notes = notes_of(got)
    fillers = sum(1 for line in lines if line["message"].startswith("filler "))
    assert notes and fillers + sum(note["dropped"] for note in notes) == 20_000


def test_a_dead_workers_unwritten_lines_are_counted_by_its_parent() -> None:
    """A forked child counts in its slot; it dies (os._exit: no flush) on a full pipe with
    lines queued and lines dropped; the parent reads all of them as lost."""
    ledger = Ledger(slots=4)
    slot = ledger.take()
    assert slot is not None
    read_end, write_end = os.pipe()
    sent = 2 * MAX_QUEUED_BYTES // 300
    pid = os.fork()
    if pid == 0:  # the child: nothing of pytest's may run here
        try:
            fill(write_end)
            writer = LineWriter(write_end)
            writer.put(b"before the slot\n")
            writer.count_in(ledger._cells[slot * 2 : slot * 2 + 1])
            for _ in range(sent - 1):
                writer.put(b"w" * 299 + b"\n")
        finally:
            os._exit(0)
    try:
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert ledger.release(slot) == sent  # queued, dropped, or being written: lost
        assert ledger.take() == slot  # free again, and zeroed
        assert ledger.release(slot) == 0
    finally:
        os.close(read_end)
        os.close(write_end)


@pytest.mark.parametrize("slots", [1, 3])
def test_a_ledger_gives_each_slot_once(slots: int) -> None:
    ledger = Ledger(slots)
    taken = [ledger.take() for _ in range(slots)]
    assert sorted(taken) == list(range(slots))  # type: ignore[type-var]
    assert ledger.take() is None  # that worker is not counted
    ledger.release(1 % slots)
    assert ledger.take() == 1 % slots


#: A process that queues lines on standard error (a pipe) and exits at once.
EXITING = textwrap.dedent(
    """
    import os, sys
    from arbiter.logpipe import LineWriter

    writer = LineWriter(2)
    if sys.argv[1] == "full":
        os.set_blocking(2, False)
        try:
            while True:
                os.write(2, b"\\n" * 512)
        except BlockingIOError:
            os.set_blocking(2, True)
    for i in range(1000):
        writer.put(b"line %d\\n" % i)
    """
)


def test_an_exit_writes_what_is_queued() -> None:
    process = subprocess.run(
        [sys.executable, "-c", EXITING, "read"],
        check=False,
        cwd=ROOT,
        capture_output=True,
        timeout=WAIT,
    )
    assert process.returncode == 0
    assert process.stderr == b"".join(b"line %d\n" % i for i in range(1000))


def test_an_exit_does_not_wait_for_a_log_nobody_reads() -> None:
    read_end, write_end = os.pipe()
    try:
        process = subprocess.Popen(
            [sys.executable, "-c", EXITING, "full"], cwd=ROOT, stderr=write_end
        )
        assert process.wait(WAIT) == 0  # it gave up on its lines (after EXIT_WAIT)
    finally:
        os.close(read_end)
        os.close(write_end)
