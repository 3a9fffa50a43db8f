"""What the HTTP benchmarks share: servers under the shipped gunicorn config, the bare-Flask
floor, and wrk runs that post one body or cycle through many.

- :func:`serve`: a gunicorn with ``deploy/gunicorn.conf.py`` on a free loopback port (no
  ``ARBITER_*``/``REDIS_*`` variable of the calling shell reaches it), as a :class:`Server`
  that also reads its CPU time from /proc.
- :data:`floor_app`: a bare Flask app with the shipped body limit. ``POST /floor`` reads the JSON
  body with orjson and writes it back; ``POST /floor/<name>`` reads it and answers the bytes of
  the file ``$BENCH_FLOOR_DIR/<name>.json`` (an answer of the size the case under test returns).
- :func:`wrk`: one run of wrk with a Lua script: the bodies of a file of one body per line are
  posted in turn (one line: always the same body); the counts, latencies and errors.
- :func:`measure`: a warm-up run, then a timed one, with the server's CPU time per request.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from flask import Flask, Response, request

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: benchmarks/ is on the path, the root is not
    sys.path.insert(0, str(ROOT))

from devtools import gunicorn_support  # noqa: E402
from devtools.gunicorn_support import HOST  # noqa: E402

JSON_MIME = "application/json"


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
    **env_extra: str,
) -> Iterator[Server]:
    """A gunicorn with the shipped config serving ``app``; yields it once ``probe`` answers
    (any status), stops it with SIGTERM on exit."""
    env = gunicorn_support.environment(ARBITER_LOG_LEVEL="warning")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.update(env_extra)
    ready = gunicorn_support.answers(probe, status=None, timeout=5)
    with gunicorn_support.running(
        env, ready, app=app, args=list(args), bind_option=True, name=app
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
