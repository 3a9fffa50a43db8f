"""Operations of the shipped deployment over real HTTP: gunicorn with ``deploy/gunicorn.conf.py``.

Each gunicorn is configured the way a process manager would, through the environment the
config reads (``ARBITER_BIND`` on a free 127.0.0.1 port, ``ARBITER_WORKERS``,
``ARBITER_WORKER_CLASS``, ``ARBITER_GRACEFUL_TIMEOUT``, ``PROMETHEUS_MULTIPROC_DIR``; the
config has no variable for gthread's thread count, so ``GUNICORN_CMD_ARGS=--threads 4``), with
nothing of the calling shell's ``ARBITER_*``/``REDIS_*``; it is always stopped at teardown.

- Prometheus multiprocess mode: two workers write their counters to files of
  ``PROMETHEUS_MULTIPROC_DIR`` (stale files of an earlier run are wiped at start); requests on
  two connections held open go to both workers (each holds one connection at a time), which
  the per-process files show, and every scrape, whichever worker answers it, adds them up to
  exactly the number sent, also after a worker has been killed and replaced.
- Graceful shutdown: a request whose body is still arriving when the master gets SIGTERM is
  answered in full, and the master then exits 0 within the graceful timeout (the shipped
  worker, sync and gthread).
- JSON access logs: one JSON line per request on gunicorn's stderr, with request id, method,
  path, status, duration and ruleset, and no player names.
"""

from __future__ import annotations

import functools
import http.client
import json
import os
import random
import re
import signal
import socket
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest
from prometheus_client.mmap_dict import MmapedDict, mmap_key

import arbiter
from arbiter.simulate import random_log
from tests import gunicorn_support
from tests.api_support import metric_value, padded_body
from tests.gunicorn_support import HOST, Gunicorn, read_response, requests_by_worker

# Live gunicorns started, signalled and stopped: not in the quick loop.
pytestmark = pytest.mark.slow

STOP_TIMEOUT = 40.0
GRACEFUL_TIMEOUT = 8  # seconds, for the shutdown tests (the shipped default is 20)

SCORES = {"method": "POST", "endpoint": "/v1/scores", "status": "200"}
PLAYERS = ["Wenceslao Quintanilla", "Eulalia Barrenechea"]
LOG = {**random_log("tute-2p", random.Random(21), renuncio_rate=0.1), "players": PLAYERS}


#: One request on a fresh connection: (status, headers, body).
request = functools.partial(gunicorn_support.request, timeout=15)


def post_json(port: int, path: str, payload: Any, **headers: str) -> tuple[int, bytes]:
    answer = gunicorn_support.post_json(
        port, path, payload, headers, dumps=orjson.dumps, timeout=15
    )
    return answer.status, answer.body


def _stop(server: Gunicorn) -> int:
    return gunicorn_support.stop(server, STOP_TIMEOUT)


def start(workdir: Path, **env_changes: str) -> Gunicorn:
    """gunicorn with the shipped config and ``env_changes``, answering /healthz."""
    env = gunicorn_support.environment(
        ("ARBITER_", "REDIS_", "PROMETHEUS_", "GUNICORN_"),
        **{"ARBITER_LOG_LEVEL": "info", "ARBITER_WORKERS": "2", **env_changes},
    )
    stderr = workdir / f"gunicorn-{uuid.uuid4().hex[:8]}.err"
    return gunicorn_support.start(stderr, env, capture_stdout=False, stop_timeout=STOP_TIMEOUT)


# --- Prometheus multiprocess mode -------------------------------------------------------------

STALE_PID = 4_000_000  # above any pid_max: no worker of this run has it
STALE_COUNT = 1000.0


def _plant_stale_file(metrics_dir: Path) -> Path:
    """A counter file as a worker of an earlier run would have left it."""
    path = metrics_dir / f"counter_{STALE_PID}.db"
    stale = MmapedDict(str(path))
    key = mmap_key(
        "arbiter_requests",
        "arbiter_requests_total",
        ["method", "endpoint", "status"],
        [SCORES["method"], SCORES["endpoint"], SCORES["status"]],
        "HTTP requests answered.",
    )
    stale.write_value(key, STALE_COUNT, time.time())
    stale.close()
    return path


