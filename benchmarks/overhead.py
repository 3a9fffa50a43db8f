"""The timed batches of ``bench_overhead.py``: requests fed straight to a WSGI app in this
process (no server, no sockets, no test client), defined once for every ``harness.Worker`` that
runs them (this file is loaded there by its path, so it imports nothing of ``benchmarks``, and
``arbiter`` only in :func:`worker`: the tree on ``PYTHONPATH`` is the one measured).

Each request is a prepared WSGI environ, as gunicorn hands one to the app (its keys, a client's
usual headers, ``wsgi.input`` a fresh :class:`io.BytesIO` of the body), copied per call; the
answer's bytes are joined and its ``close`` called, as a server does; the app's access lines
are queued as in a gunicorn worker (``arbiter.api.logs.queue_lines``, where the tree has it).
The endpoints:

* ``healthz``: ``GET /healthz``;
* ``validate``: ``POST /v1/moves/validate`` with ``{"state_id", "move"}`` (a tute-4p position in
  the middle of its deal, the token drawn by this side's own app);
* ``replay``: ``POST /v1/replays`` with the in-progress tute-4p log that token was drawn from.

and, for each, ``floor <endpoint>``: a bare Flask app doing the same I/O — the same request,
its body read and parsed with orjson, and an answer of the same bytes (the endpoint's own
answer, recorded once) written back. Where the tree answers an endpoint without Flask's request
handling (its hot path, ``arbiter/api/hot.py``), also ``route <endpoint>``: the same app with
every request through Flask (the figure for the hot path). The service runs as shipped: its
settings' defaults, the
access log on (INFO, to standard error, which the worker points at ``/dev/null`` or at a pipe
that another process drains: ``argument["log"]``), metrics in prometheus-client's
multiprocess mode (the parent sets ``PROMETHEUS_MULTIPROC_DIR``, as gunicorn's master does).

With ``argument["profile"]`` N, the setup also runs N requests of each endpoint under cProfile
and reports where the time goes (:func:`breakdown`) in the worker's ``info``.
"""

from __future__ import annotations

import cProfile
import importlib
import io
import json
import os
import pstats
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

Batch = Callable[[], None]
WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Any]

ENDPOINTS = ("healthz", "validate", "replay")
PATHS = {"healthz": "/healthz", "validate": "/v1/moves/validate", "replay": "/v1/replays"}
JSON = "application/json"
STATE_KEY = "bench-overhead-state-key-0123456789abcdef"


def environ_of(method: str, path: str, body: bytes) -> dict[str, Any]:
    """The environ gunicorn would build for a keep-alive client's request."""
    environ: dict[str, Any] = {
        "REQUEST_METHOD": method,
        "SCRIPT_NAME": "",
        "PATH_INFO": path,
        "QUERY_STRING": "",
        "RAW_URI": path,
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "SERVER_SOFTWARE": "gunicorn/23.0.0",
        "REMOTE_ADDR": "127.0.0.1",
        "REMOTE_PORT": "50000",
        "HTTP_HOST": "127.0.0.1:8000",
        "HTTP_USER_AGENT": "table-server/1.0",
        "HTTP_ACCEPT": "*/*",
        "HTTP_CONNECTION": "keep-alive",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        "wsgi.file_wrapper": None,
        "wsgi.input_terminated": True,
    }
    if method == "POST":
        environ["CONTENT_TYPE"] = JSON
        environ["CONTENT_LENGTH"] = str(len(body))
    return environ


def caller(app: WsgiApp, method: str, path: str, body: bytes) -> Callable[[], bytes]:
    """One request into ``app``: its answer's bytes (checked to be a 200)."""
    template = environ_of(method, path, body)
    statuses: list[str] = []

    def start_response(status: str, headers: Any, exc_info: Any = None) -> None:
        statuses.append(status)

    def call() -> bytes:
        environ = dict(template)
        environ["wsgi.input"] = io.BytesIO(body)
        chunks = app(environ, start_response)
        data = b"".join(chunks)
        close = getattr(chunks, "close", None)
        if close is not None:
            close()
        status = statuses.pop()
        if status[:3] != "200":
            raise AssertionError(f"{method} {path}: {status} {data[:300]!r}")
        return data

    return call


