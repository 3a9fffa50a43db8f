"""The shipped deployment over real HTTP: gunicorn with deploy/gunicorn.conf.py on loopback.

One gunicorn (two sync workers) is started for the module on a free 127.0.0.1 port, probed on
``/healthz`` with a bounded wait, and always stopped with SIGTERM (the graceful shutdown a
process manager sends), whose exit status is checked too.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import pytest

import arbiter
from arbiter.simulate import random_log

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "deploy" / "gunicorn.conf.py"
HOST = "127.0.0.1"
WORKERS = 2
BOOT_TIMEOUT = 30.0  # seconds for gunicorn to answer /healthz
STOP_TIMEOUT = 30.0  # graceful_timeout is 20 s; idle workers stop at once


@dataclass
class Server:
    port: int
    process: subprocess.Popen[bytes]
    log: IO[bytes]

    def output(self) -> str:
        self.log.flush()
        self.log.seek(0)
        return self.log.read().decode("utf-8", "replace")[-4000:]


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


def request(
    server: Server,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> Answer:
    conn = http.client.HTTPConnection(HOST, server.port, timeout=10)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        data = response.read()
        return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, data)
    finally:
        conn.close()


def post_json(server: Server, path: str, payload: Any, **headers: str) -> Answer:
    body = json.dumps(payload).encode()
    return request(server, "POST", path, body, {"Content-Type": "application/json", **headers})


def _wait_healthy(server: Server) -> None:
    deadline = time.monotonic() + BOOT_TIMEOUT
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"gunicorn exited with {server.process.returncode}")
        try:
            if request(server, "GET", "/healthz").status == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise TimeoutError(f"gunicorn did not answer /healthz within {BOOT_TIMEOUT} s")


def _stop(server: Server) -> int:
    if server.process.poll() is None:
        server.process.send_signal(signal.SIGTERM)
    try:
        return server.process.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait(timeout=10)
        raise


def _start(log: IO[bytes]) -> Server:
    # The shipped defaults, whatever this shell exports: no ARBITER_* override and no Redis
    # (REDIS_URL would point the cache off the machine).
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARBITER_", "REDIS_"))}
    env["ARBITER_LOG_LEVEL"] = "warning"
    for _attempt in range(3):  # the free port may be taken between the probe and the bind
        port = _free_port()
        log.seek(0)
        log.truncate()
        argv = [sys.executable, "-m", "gunicorn", "--config", str(CONFIG)]
        argv += ["--bind", f"{HOST}:{port}", "--workers", str(WORKERS), "arbiter.wsgi:app"]
        process = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        server = Server(port, process, log)
        try:
            _wait_healthy(server)
            return server
        except RuntimeError:  # exited during boot: retry on another port
            _stop(server)
            output = server.output()
            if "in use" not in output:  # gunicorn: "Connection in use"
                raise RuntimeError(f"gunicorn failed to boot:\n{output}") from None
        except BaseException:
            _stop(server)
            raise
    raise RuntimeError("no free loopback port for gunicorn after 3 attempts")


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with tempfile.TemporaryFile() as log:
        srv = _start(log)
        try:
            yield srv
        finally:
            status = _stop(srv)
        assert status == 0, f"gunicorn exited with {status} after SIGTERM:\n{srv.output()}"


# --- tests --------------------------------------------------------------------------------


def test_healthz_and_request_id(server: Server) -> None:
    answer = request(server, "GET", "/healthz", headers={"X-Request-ID": "live-test-1"})
    assert answer.status == 200
    assert answer.json() == {"status": "ok"}
    assert answer.headers["x-request-id"] == "live-test-1"
    assert answer.headers["content-type"] == "application/json"


def _without_state_id(body: dict[str, Any]) -> dict[str, Any]:
    """The answer minus ``state_id``, which must be null or an opaque string: the library
    has no cache and always says null."""
    body = dict(body)
    state_id = body.pop("state_id")
    assert state_id is None or (isinstance(state_id, str) and state_id)
    return body


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_replay_matches_library(server: Server, seed: int) -> None:
    log = random_log("tute-2p", random.Random(seed), renuncio_rate=0.05)
    answer = post_json(server, "/v1/replays", log)
    assert answer.status == 200, answer.body[:300]
    assert answer.headers["content-type"] == "application/json"
    expected = arbiter.replay(log).to_dict()
    assert _without_state_id(answer.json()) == _without_state_id(expected)


def test_replay_in_spanish(server: Server) -> None:
    log = random_log("tute-2p", random.Random(4), renuncio_rate=0.2)
    answer = post_json(server, "/v1/replays", log, **{"Accept-Language": "es"})
    assert answer.status == 200
    expected = arbiter.replay(log).to_dict("es")
    assert _without_state_id(answer.json()) == _without_state_id(expected)


def test_validate_mid_deal_matches_library(server: Server) -> None:
    log = random_log("tute-2p", random.Random(5), finish_last=False, stop_after=21)
    move = arbiter.replay(log).to_dict()["next"]["legal_moves"][0]
    answer = post_json(server, "/v1/moves/validate", {**log, "move": move})
    assert answer.status == 200
    expected = arbiter.validate(log, move).to_dict()
    assert _without_state_id(answer.json()) == _without_state_id(expected)
    assert answer.json()["verdict"] == "ok"


def _problem(answer: Answer, status: int) -> dict[str, Any]:
    assert answer.status == status, answer.body[:300]
    assert answer.headers["content-type"] == "application/problem+json"
    problem: dict[str, Any] = answer.json()
    assert problem["status"] == status
    assert {"type", "title", "detail", "request_id"} <= problem.keys()
    assert "Traceback" not in answer.body.decode()
    return problem


def test_problem_for_a_wrong_deal(server: Server) -> None:
    log = random_log("tute-2p", random.Random(6))
    twice = log["deals"][0]["hands"][0][0]
    log["deals"][0]["hands"][1][0] = twice  # one card dealt twice, another missing
    problem = _problem(post_json(server, "/v1/replays", log), 422)
    assert problem["errors"] == [
        {"pointer": "/deals/0/hands/1/0", "message": f"{twice} appears twice (also at hands/0/0)"}
    ]


def test_problem_for_bad_json_media_type_and_unknown_ruleset(server: Server) -> None:
    _problem(
        request(server, "POST", "/v1/replays", b"{nope", {"Content-Type": "application/json"}), 400
    )
    _problem(request(server, "POST", "/v1/replays", b"{}", {"Content-Type": "text/plain"}), 415)
    _problem(request(server, "GET", "/v1/rulesets/tute-99p"), 404)


def test_problem_for_a_body_over_the_limit(server: Server) -> None:
    body = b'{"pad": "' + b"x" * (1024 * 1024) + b'"}'
    answer = request(server, "POST", "/v1/replays", body, {"Content-Type": "application/json"})
    _problem(answer, 413)


def test_state_id_round_trips_across_workers(server: Server) -> None:
    """A ``state_id`` from one answer, sent back with the next move, while other clients keep
    both workers busy. Every answer must be a 200 or a well-formed 409 (API.md: unknown or
    expired, resend the full log); a 409 means the id went to the worker that did not make it."""
    busy = random_log("tute-2p", random.Random(8))
    log = random_log("tute-2p", random.Random(5), finish_last=False, stop_after=21)
    stop = threading.Event()

    def keep_busy() -> None:
        while not stop.is_set():
            post_json(server, "/v1/replays", busy)

    threads = [threading.Thread(target=keep_busy, daemon=True) for _ in range(WORKERS)]
    for thread in threads:
        thread.start()
    statuses: Counter[int] = Counter()
    try:
        for _ in range(30):
            first = post_json(server, "/v1/replays", log)
            assert first.status == 200
            state_id = first.json()["state_id"]
            move = first.json()["next"]["legal_moves"][0]
            answer = post_json(server, "/v1/moves/validate", {"state_id": state_id, "move": move})
            statuses[answer.status] += 1
            if answer.status == 409:
                _problem(answer, 409)
            else:
                assert answer.status == 200, answer.body[:300]
                assert answer.json()["verdict"] == "ok"
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=15)
    # With the shipped defaults each worker has its own in-process cache and key (README):
    # an id may come back to the other worker, which answers the documented 409.
    assert statuses[200] + statuses[409] == sum(statuses.values()) == 30, dict(statuses)