@dataclass
class MetricsServer:
    server: Gunicorn
    metrics_dir: Path
    stale_file: Path


@pytest.fixture(scope="module")
def metrics_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MetricsServer]:
    workdir = tmp_path_factory.mktemp("operations-live")
    metrics_dir = workdir / "prometheus"
    metrics_dir.mkdir()
    stale = _plant_stale_file(metrics_dir)
    # One connection per worker at a time, and a kept-alive connection kept a minute: a client
    # holding one connection open pins it to one worker (test_counts_of_both_workers_add_up).
    server = start(
        workdir,
        PROMETHEUS_MULTIPROC_DIR=str(metrics_dir),
        ARBITER_WORKER_CONNECTIONS="1",
        ARBITER_KEEPALIVE="60",
    )
    try:
        yield MetricsServer(server, metrics_dir, stale)
    finally:
        status = _stop(server)
    assert status == 0, f"gunicorn exited with {status}:\n{server.output()[-3000:]}"


def scrape(port: int) -> str:
    status, headers, data = request(port, "GET", "/metrics")
    assert status == 200
    assert headers["content-type"].startswith("text/plain")
    return data.decode()


def test_stale_files_are_wiped_at_start(metrics_server: MetricsServer) -> None:
    assert not metrics_server.stale_file.exists()
    assert metric_value(scrape(metrics_server.server.port), "arbiter_requests_total", **SCORES) < (
        STALE_COUNT
    )


def test_counts_of_both_workers_add_up(metrics_server: MetricsServer) -> None:
    """Both workers answer, by construction: a worker holds one connection at a time
    (``ARBITER_WORKER_CONNECTIONS=1``), so while the first client keeps its connection open the
    second client's goes to the other worker; each worker's own counter file says which."""
    server = metrics_server.server
    workers = server.wait_workers(2)
    before = metric_value(scrape(server.port), "arbiter_requests_total", **SCORES)
    before_per_pid = requests_by_worker(metrics_server.metrics_dir, **SCORES)
    assert sum(before_per_pid.values()) == before

    def served() -> dict[int, float]:
        """What each process has answered since the start of this test."""
        now = requests_by_worker(metrics_server.metrics_dir, **SCORES)
        delta = {pid: n - before_per_pid.get(pid, 0.0) for pid, n in now.items()}
        return {pid: n for pid, n in delta.items() if n > 0}

    body = orjson.dumps(LOG)
    clients = [http.client.HTTPConnection(HOST, server.port, timeout=15) for _ in range(2)]
    answered_by = []
    try:
        for client in clients:  # the first stays open (kept alive) while the second connects
            assert _post_scores(client, body) == 200
            (pid,) = set(served()) - set(answered_by)
            answered_by.append(pid)
        assert set(answered_by) == workers
        for _ in range(PER_CONNECTION - 1):
            for client in clients:
                assert _post_scores(client, body) == 200
    finally:
        for client in clients:
            client.close()
    assert served() == {pid: PER_CONNECTION for pid in answered_by}  # nobody else
    sent = 2 * PER_CONNECTION
    for _ in range(6):  # whichever worker answers the scrape, the same total
        text = scrape(server.port)
        assert metric_value(text, "arbiter_requests_total", **SCORES) == before + sent
        count = metric_value(
            text,
            "arbiter_request_duration_seconds_count",
            method="POST",
            endpoint="/v1/scores",
        )
        assert count == before + sent


PER_CONNECTION = 20  # requests on each kept-alive connection (under KEEPALIVE_REQUESTS)


def _post_scores(client: http.client.HTTPConnection, body: bytes) -> int:
    client.request("POST", "/v1/scores", body, {"Content-Type": "application/json"})
    response = client.getresponse()
    response.read()
    assert not response.will_close  # the connection, and so the worker, stays the same
    return response.status


