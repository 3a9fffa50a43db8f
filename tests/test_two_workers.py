"""State ids across gunicorn workers with the shared Redis cache.

One gunicorn with the shipped ``deploy/gunicorn.conf.py`` and two sync workers is started for
the module on a free loopback port, with ``REDIS_URL`` on database :data:`DB` of the Redis on
127.0.0.1:6379 (emptied before and after) and a fixed ``ARBITER_STATE_KEY``: the setup under
which docs/api.md's promise holds that a ``state_id`` from one answer is good for the next request,
whichever worker takes it. Every request goes on a fresh connection, as after a load balancer.

Which worker answered is read from gunicorn's access log, written with the format
``<<worker pid>> <X-Request-ID> <status>`` (``--access-logformat``; the service itself says
nothing about its process). gunicorn is always stopped with SIGTERM and its exit status checked.
"""

from __future__ import annotations

import itertools
import json
import random
import tempfile
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from redis import Redis
from redis.exceptions import RedisError

import arbiter
from arbiter.simulate import random_log
from tests import gunicorn_support
from tests.gunicorn_support import HOST
from tests.redis_support import DB_BASE

DB = DB_BASE + 1
REDIS_URL = f"redis://{HOST}:6379/{DB}"
WORKERS = 2
BOOT_TIMEOUT = 20.0
ACCESS_FORMAT = "%(p)s %({x-request-id}i)s %(s)s"


@dataclass
class Gunicorn(gunicorn_support.Gunicorn):
    access_log: Path

    def pids_of(self, request_ids: list[str], timeout: float = 5.0) -> dict[str, int]:
        """The worker pid that answered each request (the access log line may be written just
        after the client has read the response: wait for it, bounded)."""
        deadline = time.monotonic() + timeout
        wanted = set(request_ids)
        while True:
            found: dict[str, int] = {}
            for line in self.access_log.read_text().splitlines():
                parts = line.split()
                if len(parts) == 3 and parts[1] in wanted:
                    found[parts[1]] = int(parts[0].strip("<>"))  # gunicorn writes <pid>
            if len(found) == len(wanted) or time.monotonic() > deadline:
                missing = wanted - found.keys()
                assert not missing, f"no access log line for {sorted(missing)[:5]}"
                return found
            time.sleep(0.02)


@dataclass
class Answer:
    status: int
    body: Any
    request_id: str


def post(server: Gunicorn, path: str, payload: Any) -> Answer:
    """One POST on a fresh connection, tagged with a new request id."""
    request_id = uuid.uuid4().hex
    answer = gunicorn_support.post_json(server.port, path, payload, {"X-Request-ID": request_id})
    try:
        body = json.loads(answer.body)
    except ValueError:
        body = answer.body.decode(errors="replace")
    return Answer(answer.status, body, request_id)


def get(server: Gunicorn, path: str) -> Answer:
    answer = gunicorn_support.request(server.port, "GET", path)
    return Answer(answer.status, answer.json(), "")


def _redis() -> Redis:
    client = Redis.from_url(REDIS_URL, socket_timeout=2, socket_connect_timeout=2)
    try:
        client.ping()
    except RedisError as err:
        pytest.fail(f"these tests need the Redis on {HOST}:6379 ({err})")
    return client


@pytest.fixture(scope="module")
def redis_db() -> Iterator[Redis]:
    client = _redis()
    client.flushdb()
    try:
        yield client
    finally:
        client.flushdb()
        client.close()


@pytest.fixture(scope="module")
def server(redis_db: Redis) -> Iterator[Gunicorn]:
    with tempfile.TemporaryDirectory(prefix="arbiter-two-workers-") as tmp:
        output, access_log = Path(tmp) / "gunicorn.out", Path(tmp) / "access.log"
        access_log.touch()
        env = gunicorn_support.environment(
            REDIS_URL=REDIS_URL,
            ARBITER_STATE_KEY="two-workers-test-key",
            ARBITER_WORKERS=str(WORKERS),
            ARBITER_LOG_LEVEL="warning",
            ARBITER_ACCESS_LOG=str(access_log),
        )
        # ready once /healthz answers and both workers are up
        args = ["--access-logformat", ACCESS_FORMAT]
        booted = gunicorn_support.start(
            output, env, args=args, workers=WORKERS, boot_timeout=BOOT_TIMEOUT
        )
        srv = Gunicorn(booted.port, booted.process, booted.log, access_log)
        try:
            yield srv
        finally:
            status = gunicorn_support.stop(srv)
        assert status == 0, f"gunicorn exited with {status} after SIGTERM:\n{srv.tail()}"


