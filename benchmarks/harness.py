"""What the benchmarks share: how every ratio is taken (sides interleaved round by round, the
median of the per-round ratios with its spread), servers under the shipped gunicorn config, the
bare-Flask floor, and wrk runs that post one body or cycle through many.

- :func:`interleave`: run two or more sides round by round (A B, B A, A B, ...: every other
  round in reverse, so that of two sides neither always goes first), after warm-up rounds; a
  :class:`Rounds` of every side's measurement per round. :meth:`Rounds.ratio` is the
  :class:`Spread` (median, min-max, IQR) of the per-round ratios of two sides -- never a ratio
  of two separately timed blocks. :func:`timed` makes a side of a batch run in this process
  (its seconds); :class:`Worker` runs sides in a process of their own (another source tree on
  ``PYTHONPATH``, another build), timed there, alternated round by round with the others.
- :func:`serve`: a gunicorn with ``deploy/gunicorn.conf.py`` on a free loopback port (no
  ``ARBITER_*``/``REDIS_*`` variable of the calling shell reaches it), as a :class:`Server`
  that also reads its CPU time from /proc.
- :data:`floor_app`: a bare Flask app with the shipped body limit. ``POST /floor`` reads the JSON
  body with orjson and writes it back; ``POST /floor/<name>`` reads it and answers the bytes of
  the file ``$BENCH_FLOOR_DIR/<name>.json`` (an answer of the size the case under test returns).
- :func:`wrk`: one run of wrk with a Lua script: the bodies of a file of one body per line are
  posted in turn (one line: always the same body); the counts, latencies and errors.
- :func:`measure`: a warm-up run, then a timed one, with the server's CPU time per request.
- :func:`constant_rate`: this project's wrk2: requests sent at a fixed offered rate on
  keep-alive connections whatever the answers take, each latency counted from when its
  request was due (not when a connection was free to send it: no coordinated omission).
"""

from __future__ import annotations

import collections
import contextlib
import json
import math
import os
import selectors
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson
from flask import Flask, Response, request

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: benchmarks/ is on the path, the root is not
    sys.path.insert(0, str(ROOT))

from devtools import gunicorn_support  # noqa: E402
from devtools.gunicorn_support import HOST  # noqa: E402

JSON_MIME = "application/json"


# --- interleaved rounds --------------------------------------------------------------------


@dataclass(frozen=True)
class Spread:
    """The median of some per-round figures, with their range and interquartile range."""

    median: float
    low: float
    high: float
    q1: float
    q3: float
    values: tuple[float, ...]

    @classmethod
    def of(cls, values: Sequence[float]) -> Spread:
        if not values:
            raise ValueError("a spread of no values")
        ordered = sorted(values)
        if len(ordered) > 1:
            q1, _, q3 = statistics.quantiles(ordered, n=4, method="inclusive")
        else:
            q1 = q3 = ordered[0]
        return cls(statistics.median(ordered), ordered[0], ordered[-1], q1, q3, tuple(values))

    def scaled(self, factor: float) -> Spread:
        """Every figure times ``factor`` (a positive constant: µs per deal from seconds)."""
        return Spread(
            self.median * factor,
            self.low * factor,
            self.high * factor,
            self.q1 * factor,
            self.q3 * factor,
            tuple(v * factor for v in self.values),
        )

    def format(self, digits: int = 2) -> str:
        """``0.52 (0.47-0.60, IQR 0.50-0.55)``: median (min-max, interquartile range)."""
        f = f"{{:.{digits}f}}".format
        return f"{f(self.median)} ({f(self.low)}-{f(self.high)}, IQR {f(self.q1)}-{f(self.q3)})"

    def __str__(self) -> str:
        return self.format()

    @classmethod
    def from_dict(cls, figures: Mapping[str, Any]) -> Spread:
        """The spread :meth:`to_dict` wrote (kept in a benchmark's figures as JSON)."""
        return cls(
            figures["median"],
            figures["min"],
            figures["max"],
            figures["q1"],
            figures["q3"],
            tuple(figures["rounds"]),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "median": self.median,
            "min": self.low,
            "max": self.high,
            "q1": self.q1,
            "q3": self.q3,
            "rounds": list(self.values),
        }