def floor_app(answers: Mapping[str, bytes]) -> WsgiApp:
    """A bare Flask app answering each endpoint's path with the bytes of ``answers``, after
    reading and parsing a POST's body with orjson (the floor of the same I/O)."""
    import orjson
    from flask import Flask, Response, request

    app = Flask("floor")
    app.config["MAX_CONTENT_LENGTH"] = 1024 * 1024  # the shipped limit

    @app.get("/healthz")
    def healthz() -> Response:
        return Response(answers["healthz"], mimetype=JSON)

    @app.post("/v1/moves/validate")
    def validate() -> Response:
        orjson.loads(request.get_data(cache=False))
        return Response(answers["validate"], mimetype=JSON)

    @app.post("/v1/replays")
    def replay() -> Response:
        orjson.loads(request.get_data(cache=False))
        return Response(answers["replay"], mimetype=JSON)

    return app


def _loop(call: Callable[[], bytes], n: int) -> Batch:
    def run() -> None:
        for _ in range(n):
            call()

    return run


def _log_to(where: str) -> subprocess.Popen[bytes] | None:
    """Standard error (where the service's log goes) to ``/dev/null``, or to a pipe drained by
    a ``cat`` of its own (as a container runtime reads a container's stderr)."""
    if where == "devnull":
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 2)
        os.close(fd)
        return None
    if where == "pipe":
        drain = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
        assert drain.stdin is not None
        os.dup2(drain.stdin.fileno(), 2)
        drain.stdin.close()
        return drain
    raise ValueError(f"log: devnull or pipe, not {where!r}")


def worker(argument: dict[str, Any]) -> tuple[dict[str, Batch], dict[str, Any]]:
    """The setup of a ``harness.Worker``: ``argument`` has ``bodies`` (the path of a JSON file:
    the in-progress log and its next move), ``n`` (requests per batch), ``log`` (``devnull`` or
    ``pipe``) and optionally ``profile`` (requests per endpoint profiled at setup)."""
    import orjson

    import arbiter
    from arbiter.api import create_app
    from arbiter.settings import Settings

    inputs = json.loads(Path(argument["bodies"]).read_text(encoding="utf-8"))
    drain = _log_to(argument["log"])
    app = create_app(Settings(state_key=STATE_KEY))
    queue_lines = getattr(importlib.import_module("arbiter.api.logs"), "queue_lines", None)
    if queue_lines is not None:  # what deploy/gunicorn.conf.py does in a worker
        queue_lines(app)
    minted = caller(app, "POST", "/v1/replays", orjson.dumps(inputs["log"]))()
    token = orjson.loads(minted)["state_id"]
    bodies = {
        "healthz": b"",
        "validate": orjson.dumps({"state_id": token, "move": inputs["move"]}),
        "replay": orjson.dumps(inputs["log"]),
    }
    ours = {e: caller(app, _method(e), PATHS[e], bodies[e]) for e in ENDPOINTS}
    answers = {e: call() for e, call in ours.items()}
    if orjson.loads(answers["validate"])["verdict"] != "ok":
        raise SystemExit(f"the move is not ok: {answers['validate'][:300]!r}")
    floor = floor_app(answers)
    floors = {e: caller(floor, _method(e), PATHS[e], bodies[e]) for e in ENDPOINTS}
    for e, call in floors.items():
        if call() != answers[e]:
            raise SystemExit(f"the floor of {e} does not answer the same bytes")
    profile = argument.get("profile", 0)
    info: dict[str, Any] = {
        "tree": str(Path(arbiter.__file__).resolve().parent.parent),
        "build": arbiter.BUILD,
        "version": arbiter.__version__,
        "log": argument["log"],
        "answer_bytes": {e: len(a) for e, a in answers.items()},
        "body_bytes": {e: len(b) for e, b in bodies.items()},
    }
    info["drained_by"] = drain.pid if drain is not None else None
    if profile:
        info["profile"] = {e: breakdown(ours[e], floors[e], profile) for e in ENDPOINTS}
    n = argument["n"]
    batches: dict[str, Batch] = {}
    for e in ENDPOINTS:
        batches[e] = _loop(ours[e], n)
        batches[f"floor {e}"] = _loop(floors[e], n)
    routed = _through_flask(create_app(Settings(state_key=STATE_KEY)))
    if routed is not None:  # the tree answers some endpoints without Flask: time the routes too
        for e in ENDPOINTS:
            if PATHS[e] in getattr(app.wsgi_app, "hot", {}):
                call = caller(routed, _method(e), PATHS[e], bodies[e])
                if orjson.loads(call()).keys() != orjson.loads(answers[e]).keys():
                    raise SystemExit(f"the route of {e} answers otherwise")
                batches[f"route {e}"] = _loop(call, n)
    return batches, info