def _series(text: str) -> dict[str, float]:
    """Every arbiter_requests_total sample of /v1/ endpoints, by its line's labels."""
    out = {}
    for line in text.splitlines():
        match = re.match(r'(arbiter_requests_total\{[^}]*endpoint="/v1/[^}]*\}) (\S+)$', line)
        if match:
            out[match.group(1)] = float(match.group(2))
    return out


def test_counts_survive_a_killed_worker(metrics_server: MetricsServer) -> None:
    server = metrics_server.server
    for _ in range(6):
        assert post_json(server.port, "/v1/scores", LOG)[0] == 200
    workers = server.wait_workers(2)
    before = _series(scrape(server.port))
    assert before
    victim = min(workers)
    files = {p.name for p in metrics_server.metrics_dir.glob(f"*_{victim}.db")}
    os.kill(victim, signal.SIGKILL)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        now = server.workers()
        if len(now) == 2 and victim not in now:
            break
        time.sleep(0.05)
    else:
        raise AssertionError(f"gunicorn did not replace worker {victim}: {server.workers()}")
    # the dead worker's counters stay and are still added up
    assert files <= {p.name for p in metrics_server.metrics_dir.glob(f"*_{victim}.db")}
    after = _series(scrape(server.port))
    assert after == before
    for _ in range(4):
        assert post_json(server.port, "/v1/scores", LOG)[0] == 200
    text = scrape(server.port)
    key = next(k for k in before if 'endpoint="/v1/scores"' in k and 'status="200"' in k)
    assert _series(text)[key] == before[key] + 4


# --- JSON access logs ---------------------------------------------------------------------------


def _access_lines(server: Gunicorn, wanted: set[str], timeout: float = 5.0) -> list[Any]:
    """The JSON access lines of stderr whose request id is in ``wanted`` (waits, bounded, for
    the lines a worker writes just after its answer)."""
    deadline = time.monotonic() + timeout
    while True:
        lines = []
        for raw in server.output().splitlines():
            if not raw.startswith("{"):
                continue
            line = json.loads(raw)  # every line that looks like JSON is one whole JSON object
            if line.get("logger") == "arbiter.access" and line.get("request_id") in wanted:
                lines.append(line)
        if {line["request_id"] for line in lines} == wanted or time.monotonic() > deadline:
            return lines
        time.sleep(0.05)


def test_one_json_access_line_per_request(metrics_server: MetricsServer) -> None:
    server = metrics_server.server
    port = server.port
    mid = {**random_log("tute-2p", random.Random(5), finish_last=False, stop_after=9)}
    mid["players"] = PLAYERS
    move = arbiter.replay(mid).to_dict()["next"]["legal_moves"][0]
    tag = uuid.uuid4().hex[:8]
    sent: list[tuple[str, str, str, Any, int, str | None]] = [
        (f"{tag}-0", "POST", "/v1/replays", LOG, 200, "tute-2p"),
        (f"{tag}-1", "POST", "/v1/moves/validate", {**mid, "move": move}, 200, "tute-2p"),
        (f"{tag}-2", "POST", "/v1/replays", {**LOG, "deals": "x"}, 422, "tute-2p"),
        (f"{tag}-3", "GET", "/v1/rulesets/tute-4p", None, 200, None),
        (f"{tag}-4", "GET", "/nope", None, 404, None),
        (f"{tag}-5", "GET", "/healthz", None, 200, None),
        (f"{tag}-6", "GET", "/metrics", None, 200, None),
    ]
    for request_id, method, path, payload, status, _ruleset in sent:
        headers = {"X-Request-ID": request_id}
        body = None
        if payload is not None:
            body = orjson.dumps(payload)
            headers["Content-Type"] = "application/json"
        got, answer_headers, _ = request(port, method, path, body, headers)
        assert got == status, path
        assert answer_headers["x-request-id"] == request_id
        assert re.fullmatch(r"[A-Za-z]*", answer_headers.get("server", "")), answer_headers
    lines = _access_lines(server, {s[0] for s in sent})
    assert Counter(line["request_id"] for line in lines) == {s[0]: 1 for s in sent}
    by_id = {line["request_id"]: line for line in lines}
    for request_id, method, path, _payload, status, ruleset in sent:
        line = by_id[request_id]
        assert line["level"] == "info"
        assert line["method"] == method
        assert line["path"] == path
        assert line["status"] == status
        assert line["ruleset"] == ruleset
        assert isinstance(line["duration_ms"], float | int)
        assert 0 <= line["duration_ms"] < 10_000
    output = server.output()
    for name in PLAYERS:
        assert name not in output
    # gunicorn's own lines are the only ones that are not JSON
    for raw in output.splitlines():
        assert raw.startswith("{") or raw.startswith("["), raw[:200]