def _number(measurement: Any) -> float:
    return float(measurement)


@dataclass
class Rounds:
    """Each side's measurement in each round (whatever its callable returned: seconds for a
    :func:`timed` side or a :class:`Worker`'s, a dict of figures for a wrk run), and the order
    the sides ran in each round."""

    names: tuple[str, ...]
    measurements: dict[str, list[Any]] = field(default_factory=dict)
    order: list[tuple[str, ...]] = field(default_factory=list)

    def values(self, name: str, value: Callable[[Any], float] = _number) -> list[float]:
        return [value(m) for m in self.measurements[name]]

    def spread(self, name: str, value: Callable[[Any], float] = _number) -> Spread:
        """One side's own figures over the rounds (the median and how far they moved)."""
        return Spread.of(self.values(name, value))

    def ratio(self, top: str, bottom: str, value: Callable[[Any], float] = _number) -> Spread:
        """The per-round ratios ``value(top) / value(bottom)``: both measured in the same
        round, one right after the other, so that a machine that changes speed between rounds
        moves both; their median is the figure to quote, their spread says how far to trust it."""
        pairs = zip(self.measurements[top], self.measurements[bottom], strict=True)
        return Spread.of([value(t) / value(b) for t, b in pairs])


def interleave(
    sides: Mapping[str, Callable[[], Any]],
    rounds: int,
    warmup: int = 1,
    progress: Callable[[int, str], None] | None = None,
) -> Rounds:
    """Run every side once per round for ``rounds`` rounds, after ``warmup`` untimed rounds.

    Even rounds run the sides in their given order, odd rounds in reverse (A B C, C B A, A B C,
    ...): of any two sides each goes first in every other round, and the sides compared with
    each other, given next to each other, run one right after the other. A side is a callable
    that runs one batch and returns its measurement (see :func:`timed`, :meth:`Worker.side`);
    ``progress(round, name)`` is called before each timed batch.
    """
    if rounds < 1:
        raise ValueError("rounds must be at least 1")
    names = tuple(sides)
    result = Rounds(names, {name: [] for name in names})
    for _ in range(warmup):
        for run in sides.values():
            run()
    for r in range(rounds):
        order = names if r % 2 == 0 else names[::-1]
        result.order.append(order)
        for name in order:
            if progress is not None:
                progress(r, name)
            result.measurements[name].append(sides[name]())
    return result


def timed(batch: Callable[[], object]) -> Callable[[], float]:
    """A side that runs ``batch`` in this process and measures its seconds (perf_counter)."""

    def side() -> float:
        start = time.perf_counter()
        batch()
        return time.perf_counter() - start

    return side


#: The child of :class:`Worker`, run as ``python -P benchmarks/worker.py``.
WORKER_SCRIPT = Path(__file__).resolve().parent / "worker.py"


