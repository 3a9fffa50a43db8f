"""A log nobody reads, against a live ``arbiter serve`` (issue 30, items 2 and 6).

``arbiter serve --workers 2`` (as ``make run`` starts it) writes its standard error and output
into a pipe this test stops reading once the server is up, and fills (until no line fits):

- malformed requests (gunicorn's ``Bad Header Line``, logged as a warning by the worker) are
  answered 400 at once, and ``/healthz`` answers all along, within its normal timeout;
- a flood of requests is answered in full, each request's access line queued or dropped;
- a worker that stops (SIGSTOP: it no longer tells the master it is alive) is timed out and
  replaced by the master, whose ``WORKER TIMEOUT`` line waits in its own queue;
- once the test reads the pipe, every line is whole, and the lines say what was lost: how many
  the workers dropped (``N log lines dropped``), and, from the master, how many the stopped
  worker never wrote (it had served requests after the pipe was full);
- the same with ``ARBITER_ACCESS_LOG=-`` (gunicorn's own access lines on standard output).

With ``ARBITER_LOG_JSON=false`` a path with ``%0A`` and ``%1B[2J`` and a malformed request
write one line each (the app's access line, gunicorn's, its warning), every one starting with
its time, with nothing a terminal obeys, and the app's access line carries the request id, the
duration and the ruleset the docs promise.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from devtools.gunicorn_support import children_of
from tests import gunicorn_support
from tests.gunicorn_support import HOST, read_response, requests_by_worker

# Live servers whose log is stuck: not in the quick loop.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 10  # ARBITER_TIMEOUT: seconds before the master times a silent worker out
ANSWER_TIMEOUT = 10.0  # what a client waits for an answer (healthz, a refusal)
WAIT = 90.0  # seconds, at most, for what the master does (replace a worker) or the log says
# A 404 whose access lines are ~3 KB (the app's has the path twice): under PIPE_BUF, so that
# each is written whole (a longer line is written alone, and may be cut by another process's).
LONG_PATH = "/nope/" + "x" * 1500
FLOOD = 3000  # ~9 MB of access lines: over MAX_QUEUED_BYTES in one worker at least
BAD_HEADER = b"GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n"


class StuckLog:
    """``arbiter serve`` writing into a pipe whose reader this test controls."""

    def __init__(self, workdir: Path, **env: str) -> None:
        self.read_end, write_end = os.pipe()
        os.set_blocking(self.read_end, False)
        self.port = gunicorn_support.free_port()
        self.metrics = workdir / "metrics"
        self.metrics.mkdir()
        environ = gunicorn_support.environment(
            ("ARBITER_", "REDIS_", "PROMETHEUS_", "GUNICORN_"),
            ARBITER_LOG_LEVEL="info",
            ARBITER_TIMEOUT=str(TIMEOUT),
            PROMETHEUS_MULTIPROC_DIR=str(self.metrics),
            **env,
        )
        argv = [sys.executable, "-m", "arbiter.cli", "serve", "--host", HOST]
        argv += ["--port", str(self.port), "--workers", "2"]
        self.process = subprocess.Popen(
            argv, cwd=ROOT, env=environ, stdout=write_end, stderr=write_end
        )
        # the test's own end, to fill the pipe to the brim: opened anew, so that its O_NONBLOCK
        # is not the server's too
        self.probe = os.open(f"/proc/self/fd/{write_end}", os.O_WRONLY | os.O_NONBLOCK)
        os.close(write_end)
        self.output = b""

    def read(self) -> bytes:
        """What the pipe holds now (the test reads it)."""
        got = b""
        with contextlib.suppress(BlockingIOError):
            while more := os.read(self.read_end, 1 << 16):
                got += more
        self.output += got
        return got

    def top_up(self) -> bool:
        """Fill what room the pipe has left with newlines (empty lines: no line of the log);
        whether it was full already."""
        written = 0
        with contextlib.suppress(BlockingIOError):
            while True:
                written += os.write(self.probe, b"\n")
        return written == 0

    def workers(self) -> set[int]:
        return children_of(self.process.pid)

    def until(self, done: Any, what: str, reading: bool) -> None:
        """Until ``done()`` (reading the pipe all along when ``reading``), at most WAIT."""
        deadline = time.monotonic() + WAIT
        while not done():
            assert self.process.poll() is None, f"the server exited while waiting for {what}"
            assert time.monotonic() < deadline, f"{what}: not within {WAIT} s"
            if reading:
                self.read()
            time.sleep(0.05)

    def lines(self) -> list[bytes]:
        return [line for line in self.output.split(b"\n") if line]

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + WAIT
        while self.process.poll() is None and time.monotonic() < deadline:
            self.read()
            time.sleep(0.05)
        if self.process.poll() is None:
            self.process.kill()
        status = self.process.wait(10)
        self.read()
        os.close(self.probe)
        os.close(self.read_end)
        return status


@contextlib.contextmanager
def stuck_log(workdir: Path, **env: str) -> Iterator[StuckLog]:
    server = StuckLog(workdir, **env)
    try:
        server.until(lambda: healthy(server) and len(server.workers()) == 2, "boot", True)
        yield server
    finally:
        status = server.stop()
    assert status == 0, server.output[-3000:]


def healthy(server: StuckLog) -> bool:
    with contextlib.suppress(OSError):
        answer = gunicorn_support.request(server.port, "GET", "/healthz", timeout=ANSWER_TIMEOUT)
        return answer.status == 200
    return False


def assert_healthy(server: StuckLog) -> None:
    answer = gunicorn_support.request(server.port, "GET", "/healthz", timeout=ANSWER_TIMEOUT)
    assert answer.status == 200


def flood(server: StuckLog, path: str, count: int, clients: int = 4) -> None:
    """``count`` GETs of ``path`` on keep-alive connections, every one answered."""
    statuses: list[int] = []
    lock = threading.Lock()

    def client(share: int) -> None:
        conn = http.client.HTTPConnection(HOST, server.port, timeout=ANSWER_TIMEOUT)
        try:
            for _ in range(share):
                conn.request("GET", path)
                response = conn.getresponse()
                response.read()
                with lock:
                    statuses.append(response.status)
                if response.will_close:
                    conn.close()
        finally:
            conn.close()

    threads = [threading.Thread(target=client, args=(count // clients,)) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT)
    assert len(statuses) == count // clients * clients, "requests were left unanswered"
    assert set(statuses) == {404 if path.startswith("/nope") else 200}


def fill(server: StuckLog) -> None:
    """Requests whose lines fill the pipe (nobody reads it now), topped up to the brim: no
    line fits any more."""
    flood(server, "/v1/rulesets", 400)  # ~100 KB of access lines: more than a pipe holds
    server.top_up()


def served(server: StuckLog) -> dict[int, float]:
    """The requests each process has answered (its own counter file)."""
    return requests_by_worker(server.metrics, method="GET", endpoint="/v1/rulesets", status="200")


@pytest.mark.parametrize("env", [{}, {"ARBITER_ACCESS_LOG": "-"}], ids=["app", "access-log"])
def test_a_log_nobody_reads_never_stops_the_service(tmp_path: Path, env: dict[str, str]) -> None:
    with stuck_log(tmp_path, **env) as server:
        server.read()
        fill(server)
        before = served(server)
        # every line from now on waits in a queue: gunicorn's warnings too
        for _ in range(6):
            with socket.create_connection((HOST, server.port), timeout=ANSWER_TIMEOUT) as sock:
                sock.sendall(BAD_HEADER)
                status, _, body = read_response(sock)
            assert status == 400, body[:200]
            assert_healthy(server)
        flood(server, "/v1/rulesets", 200)
        after = served(server)
        busy = [pid for pid in server.workers() if after.get(pid, 0) > before.get(pid, 0)]
        assert busy, (before, after)
        victim = busy[0]  # it has lines it could not write
        os.kill(victim, signal.SIGSTOP)
        try:
            replaced = lambda: len(server.workers() - {victim}) == 2  # noqa: E731
            server.until(replaced, "the stopped worker replaced", False)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.kill(victim, signal.SIGKILL)
        assert_healthy(server)
        flood(server, LONG_PATH, FLOOD)
        assert_healthy(server)
        assert server.top_up()  # nothing was read yet: the pipe is still full

        def said(pattern: bytes) -> bool:
            return re.search(pattern, server.output) is not None

        wanted = [
            rb"\d+ log lines dropped: the log was not read",
            rb"WORKER TIMEOUT \(pid:%d\)" % victim,
            rb"worker %d exited with \d+ log lines it had not written" % victim,
        ]
        server.until(lambda: all(said(p) for p in wanted), "the lines of what was lost", True)
    lines = [orjson.loads(line) for line in server.lines()]  # every line whole, and JSON
    notes = [line for line in lines if line["logger"] == "arbiter.log"]
    assert all(note["level"] == "warning" and note["dropped"] > 0 for note in notes)
    (lost,) = [line for line in lines if f"worker {victim} exited" in line["message"]]
    assert int(lost["message"].split()[4]) >= after[victim] - before.get(victim, 0)
    # (the refusals' warnings are among them, or among the lines the stopped worker lost)
    if env:  # gunicorn's own access lines, through the queue of standard output
        assert any(line["logger"] == "gunicorn.access" for line in lines)


# --- plain text -----------------------------------------------------------------------------

PLAIN_STAMP = re.compile(rb"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} \[\d+\] \[[A-Z]+\] [\w.]+: ")
FORGING_PATH = "/x%0A2026-01-01%2000:00:00,000%20[1]%20[ERROR]%20arbiter:%20forged%1B[2J"


def test_plain_lines_of_a_live_server_cannot_be_forged(tmp_path: Path) -> None:
    env = gunicorn_support.environment(
        ("ARBITER_", "REDIS_", "PROMETHEUS_", "GUNICORN_"),
        ARBITER_LOG_LEVEL="info",
        ARBITER_LOG_JSON="false",
        ARBITER_ACCESS_LOG="-",
        ARBITER_WORKERS="1",
    )
    log = tmp_path / "server.log"
    server = gunicorn_support.start(log, env)
    with gunicorn_support.until_stopped(server):
        with socket.create_connection((HOST, server.port), timeout=ANSWER_TIMEOUT) as sock:
            sock.sendall(
                f"GET {FORGING_PATH} HTTP/1.1\r\nHost: x\r\nX-Request-ID: forge-1\r\n\r\n".encode()
            )
            status, _, _ = read_response(sock)
        assert status == 404
        with socket.create_connection((HOST, server.port), timeout=ANSWER_TIMEOUT) as sock:
            sock.sendall(BAD_HEADER.replace(b"Bad Header Line", b"Bad\x1b[2J Header"))
            assert read_response(sock)[0] == 400
        wanted = (b"forge-1", b"gunicorn.access", b"refused a request")
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:  # the app's access line, gunicorn's, the warning
            output = log.read_bytes()
            if all(w in output for w in wanted) and output.endswith(b"\n"):
                break
            time.sleep(0.05)
    output = log.read_bytes()
    for line in output.splitlines():
        assert PLAIN_STAMP.match(line), line  # one line per record: none forged
        assert not re.search(rb"[\x00-\x1f\x7f]|\xc2[\x80-\x9f]", line), line
    (ours,) = [line for line in output.splitlines() if b"arbiter.access: GET /x" in line]
    assert b"/x\\n2026-01-01 00:00:00,000 [1] [ERROR] arbiter: forged\\x1b[2J 404" in ours
    assert re.search(rb" request_id=forge-1 duration_ms=[\d.]+ ruleset=-$", ours), ours
    theirs = [line for line in output.splitlines() if b"gunicorn.access" in line]
    assert any(b'"GET /x%0A2026-01-01%2000' in line for line in theirs)  # the line as sent
