"""gunicorn with the shipped ``deploy/gunicorn.conf.py`` on a free loopback port, for the
benchmarks (benchmarks/harness.py, benchmarks/bench_http.py, benchmarks/load/)
and the live tests (through tests/gunicorn_support.py).

Import it as ``devtools.gunicorn_support`` with the repository root on ``sys.path`` (a script
run as ``python benchmarks/...`` puts it there itself).

- :func:`environment`: ``os.environ`` without the calling shell's ``ARBITER_*``/``REDIS_*`` (or
  other prefixes), plus the benchmark's own variables.
- :func:`start`: ``python -m gunicorn --config deploy/gunicorn.conf.py ... APP`` on a free
  127.0.0.1 port (``ARBITER_BIND``, or ``--bind``), its output in a file, once ``ready`` says so;
  :func:`running`: the same as a context manager that stops it on exit.
- :func:`stop`: SIGTERM, and SIGKILL when it has not stopped within 30 s; the exit status.
- :func:`request`, :func:`post_json`: one request on a fresh connection.
- :func:`closed_loop`: the Python load generator (threads with keep-alive connections).
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "deploy" / "gunicorn.conf.py"
HOST = "127.0.0.1"
APP = "arbiter.wsgi:app"
BOOT_TIMEOUT = 30.0
STOP_TIMEOUT = 30.0  # graceful_timeout is 20 s; idle workers stop at once


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


class Answer(NamedTuple):
    status: int
    headers: dict[str, str]  # names in lower case
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def request(
    port: int,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    *,
    timeout: float = 10.0,
) -> Answer:
    """One request on a fresh connection, read to the end."""
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        data = response.read()
        return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, data)
    finally:
        conn.close()


#: Kept whatever ``drop`` says: which build of the engine runs is the caller's, not a setting.
_KEPT = ("ARBITER_PURE",)


def environment(drop: tuple[str, ...] = ("ARBITER_", "REDIS_"), **changes: str) -> dict[str, str]:
    """``os.environ`` without the variables whose names start with ``drop`` (but
    ``ARBITER_PURE``), plus ``changes``."""
    env = {k: v for k, v in os.environ.items() if k in _KEPT or not k.startswith(drop)}
    env.update(changes)
    return env


@dataclass
class Gunicorn:
    port: int
    process: subprocess.Popen[bytes]
    log: Path  # what gunicorn wrote

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def tail(self, chars: int = 3000) -> str:
        return self.output()[-chars:]

    def workers(self) -> set[int]:
        """The pids of the master's children (its workers), from /proc."""
        return children_of(self.process.pid)

    def wait_workers(self, count: int, timeout: float = 15.0) -> set[int]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pids = self.workers()
            if len(pids) == count:
                return pids
            time.sleep(0.05)
        raise TimeoutError(f"gunicorn did not get to {count} workers: {self.workers()}")


def children_of(pid: int) -> set[int]:
    """The pids of the children of process ``pid`` (a gunicorn master's workers), from /proc."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except FileNotFoundError:
        return set()
    return {int(c) for c in children}


def post_json(
    port: int,
    path: str,
    payload: Any,
    headers: dict[str, str] | None = None,
    *,
    dumps: Callable[[Any], bytes] = lambda payload: json.dumps(payload).encode(),
    timeout: float = 10.0,
) -> Answer:
    """``payload`` encoded by ``dumps`` as a JSON POST on a fresh connection."""
    headers = {"Content-Type": "application/json", **(headers or {})}
    return request(port, "POST", path, dumps(payload), headers, timeout=timeout)


def stop(server: Gunicorn, timeout: float = STOP_TIMEOUT, *, reraise: bool = False) -> int:
    """SIGTERM (unless it has exited) and the exit status; SIGKILL when it is still running
    after ``timeout`` (then :class:`subprocess.TimeoutExpired` again with ``reraise``)."""
    if server.process.poll() is None:
        server.process.send_signal(signal.SIGTERM)
    try:
        return server.process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        server.process.kill()
        status = server.process.wait(timeout=10)
        if reraise:
            raise
        return status


def wait_ready(
    server: Gunicorn, ready: Callable[[Gunicorn], bool], name: str, timeout: float = BOOT_TIMEOUT
) -> None:
    """Until ``ready(server)`` (an OSError counts as not yet); :class:`RuntimeError` with its
    output if gunicorn exits meanwhile, :class:`TimeoutError` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        if server.process.poll() is not None:
            raise RuntimeError(f"gunicorn {name} exited:\n{server.tail()}")
        with contextlib.suppress(OSError):
            if ready(server):
                return
        if time.monotonic() > deadline:
            raise TimeoutError(f"gunicorn {name} did not answer within {timeout} s")
        time.sleep(0.1)


def answers(
    path: str,
    status: int | None = 200,
    workers: int | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = 10.0,
) -> Callable[[Gunicorn], bool]:
    """A ``ready`` test: ``GET path`` (with ``headers``) answers, with ``status`` unless that
    is None, and the master has ``workers`` children unless that is None."""

    def ready(server: Gunicorn) -> bool:
        got = request(server.port, "GET", path, headers=headers, timeout=timeout).status
        if status is not None and got != status:
            return False
        return workers is None or len(server.workers()) == workers

    return ready