class Worker:
    """Sides that run in a Python process of their own, timed there (the parent's pipe is not in
    the figure), alternated round by round with any other sides by :func:`interleave`.

    The child (``benchmarks/worker.py``) is started with ``python -P`` (neither the script's
    folder nor the working directory on ``sys.path``), ``PYTHONPATH`` set to ``pythonpath``
    alone and ``env`` applied (a value of None removes the variable), so ``import arbiter``
    there is the given tree's. It loads ``setup`` (``FILE:FUNCTION``, the file by its path, not
    as a package module) and calls ``FUNCTION(argument)``, which returns ``(batches, info)``: a
    dict of name -> callable running one batch, and a JSON-able dict describing the side
    (:attr:`info`: the source tree, the build ...). Use as a context manager; :meth:`side`
    gives the callable for :func:`interleave`. A path without the package falls back on the
    installed one: check :attr:`info` before trusting a side to be the tree asked for.
    """

    def __init__(
        self,
        setup: str,
        argument: Any,
        pythonpath: str | os.PathLike[str],
        env: Mapping[str, str | None] | None = None,
    ) -> None:
        environ = {**os.environ, "PYTHONPATH": os.path.abspath(pythonpath)}
        for name, setting in (env or {}).items():  # None: the variable is removed
            if setting is None:
                environ.pop(name, None)
            else:
                environ[name] = setting
        self.process = subprocess.Popen(
            [sys.executable, "-P", str(WORKER_SCRIPT), setup, json.dumps(argument)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=environ,
            text=True,
        )
        hello = self._answer()
        self.info: dict[str, Any] = hello["info"]
        self.batches: tuple[str, ...] = tuple(hello["batches"])

    def _answer(self) -> dict[str, Any]:
        stdout: IO[str] | None = self.process.stdout
        assert stdout is not None
        line = stdout.readline()
        if not line:
            status = self.process.wait()
            raise RuntimeError(f"benchmark worker exited with status {status} (its stderr above)")
        answer: dict[str, Any] = json.loads(line)
        if "error" in answer:
            raise RuntimeError(f"benchmark worker: {answer['error']}")
        return answer

    def run(self, batch: str) -> float:
        """Run ``batch`` once in the child; its seconds, measured there."""
        stdin = self.process.stdin
        assert stdin is not None
        stdin.write(json.dumps({"run": batch}) + "\n")
        stdin.flush()
        return float(self._answer()["seconds"])

    def side(self, batch: str) -> Callable[[], float]:
        if batch not in self.batches:
            raise KeyError(f"the worker has no batch {batch!r} (it has {self.batches})")
        return lambda: self.run(batch)

    def close(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.close()  # end of input: the child exits
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# --- the floor -----------------------------------------------------------------------------------


def _make_floor_app() -> Flask:
    from arbiter.settings import Settings

    app = Flask("floor")
    app.config["MAX_CONTENT_LENGTH"] = Settings().max_body_bytes  # the shipped default
    answers: dict[str, bytes] = {}
    folder = os.environ.get("BENCH_FLOOR_DIR")
    if folder:
        for path in Path(folder).glob("*.json"):
            answers[path.stem] = path.read_bytes()

    @app.post("/floor")
    def echo() -> Response:
        body = orjson.loads(request.get_data(cache=False))
        return Response(orjson.dumps(body), mimetype=JSON_MIME)

    @app.post("/floor/<name>")
    def canned(name: str) -> Response:
        orjson.loads(request.get_data(cache=False))
        return Response(answers[name], mimetype=JSON_MIME)

    return app


floor_app = _make_floor_app()


# --- servers ---------------------------------------------------------------------------------


@dataclass
class Server(gunicorn_support.Gunicorn):
    """A running gunicorn, with what the benchmarks read of it."""

    def cpu_seconds(self) -> float:
        """CPU time of the master and its workers so far, the reaped ones included (the
        master's cutime/cstime), so that recycled workers still count."""
        pid = self.process.pid
        ticks = sum(int(f) for f in _stat_fields(pid)[11:15])  # utime stime cutime cstime
        for worker in self.workers():
            with contextlib.suppress(OSError, IndexError, ValueError):
                ticks += sum(int(f) for f in _stat_fields(worker)[11:13])
        return ticks / os.sysconf("SC_CLK_TCK")

    def post(self, path: str, body: bytes) -> gunicorn_support.Answer:
        return gunicorn_support.request(self.port, "POST", path, body, {"Content-Type": JSON_MIME})


def _stat_fields(pid: int) -> list[str]:
    """/proc/<pid>/stat after the command name: field 4 (ppid) is [1], utime is [11]."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        return f.read().rpartition(")")[2].split()


@contextlib.contextmanager
def serve(
    app: str = gunicorn_support.APP,
    probe: str = "/healthz",
    args: Sequence[str] = (),
    tree: Path | None = None,
    **env_extra: str,
) -> Iterator[Server]:
    """A gunicorn with the shipped config serving ``app``; yields it once ``probe`` answers
    (any status), stops it with SIGTERM on exit. With ``tree``, that source tree's app under
    that tree's config (another tree's service, before and after a change)."""
    env = gunicorn_support.environment(ARBITER_LOG_LEVEL="warning")
    root = ROOT if tree is None else Path(tree).resolve()
    extra = env.get("PYTHONPATH") if tree is None else None
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), extra]))
    env.update(env_extra)
    ready = gunicorn_support.answers(probe, status=None, timeout=5)
    config = root / "deploy" / "gunicorn.conf.py"
    with gunicorn_support.running(
        env, ready, app=app, args=list(args), bind_option=True, name=app, config=config, cwd=root
    ) as server:
        yield Server(server.port, server.process, server.log)


# --- wrk -------------------------------------------------------------------------------------

_WRK_SCRIPT = """
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local bodies = {}
for line in io.lines(os.getenv("BENCH_BODIES")) do bodies[#bodies + 1] = line end
local i = 0
request = function()
  i = i % #bodies + 1
  return wrk.format(nil, nil, nil, bodies[i])
end

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests": %d, "duration_us": %d, "p50_us": %d, "p90_us": %d, ' ..
    '"p99_us": %d, "mean_us": %.1f, "max_us": %d, "errors": {"connect": %d, "read": %d, ' ..
    '"write": %d, "status": %d, "timeout": %d}}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency.mean, latency.max, e.connect, e.read, e.write, e.status,
    e.timeout))