def _through_flask(app: Any) -> Any:
    """``app`` with every request going through Flask's handling (no hot path), or None when
    its tree has no hot path."""
    frame = app.wsgi_app
    if not getattr(frame, "hot", None):
        return None
    frame.hot.clear()
    return app


def _method(endpoint: str) -> str:
    return "GET" if endpoint == "healthz" else "POST"


# --- where the time goes ------------------------------------------------------------------------

#: Groups of the profile, by where a function is defined: (label, the path contains one of).
GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("engine, service, tokens, report", ("/arbiter/engine/", "/arbiter/service.py",
                                         "/arbiter/tokens.py", "/arbiter/report.py",
                                         "/arbiter/i18n.py", "/arbiter/cache/")),
    ("views (arbiter/api/routes.py, bodies.py)", ("/arbiter/api/routes.py",
                                                  "/arbiter/api/bodies.py",
                                                  "/arbiter/jsontext.py")),
    ("the app's hooks (arbiter/api/app.py, security, limits, errors)",
     ("/arbiter/api/app.py", "/arbiter/api/security.py", "/arbiter/api/limits.py",
      "/arbiter/api/errors.py", "/arbiter/api/wsgi.py", "/arbiter/contract.py")),
    ("access log (arbiter/api/logs.py, jsonlog.py, logging)",
     ("/arbiter/api/logs.py", "/arbiter/jsonlog.py", "/logging/")),
    ("metrics (arbiter/api/metrics.py, prometheus_client)",
     ("/arbiter/api/metrics.py", "prometheus_client")),
    ("werkzeug (headers, request, response, routing, locals)", ("werkzeug",)),
    ("flask (app, contexts, blueprints)", ("flask",)),
)  # fmt: skip
OTHER = "the rest (builtins: orjson, os, re...; the harness's call)"


def _group(filename: str) -> str:
    for label, parts in GROUPS:
        if any(part in filename for part in parts):
            return label
    return OTHER


def breakdown(call: Callable[[], bytes], floor: Callable[[], bytes], n: int) -> dict[str, Any]:
    """µs per request of ``call`` and of its floor (profiler off, median of 5 loops of ``n``),
    and the request's own time (``tottime``) under cProfile summed by :data:`GROUPS`, scaled to
    the unprofiled total (an estimate: the profiler slows Python more than C), with the
    functions of most own time."""
    for _ in range(200):
        call()
        floor()
    total = per_call(call, n)
    floor_us = per_call(floor, n)
    stats = profile_of(call, n)
    raw: dict[tuple[str, int, str], Any] = stats.stats  # type: ignore[attr-defined]
    own: dict[str, float] = {}
    functions: list[tuple[float, str]] = []
    for (filename, line, name), (_cc, ncalls, tottime, _ct, _callers) in raw.items():
        own[_group(filename)] = own.get(_group(filename), 0.0) + tottime
        functions.append((tottime, f"{_short(filename)}:{line}({name}) x{ncalls / n:g}"))
    profiled = sum(own.values())
    scale = total / (profiled / n * 1e6) if profiled else 0.0
    groups = {label: own.get(label, 0.0) / n * 1e6 * scale for label, _ in (*GROUPS, (OTHER, ()))}
    top = sorted(functions, reverse=True)[:15]
    return {
        "us": total,
        "floor_us": floor_us,
        "groups_us": groups,
        "top_us": [(t / n * 1e6 * scale, f) for t, f in top],
    }


def per_call(call: Callable[[], object], n: int, loops: int = 5) -> float:
    """µs per call of ``call``, profiler off: the median of ``loops`` loops of ``n`` calls."""
    runs = []
    for _ in range(loops):
        began = time.perf_counter()
        for _ in range(n):
            call()
        runs.append((time.perf_counter() - began) / n * 1e6)
    return sorted(runs)[loops // 2]


def profile_of(call: Callable[[], object], n: int) -> pstats.Stats:
    """cProfile's statistics of ``n`` calls of ``call``."""
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(n):
        call()
    profiler.disable()
    return pstats.Stats(profiler)


def _short(filename: str) -> str:
    for marker in ("site-packages/", "/arbiter/", "/lib/python3"):
        if marker in filename:
            _, _, tail = filename.partition(marker)
            return (marker.strip("/") + "/" if marker == "/arbiter/" else "") + tail
    return filename
