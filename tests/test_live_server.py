"""The shipped deployment over real HTTP: gunicorn with deploy/gunicorn.conf.py on loopback.

One gunicorn (two sync workers) is started for the module on a free 127.0.0.1 port, probed on
``/healthz`` with a bounded wait, and always stopped with SIGTERM (the graceful shutdown a
process manager sends), whose exit status is checked too.
"""

from __future__ import annotations

import random
import tempfile
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import arbiter
from arbiter.simulate import random_log
from tests import gunicorn_support
from tests.api_support import assert_problem
from tests.gunicorn_support import Answer, request
from tests.gunicorn_support import Gunicorn as Server

# A live gunicorn: not in the quick loop.
pytestmark = pytest.mark.slow

WORKERS = 2


def post_json(server: Server, path: str, payload: Any, **headers: str) -> Answer:
    return gunicorn_support.post_json(server.port, path, payload, headers)


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    # The shipped defaults, whatever this shell exports: no ARBITER_* override and no Redis
    # (REDIS_URL would point the cache off the machine).
    env = gunicorn_support.environment(ARBITER_LOG_LEVEL="warning")
    with tempfile.TemporaryDirectory(prefix="arbiter-live-") as tmp:
        srv = gunicorn_support.start(
            Path(tmp) / "gunicorn.out", env, args=["--workers", str(WORKERS)], bind_option=True
        )
        with gunicorn_support.until_stopped(srv):
            yield srv


# --- tests --------------------------------------------------------------------------------


def test_healthz_and_request_id(server: Server) -> None:
    answer = request(server.port, "GET", "/healthz", headers={"X-Request-ID": "live-test-1"})
    assert answer.status == 200
    assert answer.json() == {"status": "ok", "version": arbiter.__version__, "build": arbiter.BUILD}
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


def test_problem_for_a_wrong_deal(server: Server) -> None:
    log = random_log("tute-2p", random.Random(6))
    twice = log["deals"][0]["hands"][0][0]
    log["deals"][0]["hands"][1][0] = twice  # one card dealt twice, another missing
    problem = assert_problem(post_json(server, "/v1/replays", log), 422)
    assert problem["errors"] == [
        {
            "pointer": "/deals/0/hands/1/0",
            "message": f"{twice} appears twice (also at hands/0/0)",
            "code": "invalid",
            "params": {},
        }
    ]


def test_problem_for_bad_json_media_type_and_unknown_ruleset(server: Server) -> None:
    assert_problem(
        request(server.port, "POST", "/v1/replays", b"{nope", {"Content-Type": "application/json"}),
        400,
    )
    assert_problem(
        request(server.port, "POST", "/v1/replays", b"{}", {"Content-Type": "text/plain"}), 415
    )
    assert_problem(request(server.port, "GET", "/v1/rulesets/tute-99p"), 404)


def test_problem_for_a_body_over_the_limit(server: Server) -> None:
    body = b'{"pad": "' + b"x" * (1024 * 1024) + b'"}'
    answer = request(server.port, "POST", "/v1/replays", body, {"Content-Type": "application/json"})
    assert_problem(answer, 413)


def test_state_id_round_trips_across_workers(server: Server) -> None:
    """A ``state_id`` from one answer, sent back with the next move, while other clients keep
    both workers busy. Every answer must be a 200 or a well-formed 409 (docs/api.md: unknown or
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
                assert_problem(answer, 409)
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