end
"""


def wrk(
    url: str, bodies: Sequence[bytes], connections: int, seconds: float, workdir: Path
) -> dict[str, Any]:
    """POST ``bodies`` in turn to ``url`` for ``seconds`` at ``connections`` connections."""
    script = workdir / "bodies.lua"
    script.write_text(_WRK_SCRIPT, encoding="utf-8")
    body_file = workdir / "bodies.ndjson"
    body_file.write_bytes(b"".join(b + b"\n" for b in bodies))
    assert all(b"\n" not in b for b in bodies)
    duration = max(1, round(seconds))
    argv = ["wrk", "-t1", f"-c{connections}", f"-d{duration}s", "--timeout", "10s", "-s"]
    done = subprocess.run(
        [*argv, str(script), url],
        capture_output=True,
        text=True,
        env={**os.environ, "BENCH_BODIES": str(body_file)},
        timeout=duration + 60,
        check=True,
    )
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("BENCH_JSON "))
    raw = json.loads(line.removeprefix("BENCH_JSON "))
    elapsed = raw["duration_us"] / 1e6
    return {
        "requests": raw["requests"],
        "seconds": elapsed,
        "rps": raw["requests"] / elapsed,
        "p50_ms": raw["p50_us"] / 1000,
        "p90_ms": raw["p90_us"] / 1000,
        "p99_ms": raw["p99_us"] / 1000,
        "mean_ms": raw["mean_us"] / 1000,
        "max_ms": raw["max_us"] / 1000,
        "errors": sum(raw["errors"].values()),
        "error_kinds": raw["errors"],
    }


def measure(
    server: Server,
    path: str,
    bodies: Sequence[bytes],
    connections: int,
    seconds: float,
    warmup: float,
    workdir: Path,
) -> dict[str, Any]:
    """A warm-up run, then the timed one, with the server's CPU µs per request."""
    url = f"http://{HOST}:{server.port}{path}"
    if warmup > 0:
        wrk(url, bodies, connections, warmup, workdir)
    cpu = server.cpu_seconds()
    figures = wrk(url, bodies, connections, seconds, workdir)
    figures["server_cpu_us_per_request"] = (server.cpu_seconds() - cpu) / figures["requests"] * 1e6
    return figures


# --- constant offered rate ---------------------------------------------------------------------


@dataclass
class _Connection:
    sock: socket.socket
    due: float = 0.0  # when the request in flight was due; 0: idle
    received: bytearray = field(default_factory=bytearray)


def _percentile(ordered: Sequence[float], p: float) -> float:
    """The nearest-rank percentile ``p`` (0-100) of sorted values."""
    if not ordered:
        return math.nan
    return ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))]