# --- graceful shutdown --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "worker_env",
    [
        {},  # the shipped worker class, arbiter.worker.Worker (gevent)
        {"ARBITER_WORKER_CLASS": "sync"},
        {"ARBITER_WORKER_CLASS": "gthread", "GUNICORN_CMD_ARGS": "--threads 4"},
    ],
    ids=["shipped", "sync", "gthread"],
)
def test_request_in_flight_survives_sigterm(tmp_path: Path, worker_env: dict[str, str]) -> None:
    """Headers and half of a large body, SIGTERM to the master, then the rest of the body: the
    answer is complete and right, and the master exits 0 within the graceful timeout."""
    server = start(tmp_path, ARBITER_GRACEFUL_TIMEOUT=str(GRACEFUL_TIMEOUT), **worker_env)
    try:
        workers = server.wait_workers(2)
        body = padded_body(LOG, 600_000)  # well under the 1 MiB limit
        half = len(body) // 2
        head = (
            f"POST /v1/replays HTTP/1.1\r\nHost: {HOST}:{server.port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
            "X-Request-ID: graceful-1\r\nExpect: 100-continue\r\n\r\n"
        ).encode()
        with socket.create_connection((HOST, server.port), timeout=15) as sock:
            sock.sendall(head)
            # gunicorn answers 100 Continue once a worker has parsed the headers: the request
            # is in a worker, which is now waiting for the body
            interim = b""
            while b"\r\n\r\n" not in interim:
                chunk = sock.recv(1)
                assert chunk, "connection closed before 100 Continue"
                interim += chunk
            assert interim.startswith(b"HTTP/1.1 100"), interim
            sock.sendall(body[:half])
            time.sleep(0.2)
            signalled = time.monotonic()
            server.process.send_signal(signal.SIGTERM)
            # the idle worker leaves at once: the SIGTERM has reached the workers
            deadline = time.monotonic() + 5
            while len(server.workers()) > 1 and time.monotonic() < deadline:
                time.sleep(0.02)
            assert len(server.workers() & workers) == 1, server.workers()
            assert server.process.poll() is None  # the master waits for the busy worker
            time.sleep(0.3)
            sock.sendall(body[half:])
            status, headers, data = read_response(sock)
        assert status == 200, data[:300]
        assert headers["x-request-id"] == "graceful-1"
        answer = orjson.loads(data)
        answer.pop("state_id")
        expected = arbiter.replay(LOG).to_dict()
        expected.pop("state_id")
        assert answer == expected
        code = server.process.wait(timeout=GRACEFUL_TIMEOUT + 5)
        elapsed = time.monotonic() - signalled
        assert code == 0, server.output()[-3000:]
        assert elapsed < GRACEFUL_TIMEOUT, elapsed
        assert "SIGKILL" not in server.output()
    finally:
        _stop(server)


def test_sigterm_with_idle_workers_exits_at_once(tmp_path: Path) -> None:
    server = start(tmp_path, ARBITER_GRACEFUL_TIMEOUT=str(GRACEFUL_TIMEOUT))
    try:
        assert request(server.port, "GET", "/healthz")[0] == 200
        signalled = time.monotonic()
        server.process.send_signal(signal.SIGTERM)
        assert server.process.wait(timeout=GRACEFUL_TIMEOUT + 5) == 0
        assert time.monotonic() - signalled < 3.0
    finally:
        _stop(server)