def start(
    log: Path,
    env: dict[str, str],
    ready: Callable[[Gunicorn], bool],
    *,
    app: str = APP,
    args: Sequence[str] = (),
    bind_option: bool = False,
    capture_stdout: bool = True,
    name: str = APP,
    attempts: int = 1,
    boot_timeout: float = BOOT_TIMEOUT,
    stop_timeout: float = STOP_TIMEOUT,
    serve: bool = False,
    config: Path = CONFIG,
    cwd: Path = ROOT,
) -> Gunicorn:
    """gunicorn with the shipped config, the environment ``env`` and the extra options ``args``,
    serving ``app`` on a free loopback port, once ``ready`` (see :func:`wait_ready`). The address
    goes in ``ARBITER_BIND``, or with ``bind_option`` in a ``--bind`` option. With ``serve``,
    it is started as ``make run`` starts it instead: ``arbiter serve --host --port`` (which
    runs gunicorn with the shipped config; ``app`` and ``args`` are then not used). stderr goes
    to ``log``, and stdout too with ``capture_stdout`` (else to /dev/null). With ``attempts`` >
    1, a gunicorn that exits because the port was taken meanwhile is started again on another.
    Stopped again if it does not boot. ``config`` and ``cwd`` (the first entry of its
    ``sys.path``): another source tree's, to serve that tree (benchmarks' before and after)."""
    env = dict(env)
    for attempt in range(attempts):
        port = free_port()
        if serve:
            argv = [sys.executable, "-m", "arbiter.cli", "serve", "--host", HOST]
            argv += ["--port", str(port)]
        else:
            argv = [sys.executable, "-m", "gunicorn", "--config", str(config)]
            if bind_option:
                argv += ["--bind", f"{HOST}:{port}"]
            else:
                env["ARBITER_BIND"] = f"{HOST}:{port}"
            argv += [*args, app]
        with log.open("wb") as out:
            stdout = out if capture_stdout else subprocess.DEVNULL
            process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=stdout, stderr=out)
        server = Gunicorn(port, process, log)
        try:
            wait_ready(server, ready, name, boot_timeout)
            return server
        except RuntimeError:  # exited during boot: maybe the port was taken meanwhile
            stop(server, stop_timeout)
            if attempt + 1 == attempts or "in use" not in server.output():  # "Connection in use"
                raise
        except BaseException:
            stop(server, stop_timeout)
            raise
    raise RuntimeError(f"no free loopback port for gunicorn after {attempts} attempts")


@contextlib.contextmanager
def running(
    env: dict[str, str], ready: Callable[[Gunicorn], bool], **options: Any
) -> Iterator[Gunicorn]:
    """:func:`start` (``options`` are its keyword arguments) with its output in a temporary
    file; stopped with :func:`stop` on exit."""
    with tempfile.TemporaryDirectory(prefix="arbiter-bench-") as tmp:
        server = start(Path(tmp) / "gunicorn.out", env, ready, **options)
        try:
            yield server
        finally:
            stop(server)


def closed_loop(
    port: int,
    method: str,
    path: str,
    body: Callable[[], bytes | None],
    headers: dict[str, str],
    connections: int,
    duration: float,
) -> tuple[list[float], int, float]:
    """``connections`` threads, each with one keep-alive http.client connection (reopened when
    the server closes it), sending ``body()`` until ``duration`` has passed: the latencies in
    ms (sorted), the failures (not 200, or I/O errors) and the seconds it took."""
    latencies: list[list[float]] = [[] for _ in range(connections)]
    errors = [0] * connections
    start = threading.Barrier(connections + 1)
    deadline = [0.0]

    def loop(i: int) -> None:
        conn = http.client.HTTPConnection(HOST, port, timeout=10)
        mine = latencies[i]
        start.wait()
        clock = time.perf_counter
        while clock() < deadline[0]:
            t0 = clock()
            try:
                conn.request(method, path, body=body(), headers=headers)
                response = conn.getresponse()
                response.read()
                ok = response.status == 200
                if response.will_close:
                    conn.close()
            except (OSError, http.client.HTTPException):
                conn.close()
                ok = False
            mine.append(clock() - t0)
            errors[i] += not ok
        conn.close()

    threads = [threading.Thread(target=loop, args=(i,), daemon=True) for i in range(connections)]
    for t in threads:
        t.start()
    t0 = time.perf_counter()
    deadline[0] = t0 + duration
    start.wait()
    for t in threads:
        t.join(timeout=duration + 30)
    seconds = time.perf_counter() - t0
    return sorted(x * 1000 for lat in latencies for x in lat), sum(errors), seconds


def dechunked(data: bytes) -> tuple[bytes, bool]:
    """The body of an answer in the chunked transfer coding (what follows its head), and whether
    it ended with its last, empty chunk (False: the connection was cut before)."""
    out = b""
    while data:
        size_line, _, data = data.partition(b"\r\n")
        try:
            size = int(size_line.split(b";")[0], 16)
        except ValueError:
            return out, False
        if size == 0:
            return out, True
        out, data = out + data[:size], data[size + 2 :]
    return out, False