def _answer_length(data: bytearray) -> tuple[int, bool] | None:
    """(bytes of the whole answer, whether it closes the connection) once its head is in."""
    end = data.find(b"\r\n\r\n")
    if end < 0:
        return None
    head = bytes(data[:end]).lower()
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name == b"content-length":
            length = int(value)
    return end + 4 + length, b"\r\nconnection: close" in head


def constant_rate(
    port: int,
    path: str,
    bodies: Sequence[bytes],
    rate: float,
    seconds: float,
    connections: int = 16,
    warmup: float = 1.0,
) -> dict[str, Any]:
    """POST ``bodies`` in turn to ``path`` at ``rate`` requests a second for ``warmup`` +
    ``seconds`` (only the last ``seconds`` counted), on up to ``connections`` keep-alive
    connections (reopened when the server closes one). A request is due at ``start + k /
    rate``; it waits for an idle connection if none is, and its latency runs from when it was
    due, as wrk2 counts it: a server that stalls shows in the tail instead of slowing the
    client down. Answers must be 200s with a Content-Length (the service's are)."""
    requests = [
        (
            f"POST {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\nContent-Type: {JSON_MIME}\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode("latin-1")
        + body
        for body in bodies
    ]
    selector = selectors.DefaultSelector()
    idle: collections.deque[_Connection] = collections.deque()

    def connect() -> _Connection:
        sock = socket.create_connection((HOST, port), timeout=10)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return _Connection(sock)

    for _ in range(connections):
        idle.append(connect())
    waiting: collections.deque[float] = collections.deque()  # due times not sent yet
    latencies: list[float] = []
    errors = 0
    sent = 0
    start = time.perf_counter() + 0.05
    counted_from = start + warmup
    total = int((warmup + seconds) * rate)
    in_flight = 0
    ends = start + warmup + seconds + 10.0  # a last answer may take that long
    while (sent < total or in_flight or waiting) and time.perf_counter() < ends:
        now = time.perf_counter()
        while sent + len(waiting) < total and start + (sent + len(waiting)) / rate <= now:
            waiting.append(start + (sent + len(waiting)) / rate)
        while waiting and idle:
            conn = idle.popleft()
            conn.due = waiting.popleft()
            conn.sock.sendall(requests[sent % len(requests)])
            selector.register(conn.sock, selectors.EVENT_READ, conn)
            sent += 1
            in_flight += 1
        upcoming = start + (sent + len(waiting)) / rate
        timeout = max(0.0, min(upcoming - time.perf_counter(), 0.01)) if not waiting else 0.01
        for key, _ in selector.select(timeout):
            conn = key.data
            try:
                data = conn.sock.recv(262144)
            except OSError:
                data = b""
            conn.received += data
            framed = _answer_length(conn.received)
            if data and (framed is None or len(conn.received) < framed[0]):
                continue
            done = time.perf_counter()
            selector.unregister(conn.sock)
            in_flight -= 1
            ok = bool(data) and framed is not None and conn.received.startswith(b"HTTP/1.1 200")
            if conn.due >= counted_from:
                latencies.append(done - conn.due)
                errors += not ok
            if not ok or (framed is not None and framed[1]):
                conn.sock.close()
                conn = connect()
            conn.received = bytearray()
            conn.due = 0.0
            idle.append(conn)
    for conn in [*idle, *(key.data for key in selector.get_map().values())]:
        conn.sock.close()
    selector.close()
    ordered = sorted(latencies)
    return {
        "offered_rps": rate,
        "requests": len(ordered),
        "achieved_rps": len(ordered) / seconds,
        "unanswered": in_flight + len(waiting) + max(0, total - sent),
        "errors": errors,
        "p50_ms": _percentile(ordered, 50) * 1000,
        "p90_ms": _percentile(ordered, 90) * 1000,
        "p99_ms": _percentile(ordered, 99) * 1000,
        "p999_ms": _percentile(ordered, 99.9) * 1000,
        "max_ms": (ordered[-1] if ordered else math.nan) * 1000,
    }
