"""State tokens across gunicorn workers and servers, as an online table meets them.

Each server is one gunicorn with the shipped ``deploy/gunicorn.conf.py`` on a free loopback port;
every request goes on a fresh connection (as behind a load balancer), so the kernel hands it to
either worker. Which worker answered is read from gunicorn's access log, written with the format
``<<worker pid>> <X-Request-ID> <status>`` (``--access-logformat``: the service itself says
nothing about its process). gunicorn is always stopped with SIGTERM and its exit status checked.

- With the settings of ``make run`` (no key, no Redis: the gunicorn master draws one key that
  its two workers share, and each worker has its own in-process cache), a whole decided match of
  every ruleset is validated move by move by token alone, the matches side by side: no 409,
  both workers answer, a token issued by one worker is opened by the other, and every verdict is
  the library's full-log verdict (tests/positions_support.py).
- With ``REDIS_URL`` (a private ``redis-server``, so that it can be killed) and a configured
  ``ARBITER_STATE_KEY``: the same, with Redis killed while every match is half way through.
- Between servers: a token sealed under one key is refused (409) by a server with another —
  also two servers that each drew their own key — and ``ARBITER_STATE_KEYS=new,old`` opens the
  old key's tokens and seals with the new one.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import arbiter
from arbiter.tokens import Sealer, TokenError
from tests import gunicorn_support
from tests.positions_support import (
    TABLES,
    assert_token_ends,
    decided_match,
    prefix,
    walk_by_token,
    without_state_id,
)
from tests.redis_support import RedisProcess, free_port

# Live gunicorns of two workers (and a Redis killed under them): not in the quick loop.
pytestmark = pytest.mark.slow

WORKERS = 2
BOOT_TIMEOUT = 20.0
OLD_KEY = "two-workers-old-key-0123456789abcdef"
NEW_KEY = "two-workers-new-key-fedcba9876543210"
#: Matches walked side by side: enough to keep both workers busy on two shared cores.
PARALLEL = 3


@dataclass
class Server(gunicorn_support.Gunicorn):
    access_log: Path

    def pids_of(self, request_ids: list[str], timeout: float = 5.0) -> dict[str, int]:
        """The worker pid that answered each request (the access log line may be written just
        after the client has read the response: wait for it, bounded)."""
        deadline = time.monotonic() + timeout
        wanted = set(request_ids)
        while True:
            found: dict[str, int] = {}
            for parts in gunicorn_support.access_fields(self.access_log):
                if len(parts) == 3 and parts[1] in wanted:
                    found[parts[1]] = int(parts[0])
            if len(found) == len(wanted) or time.monotonic() > deadline:
                missing = wanted - found.keys()
                assert not missing, f"no access log line for {sorted(missing)[:5]}"
                return found
            time.sleep(0.02)

    def get(self, path: str) -> Any:
        answer = gunicorn_support.request(self.port, "GET", path)
        assert answer.status == 200, answer
        return answer.json()


class Client:
    """Requests to one server, each on a fresh connection and tagged with a new request id
    (in order, so the walk's hand-offs between workers can be read from the access log)."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.request_ids: list[str] = []

    def post(self, path: str, payload: Mapping[str, Any]) -> tuple[int, Any]:
        request_id = uuid.uuid4().hex
        self.request_ids.append(request_id)
        answer = gunicorn_support.post_json(
            self.server.port, path, payload, {"X-Request-ID": request_id}
        )
        try:
            body = json.loads(answer.body)
        except ValueError:
            body = answer.body.decode(errors="replace")
        return answer.status, body

    def workers_in_order(self) -> list[int]:
        pids = self.server.pids_of(self.request_ids)
        return [pids[i] for i in self.request_ids]


@contextlib.contextmanager
def running(workdir: Path, workers: int = WORKERS, **env: str) -> Iterator[Server]:
    """A gunicorn with the shipped config and ``env`` (over an environment without the
    caller's ``ARBITER_*``/``REDIS_*``), once ``/healthz`` answers and all workers are up."""
    workdir.mkdir(parents=True, exist_ok=True)
    output, access_log = workdir / "gunicorn.out", workdir / "access.log"
    access_log.touch()
    environment = gunicorn_support.environment(
        ARBITER_WORKERS=str(workers), ARBITER_ACCESS_LOG=str(access_log), **env
    )
    booted = gunicorn_support.start(
        output,
        environment,
        args=["--access-logformat", gunicorn_support.ACCESS_FORMAT],
        workers=workers,
        boot_timeout=BOOT_TIMEOUT,
    )
    with gunicorn_support.until_stopped(
        Server(booted.port, booted.process, booted.log, access_log)
    ) as server:
        yield server


@pytest.fixture(scope="module")
def default_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The settings of ``make run``: no key, no Redis; only the worker count and the access
    log are set."""
    with running(tmp_path_factory.mktemp("default")) as server:
        yield server


def the_matches() -> list[dict[str, Any]]:
    """A decided match of every ruleset and number of players, some dealt with ``deck``."""
    return [
        decided_match(ruleset, players, seed, as_deck=seed % 2 == 1)
        for seed, (ruleset, players) in enumerate(TABLES, 40)
    ]


def walk_side_by_side(
    server: Server,
    logs: list[dict[str, Any]],
    midway: Callable[[], None] | None = None,
) -> list[tuple[Client, list[str]]]:
    """Walk every log by token (:func:`walk_by_token`), :data:`PARALLEL` at a time; with
    ``midway``, all the walks meet half way through their moves and ``midway()`` runs once
    before any goes on. The clients and the tokens of each walk."""
    meeting = threading.Barrier(len(logs), action=midway, timeout=60) if midway else None

    def walk(log: dict[str, Any]) -> tuple[Client, list[str]]:
        client = Client(server)
        half = sum(len(d["events"]) for d in log["deals"]) // 2

        def before_move(index: int) -> None:
            if meeting is not None and index == half:
                meeting.wait()

        try:
            return client, walk_by_token(client.post, log, before_move=before_move).tokens
        except BaseException:
            if meeting is not None:
                meeting.abort()  # the others stop waiting: this failure is the one to report
            raise

    workers = len(logs) if midway else PARALLEL  # walks that meet must all run at once
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(walk, log) for log in logs]
    errors = [e for e in (f.exception() for f in futures) if e is not None]
    if errors:  # the failure itself rather than the walks it left waiting
        real = [e for e in errors if not isinstance(e, threading.BrokenBarrierError)]
        raise (real or errors)[0]
    return [f.result() for f in futures]


def assert_both_workers_took_turns(server: Server, clients: list[Client]) -> None:
    """Every worker answered, and some token issued by one worker was opened by the other."""
    sequences = [c.workers_in_order() for c in clients]
    assert set(itertools.chain(*sequences)) == server.workers()
    handoffs = sum(a != b for seq in sequences for a, b in itertools.pairwise(seq))
    assert handoffs >= 1, sequences


def validate(server: Server, payload: Mapping[str, Any]) -> tuple[int, Any]:
    return Client(server).post("/v1/moves/validate", payload)


def assert_refused(answer: tuple[int, Any]) -> None:
    status, body = answer
    assert status == 409, body
    assert body["type"].endswith("/unknown-state"), body


# --- tests ------------------------------------------------------------------------------------


def test_every_ruleset_by_token_alone_with_the_settings_of_make_run(
    default_server: Server,
) -> None:
    assert default_server.get("/readyz") == {
        "status": "ready",
        "cache": {"backend": "memory", "reachable": True},
    }
    logs = the_matches()
    walks = walk_side_by_side(default_server, logs)
    assert_both_workers_took_turns(default_server, [client for client, _ in walks])
    # the full log of each match still gets the library's answer (from either worker's cache)
    client = Client(default_server)
    for log in logs:
        status, body = client.post("/v1/replays", log)
        assert status == 200
        assert without_state_id(body) == without_state_id(arbiter.replay(log).to_dict())


def test_redis_configured_then_killed_mid_match(tmp_path: Path) -> None:
    redis = RedisProcess(free_port(), tmp_path)
    redis.start()
    try:
        settings = {
            "REDIS_URL": redis.url,
            "ARBITER_STATE_KEY": OLD_KEY,
            "ARBITER_CACHE_MIN_EVENTS": "0",
        }
        with running(tmp_path / "gunicorn", **settings) as srv:
            assert srv.get("/readyz") == {
                "status": "ready",
                "cache": {"backend": "redis", "reachable": True},
            }
            logs = the_matches()
            # full logs of the first halves are cached in Redis: the server does use it
            stored = Client(srv)
            for log in logs:
                assert stored.post("/v1/replays", prefix(log, 0, 10))[0] == 200
            with redis.client() as admin:
                assert admin.dbsize() >= len(logs)

            walks = walk_side_by_side(srv, logs, midway=redis.kill)
            assert not redis.running
            assert_both_workers_took_turns(srv, [client for client, _ in walks])
            for log, (_, tokens) in zip(logs, walks, strict=True):
                assert_token_ends(tokens[-1], [OLD_KEY], log)
            assert srv.get("/readyz") == {
                "status": "degraded",
                "cache": {"backend": "redis", "reachable": False},
            }
            # full logs are answered without the cache, exactly
            for log in logs[:2]:
                status, body = stored.post("/v1/replays", log)
                assert status == 200
                assert without_state_id(body) == without_state_id(arbiter.replay(log).to_dict())
    finally:
        redis.close()


def test_tokens_between_servers_and_key_rotation(default_server: Server, tmp_path: Path) -> None:
    log = decided_match("tute-2p", 2, 7)
    start = prefix(log, 0, 0)
    first, second = log["deals"][0]["events"][:2]
    with contextlib.ExitStack() as stack:
        boots = {
            "drawn": {},  # another server with no key: it draws its own
            "old": {"ARBITER_STATE_KEY": OLD_KEY},
            "rotated": {"ARBITER_STATE_KEYS": f"{NEW_KEY},{OLD_KEY}"},
        }
        with ThreadPoolExecutor(max_workers=len(boots)) as pool:
            futures = {
                name: pool.submit(stack.enter_context, running(tmp_path / name, 1, **env))
                for name, env in boots.items()
            }
        servers = {name: f.result() for name, f in futures.items()}
        servers["default"] = default_server

        tokens = {}
        for name, server in servers.items():
            status, body = Client(server).post("/v1/replays", start)
            assert status == 200
            tokens[name] = body["state_id"]
        expected = arbiter.validate(start, first).to_dict()
        for holder, token in tokens.items():
            for name, server in servers.items():
                answer = validate(server, {"state_id": token, "move": first})
                opens = name == holder or (holder, name) == ("old", "rotated")
                if not opens:
                    assert_refused(answer)
                    continue
                status, body = answer
                assert status == 200, (holder, name, body)
                assert without_state_id(body) == without_state_id(expected)

        # the rotated server seals with the new key only: its tokens no longer open on the old
        # server, and open with the new key alone
        status, body = validate(servers["rotated"], {"state_id": tokens["old"], "move": first})
        assert status == 200
        resealed = body["state_id"]
        for token in (tokens["rotated"], resealed):
            assert_refused(validate(servers["old"], {"state_id": token, "move": first}))
            Sealer([NEW_KEY]).open(token)
            with pytest.raises(TokenError):
                Sealer([OLD_KEY]).open(token)
        status, body = validate(servers["rotated"], {"state_id": resealed, "move": second})
        assert status == 200
        expected = arbiter.validate(prefix(log, 0, 1), second).to_dict()
        assert without_state_id(body) == without_state_id(expected)