def _in_progress(seed: int, events: int) -> dict[str, Any]:
    """A two-deal tute-2p log whose second deal stops after ``events`` events."""
    log = random_log(
        "tute-2p",
        random.Random(seed),
        deals=2,
        finish_last=False,
        stop_after=events,
        options={"match_target": 5},
    )
    assert len(log["deals"]) == 2
    assert len(log["deals"][1]["events"]) == events
    return log


def _without_state_id(body: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in body.items() if k != "state_id"}


# --- tests ------------------------------------------------------------------------------------


def test_readyz_reports_the_shared_redis(server: Gunicorn) -> None:
    answer = get(server, "/readyz")
    assert answer.status == 200
    assert answer.body == {"status": "ready", "cache": {"backend": "redis", "reachable": True}}


def test_a_state_id_is_accepted_by_every_worker(server: Gunicorn, redis_db: Redis) -> None:
    """A state_id from a replay, sent back with the next move many times on fresh
    connections (four at a time, so both workers take some): every answer is a 200 with the
    library's verdict and the same next state id, from both workers."""
    log = _in_progress(1, 10)
    first = post(server, "/v1/replays", log)
    assert first.status == 200, first.body
    assert _without_state_id(first.body) == _without_state_id(arbiter.replay(log).to_dict())
    state_id = first.body["state_id"]
    move = first.body["next"]["legal_moves"][0]
    expected = _without_state_id(arbiter.validate(log, move).to_dict())
    assert expected["verdict"] == "ok"
    assert redis_db.dbsize() >= 1

    payload = {"state_id": state_id, "move": move}
    answers: list[Answer] = []
    with ThreadPoolExecutor(max_workers=4) as pool:
        while len(answers) < 200:
            answers += pool.map(lambda _: post(server, "/v1/moves/validate", payload), range(40))
            pids = server.pids_of([a.request_id for a in answers])
            if len(set(pids.values())) == WORKERS:
                break
    assert [a.status for a in answers] == [200] * len(answers), [a.body for a in answers][:3]
    assert all(_without_state_id(a.body) == expected for a in answers)
    assert len({a.body["state_id"] for a in answers}) == 1
    assert answers[0].body["state_id"] != state_id
    assert set(pids.values()) == server.workers()
    issuer = server.pids_of([first.request_id])[first.request_id]
    assert any(pid != issuer for pid in pids.values())


def test_validate_ids_chain_through_a_deal_across_workers(server: Gunicorn) -> None:
    """Move by move with state ids only, each on a fresh connection: the id each answer gives
    is accepted by the next request, also when the other worker takes it; the last id is
    the id of the whole log's replay."""
    log = _in_progress(2, 0)
    full = random_log("tute-2p", random.Random(2), deals=2, options={"match_target": 5})
    assert full["deals"][0] == log["deals"][0]
    assert {k: v for k, v in full["deals"][1].items() if k != "events"} == {
        k: v for k, v in log["deals"][1].items() if k != "events"
    }
    first = post(server, "/v1/replays", log)
    assert first.status == 200, first.body
    state_id = first.body["state_id"]
    moves = full["deals"][1]["events"]
    answers = [first]
    for j, move in enumerate(moves):
        answer = post(server, "/v1/moves/validate", {"state_id": state_id, "move": move})
        assert answer.status == 200, (j, answer.body)
        assert answer.body["verdict"] == "ok", (j, answer.body)
        state_id = answer.body["state_id"]
        answers.append(answer)
    pids = server.pids_of([a.request_id for a in answers])
    sequence = [pids[a.request_id] for a in answers]
    handoffs = sum(1 for a, b in itertools.pairwise(sequence) if a != b)
    assert set(sequence) == server.workers()
    assert handoffs >= 1, sequence

    whole = post(server, "/v1/replays", full)
    assert whole.status == 200
    assert whole.body["state_id"] == state_id
    assert _without_state_id(whole.body) == _without_state_id(arbiter.replay(full).to_dict())
